"""The line protocol: strict JSON objects, one per line, capped, with named errors."""

from __future__ import annotations

import json

import pytest

import games
from bots import protocol
from bots.protocol import ProtocolError
from bots.sandbox.process import encode_request


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


def _observations(game: str, players: int, count: int) -> list[dict]:
    from bots.house import load_house_bot

    state = games.new_game(game, players, "encode-requests")
    bots = [load_house_bot("greedy") for _ in range(players)]
    found = []
    while state.outcome is None and len(found) < count:
        observation = state.observation(state.to_move)
        found.append(observation)
        state.push(games.Turn.from_json(bots[state.to_move].play(observation)))
    return found


@pytest.mark.parametrize(("game", "players"), [("face-to-face", 2), ("the-game", 3), ("extreme", 2)])
def test_the_runner_encodes_requests_exactly_as_the_protocol_does(game, players):
    messages = [{"type": "play", "observation": observation} for observation in _observations(game, players, 60)]
    messages.append({"type": "new_game", "info": {"game": game, "players": players, "seat": 1, "seed": "s:3",
                                                  "options": {"deck": [1, 2.5, None, True, "é"]}}})  # fmt: skip
    for message in messages:
        assert encode_request(message) == protocol.encode(message)


def test_what_orjson_refuses_is_encoded_or_refused_by_the_protocol():
    huge = {"type": "new_game", "info": {"seed": 1 << 70}}
    assert encode_request(huge) == protocol.encode(huge)
    with pytest.raises(protocol.ProtocolError):
        encode_request({"type": "play", "observation": {"cards": {1, 2}}})
