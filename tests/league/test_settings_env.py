import pytest
from django.core.exceptions import ImproperlyConfigured

from league.env import env_bool, env_int, env_list


def test_it_reads_booleans(monkeypatch):
    monkeypatch.setenv("X_FLAG", "Yes")
    assert env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env_bool("X_FLAG", True) is False
    monkeypatch.delenv("X_FLAG")
    assert env_bool("X_FLAG", True) is True


def test_it_names_the_variable_it_cannot_read(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG='maybe' is not a boolean"):
        env_bool("X_FLAG", False)
    monkeypatch.setenv("X_COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="X_COUNT='ten' is not an integer"):
        env_int("X_COUNT", 1)
    monkeypatch.setenv("X_COUNT", "0")
    with pytest.raises(ImproperlyConfigured, match="X_COUNT=0 is below its minimum 1"):
        env_int("X_COUNT", 1, minimum=1)


def test_it_splits_lists(monkeypatch):
    monkeypatch.setenv("X_HOSTS", "arena.example, ,localhost")
    assert env_list("X_HOSTS", []) == ["arena.example", "localhost"]
