"""Starter bot for The Game: Face to Face (`face-to-face`). Copy it, then make it smarter.

Strategy: play the card that moves one of your own piles least, until the minimum is reached, and take
every backwards trick on offer. If that gets stuck below the minimum, search for any legal turn, which
may use your one play on the opponent's piles. Standard library only.
"""


def moves(hand, tops, me, used_opponent):
    """Every legal next play as (cost, card, pile): cost is how far it pushes a pile the wrong way."""
    found = []
    for card in hand:
        for pile, top in tops.items():
            owner, direction = pile.split(".")
            if owner == f"p{me}":
                if direction == "up" and (card > top or card == top - 10):
                    found.append((card - top, card, pile))
                if direction == "down" and (card < top or card == top + 10):
                    found.append((top - card, card, pile))
            elif not used_opponent:  # at most one play per turn on the opponent's piles, no tricks there
                if (direction == "up" and card < top) or (direction == "down" and card > top):
                    found.append((100, card, pile))
    return sorted(found)


def search(hand, tops, me, used_opponent, needed):
    """A shortest legal sequence of `needed` more plays (cheapest first), or None."""
    if needed <= 0:
        return []
    for _, card, pile in moves(hand, tops, me, used_opponent):
        rest = search(
            [c for c in hand if c != card],
            {**tops, pile: card},
            me,
            used_opponent or not pile.startswith(f"p{me}."),
            needed - 1,
        )
        if rest is not None:
            return [[card, pile], *rest]
    return None


def play(observation):
    me = observation["seat"]
    hand = list(observation["hand"])
    tops = {name: pile["top"] for name, pile in observation["piles"].items()}
    plays = []
    while True:
        own = [move for move in moves(hand, tops, me, True)]  # own piles only
        if not own:
            break
        cost, card, pile = own[0]
        if len(plays) >= observation["min_plays"] and cost != -10:
            break  # enough cards played: only a backwards trick is still worth one
        plays.append([card, pile])
        hand.remove(card)
        tops[pile] = card
    if len(plays) < observation["min_plays"]:
        hand = list(observation["hand"])
        tops = {name: pile["top"] for name, pile in observation["piles"].items()}
        plays = search(hand, tops, me, False, observation["min_plays"]) or plays
    return {"plays": plays}
