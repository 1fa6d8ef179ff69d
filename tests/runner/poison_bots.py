"""Bots whose replies or text the game log or the database could not hold, as they would be uploaded.

Each plays Face to Face and sends its poison at its first turn. `surrogate` writes its reply straight to the
protocol's pipe (as any bot can: it shares the harness's process), since the harness itself would refuse
to encode a lone surrogate, then stops itself as the harness does after a reply; `not-json` writes a line
that is not JSON, which the runner quotes to the owner alone. `crash` writes NUL and a lone surrogate's bytes
to stderr and raises an exception whose text holds a NUL; its markers must reach the owner's stderr only,
never a public log.
"""

from __future__ import annotations

STDERR_MARKER = "stderr-marker-5f1c"
EXCEPTION_MARKER = "exception-marker-9d2e"

BIG_INT = "def play(observation):\n    return {'plays': [[2 ** 70, 'p0.up']]}\n"
DEEP = "def play(observation):\n    turn = []\n    for _ in range(300):\n        turn = [turn]\n    return turn\n"
LONG_STRING = "def play(observation):\n    return {'plays': [[observation['hand'][0], 'x' * 50_000]]}\n"
SURROGATE = """\
import gc
import os
import signal
import time

def play(observation):
    channel = next(item for item in gc.get_objects() if type(item).__name__ == "Channel")
    os.write(channel.proto_out, b'{"type": "turn", "turn": {"plays": [[1, "\\\\ud800 \\\\u0000"]]}}\\n')
    os.kill(os.getpid(), signal.SIGSTOP)  # as the harness does after a reply: the turn is over
    time.sleep(30)
"""
CRASH = f"""\
import sys

def play(observation):
    sys.stderr.write("{STDERR_MARKER} \\x00 ")
    sys.stderr.buffer.write(b"\\xed\\xa0\\x80\\n")
    raise ValueError("{EXCEPTION_MARKER} \\x00")
"""
ERROR_DETAIL = """\
import gc
import os
import signal
import time

def play(observation):
    channel = next(item for item in gc.get_objects() if type(item).__name__ == "Channel")
    detail = b'play raised Oops: ' + b'{EXCEPTION_MARKER} \\\\u0000 \\\\udfff'
    os.write(channel.proto_out, b'{"type": "error", "kind": "crash", "detail": "' + detail + b'"}\\n')
    os.kill(os.getpid(), signal.SIGSTOP)  # as the harness does after a reply: the turn is over
    time.sleep(30)
""".replace("{EXCEPTION_MARKER}", EXCEPTION_MARKER)

NOT_JSON = """\
import gc
import os
import signal
import time

def play(observation):
    channel = next(item for item in gc.get_objects() if type(item).__name__ == "Channel")
    os.write(channel.proto_out, b'{EXCEPTION_MARKER}, not JSON\\n')
    os.kill(os.getpid(), signal.SIGSTOP)  # as the harness does after a reply: the turn is over
    time.sleep(30)
""".replace("{EXCEPTION_MARKER}", EXCEPTION_MARKER)

# name -> (source, the termination its game must end with)
POISONS = {
    "big-int": (BIG_INT, "protocol-error"),
    "deep": (DEEP, "protocol-error"),
    "long-string": (LONG_STRING, "protocol-error"),
    "surrogate": (SURROGATE, "protocol-error"),
    "not-json": (NOT_JSON, "protocol-error"),
    "crash": (CRASH, "crash"),
    "error-detail": (ERROR_DETAIL, "crash"),
}
