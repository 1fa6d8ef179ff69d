"""Replaying logs: `games.replay` and `python -m games replay|show`. Honest logs replay to their
outcome; tampered ones (a changed card, a reordered deck, a wrong result, ...) are caught, naming the turn."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import mirror_of, parse_turn, rules_of
from rules_oracle import MirrorGame, Policy, fits

import games
from games import LogMismatch, Termination

REPO = Path(__file__).resolve().parents[2]


def played(game: str, players: int, seed: Any, **options: Any) -> games.GameState:
    """A whole game between careful random players."""
    state = games.new_game(game, players=players, seed=seed, **options)
    mirror = mirror_of(state)
    policy = Policy(random.Random(f"{game}/{seed}"), care=0.9, eager=1)
    while state.outcome is None:
        plays, signals = policy.turn(mirror)
        state.push({"plays": [list(play) for play in plays], "signals": signals})
        mirror.apply(plays, signals)
    return state


@pytest.fixture(scope="module")
def logs() -> dict[str, dict[str, Any]]:
    return {
        "face-to-face": played("face-to-face", 2, 11).log.to_json(),
        "the-game": played("the-game", 3, 12).log.to_json(),
        "extreme": played("extreme", 2, 13).log.to_json(),
    }


def tampered(log: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(log)


def mismatch(log: dict[str, Any]) -> LogMismatch:
    with pytest.raises(LogMismatch) as caught:
        games.replay(log)
    return caught.value


@pytest.mark.parametrize("game", ["face-to-face", "the-game", "extreme"])
def test_honest_logs_replay_to_their_outcome(logs: dict[str, dict[str, Any]], game: str) -> None:
    log = json.loads(json.dumps(logs[game]))
    outcome = games.replay(log)
    assert outcome.to_json() == log["result"]
    assert len(log["turns"]) > 3


def second_turn_of_first_mover(log: dict[str, Any]) -> int:
    """The 1-based number of the first mover's second turn."""
    first = log["turns"][0]["seat"]
    return next(n for n, turn in enumerate(log["turns"][1:], start=2) if turn["seat"] == first)


@pytest.mark.parametrize("game", ["face-to-face", "the-game", "extreme"])
def test_a_changed_card_is_caught_at_its_turn(logs: dict[str, dict[str, Any]], game: str) -> None:
    log = tampered(logs[game])
    number = second_turn_of_first_mover(log)
    # A card the same seat already placed cannot be in its hand again.
    log["turns"][number - 1]["plays"][0][0] = log["turns"][0]["plays"][0][0]
    error = mismatch(log)
    assert error.turn == number
    assert f"turn {number}" in str(error)


def test_a_changed_pile_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["the-game"])
    number = move_a_card_where_it_does_not_fit(log)
    assert mismatch(log).turn == number


def move_a_card_where_it_does_not_fit(log: dict[str, Any]) -> int:
    """Move the first play of the first turn that allows it onto a pile its card does not fit;
    return that turn's number."""
    mirror = MirrorGame(rules_of(log), log["decks"], log["start_seat"])
    for number, turn in enumerate(log["turns"], start=1):
        card, _ = turn["plays"][0]
        tops = dict(mirror.tops())
        wrong = [pile for pile in tops if not fits(turn["seat"], pile, tops[pile], card)[0]]
        if wrong:
            turn["plays"][0][1] = wrong[0]
            return number
        mirror.apply([tuple(play) for play in turn["plays"]], turn["signals"])
    raise AssertionError("every first card of every turn fitted every pile")


def test_a_reordered_deck_is_caught_even_when_it_stays_playable(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["the-game"])
    deck = log["decks"][0]
    deck[-1], deck[-2] = deck[-2], deck[-1]  # two cards nobody drew
    assert len(log["turns"]) < 60, "the game must end before the bottom of the deck is drawn"
    mismatch(log)


def test_a_reordered_deck_changes_the_hands() -> None:
    state = games.new_game("face-to-face", seed="x", decks=[list(range(2, 60)), list(range(59, 1, -1))], start_seat=0)
    state.push(parse_turn("2>p0.up 3>p0.up"))
    state.push(parse_turn("59>p1.down 58>p1.down"))
    state.forfeit(0, Termination.CRASH, "the test stops here")
    log = state.log.to_json()
    assert games.replay(copy.deepcopy(log)) == state.outcome
    deck = log["decks"][0]
    deck[0], deck[-1] = deck[-1], deck[0]  # 2 is no longer in seat 0's hand
    assert mismatch(log).turn == 1


def test_a_deck_that_is_not_the_cards_once_each_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["face-to-face"])
    log["decks"][1][5] = log["decks"][1][6]
    error = mismatch(log)
    assert error.turn is None
    assert "deck" in str(error)


def test_a_wrong_winner_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["face-to-face"])
    log["result"]["winner"] = 1 - log["result"]["winner"]
    assert mismatch(log).turn is None


def test_a_wrong_score_or_seat_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["the-game"])
    log["result"]["score"] += 1
    mismatch(log)
    log = tampered(logs["the-game"])
    log["result"]["seat"] = (log["result"]["seat"] + 1) % 3
    mismatch(log)


def test_a_wrong_termination_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["extreme"])
    was = log["result"]["termination"]
    log["result"]["termination"] = "stuck" if was == "all-cards-played" else "all-cards-played"
    mismatch(log)


def test_reordered_turns_and_a_wrong_start_seat_are_caught(logs: dict[str, dict[str, Any]]) -> None:
    log = tampered(logs["face-to-face"])
    log["turns"][0], log["turns"][1] = log["turns"][1], log["turns"][0]
    assert mismatch(log).turn == 1
    log = tampered(logs["face-to-face"])
    log["start_seat"] = 1 - log["start_seat"]
    mismatch(log)


def test_a_log_that_stops_early_or_goes_on_is_caught(logs: dict[str, dict[str, Any]]) -> None:
    short = tampered(logs["the-game"])
    short["turns"].pop()
    mismatch(short)
    long = tampered(logs["the-game"])
    long["turns"].append(copy.deepcopy(long["turns"][-1]))
    assert mismatch(long).turn == len(long["turns"])


@pytest.mark.parametrize("broken", [None, [], "a log", {"format": "something-else"}])
def test_what_is_not_a_log_is_refused(broken: Any) -> None:
    mismatch(broken)


def rejected_log() -> tuple[games.GameState, dict[str, Any]]:
    """Seat 1 (holding 2..7) answers with 3 then 2 on its ascending pile: illegal at play 2."""
    state = games.new_game("face-to-face", seed="r", decks=[list(range(2, 60))] * 2, start_seat=0)
    state.push(parse_turn("2>p0.up 3>p0.up"))
    raw = {"plays": [[3, "p1.up"], [2, "p1.up"]]}
    with pytest.raises(games.IllegalTurn) as caught:
        state.push(raw)
    state.reject(raw, caught.value)
    return state, state.log.to_json()


def test_a_rejected_turn_is_rechecked() -> None:
    state, log = rejected_log()
    outcome = state.outcome
    assert outcome is not None and outcome.termination == Termination.ILLEGAL_TURN
    assert (outcome.seat, outcome.winner) == (1, 0)
    assert games.replay(copy.deepcopy(log)) == outcome
    legal = copy.deepcopy(log)
    legal["rejected_turn"]["turn"] = {"plays": [[2, "p1.up"], [3, "p1.up"]]}
    mismatch(legal)
    wrong_rule = copy.deepcopy(log)
    wrong_rule["rejected_turn"]["rule"] = "not-in-hand"
    mismatch(wrong_rule)


def test_a_bot_failure_replays_and_its_result_must_follow_from_the_blamed_seat() -> None:
    state = games.new_game("face-to-face", seed=5)
    blamed = 1 - state.to_move  # a bot may also fail outside its turn, e.g. while starting a game
    state.forfeit(blamed, Termination.TIMEOUT, "no answer in 1 s")
    log = state.log.to_json()
    assert games.replay(copy.deepcopy(log)) == state.outcome
    assert (state.outcome.seat, state.outcome.winner) == (blamed, 1 - blamed)
    wrong_winner = copy.deepcopy(log)
    wrong_winner["result"]["winner"] = blamed
    mismatch(wrong_winner)
    no_such_seat = copy.deepcopy(log)
    no_such_seat["result"]["seat"] = 2
    mismatch(no_such_seat)
    coop = games.new_game("the-game", players=2, seed=5)
    coop.forfeit(coop.to_move, Termination.CRASH, "exit code 1")
    assert coop.outcome.score == 98
    assert games.replay(coop.log.to_json()) == coop.outcome


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games", *args], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )


def write(path: Path, log: dict[str, Any]) -> str:
    path.write_text(json.dumps(log), encoding="utf-8")
    return str(path)


def test_cli_replay_prints_one_line_per_log(logs: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    files = [write(tmp_path / f"{game}.json", log) for game, log in logs.items()]
    done = run_cli("replay", *files)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3
    for line, name in zip(lines, files, strict=True):
        assert line.startswith(name)


def test_cli_replay_stops_at_the_first_disagreement(logs: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    bad = tampered(logs["the-game"])
    number = second_turn_of_first_mover(bad)
    bad["turns"][number - 1]["plays"][0][0] = bad["turns"][0]["plays"][0][0]
    files = [
        write(tmp_path / "good.json", logs["face-to-face"]),
        write(tmp_path / "bad.json", bad),
        write(tmp_path / "after.json", logs["extreme"]),
    ]
    done = run_cli("replay", *files)
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert files[1] in output and f"turn {number}" in output
    assert files[2] not in output


def test_cli_replay_names_a_file_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "junk.json").write_text("{not json", encoding="utf-8")
    for name in ("junk.json", "missing.json"):
        done = run_cli("replay", str(tmp_path / name))
        assert done.returncode != 0
        assert name in done.stderr


def test_cli_show_prints_the_game_turn_by_turn(logs: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    log = logs["extreme"]
    done = run_cli("show", write(tmp_path / "game.json", log))
    assert done.returncode == 0, done.stderr
    position = 0
    for turn in log["turns"]:
        text = " ".join(f"{card}>{pile}" for card, pile in turn["plays"])
        found = done.stdout.find(text, position)
        assert found >= 0, f"turn {text!r} missing or out of order"
        position = found + len(text)
