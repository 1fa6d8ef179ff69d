"""The protocol between the match runner and the harness that runs one bot inside the sandbox.

The harness speaks first, before any of the bot's code has run; after that there is one reply per request:

    runner -> harness                                  harness -> runner
                                                       {"type": "harness", "version": 2}
    {"type": "hello", "version": 2}                    {"type": "ready", "version": 2, "new_game": true}
    {"type": "new_game", "info": {...}}                {"type": "ok"}
    {"type": "play", "observation": {...}}             {"type": "turn", "turn": <the bot's JSON turn>}
                                                       {"type": "error", "kind": KIND, "detail": "..."}

An error reply's kind is "crash" (the bot raised), "resource-limit" (MemoryError and friends), "protocol"
(the bot returned something that is not JSON) or "import" (bot.py could not be loaded).

Replies, which come from the bot's process and are checked as untrusted input, are JSON objects, one per line
(UTF-8, no embedded newline). Requests come from the runner, and are its own JSON-ready messages in marshal's
format 2 after their length (4 bytes, little-endian): unmarshalling builds the bot's observation in less than half
the time JSON parsing does (the larger part of the harness's own time a turn), and format 2 writes no references,
so each list and object the bot receives is a fresh one of its own, as a JSON line would make it.

This module is copied into the sandbox beside the harness, so it imports nothing but the standard library.
"""

from __future__ import annotations

import marshal

try:
    import _json  # the C half of the json module, used directly: see _Codec
except ImportError:  # pragma: no cover - every CPython has it
    _json = None

PROTOCOL_VERSION = 2
LINE_CAP = 64 * 1024  # bytes in one reply line, newline excluded
REQUEST_HEADER = 4  # bytes: a request's length, little-endian, before it
REQUEST_CAP = 1 << 30  # bytes in one request
MARSHAL_FORMAT = 2  # the last format without references: nothing the bot receives is shared

REQUEST_TYPES = frozenset({"hello", "new_game", "play"})
REPLY_TYPES = frozenset({"harness", "ready", "ok", "turn", "error"})
ANNOUNCE = "announce"  # pseudo request type: the harness's unprompted first line
ERROR_KINDS = frozenset({"crash", "resource-limit", "protocol", "import"})
EXPECTED_REPLY = {ANNOUNCE: "harness", "hello": "ready", "new_game": "ok", "play": "turn"}


class ProtocolError(ValueError):
    """A line that is not a well-formed message of this protocol.

    `public` says what is wrong without quoting the line: a bot's line is its own text, which only its owner may
    read (game logs are public), so the runner shows the full message to the owner alone."""

    def __init__(self, message: str, public: str | None = None) -> None:
        super().__init__(message)
        self.public = public or message


def _reject_constant(name: str) -> object:
    raise ProtocolError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ProtocolError(f"{text} is out of range for a JSON number", public="a number is out of range")
    return value


def _reject_object(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not a JSON type")


class _Codec:
    """Strict JSON text <-> value, built on CPython's `_json` accelerator (what json.dumps/loads use inside).

    The harness cannot afford `import json` before its first reply: json.decoder and json.encoder import
    `re` and `enum`, which costs more start-up time than the whole rest of the harness. Where `_json` is
    missing the json module does the same job.
    """

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = staticmethod(_finite_float)
    parse_int = int
    parse_constant = staticmethod(_reject_constant)
    memo: dict = {}

    def __init__(self) -> None:
        if _json is not None:
            self._scan = _json.make_scanner(self)
            self._encode = _json.make_encoder(
                None, _reject_object, _json.encode_basestring, None, ":", ",", False, False, False
            )
        else:  # pragma: no cover
            import json

            decoder = json.JSONDecoder(parse_float=_finite_float, parse_constant=_reject_constant)
            encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
            self._scan = decoder.raw_decode
            self._encode = lambda value, level: [encoder.encode(value)]

    def dumps(self, value: object) -> str:
        return "".join(self._encode(value, 0))

    def loads(self, text: str) -> object:
        """Parse exactly one JSON value filling `text`; raise ValueError naming the column."""
        try:
            value, end = self._scan(text, 0)
        except StopIteration as stop:
            raise ValueError(f"expected a JSON value at column {stop.value + 1}") from None
        except ProtocolError:
            raise
        except ValueError as error:  # json.JSONDecodeError, raised by the scanner
            where = getattr(error, "colno", "?")
            raise ValueError(f"{getattr(error, 'msg', error)} at column {where}") from None
        finally:
            self.memo.clear()
        if end != len(text):
            raise ValueError(f"extra data at column {end + 1}")
        return value


_codec = _Codec()


def encode(message: dict) -> bytes:
    """One message as a protocol line (with its newline). Raises ProtocolError if it is not plain JSON."""
    try:
        return _codec.dumps(message).encode("utf-8") + b"\n"
    except (TypeError, ValueError, RecursionError) as error:  # UnicodeEncodeError is a ValueError
        raise ProtocolError(f"not JSON-serialisable: {error}") from None


def decode(line: bytes, cap: int = LINE_CAP) -> dict:
    """Parse one line (without its newline) into a message dict; raise ProtocolError naming what is wrong."""
    if len(line) > cap:
        raise ProtocolError(f"line of {len(line)} bytes exceeds the {cap}-byte cap")
    try:
        message = _codec.loads(line.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ProtocolError(f"line is not UTF-8: {error}") from None
    except (ValueError, RecursionError) as error:
        public = f"line is not JSON: {getattr(error, 'public', error)}"  # the parser's words quote none of the line
        raise ProtocolError(f"line is not JSON: {error}: {preview(line)}", public=public) from None
    if not isinstance(message, dict):
        got = f"a message must be a JSON object, got {type(message).__name__}"
        raise ProtocolError(f"{got}: {preview(line)}", public=got)
    if not isinstance(message.get("type"), str):
        raise ProtocolError(f"message has no string 'type': {preview(line)}", public="message has no string 'type'")
    return message


def encode_request(message: dict) -> bytes:
    """One of the runner's JSON-ready requests as the harness reads it. Each part reaches the harness as the type it
    has (the engine's observations are plain JSON types, which tests check for every game); a part marshal does not
    carry as such (an int subclass, say) is carried as JSON would carry it, and what JSON cannot carry either is
    refused with ProtocolError."""
    try:
        body = marshal.dumps(message, MARSHAL_FORMAT)
    except ValueError:  # a type marshal does not know
        body = marshal.dumps(decode(encode(message)[:-1], cap=REQUEST_CAP), MARSHAL_FORMAT)
    if len(body) > REQUEST_CAP:
        raise ProtocolError(f"request of {len(body)} bytes exceeds the {REQUEST_CAP}-byte cap")
    return len(body).to_bytes(REQUEST_HEADER, "little") + body


def request_length(header: bytes) -> int:
    """The length of the request whose REQUEST_HEADER bytes are `header`; ProtocolError past the cap."""
    length = int.from_bytes(header, "little")
    if length > REQUEST_CAP:
        raise ProtocolError(f"request of {length} bytes exceeds the {REQUEST_CAP}-byte cap")
    return length


def decode_request(body: bytes) -> dict:
    """A request as the harness receives it (the bytes after its header), checked."""
    try:
        message = marshal.loads(body)
    except (EOFError, ValueError, TypeError) as error:
        raise ProtocolError(f"request is not marshal data: {error}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("a request must be an object with a string 'type'")
    return check_request(message)


def check_reply(message: dict, request_type: str) -> dict:
    """Check that `message` answers a request of `request_type`; return it unchanged."""
    kind = message["type"]
    if kind == "error":
        if message.get("kind") not in ERROR_KINDS or not isinstance(message.get("detail"), str):
            quoted = preview(_encode_quiet(message))
            raise ProtocolError(f"malformed error reply: {quoted}", public="malformed error reply")
        return message
    expected = EXPECTED_REPLY[request_type]
    if kind != expected:
        expectation = f"expected a {expected!r} reply to {request_type!r}"
        raise ProtocolError(f"{expectation}, got {kind!r}", public=f"{expectation}, got another type")
    if kind in ("harness", "ready") and message.get("version") != PROTOCOL_VERSION:
        raise ProtocolError(
            f"harness speaks protocol {message.get('version')!r}, runner speaks {PROTOCOL_VERSION}",
            public=f"harness speaks another protocol than the runner's {PROTOCOL_VERSION}",
        )
    if kind == "turn" and "turn" not in message:
        raise ProtocolError("a 'turn' reply carries no 'turn'")
    return message


def check_request(message: dict) -> dict:
    """Check a request as the harness receives it; return it unchanged."""
    kind = message["type"]
    if kind not in REQUEST_TYPES:
        raise ProtocolError(f"unknown request type {kind!r}")
    if kind == "hello" and message.get("version") != PROTOCOL_VERSION:
        raise ProtocolError(f"runner speaks protocol {message.get('version')!r}, harness speaks {PROTOCOL_VERSION}")
    if kind == "new_game" and not isinstance(message.get("info"), dict):
        raise ProtocolError("'new_game' carries no 'info' object")
    if kind == "play" and not isinstance(message.get("observation"), dict):
        raise ProtocolError("'play' carries no 'observation' object")
    return message


def _encode_quiet(message: object) -> bytes:
    return repr(message).encode("utf-8", "replace")


def preview(line: bytes, limit: int = 80) -> str:
    """The start of a line, printable, for error messages."""
    text = line[:limit].decode("utf-8", "replace")
    return repr(text) + ("..." if len(line) > limit else "")
