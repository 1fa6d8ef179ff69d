"""The line protocol: strict JSON objects, one per line, capped, with named errors."""

from __future__ import annotations

import json

import pytest

from bots import protocol
from bots.protocol import ProtocolError


def test_encode_is_compact_json_with_a_newline_and_round_trips():
    message = {"type": "play", "observation": {"hand": [3, 17], "name": 'Grüße \u2028 "q"', "x": 1.5}}
    line = protocol.encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line[:-1].decode() == json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    assert protocol.decode(line[:-1]) == message


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (b'{"type":"turn"', "not JSON"),
        (b'{"type":"turn"} trailing', "extra data"),
        (b' {"type":"turn"}', "expected a JSON value"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"turn": []}', "no string 'type'"),
        (b'{"type": 3}', "no string 'type'"),
        (b'{"type":"turn","turn":NaN}', "NaN is not valid JSON"),
        (b'{"type":"turn","turn":1e999}', "out of range"),
        (b"\xff\xfe", "not UTF-8"),
        (b"", "expected a JSON value"),
    ],
)
def test_decode_rejects_what_is_not_a_message(line, words):
    with pytest.raises(ProtocolError, match=words):
        protocol.decode(line)


def test_decode_enforces_the_line_cap():
    line = protocol.encode({"type": "turn", "turn": "x" * 100})[:-1]
    assert protocol.decode(line, cap=len(line))["type"] == "turn"
    with pytest.raises(ProtocolError, match="exceeds the 50-byte cap"):
        protocol.decode(line, cap=50)


@pytest.mark.parametrize("value", [{1, 2}, float("nan"), float("inf"), object(), "\udc80"])
def test_encode_refuses_what_json_cannot_carry(value):
    with pytest.raises(ProtocolError, match="not JSON-serialisable"):
        protocol.encode({"type": "turn", "turn": value})


def test_replies_must_answer_their_request():
    assert protocol.check_reply({"type": "turn", "turn": []}, "play")["turn"] == []
    assert protocol.check_reply({"type": "ready", "version": protocol.PROTOCOL_VERSION}, "hello")
    assert protocol.check_reply({"type": "error", "kind": "crash", "detail": "boom"}, "play")["kind"] == "crash"
    with pytest.raises(ProtocolError, match="expected a 'turn' reply to 'play', got 'ok'"):
        protocol.check_reply({"type": "ok"}, "play")
    with pytest.raises(ProtocolError, match="carries no 'turn'"):
        protocol.check_reply({"type": "turn"}, "play")
    with pytest.raises(ProtocolError, match="harness speaks protocol 99"):
        protocol.check_reply({"type": "harness", "version": 99}, protocol.ANNOUNCE)
    with pytest.raises(ProtocolError, match="malformed error reply"):
        protocol.check_reply({"type": "error", "kind": "mystery", "detail": "?"}, "play")


def test_requests_are_checked_by_the_harness():
    assert protocol.check_request({"type": "hello", "version": protocol.PROTOCOL_VERSION})
    with pytest.raises(ProtocolError, match="runner speaks protocol 0"):
        protocol.check_request({"type": "hello", "version": 0})
    with pytest.raises(ProtocolError, match="unknown request type 'quit'"):
        protocol.check_request({"type": "quit"})
    with pytest.raises(ProtocolError, match="no 'observation' object"):
        protocol.check_request({"type": "play", "observation": []})
    with pytest.raises(ProtocolError, match="no 'info' object"):
        protocol.check_request({"type": "new_game"})
