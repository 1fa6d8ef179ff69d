"""The runner compiles a bot's modules once per content; the sandbox runs that bytecode, never compiling itself."""

from __future__ import annotations

import importlib.util
import sys
import zipfile

import pytest

from bots.players import BotFailure
from bots.sandbox import SandboxedPlayer, bytecode
from games import Termination

PYC = f"bot.{sys.implementation.cache_tag}.pyc"


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch):
    monkeypatch.setattr(bytecode, "_cache", type(bytecode._cache)())
    monkeypatch.setattr(bytecode, "_cached_bytes", 0)


def load(source_path):
    spec = importlib.util.spec_from_file_location("compiled_bot", source_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_precompile_writes_a_pyc_that_python_loads_without_reading_the_source(tmp_path):
    (tmp_path / "bot.py").write_text("ANSWER = 6 * 7\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    bytecode.precompile(tmp_path, "/bot")
    pyc = tmp_path / "__pycache__" / PYC
    assert pyc.is_file()
    assert (tmp_path / "lib" / "__pycache__" / f"helper.{sys.implementation.cache_tag}.pyc").is_file()
    (tmp_path / "bot.py").write_text("ANSWER = 0\n")  # unchecked: the source is not looked at again
    assert load(tmp_path / "bot.py").ANSWER == 42


def test_a_bot_of_many_large_modules_gets_bytecode_only_within_the_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(bytecode, "SOURCE_BUDGET_BYTES", 3000)
    (tmp_path / "bot.py").write_text("x = 1\n")
    (tmp_path / "lib").mkdir()
    for index in range(5):
        (tmp_path / "lib" / f"big{index}.py").write_text(f"# {'-' * 1000}\nvalue = {index}\n")
    bytecode.precompile(tmp_path, "/bot")
    assert (tmp_path / "__pycache__" / PYC).is_file()  # the bot's own module first
    assert len(list((tmp_path / "lib" / "__pycache__").iterdir())) == 2  # then what fits in 3000 bytes


def test_the_same_source_is_compiled_once(monkeypatch):
    first = bytecode.bytecode(b"x = 1\n", "/bot/bot.py")
    monkeypatch.setattr(bytecode, "compile", lambda *args, **kwargs: pytest.fail("compiled twice"), raising=False)
    assert bytecode.bytecode(b"x = 1\n", "/bot/bot.py") is first
    monkeypatch.undo()
    assert bytecode.bytecode(b"x = 1\n", "/bot/other.py") != first  # the path shown in tracebacks is part of it


def test_the_cache_keeps_to_its_byte_budget(monkeypatch):
    monkeypatch.setattr(bytecode, "CACHE_BYTES", 2000)
    for index in range(50):
        bytecode.bytecode(f"value = {index}\n".encode(), "/bot/bot.py")
    assert 0 < bytecode._cached_bytes <= 2000
    assert bytecode._cached_bytes == sum(len(pyc) for pyc in bytecode._cache.values())
    assert len(bytecode._cache) < 50


@pytest.mark.parametrize("source", [b"def play(:\n", b"x = '\0'\n", b"x = (" * 300 + b")" * 300])
def test_a_file_that_does_not_compile_gets_no_pyc(tmp_path, source):
    (tmp_path / "bot.py").write_bytes(source)
    bytecode.precompile(tmp_path, "/bot")
    assert not (tmp_path / "__pycache__" / PYC).exists()


def test_a_bot_file_named_pycache_is_left_alone(tmp_path):
    (tmp_path / "bot.py").write_text("x = 1\n")
    (tmp_path / "__pycache__").write_text("not a folder")
    bytecode.precompile(tmp_path, "/bot")
    assert (tmp_path / "__pycache__").read_text() == "not a folder"


def test_the_sandbox_runs_the_runners_bytecode(sandbox_works, tmp_path, monkeypatch):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(observation):\n    return {'plays': [], 'from': 'source'}\n")
    compiled = bytecode.bytecode(
        b"def play(observation):\n    return {'plays': [], 'from': 'bytecode'}\n", "/bot/bot.py"
    )
    monkeypatch.setattr(bytecode, "bytecode", lambda source, shown: compiled)
    with SandboxedPlayer(bot) as player:
        player.start(10)
        assert player.play({}, 5)[0] == {"plays": [], "from": "bytecode"}


def test_tracebacks_from_bytecode_name_the_bots_file_and_line(sandbox_works, tmp_path):
    bot = tmp_path / "bot.zip"
    with zipfile.ZipFile(bot, "w") as archive:
        archive.writestr("bot.py", "from helpers import move\n\ndef play(observation):\n    return move()\n")
        archive.writestr("helpers.py", "def move():\n    x = 1\n    return x / 0\n")
    with SandboxedPlayer(bot) as player:
        player.start(10)
        with pytest.raises(BotFailure) as failure:
            player.play({}, 5)
    assert failure.value.termination == Termination.CRASH
    assert 'File "/bot/helpers.py", line 3, in move' in failure.value.stderr_tail
    assert "return x / 0" in failure.value.stderr_tail  # the source line, read from the bound file
