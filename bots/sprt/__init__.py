"""Version A/B tests: is NEW stronger than BASE? A generalized SPRT on game pairs, as fishtest runs it.

- `counts`: pentanomial counts of duplicate pairs (Face to Face), trinomial counts of shared deals (co-op);
- `distribution`: the score distribution of the counts and its maximum-likelihood fits;
- `gsprt`: the test's design (`SPRT`), its LLR, bounds and verdict, logistic and normalized Elo models;
- `elo`: Elo with its 95% interval, LOS and normalized Elo;
- `theory`: the pass probability and expected length of a test for a known true distribution;
- `status`: a test's state as a JSON record and in plain words;
- `play`: playing a test with the match runner; `command`: `python -m bots sprt`.

The method and every formula are in docs/sprt.md.
"""

from bots.sprt.counts import PENTANOMIAL, TRINOMIAL, Counts
from bots.sprt.elo import EloEstimate, estimate
from bots.sprt.gsprt import SPRT, EloModel, Verdict
from bots.sprt.status import Status

__all__ = ["PENTANOMIAL", "SPRT", "TRINOMIAL", "Counts", "EloEstimate", "EloModel", "Status", "Verdict", "estimate"]
