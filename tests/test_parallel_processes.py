"""Each pytest-xdist process gets a Redis database of its own (tests/conftest.py)."""

from tests.conftest import broker_for_test_process


def test_each_process_takes_the_databases_after_the_given_one():
    assert broker_for_test_process("redis://127.0.0.1:6379/0", "gw0") == "redis://127.0.0.1:6379/1"
    assert broker_for_test_process("redis://127.0.0.1:6379/0", "gw1") == "redis://127.0.0.1:6379/2"
    assert broker_for_test_process("redis://h:6379", "gw3") == "redis://h:6379/4"


def test_a_single_process_or_another_broker_keeps_its_url():
    assert broker_for_test_process("redis://127.0.0.1:6379/5", "") == "redis://127.0.0.1:6379/5"
    assert broker_for_test_process("filesystem://", "gw1") == "filesystem://"
    assert broker_for_test_process("", "gw0") == ""
