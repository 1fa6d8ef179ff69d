"""Admins create tournaments in the Django admin and start them with an action."""

from django.contrib.auth import get_user_model
from django.urls import reverse

from league.arena.models import Match, Tournament, TournamentEntry


def test_an_admin_starts_a_tournament_from_the_admin(client, alice, bob, make_version, sent):
    admin = get_user_model().objects.create_superuser("root", password="x")
    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Admin Cup", games_per_pairing=3)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=version.bot)
    client.force_login(admin)
    response = client.post(
        reverse("admin:arena_tournament_changelist"),
        {"action": "start_now", "_selected_action": [t.pk]},
        follow=True,
    )
    assert "Admin Cup: 1 matches queued." in response.content.decode()
    t.refresh_from_db()
    assert t.status == "running" and Match.objects.filter(tournament=t).count() == 1


def test_the_admin_refuses_a_coop_tournament(client, db):
    admin = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(admin)
    response = client.post(
        reverse("admin:arena_tournament_add"),
        {
            "name": "Co-op Cup", "game": "the-game", "format": "round-robin", "games_per_pairing": 2,
            "duplicate": "on", "turn_seconds": 1, "bank_seconds": 10, "startup_seconds": 5,
            "entries-TOTAL_FORMS": 0, "entries-INITIAL_FORMS": 0,
        },
    )  # fmt: skip
    assert "The co-op games are played as solo deals or pairs." in response.content.decode()
    assert not Tournament.objects.exists()
