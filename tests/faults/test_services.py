"""The drill's own servers listen where they say: a port taken between its choice and the bind is chosen again at
the first start, never answered for by someone else's server, and kept across restarts."""

from __future__ import annotations

import os
import shutil
import socket

import pytest

from bench import faults, harness

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


@pytest.fixture
def redis(tmp_path):
    service = faults.Redis(tmp_path)
    yield service
    service.stop()


def test_a_port_taken_before_the_first_start_is_chosen_again(redis):
    squatter = socket.create_server(("127.0.0.1", 0))  # listens, as another test's server would
    taken = squatter.getsockname()[1]
    redis.port = taken
    with squatter:
        redis.start()
        assert redis.port != taken
        assert harness.listening_ports(redis.process.pid) == {redis.port}
        assert redis.ready()


def test_a_restart_keeps_the_port_and_refuses_one_taken_meanwhile(redis):
    redis.start()
    port = redis.port
    redis.crash()
    redis.start()
    assert redis.port == port and port in harness.listening_ports(redis.process.pid)

    redis.crash()
    with socket.create_server(("127.0.0.1", port)):
        with pytest.raises(RuntimeError, match=f"Redis could not listen on port {port}"):
            redis.start()


def test_listening_ports_reads_what_a_process_tree_really_bound():
    with socket.create_server(("127.0.0.1", 0)) as listener, socket.socket() as unbound:
        unbound.bind(("127.0.0.1", 0))  # bound, not listening: no server
        ports = harness.listening_ports(os.getpid())
        assert listener.getsockname()[1] in ports
        assert unbound.getsockname()[1] not in ports
