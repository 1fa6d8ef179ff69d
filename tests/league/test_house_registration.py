"""The league registers a house bot under the hash of every module it loads, and a new hash as a new version."""

from __future__ import annotations

import pytest

from bots.house import UnknownHouseBot, versions
from league.arena.uploads.house import house_version


@pytest.mark.django_db
def test_a_house_bot_is_registered_under_its_module_closure_hash(monkeypatch):
    first = house_version("house:expert")
    assert first.version_id == versions.house_version("expert")
    assert house_version("house:expert") == first  # unchanged code: the same version
    monkeypatch.setattr(versions, "house_version", lambda name: "sha256:" + "ab" * 32)  # a specialist changed
    second = house_version("house:expert")
    assert second.bot == first.bot and second.number == first.number + 1 and second.sha256 == "ab" * 32


@pytest.mark.django_db
def test_a_reference_that_is_not_a_house_bot_is_refused():
    with pytest.raises(UnknownHouseBot, match="'genius'"):
        house_version("house:genius")
    with pytest.raises(ValueError, match="not a house bot reference"):
        house_version("alice/bot")
