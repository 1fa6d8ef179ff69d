"""Seeds derived from a game's seed: reproducible, one per label, and dealing nothing of the game."""

from games.factory import seeded_decks
from games.shuffle import derived_seed


def test_a_derived_seed_is_reproducible_and_differs_by_label_and_seed():
    first = derived_seed("match-7:3", "bot-seed:0")
    assert first == derived_seed("match-7:3", "bot-seed:0")
    assert len(first) == 32 and int(first, 16) >= 0
    assert len({first, derived_seed("match-7:3", "bot-seed:1"), derived_seed("match-7:4", "bot-seed:0")}) == 3


def test_a_derived_seed_does_not_deal_the_game_it_comes_from():
    for game in ("face-to-face", "the-game"):
        seed = f"{game}-match:0"
        told = derived_seed(seed, "bot-seed:0")
        assert seeded_decks(game, told) != seeded_decks(game, seed)
        assert seed not in told
