"""The tournament admin: a form that offers only what tournaments support, that game's active bots as entrants,
and the list's actions (start, add all, close registration, cancel, re-run); staff revalidation; the branding."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from league.arena.models import BotVersion, Match, Tournament, TournamentEntry

FORM = {
    "name": "Cup", "games_per_pairing": 2, "duplicate": "on", "turn_seconds": 1, "bank_seconds": 10,
    "startup_seconds": 5,
}  # fmt: skip
# The management forms of the two entrant inlines: the entrants so far ("entries"), new ones ("entries-2").
NO_ENTRANTS = {
    "entries-TOTAL_FORMS": 0,
    "entries-INITIAL_FORMS": 0,
    "entries-2-TOTAL_FORMS": 0,
    "entries-2-INITIAL_FORMS": 0,
}


@pytest.fixture
def root(client, db):
    admin = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(admin)
    return admin


def change_page(client, tournament) -> str:
    return client.get(reverse("admin:arena_tournament_change", args=[tournament.pk])).content.decode()


def act(client, action, *tournaments):
    url = reverse("admin:arena_tournament_changelist")
    data = {"action": action, "_selected_action": [t.pk for t in tournaments]}
    return client.post(url, data, follow=True).content.decode()


def test_an_admin_starts_a_tournament_from_the_admin(client, root, alice, bob, make_version, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Admin Cup", games_per_pairing=3)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=version.bot)
    assert "Admin Cup: 1 matches queued." in act(client, "start_now", t)
    t.refresh_from_db()
    assert t.status == "running" and Match.objects.filter(tournament=t).count() == 1


def test_the_form_offers_each_game_only_with_its_own_formats(client, root):
    page = client.get(reverse("admin:arena_tournament_add")).content.decode()
    for offered in ("face-to-face:round-robin", "face-to-face:double-round-robin", "the-game:solo-deals"):
        assert f'value="{offered}"' in page
    assert 'value="the-game:pairs"' in page and 'value="extreme:solo-deals"' in page
    assert 'value="the-game:round-robin"' not in page and 'value="face-to-face:pairs"' not in page
    assert "entries-TOTAL_FORMS" not in page  # the entrants are picked once the game is saved
    assert "choose the entrants among the active bots of the chosen game" in page

    refused = client.post(reverse("admin:arena_tournament_add"), {**FORM, "game_and_format": "the-game:round-robin"})
    assert "Select a valid choice" in refused.content.decode() and not Tournament.objects.exists()

    made = client.post(reverse("admin:arena_tournament_add"), {**FORM, "game_and_format": "the-game:pairs"})
    assert made.status_code == 302
    tournament = Tournament.objects.get()
    assert (tournament.game, tournament.format) == ("the-game", "pairs")


def test_the_entrant_picker_lists_only_active_bots_of_the_tournaments_game(client, root, alice, bob, make_version):
    ready = make_version(alice, "ready")
    make_version(alice, "broken", status="failed")
    coop = make_version(bob, "solver", game="the-game")
    t = Tournament.objects.create(name="Picky Cup")
    page = change_page(client, t)
    assert "alice/ready (v1)" in page
    assert "alice/broken" not in page and "bob/solver" not in page

    broken = BotVersion.objects.get(bot__name="broken").bot
    url = reverse("admin:arena_tournament_change", args=[t.pk])
    data = {**FORM, **NO_ENTRANTS, "name": "Picky Cup", "game_and_format": "face-to-face:round-robin"}
    new = {"entries-2-TOTAL_FORMS": 1, "entries-2-0-tournament": t.pk}
    for refused in (broken, coop.bot):
        response = client.post(url, {**data, **new, "entries-2-0-bot": refused.pk})
        assert "Select a valid choice" in response.content.decode()
    assert client.post(url, {**data, **new, "entries-2-0-bot": ready.bot.pk}).status_code == 302
    (entry,) = t.entries.all()
    assert entry.bot == ready.bot

    page = change_page(client, t)  # entered: listed read-only, no longer offered
    assert "alice/ready (v1)" not in page and ready.bot.full_name in page
    moved = client.post(url, {**data, "game_and_format": "the-game:solo-deals"})
    assert "remove them before changing the game" in moved.content.decode()

    existing = {"entries-TOTAL_FORMS": 1, "entries-INITIAL_FORMS": 1, "entries-0-id": entry.pk}
    removed = client.post(url, {**data, **existing, "entries-0-tournament": t.pk, "entries-0-DELETE": "on"})
    assert removed.status_code == 302 and not t.entries.exists()


def test_a_started_tournament_keeps_its_settings_but_may_be_renamed(client, root, alice, bob, make_version, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Old name")
    for version in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=version.bot)
    act(client, "start_now", t)
    response = client.post(
        reverse("admin:arena_tournament_change", args=[t.pk]),
        {"name": "New name", **NO_ENTRANTS},
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    t.refresh_from_db()
    assert (t.name, t.game, t.format) == ("New name", "face-to-face", "round-robin")


def test_add_all_active_bots_enters_only_that_games_active_bots(client, root, alice, bob, make_version):
    make_version(alice, "a"), make_version(bob, "b")
    make_version(bob, "failing", status="failed"), make_version(bob, "coop", game="the-game")
    t = Tournament.objects.create(name="Open Cup")
    assert "Open Cup: 2 bots added." in act(client, "add_all_active", t)
    assert sorted(t.entries.values_list("bot__name", flat=True)) == ["a", "b"]
    assert "Open Cup: 0 bots added." in act(client, "add_all_active", t)


def test_cancel_close_registration_and_rerun_from_the_list(client, root, alice, bob, make_version, sent):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    t = Tournament.objects.create(name="Cup", registration_open=True)
    for version in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=version.bot)
    assert "Cup: registration closed." in act(client, "close_registration", t)
    t.refresh_from_db()
    assert not t.registration_open
    assert "has no failed matches" not in act(client, "rerun_failed", t)  # not started: refused with a reason
    act(client, "start_now", t)
    Match.objects.filter(tournament=t).update(status="failed", error="the runner failed")
    t.mark_finished_if_done()
    assert "Cup: 1 failed matches queued again." in act(client, "rerun_failed", t)
    assert "Cup: cancelled; 1 matches withdrawn." in act(client, "cancel", t)
    assert "there is nothing to cancel" in act(client, "cancel", t)


def test_staff_validate_again_any_failed_version_that_is_kept(client, root, alice, make_version, sent):
    failed = make_version(alice, "wobbly", status="failed")
    active = make_version(alice, "fine")
    url = reverse("admin:arena_botversion_changelist")
    page = client.post(url, {"action": "revalidate", "_selected_action": [failed.pk, active.pk]}, follow=True)
    text = page.content.decode()
    assert "Validating again: alice/wobbly v1." in text
    assert "Not validated again: alice/fine v1 is active, not failed." in text
    failed.refresh_from_db()
    assert failed.status == "validating"
    assert Match.objects.filter(kind="validation", entries__version=failed).count() == 1


def test_the_admin_is_branded_as_the_site(client, root):
    page = client.get(reverse("admin:index")).content.decode()
    assert "<title>Run the league | The Game Arena admin</title>" in page
    assert "The Game Arena admin</a>" in page and "arena/favicon.svg" in page and "arena/admin.css" in page
    assert f'href="{reverse("machinery")}"' in page
