"""The trusted code that runs inside the sandbox: loads one bot and answers the runner's requests.

The fork server (zygote.py) imports it, and calls `serve` in the harness's process once that process is inside its
sandbox, with the protocol on two pipes and the bot's log on stderr. It is compiled into the fork server's folder
beside `_arena_protocol.pyc` (bots/protocol.py) and imports nothing else outside the standard library.

After every reply the harness stops its own process (SIGSTOP to itself: the harness is PID 2 of its PID namespace,
so the signal is not ignored as PID 1's would be), and the runner sends SIGCONT with the next request: the turn
ends when the bot is stopped, so nothing of it (a thread, a signal handler) runs between its turns, and stopping
costs no wake-up of its own. The runner checks that it did stop (process.py).

The bot shares this process, so it could tamper with the harness; that only ever breaks its own replies, which
the runner checks like any other untrusted input, or keeps it from stopping, which the runner counts as its turn
going on. Everything that protects the host is outside: namespaces, seccomp, rlimits and the runner's deadlines.
"""

import os
import signal
import sys

BOT_MODULE = "bot"


def _set_limits(settings: list[str]) -> None:
    import resource

    for setting in settings:
        name, _, text = setting.partition("=")
        value = int(text)
        soft, hard = (value, value + 1) if name == "RLIMIT_CPU" else (value, value)
        resource.setrlimit(getattr(resource, name), (soft, hard))  # CPU: SIGXCPU at soft, SIGKILL at hard


class Channel:
    def __init__(self, proto_in: int, proto_out: int, protocol) -> None:
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.protocol = protocol
        self.header = protocol.REQUEST_HEADER
        self.buffer = b""
        self.pid = os.getpid()  # for good: nothing in the sandbox may fork (seccomp)

    def receive(self) -> dict | None:
        header = self.header
        buffer = self.buffer if len(self.buffer) >= header else self._read_until(header)
        if buffer is None:
            return None
        end = header + self.protocol.request_length(buffer[:header])
        if len(buffer) < end:
            buffer = self._read_until(end)
            if buffer is None:
                return None
        if len(buffer) == end:  # the usual case: the whole request came in one read, and nothing after it
            self.buffer = b""
            return self.protocol.decode_request(buffer[header:])
        self.buffer = buffer[end:]
        return self.protocol.decode_request(buffer[header:end])

    def _read_until(self, size: int) -> bytes | None:
        """The buffer once it holds at least `size` bytes; None if the runner closed the pipe first."""
        buffer = self.buffer
        while len(buffer) < size:  # usually one read: the whole request came while we were stopped
            chunk = os.read(self.proto_in, max(1 << 16, size - len(buffer)))
            if not chunk:
                return None
            buffer = buffer + chunk if buffer else chunk
        self.buffer = buffer
        return buffer

    def send(self, message: dict) -> None:
        try:
            data = self.protocol.encode(message)
        except self.protocol.ProtocolError as error:
            data = self.protocol.encode({"type": "error", "kind": "protocol", "detail": f"the bot's reply is {error}"})
        written = os.write(self.proto_out, data)  # usually all of it at once
        if written < len(data):
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(self.proto_out, view) :]

    def reply(self, message: dict) -> None:
        """Answer a request, then stop until the next one (the runner continues us with it)."""
        self.send(message)
        os.kill(self.pid, signal.SIGSTOP)


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


def _defines_new_game(bot) -> bool:
    try:
        return callable(getattr(bot, "new_game", None))
    except Exception:  # a module __getattr__ of the bot's: let each request find out
        return True


def _flush_log() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def serve(bot_dir: str, settings: list[str], proto_in: int, proto_out: int, protocol) -> int:
    """Announce, load the bot at hello, then answer requests until the runner closes the pipe; the exit code."""
    _set_limits(settings)
    channel = Channel(proto_in, proto_out, protocol)
    channel.send({"type": "harness", "version": protocol.PROTOCOL_VERSION})  # before any of the bot's code

    hello = channel.receive()
    if hello is None or hello["type"] != "hello":
        print("the runner did not open with hello", file=sys.stderr)
        return 1
    try:
        bot = _load_bot(bot_dir)
    except BaseException as error:  # an import-time failure of any kind is the bot's
        reply = _error("import", "loading bot.py", error)
        # Flush before replying: once the runner has the reply it may stop the sandbox, and what the
        # bot printed must reach its log first.
        _flush_log()
        channel.reply(reply)
        return 1
    _flush_log()
    # whether new_game is worth a request at all: decided once, as the in-process player does (bots/players.py)
    channel.reply({"type": "ready", "version": protocol.PROTOCOL_VERSION, "new_game": _defines_new_game(bot)})

    while (request := channel.receive()) is not None:
        if request["type"] == "hello":
            print("the runner said hello twice", file=sys.stderr)
            return 1
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
        channel.reply(reply)
    return 0
