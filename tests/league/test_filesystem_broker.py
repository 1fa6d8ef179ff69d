"""The embedded broker (filesystem://) never shows a worker a message before it is written whole: kombu's own
transport created the file first and wrote it after, and a worker that read it in between stopped."""

from __future__ import annotations

import threading
from queue import Empty

import pytest
from kombu import Connection
from kombu.transport import resolve_transport

import league.celery  # noqa: F401 - registers the transport for filesystem://
from league.arena.ops import filesystem_broker


@pytest.fixture
def channel(tmp_path):
    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    with Connection("filesystem://", transport_options=options) as connection:
        yield connection.default_channel


def test_filesystem_urls_get_the_whole_message_transport():
    assert resolve_transport("filesystem") is filesystem_broker.Transport
    with Connection("filesystem://") as connection:
        assert isinstance(connection.transport, filesystem_broker.Transport)


def test_a_message_goes_round_whole_and_leaves_no_part_behind(channel, tmp_path):
    channel._put("arena", {"body": "hello"})
    assert [path.name.endswith(".arena.msg") for path in tmp_path.iterdir()] == [True]
    assert channel._size("arena") == 1
    assert channel._get("arena") == {"body": "hello"}
    assert list(tmp_path.iterdir()) == []


def test_a_message_being_written_is_not_there_yet(channel, tmp_path, monkeypatch):
    writing, release = threading.Event(), threading.Event()
    encode = filesystem_broker.dumps

    def slow_dumps(payload):
        writing.set()
        release.wait(10)
        return encode(payload)

    monkeypatch.setattr(filesystem_broker, "dumps", slow_dumps)
    writer = threading.Thread(target=channel._put, args=("arena", {"body": "late"}))
    writer.start()
    try:
        assert writing.wait(10)
        # kombu's transport had the empty file in the queue's folder by now: a read decoded nothing and failed
        assert channel._size("arena") == 0
        with pytest.raises(Empty):
            channel._get("arena")
    finally:
        release.set()
        writer.join()
    assert channel._get("arena") == {"body": "late"}
