"""The drill's own servers listen where they say: a port taken between its choice and the bind is chosen again at
the first start, never answered for by someone else's server, and kept across restarts; a restart waits out a port
or a crashed server's processes that are not gone yet."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

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
    redis.start_seconds = 3.0
    with socket.create_server(("127.0.0.1", port)):
        with pytest.raises(RuntimeError, match=f"Redis could not listen on port {port}; its log ends:\n.*"):
            redis.start()


def test_a_restart_waits_for_its_port_to_come_free(redis):
    redis.start()
    port = redis.port
    redis.crash()
    squatter = socket.create_server(("127.0.0.1", port))
    threading.Timer(1.5, squatter.close).start()
    redis.start()
    assert redis.port == port and port in harness.listening_ports(redis.process.pid)


def test_server_ports_are_outside_the_ephemeral_range():
    ephemeral = harness.ephemeral_ports()
    ports = {harness.unused_port() for _ in range(50)}
    assert not ports & set(ephemeral)
    assert len(ports) > 40  # chosen at random, so two servers started at once rarely try the same one


def test_a_group_is_gone_only_when_every_member_has_ended():
    leader = subprocess.Popen(["sh", "-c", "sleep 60 & exit 0"], start_new_session=True)
    leader.wait()
    assert not harness.group_gone(leader.pid)  # the leader has ended, its child lives on
    os.killpg(leader.pid, signal.SIGKILL)
    faults.wait_until("the group to end", lambda: harness.group_gone(leader.pid), 10)


def test_a_zombie_counts_as_ended():
    process = subprocess.Popen(["true"], start_new_session=True)
    faults.wait_until("a zombie", lambda: Path(f"/proc/{process.pid}/stat").read_text().split(") ")[1][0] == "Z", 10)
    assert harness.group_gone(process.pid)
    process.wait()


def test_kill_group_returns_once_the_whole_group_has_ended():
    leader = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], start_new_session=True)
    time.sleep(0.2)
    faults.kill_group(leader)
    assert harness.group_gone(leader.pid)


def test_listening_ports_reads_what_a_process_tree_really_bound():
    with socket.create_server(("127.0.0.1", 0)) as listener, socket.socket() as unbound:
        unbound.bind(("127.0.0.1", 0))  # bound, not listening: no server
        ports = harness.listening_ports(os.getpid())
        assert listener.getsockname()[1] in ports
        assert unbound.getsockname()[1] not in ports


def test_tree_cpu_seconds_counts_a_process_and_those_below_it():
    spinner = subprocess.Popen(
        ["sh", "-c", "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' & wait"], start_new_session=True
    )
    faults.wait_until("some CPU below it", lambda: harness.tree_cpu_seconds(spinner.pid) > 0.05, 30)
    spinner.wait()
