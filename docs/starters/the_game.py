"""Starter bot for The Game (`the-game`, cooperative). Copy it, then make it smarter.

Strategy: play the card that moves a pile least, until the minimum is reached, and take every backwards
trick on offer; if that gets stuck below the minimum, search for any legal turn. Afterwards, signal
"jump" on each pile where you hold the card exactly 10 away. Standard library only.
"""


def moves(hand, tops, directions):
    """Every legal next play as (movement, card, pile); a backwards trick moves a pile by -10."""
    found = []
    for card in hand:
        for pile, top in tops.items():
            if directions[pile] == "up" and (card > top or card == top - 10):
                found.append((card - top, card, pile))
            if directions[pile] == "down" and (card < top or card == top + 10):
                found.append((top - card, card, pile))
    return sorted(found)


def search(hand, tops, directions, needed):
    """A legal sequence of `needed` more plays (cheapest first), or None."""
    if needed <= 0:
        return []
    for _, card, pile in moves(hand, tops, directions):
        rest = search([c for c in hand if c != card], {**tops, pile: card}, directions, needed - 1)
        if rest is not None:
            return [[card, pile], *rest]
    return None


def play(observation):
    directions = {name: pile["direction"] for name, pile in observation["piles"].items()}
    hand = list(observation["hand"])
    tops = {name: pile["top"] for name, pile in observation["piles"].items()}
    plays = []
    while True:
        options = moves(hand, tops, directions)
        if not options:
            break
        movement, card, pile = options[0]
        if len(plays) >= observation["min_plays"] and movement != -10:
            break
        plays.append([card, pile])
        hand.remove(card)
        tops[pile] = card
    if len(plays) < observation["min_plays"]:
        hand = list(observation["hand"])
        tops = {name: pile["top"] for name, pile in observation["piles"].items()}
        plays = search(hand, tops, directions, observation["min_plays"]) or plays
        for card, pile in plays:
            hand.remove(card)
            tops[pile] = card
    signals = {}
    for pile, top in tops.items():
        trick = top - 10 if directions[pile] == "up" else top + 10
        signals[pile] = "jump" if trick in hand else "none"
    return {"plays": plays, "signals": signals}
