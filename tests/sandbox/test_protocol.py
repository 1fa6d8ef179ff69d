"""The protocol: replies as strict JSON objects, one per line, capped, with named errors; requests as the runner's
messages, which the harness rebuilds exactly as JSON would carry them."""

from __future__ import annotations

import json
import os
import threading

import pytest

import games
from bots import protocol
from bots.protocol import ProtocolError
from bots.sandbox.harness import Channel


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


def _typed(value: object) -> object:
    """The value with every part's exact type beside it (1, 1.0 and True are equal, but not the same JSON)."""
    if isinstance(value, dict):
        return ("dict", [(_typed(key), _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(item) for item in value])
    return (type(value).__name__, value)


def _containers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [value, *(part for item in value.values() for part in _containers(item))]
    if isinstance(value, list):
        return [value, *(part for item in value for part in _containers(item))]
    return []


def _as_harness_receives(message: dict) -> dict:
    data = protocol.encode_request(message)
    assert protocol.request_length(data[: protocol.REQUEST_HEADER]) == len(data) - protocol.REQUEST_HEADER
    return protocol.decode_request(data[protocol.REQUEST_HEADER :])


@pytest.mark.parametrize(
    ("game", "players"), [("face-to-face", 2), ("the-game", 1), ("the-game", 3), ("the-game", 5), ("extreme", 2)]
)
def test_the_harness_receives_each_request_exactly_as_json_carries_it(game, players):
    """The bot gets the engine's observation type for type, as a JSON line would give it, every list and object its
    own (a bot that changes one part of its observation changes nothing else of it)."""
    messages = [{"type": "play", "observation": observation} for observation in _observations(game, players, 60)]
    shared = [3, 4]
    messages.append({"type": "new_game", "info": {"game": game, "players": players, "seat": 1, "seed": "s:3",
                                                  "options": {"deck": [1, 2.5, None, True, "é", 1 << 70],
                                                              "a": shared, "b": shared}}})  # fmt: skip
    for message in messages:
        received = _as_harness_receives(message)
        assert _typed(received) == _typed(json.loads(protocol.encode(message)))
        containers = _containers(received)
        assert len({id(container) for container in containers}) == len(containers)


def test_what_marshal_cannot_carry_is_carried_as_json_carries_it_or_refused():
    class Seat(int):
        pass

    message = {"type": "play", "observation": {"seat": Seat(1), "hand": [Seat(2)]}}
    assert _typed(_as_harness_receives(message)) == _typed({"type": "play", "observation": {"seat": 1, "hand": [2]}})
    with pytest.raises(ProtocolError, match="not JSON-serialisable"):
        protocol.encode_request({"type": "play", "observation": {"bot": object()}})


@pytest.mark.parametrize(
    ("body", "words"),
    [(b"\xff", "not marshal data"), (b"", "not marshal data"), (b"[\x00\x00\x00\x00", "must be an object"),
     (protocol.encode_request({"kind": "play"})[4:], "string 'type'"),
     (protocol.encode_request({"type": "quit"})[4:], "unknown request type")],
)  # fmt: skip
def test_the_harness_refuses_what_is_not_a_request(body, words):
    with pytest.raises(ProtocolError, match=words):
        protocol.decode_request(body)


def test_a_request_past_the_cap_is_refused_by_its_length():
    with pytest.raises(ProtocolError, match="exceeds"):
        protocol.request_length((protocol.REQUEST_CAP + 1).to_bytes(protocol.REQUEST_HEADER, "little"))


def test_the_harness_reads_requests_however_the_pipe_splits_them():
    """Two requests in one write, then one far larger than a pipe holds, written in small pieces; then the end."""
    small = [{"type": "new_game", "info": {"seat": seat}} for seat in (0, 1)]
    large = {"type": "play", "observation": {"history": list(range(100_000)), "name": "é" * 50_000}}
    data = b"".join(protocol.encode_request(message) for message in small) + protocol.encode_request(large)
    reading, writing = os.pipe()

    def write() -> None:
        os.write(writing, data[:17])  # the first request and part of the second
        for start in range(17, len(data), 3001):
            os.write(writing, data[start : start + 3001])
        os.close(writing)

    writer = threading.Thread(target=write)
    writer.start()
    channel = Channel(reading, -1, protocol)
    try:
        assert [channel.receive() for _ in range(3)] == [*small, large]
        assert channel.receive() is None
    finally:
        writer.join()
        os.close(reading)
