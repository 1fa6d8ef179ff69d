"""Logs written by the runner match the published JSON Schema, and the schema itself is valid."""

import json
from pathlib import Path

import jsonschema
import pytest

import games
from bots.match import BotSpec, MatchSpec, run_match

SCHEMA = json.loads((Path(games.__file__).parent / "schemas" / "game-log.schema.json").read_text())


def test_the_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize(
    ("game", "bots"),
    [
        ("face-to-face", ["house:random", "house:greedy"]),
        ("the-game", ["house:greedy", "house:random"]),
        ("extreme", ["house:random"] * 3),
    ],
)
def test_it_writes_logs_that_match_the_schema(game, bots):
    spec = MatchSpec(game, [BotSpec(ref) for ref in bots], games=6, seed="schema")
    for result in run_match(spec).games:
        jsonschema.validate(result.log, SCHEMA)
        assert games.replay(json.loads(json.dumps(result.log))) == result.outcome


def test_it_rejects_a_log_with_an_unknown_field():
    log = games.new_game("face-to-face", seed=1).log.to_json()
    log["result"] = {"termination": "stuck", "winner": 0, "score": None, "seat": 1, "detail": ""}
    jsonschema.validate(log, SCHEMA)
    log["cheat"] = True
    with pytest.raises(jsonschema.ValidationError, match="cheat"):
        jsonschema.validate(log, SCHEMA)


def test_it_serialises_a_log_as_the_standard_library_reads_it():
    spec = MatchSpec("extreme", [BotSpec("house:random")] * 2, games=2, seed="dumps")
    for result in run_match(spec).games:
        log = result.log | {"seats": [{"seat": 0, "bot": "zoë/bot", "version": None}]}
        text = games.dumps_log(log)
        assert json.loads(text) == log
        assert text == json.dumps(log, separators=(",", ":"), ensure_ascii=False)
