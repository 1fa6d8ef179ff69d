"""Archives of logs (`*.jsonl`, `*.jsonl.gz`, one game a line): `python -m games replay` and `show --line` read them."""

from __future__ import annotations

import copy
import gzip
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

import games
from bots.match import BotSpec, MatchSpec, run_match
from games.__main__ import main
from games.archive import map_bounded


@pytest.fixture(scope="module")
def logs() -> list[dict]:
    """Three real games of each game, house bots in this process."""
    played = []
    for game in games.GAME_IDS:
        spec = MatchSpec(game=game, bots=[BotSpec("house:greedy"), BotSpec("house:random")], games=3, seed="archive")
        played += [result.log for result in run_match(replace(spec, sandbox=False)).games]
    return played


def write(path: Path, records: list[dict]) -> Path:
    data = b"".join(orjson.dumps(record) + b"\n" for record in records)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def records(logs: list[dict]) -> list[dict]:
    return [{"id": 100 + index, "match": {"id": 7, "kind": "ladder"}, "log": log} for index, log in enumerate(logs)]


@pytest.mark.parametrize("name", ["games.jsonl.gz", "games.jsonl"])
def test_an_honest_archive_replays_line_by_line(tmp_path, capsys, logs, name):
    archive = write(tmp_path / name, records(logs))
    assert main(["replay", str(archive), "--jobs", "1"]) == 0
    assert capsys.readouterr().out == f"{archive}: ok 9 games (extreme 3, face-to-face 3, the-game 3)\n"


def test_bare_logs_are_lines_too(tmp_path, capsys, logs):
    assert main(["replay", str(write(tmp_path / "bare.jsonl", logs))]) == 0
    assert "ok 9 games" in capsys.readouterr().out


def test_every_tampered_line_is_named_and_the_rest_still_checked(tmp_path, capsys, logs):
    lines = records(logs)
    for index in (2, 5):
        lines[index] = copy.deepcopy(lines[index])
        lines[index]["log"]["decks"][0].reverse()
    assert main(["replay", str(write(tmp_path / "bad.jsonl.gz", lines)), "--jobs", "2"]) == 1
    err = capsys.readouterr().err
    assert "line 3 (game 102): MISMATCH" in err and "line 6 (game 105): MISMATCH" in err
    assert "2 of 9 games do not replay" in err


def test_an_unreadable_archive_exits_2_naming_the_problem(tmp_path, capsys, logs):
    whole = gzip.compress(b"".join(orjson.dumps(record) + b"\n" for record in records(logs)))
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    assert main(["replay", str(tmp_path / "cut.jsonl.gz")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "text.jsonl").write_text('{"log": 1}\nnot json\n')
    assert main(["replay", str(tmp_path / "text.jsonl")]) == 2
    assert "line 2 is not JSON" in capsys.readouterr().err


def test_show_reads_one_line_of_an_archive(tmp_path, capsys, logs):
    archive = write(tmp_path / "games.jsonl.gz", records(logs))
    assert main(["show", str(archive), "--line", "2"]) == 0
    assert capsys.readouterr().out.startswith(logs[1]["game"])
    assert main(["show", str(archive), "--line", "99"]) == 2
    assert main(["show", str(archive)]) == 2  # which game? an archive needs --line


def test_parallel_checks_keep_the_order_and_read_ahead_a_bounded_amount():
    consumed = 0

    def numbers():
        nonlocal consumed
        for number in range(-5000, 5000):
            consumed += 1
            yield number

    results = map_bounded(abs, numbers(), jobs=2, chunk=100)
    first = next(results)
    assert first == 5000 and consumed <= 2 * 2 * 100 + 100
    assert [first, *results] == [abs(number) for number in range(-5000, 5000)]
