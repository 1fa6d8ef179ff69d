"""Admins start co-op seasons from the admin or with `manage.py start_season`; old results stay as they were."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from league.arena.models import Season


@pytest.fixture
def admin_client(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


def test_the_admin_starts_a_season_with_a_fresh_seed(admin_client):
    form = {"game": "extreme", "deals": 200, "chunk": 50, "team_sizes": "[1, 2]", "seed": ""}
    response = admin_client.post(reverse("admin:arena_season_add"), form)
    assert response.status_code == 302, response.content.decode()[-3000:]
    season = Season.objects.get()
    assert (season.number, season.current, season.deals, season.chunk, season.team_sizes) == (1, True, 200, 50, [1, 2])
    assert len(season.seed) == 32 and int(season.seed, 16) >= 0  # names nothing, like every match seed


def test_the_admin_refuses_bad_team_sizes(admin_client):
    form = {"game": "the-game", "deals": 10, "chunk": 5, "team_sizes": "[0, 7]", "seed": ""}
    response = admin_client.post(reverse("admin:arena_season_add"), form)
    assert "team sizes are a non-empty list of numbers from 1 to 5" in response.content.decode()
    assert not Season.objects.exists()


def test_the_admin_action_starts_the_next_season_like_the_last(admin_client):
    call_command("start_season", "the-game", "--deals", "30", "--chunk", "10", "--team-sizes", "1,3")
    first = Season.objects.get()
    response = admin_client.post(
        reverse("admin:arena_season_changelist"),
        {"action": "start_new_season", "_selected_action": [first.pk]},
        follow=True,
    )
    assert "Started The Game season 2 with 30 fresh deals." in response.content.decode()
    second = Season.objects.get(current=True)
    first.refresh_from_db()
    assert not first.current and (second.deals, second.chunk, second.team_sizes) == (30, 10, [1, 3])
    assert second.seed != first.seed


def test_the_command_explains_what_is_wrong(db):
    with pytest.raises(CommandError, match="numbers from 1 to 5"):
        call_command("start_season", "the-game", "--team-sizes", "1,x")
    with pytest.raises(CommandError, match="team sizes"):
        call_command("start_season", "the-game", "--team-sizes", "1,9")
    with pytest.raises(CommandError):
        call_command("start_season", "face-to-face")
    assert not Season.objects.exists()
