"""A bot whose turn or text the log writer or a database could not hold forfeits its game with a clear reason;
`python -m bots play` still prints its summary and writes every log, and the logs hold none of the bot's
stderr or exception text (real sandboxed bots, see poison_bots.py)."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.__main__ import main
from bots.reply_bounds import _plain_plays, _walk, public_error, storable_text, turn_problem
from bots.sandbox import seccomp
from games import replay
from tests.runner.poison_bots import EXCEPTION_MARKER, POISONS, STDERR_MARKER

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None or not seccomp.available(), reason="needs bubblewrap and libseccomp"
)
REASONS = {
    "big-int": "its turn holds an integer of 71 bits; integers are limited to 64",
    "deep": "its turn is nested more than 32 deep",
    "long-string": "its turn holds a string of 50000 characters; strings are limited to 1000",
    "surrogate": "its turn holds a string with a lone surrogate (not a Unicode character)",
    "not-json": "reply to 'play': line is not JSON: expected a JSON value at column 1",
    "crash": "play raised ValueError",
    "error-detail": "play raised Oops",
}


@needs_sandbox
@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_poisoned_reply_forfeits_and_the_cli_prints_its_summary_and_logs(poison, tmp_path, capsys):
    source, termination = POISONS[poison]
    bot = tmp_path / f"{poison}.py"
    bot.write_text(source, encoding="utf-8")
    logs = tmp_path / "logs"
    code = main(["play", str(bot), "house:greedy", "--game", "face-to-face", "--games", "2", "--json",
                 "--log-dir", str(logs)])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out)
    assert summary["games"] == 2 and summary["bots"][0]["forfeits"] == {termination: 2}, summary
    for path in sorted(logs.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        log = json.loads(text)
        assert log["result"]["termination"] == termination
        assert log["result"]["detail"].endswith(REASONS[poison]) or REASONS[poison] in log["result"]["detail"]
        assert STDERR_MARKER not in text and EXCEPTION_MARKER not in text
        assert "\\u0000" not in text and "\\ud800" not in text
        replay(log)  # the stored log is a whole, re-checkable game
    # the bot's own text goes to the private file beside each log, storable as every text of a bot
    outputs = [path.read_text(encoding="utf-8") for path in sorted(logs.glob("*.output.jsonl"))]
    assert len(outputs) == 2
    for text in outputs:
        assert all(json.loads(line)["seat"] in (0, 1) for line in text.splitlines())
        assert "\\u0000" not in text and "\x00" not in text
    if poison == "crash":
        assert all(STDERR_MARKER in text and EXCEPTION_MARKER in text for text in outputs)


def test_turn_problem_names_each_bound():
    assert turn_problem({"plays": [[17, "p0.up"]], "signals": {"up1": "jump"}}) is None
    assert turn_problem([[2**63 - 1, "x"], [-(2**63), "y"], [1.5, True, None]]) is None
    assert "64" in turn_problem([2**64])
    nested: list = []
    for _ in range(31):
        nested = [nested]
    assert turn_problem(nested) is None  # 32 lists, one in another
    assert turn_problem([nested]) == "is nested more than 32 deep"
    assert "lone surrogate" in turn_problem({"\udfff": 1})
    assert "lone surrogate" in turn_problem(["ok", "\ud800"])
    assert "not a JSON value" in turn_problem([object()])


def test_the_usual_turn_shape_is_checked_in_one_pass_and_its_bounds_still_hold():
    assert _plain_plays({"plays": [[17, "p0.up"], [2**63 - 1, "p1.down"]]})
    assert _plain_plays({"plays": []})
    # each bound broken once: the one-pass check declines, and the walk names what is wrong
    for turn, problem in (
        ({"plays": [[2**63, "p0.up"]]}, "integers are limited to 64"),
        ({"plays": [[-(2**63) - 1, "p0.up"]]}, "integers are limited to 64"),
        ({"plays": [[17, "x" * 1001]]}, "strings are limited to 1000"),
        ({"plays": [[17, "\ud800"]]}, "lone surrogate"),
    ):
        assert not _plain_plays(turn)
        assert problem in turn_problem(turn)
    # other shapes go to the walk, which accepts them when they are within bounds
    others = (
        {"plays": [[17, "pilé"]]},
        {"plays": [[True, "p0.up"]]},
        {"plays": [(17, "p0.up")]},
        {"plays": [[17, "p0.up", 1]]},
        {"plays": [[17, "p0.up"]], "signals": {}},
        [[17, "p0.up"]],
    )
    for turn in others:
        assert not _plain_plays(turn)
        assert turn_problem(turn) == _walk(turn)


PLAIN_CARDS = st.one_of(st.integers(), st.booleans(), st.floats(allow_nan=False), st.none())
PLAIN_PILES = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=20),
    st.sampled_from(["p0.up", "x" * 1000, "x" * 1001, "\ud800", "pilé"]),
    st.integers(),
    st.none(),
)


@given(st.lists(st.lists(st.one_of(PLAIN_CARDS, PLAIN_PILES), min_size=1, max_size=3), max_size=6))
def test_the_one_pass_check_never_accepts_what_the_walk_refuses(plays):
    turn = {"plays": plays}
    if _plain_plays(turn):
        assert _walk(turn) is None
    assert turn_problem(turn) == (None if _plain_plays(turn) else _walk(turn))


def test_storable_text_drops_nul_escapes_surrogates_and_caps():
    assert storable_text("a\x00b\ud800c") == "ab\\ud800c"
    assert storable_text("é" * 10) == "é" * 10
    assert storable_text("x" * 50, cap=10) == "xxxxxxx..."
    assert storable_text("abcdefghijklmno", cap=8, tail=True) == "...klmno"


def test_public_error_keeps_where_and_type_never_the_message():
    assert public_error("play raised ValueError: secret") == "play raised ValueError"
    assert public_error("loading bot.py raised SyntaxError: invalid syntax (bot.py, line 3)") == (
        "loading bot.py raised SyntaxError"
    )
    assert public_error("play raised <script>: x") == "the bot raised an exception"
    assert public_error("anything else") == "the bot raised an exception"


@pytest.mark.parametrize("poison", ["big-int", "deep", "long-string"])
def test_an_unsandboxed_bot_is_held_to_the_same_bounds(poison, tmp_path, capsys):
    bot = tmp_path / f"{poison}.py"
    bot.write_text(POISONS[poison][0], encoding="utf-8")
    code = main(["play", str(bot), "house:greedy", "--game", "face-to-face", "--games", "1", "--json",
                 "--unsafe-no-sandbox"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["bots"][0]["forfeits"] == {"protocol-error": 1}
