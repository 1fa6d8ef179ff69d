"""The trusted program that runs inside the sandbox: loads one bot and answers the runner's requests.

Started as `python -I -S -B -X utf8 harness.pyc BOT_DIR RLIMIT_X=N ...` with the protocol on stdin/stdout
and the bot's log on stderr. It is copied into the sandbox, compiled, beside `_arena_protocol.pyc`
(bots/protocol.py) and imports nothing else outside the standard library, so a bot can reach none of the
project's source through it.

The bot shares this process, so it could tamper with the harness; that only ever breaks its own replies,
which the runner checks like any other untrusted input. Everything that protects the host is outside:
namespaces, seccomp, rlimits and the runner's deadlines.
"""

import os
import sys

HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
BOT_MODULE = "bot"


def _take_protocol_fds() -> tuple[int, int]:
    """Move the protocol off fds 0/1 so that the bot's print() and input() cannot touch it."""
    proto_in, proto_out = os.dup(0), os.dup(1)  # os.dup's copies are close-on-exec
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # the bot's stdout joins its captured log
    return proto_in, proto_out


def _set_limits(settings: list[str]) -> None:
    import resource

    for setting in settings:
        name, _, text = setting.partition("=")
        value = int(text)
        soft, hard = (value, value + 1) if name == "RLIMIT_CPU" else (value, value)
        resource.setrlimit(getattr(resource, name), (soft, hard))  # CPU: SIGXCPU at soft, SIGKILL at hard


def _import_protocol():
    sys.path.insert(0, HARNESS_DIR)
    try:
        import _arena_protocol as protocol
    finally:
        sys.path.remove(HARNESS_DIR)
        sys.modules.pop("_arena_protocol", None)  # leave the name free for the bot
    return protocol


class Channel:
    def __init__(self, proto_in: int, proto_out: int, protocol) -> None:
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.protocol = protocol
        self.buffer = b""

    def receive(self) -> dict | None:
        while b"\n" not in self.buffer:
            chunk = os.read(self.proto_in, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return self.protocol.check_request(self.protocol.decode(line, cap=1 << 30))

    def send(self, message: dict) -> None:
        try:
            data = self.protocol.encode(message)
        except self.protocol.ProtocolError as error:
            data = self.protocol.encode({"type": "error", "kind": "protocol", "detail": f"the bot's reply is {error}"})
        view = memoryview(data)
        while view:
            view = view[os.write(self.proto_out, view) :]


def _error(kind: str, where: str, error: BaseException) -> dict:
    import traceback

    traceback.print_exception(error)
    sys.stderr.flush()
    if isinstance(error, MemoryError):
        kind = "resource-limit"
    return {"type": "error", "kind": kind, "detail": f"{where} raised {type(error).__name__}: {error}"[:2000]}


def _load_bot(bot_dir: str):
    sys.path.insert(0, bot_dir)
    module = __import__(BOT_MODULE)  # plain import: importlib.util would cost start-up time
    if not callable(getattr(module, "play", None)):
        raise AttributeError("bot.py defines no play(observation) function")
    return module


def _flush_log() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main(argv: list[str]) -> int:
    bot_dir, settings = argv[1], argv[2:]
    proto_in, proto_out = _take_protocol_fds()
    protocol = _import_protocol()
    _set_limits(settings)
    channel = Channel(proto_in, proto_out, protocol)
    channel.send({"type": "harness", "version": protocol.PROTOCOL_VERSION})  # before any of the bot's code

    hello = channel.receive()
    if hello is None or hello["type"] != "hello":
        raise SystemExit("the runner did not open with hello")
    try:
        bot = _load_bot(bot_dir)
    except BaseException as error:  # an import-time failure of any kind is the bot's
        reply = _error("import", "loading bot.py", error)
        # Flush before replying: once the runner has the reply it may stop the sandbox, and what the
        # bot printed must reach its log first.
        _flush_log()
        channel.send(reply)
        return 1
    _flush_log()
    channel.send({"type": "ready", "version": protocol.PROTOCOL_VERSION})

    while (request := channel.receive()) is not None:
        if request["type"] == "hello":
            raise SystemExit("the runner said hello twice")
        try:
            if request["type"] == "play":
                reply = {"type": "turn", "turn": bot.play(request["observation"])}
            else:
                new_game = getattr(bot, "new_game", None)
                if callable(new_game):
                    new_game(request["info"])
                reply = {"type": "ok"}
        except BaseException as error:  # sys.exit() or KeyboardInterrupt from a bot is a crash too
            reply = _error("crash", request["type"], error)
        _flush_log()
        channel.send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
