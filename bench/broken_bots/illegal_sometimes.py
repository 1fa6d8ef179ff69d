"""Illegal in some positions only: when its hand holds three cards in a row (n, n+1, n+2) and n lies above its own
down pile, it plays n and n+1 there, the wrong way (a rare bug's illegal turn)."""

_legal_play = play  # noqa: F821 (greedy's, defined above this file once appended)


def play(observation):
    hand = set(observation["hand"])
    pile = f"p{observation['seat']}.down"
    top = observation["piles"][pile]["top"]
    for card in sorted(hand):
        if card + 1 in hand and card + 2 in hand and card > top and card != top + 10:
            return {"plays": [[card, pile], [card + 1, pile]]}
    return _legal_play(observation)
