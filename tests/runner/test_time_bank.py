"""The time bank across a game: each turn may take the per-turn limit plus what is left in the bank, whatever it takes
beyond the limit is drawn from the bank for the rest of the game, and a later turn longer than the limit plus what
is left loses on time. A scripted player reports the turn times, so the figures are exact, not a machine's."""

from __future__ import annotations

from typing import Any

import pytest

import bots.match
from bots.house import load_house_bot
from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.players import BotFailure
from games import Termination

TIME_CONTROL = TimeControl(turn=1.0, bank=2.0, startup=5.0)


class ScriptedClock:
    """Plays the greedy house bot's turns, each taking the next of `seconds` (the last one again and again), and
    fails on time as a sandbox would when a turn takes longer than it was given; keeps the time it was given."""

    def __init__(self, name: str, seconds: list[float]) -> None:
        self.name = name
        self.version = None
        self.seconds = seconds
        self.given: list[float] = []
        self.module = load_house_bot("greedy")

    def launch(self, timeout: float) -> None:
        return None

    def boot(self) -> None:
        return None

    def start(self, timeout: float) -> None:
        return None

    def new_game(self, info: dict[str, Any], timeout: float) -> None:
        return None

    def play(self, observation: dict[str, Any], timeout: float) -> tuple[Any, float]:
        self.given.append(timeout)
        took = self.seconds[min(len(self.given), len(self.seconds)) - 1]
        if took > timeout:
            raise BotFailure(Termination.TIMEOUT, f"the turn took {took:.2f} s")
        return self.module.play(observation), took

    def take_stderr(self) -> str:
        return ""

    def begin_close(self) -> None:
        return None

    def close(self) -> None:
        return None


def play_scripted(monkeypatch: pytest.MonkeyPatch, seconds: list[float]) -> tuple[Any, ScriptedClock]:
    players: list[ScriptedClock] = []

    def make_player(bot: BotSpec, spec: MatchSpec) -> ScriptedClock:
        players.append(ScriptedClock(bot.label, seconds))
        return players[-1]

    monkeypatch.setattr(bots.match, "make_player", make_player)
    spec = MatchSpec("the-game", [BotSpec("scripted", version="sha256:s")], games=1, time_control=TIME_CONTROL)
    return run_match(spec).games[0], players[0]


def test_turns_over_the_limit_draw_the_bank_down_until_a_later_turn_finds_it_spent(monkeypatch):
    # 1.5 s and 1.5 s draw 0.5 s each, 0.5 s draws nothing, 1.8 s draws 0.8 s: 0.2 s are left for the fifth turn
    game, player = play_scripted(monkeypatch, [1.5, 1.5, 0.5, 1.8, 1.3])
    assert player.given == pytest.approx([3.0, 2.5, 2.0, 2.0, 1.2])
    assert game.outcome.termination == Termination.TIMEOUT and game.outcome.seat == 0
    assert game.turns == 4
    assert [turn["ms"] for turn in game.log["turns"]] == [1500.0, 1500.0, 500.0, 1800.0]
    assert game.outcome.detail == "the turn took 1.30 s; the limit was 1.00 s per turn plus 0.20 s left in its bank"


def test_a_game_of_turns_within_the_limit_never_touches_the_bank(monkeypatch):
    game, player = play_scripted(monkeypatch, [1.0])
    assert game.outcome.termination != Termination.TIMEOUT
    assert set(player.given) == {3.0}


def test_the_bank_is_the_games_not_the_matchs(monkeypatch):
    """Each game starts with a full bank, whatever the last one spent."""
    given: list[list[float]] = []

    def make_player(bot: BotSpec, spec: MatchSpec) -> ScriptedClock:
        player = ScriptedClock(bot.label, [1.9])
        given.append(player.given)
        return player

    monkeypatch.setattr(bots.match, "make_player", make_player)
    spec = MatchSpec("the-game", [BotSpec("scripted", version="sha256:s")], games=2, time_control=TIME_CONTROL)
    games = run_match(spec).games
    assert [game.outcome.termination for game in games] == [Termination.TIMEOUT] * 2
    # 1.9 s draws 0.9 s a turn: a third turn finds 0.2 s left, and a new game (the bot restarted) a full bank again
    assert given == [pytest.approx([3.0, 2.1, 1.2]), pytest.approx([3.0, 2.1, 1.2])]
