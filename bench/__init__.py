"""Benchmarks: scripts that measure the league and print their figures, each judged against its goal.

Run a bench from the checkout root as a module of this package, never as a file:

    python -m bench.NAME [--flags]          # e.g. python -m bench.engine --jobs 2

With a Python that lacks the project's dependencies (Debian's python3), it runs again in the checkout's .venv with
the test tools (games/environment.py), as `manage.py` does.

Every bench script here keeps to this:
- its module name says what it measures and is the name of no top-level package (games, bots, league, bench) nor of an
  installed module, so that importing the project from a bench can never pick up a bench by mistake;
- it edits no `sys.path`: it imports the project (`import league`, `from bots import ...`) and other bench modules
  (`from bench import harness`) as any module of the checkout does;
- helpers that several benches need live in `bench/harness.py` (scratch databases, a league worker, a gunicorn on a
  socket the bench bound, process trees and their listening ports, the load average);
- its output says what its clock covers, gives the load average, and judges every goal it prints (PASS or MISS,
  `harness.verdict`).
`tests/bench/test_bench_package.py` checks the first two.
"""

from games.environment import ensure_dependencies

ensure_dependencies()  # before a bench imports Django: `python3 -m bench.NAME` runs in the checkout's .venv
