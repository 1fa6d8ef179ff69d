"""Real game logs for the replay viewer's tests (and bench/replay_page.py), stored as a worker would store them.

Logs come from the match runner playing house bots, so they are what the league really records; the endings
a house bot never produces (an illegal turn, a broken command, a timeout) are made by replaying a real log's
first turns through the engine and ending the game there the way the runner does.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import games
from bots.match import BotSpec, MatchSpec, TimeControl, run_match


def played_log(game: str, seed: str, bots: tuple[str, ...] = ("house:greedy", "house:random")) -> dict[str, Any]:
    """The log of one game between house bots (two seats in Face to Face, one per bot in the co-op games)."""
    spec = MatchSpec(
        game=game,
        bots=[BotSpec(ref) for ref in bots],
        games=1,
        seed=seed,
        time_control=TimeControl(turn=10, bank=10, startup=10),
        sandbox=False,
    )
    return run_match(spec).games[0].log


SAMPLE_BOTS = {
    "face-to-face": ("house:expert", "house:greedy"),
    "the-game": ("house:expert", "house:greedy", "house:expert"),  # the expert signals
    "extreme": ("house:expert", "house:greedy"),
}


@cache
def _sample_log_text(game: str) -> str:
    return games.dumps_log(played_log(game, f"replay-{game}", SAMPLE_BOTS[game]))


def sample_log(game: str) -> dict[str, Any]:
    """A fresh copy of one real game of `game` between house bots, played once per test session."""
    import json

    return json.loads(_sample_log_text(game))


def engine_observations(log: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every seat's observation before the first turn and after every turn, straight from the engine."""
    state = _prefix_state(log, 0)
    observations = [[state.observation(seat) for seat in range(state.players)]]
    for entry in log["turns"]:
        state.push(games.Turn.from_json({"plays": entry["plays"], "signals": entry["signals"]}))
        observations.append([state.observation(seat) for seat in range(state.players)])
    return observations


def partial_turn(log: dict[str, Any], turn: int, plays: int) -> games.state.TurnBuilder:
    """The engine's own turn builder for `turn` (1-based) after its first `plays` plays: tops and the mover's hand."""
    state = _prefix_state(log, turn - 1)
    builder = state.builder()
    for card, pile in log["turns"][turn - 1]["plays"][:plays]:
        builder.add(games.Play(card, pile))
    return builder


def versions_for(log: dict[str, Any], owners: list, make_version) -> list:
    """A bot version per seat (made with the league tests' make_version fixture); seats 0 and 2 share one."""
    made: dict[int, Any] = {}
    for seat in range(log["options"]["players"]):
        if seat % 2 not in made:
            made[seat % 2] = make_version(owners[seat % 2], f"{log['game']}-{seat % 2}", game=log["game"])
    return [made[seat % 2] for seat in range(log["options"]["players"])]


def _prefix_state(log: dict[str, Any], turns: int) -> games.GameState:
    options = log["options"]
    state = games.new_game(
        log["game"],
        options["players"],
        log["seed"],
        start_seat=log["start_seat"],
        decks=log["decks"],
        hand_size=options["hand_size"],
        command_table=options["command_table"],
    )
    for entry in log["turns"][:turns]:
        state.push({"plays": entry["plays"], "signals": entry["signals"]}, entry["ms"])
    state.log.seats = log["seats"]
    return state


def rejected_log(log: dict[str, Any], turns: int, raw: Any = None) -> dict[str, Any]:
    """`log` cut after `turns` turns and ended by an illegal turn of the next mover: `raw` as the bot sent it,
    by default a card it does not hold."""
    state = _prefix_state(log, turns)
    if raw is None:
        hand = state.hands[state.to_move]
        pile = next(iter(state.tops))
        absent = next(card for card in range(2, 100) if card not in hand and card not in state.piles[pile])
        raw = {"plays": [[hand[0], pile], [absent, pile]]}
    try:
        state.check(games.Turn.from_json(raw))
    except games.IllegalTurn as error:
        state.reject(raw, error, 12.5)
    else:
        raise AssertionError("the turn made to be illegal is legal")
    return state.log.to_json()


def broken_command_log(log: dict[str, Any]) -> dict[str, Any]:
    """An Extreme log ended by a broken command: the first turn where the mover holds a skull card
    playable on a pile plays it and leaves it uncovered."""
    for turns in range(len(log["turns"])):
        state = _prefix_state(log, turns)
        skulls = [card for card in state.hands[state.to_move] if state.table.get(card) == "skull"]
        for card in skulls:
            for play in state.legal_plays():
                if play.card == card:
                    raw = {"plays": [[card, play.pile]]}
                    try:
                        state.check(games.Turn.from_json(raw))
                    except games.CommandBroken as error:
                        state.reject(raw, error, 3.0)
                        return state.log.to_json()
    raise AssertionError("no turn of this log could play a skull")


def forfeit_log(log: dict[str, Any], turns: int, termination: str, detail: str) -> dict[str, Any]:
    """`log` cut after `turns` turns and ended by a bot failure (timeout, crash, ...) of the next mover."""
    state = _prefix_state(log, turns)
    state.forfeit(state.to_move, games.Termination(termination), detail)
    return state.log.to_json()


def store_game(log: dict[str, Any], versions: list, kind: str = "ladder", index: int = 0):
    """Store `log` as game `index` of a new match between `versions` (one per seat), as matches.store does."""
    from league.arena.models import Game, GameSeat, Match, MatchEntry

    result = log["result"]
    match = Match.objects.create(
        kind=kind, game=log["game"], games=1, seed=log["seed"], status=Match.Status.DONE, games_done=1
    )
    distinct = list(dict.fromkeys(versions))
    MatchEntry.objects.bulk_create(
        [MatchEntry(match=match, index=number, version=version) for number, version in enumerate(distinct)]
    )
    forfeit = result["termination"] not in ("stuck", "all-cards-played")
    game = Game.objects.create(
        match=match,
        index=index,
        game=log["game"],
        seed=log["seed"],
        start_seat=log["start_seat"],
        termination=result["termination"],
        winner_seat=result["winner"],
        fault_seat=result["seat"] if forfeit else None,
        score=result["score"],
        detail=result["detail"],
        turns=len(log["turns"]),
        log_zlib=Game.compress_log(log),
    )
    GameSeat.objects.bulk_create(
        [GameSeat(game=game, seat=seat, version=version) for seat, version in enumerate(versions)]
    )
    return game
