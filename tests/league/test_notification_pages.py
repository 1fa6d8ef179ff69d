"""The notification centre on the site: the navigation's unread count (kept live), the list, marking read (one, all,
back to unread), opening a notice, and the preferences; each user sees and touches only their own."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from league.arena import notifications
from league.arena.models import Notification, NotificationSetting

Kind = notifications.Kind


@pytest.fixture
def signed_in(client, alice):
    client.force_login(alice)
    return client


def badge_count(html: str) -> str | None:
    found = re.search(r'<span class="count">(\d+)<span class="sr-only"> unread</span></span>', html)
    return found.group(1) if found else None


def test_anonymous_visitors_are_sent_to_log_in(client, db):
    for name in ("notifications", "notification-settings"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and reverse("login") in response["Location"]
    assert client.get(reverse("notification-badge")).status_code == 403


def test_the_navigation_counts_unread_notices_and_refreshes_itself(signed_in, alice, bob):
    page = signed_in.get(reverse("home")).content.decode()
    assert 'href="/notifications/"' in page and badge_count(page) is None
    for k in range(3):
        notifications.notify(alice, Kind.SCRIM_FINISHED, f"scrim {k} finished")
    notifications.notify(bob, Kind.SCRIM_FINISHED, "bob's")
    page = signed_in.get(reverse("home")).content.decode()
    assert badge_count(page) == "3"
    assert f'data-live-url="{reverse("notification-badge")}"' in page
    fragment = signed_in.get(reverse("notification-badge")).content.decode()
    assert fragment.strip().startswith('<a class="notices has-unread"') and badge_count(fragment) == "3"


def test_the_list_shows_the_users_notices_newest_first(signed_in, alice, bob):
    notifications.notify(alice, Kind.VERSION_FAILED, "ace v2 failed its validation: crash", "/bots/1/#versions")
    notifications.notify(alice, Kind.SCRIM_FINISHED, "Scrim finished: alice/ace beat bob/bee 6–4", "/scrims/1/")
    notifications.notify(bob, Kind.SCRIM_FINISHED, "bob's own")
    page = signed_in.get(reverse("notifications")).content.decode()
    assert page.index("Scrim finished") < page.index("ace v2 failed")
    assert "bob's own" not in page
    assert "A scrim finished" in page and "Unread (2)" in page and "Mark all read" in page


def test_mark_one_read_all_read_and_one_unread(signed_in, alice):
    first = notifications.notify(alice, Kind.SCRIM_FINISHED, "first")
    notifications.notify(alice, Kind.SCRIM_FINISHED, "second")
    response = signed_in.post(reverse("notifications-read"), {"id": first.pk, "next": "/notifications/?show=unread"})
    assert response.status_code == 302 and response["Location"] == "/notifications/?show=unread"
    assert Notification.objects.filter(read_at__isnull=True).count() == 1
    unread_page = signed_in.get("/notifications/?show=unread").content.decode()
    assert "second" in unread_page and ">first<" not in unread_page
    signed_in.post(reverse("notifications-read"), {"all": "1"})
    assert not Notification.objects.filter(read_at__isnull=True).exists()
    signed_in.post(reverse("notifications-read"), {"id": first.pk, "unread": "1"})
    assert list(Notification.objects.filter(read_at__isnull=True).values_list("text", flat=True)) == ["first"]


def test_marking_read_goes_back_only_to_this_site(signed_in, alice):
    notice = notifications.notify(alice, Kind.SCRIM_FINISHED, "first")
    response = signed_in.post(reverse("notifications-read"), {"id": notice.pk, "next": "https://evil.example/"})
    assert response["Location"] == reverse("notifications")
    assert signed_in.get(reverse("notifications-read")).status_code == 405


def test_opening_a_notice_marks_it_read_and_follows_its_link(signed_in, alice, bob):
    mine = notifications.notify(alice, Kind.VERSION_FAILED, "failed", "/bots/3/#versions")
    theirs = notifications.notify(bob, Kind.VERSION_FAILED, "bob's", "/bots/4/")
    response = signed_in.get(reverse("notification-open", args=[mine.pk]))
    assert response.status_code == 302 and response["Location"] == "/bots/3/#versions"
    mine.refresh_from_db()
    assert not mine.unread
    response = signed_in.get(reverse("notification-open", args=[theirs.pk]))
    assert response["Location"] == reverse("notifications")
    theirs.refresh_from_db()
    assert theirs.unread
    signed_in.post(reverse("notifications-read"), {"id": theirs.pk})
    theirs.refresh_from_db()
    assert theirs.unread


def test_the_list_is_paged(signed_in, alice):
    for k in range(30):
        notifications.notify(alice, Kind.SCRIM_FINISHED, f"scrim number {k:02d}")
    first = signed_in.get(reverse("notifications")).content.decode()
    assert "scrim number 29" in first and "scrim number 04" not in first
    second = signed_in.get(reverse("notifications") + "?page=2").content.decode()
    assert "scrim number 04" in second
    assert signed_in.get(reverse("notifications") + "?page=9").status_code == 404


def test_preferences_show_the_defaults_and_save_choices_and_address(signed_in, alice, settings):
    settings.EMAIL_HOST = ""
    page = signed_in.get(reverse("notification-settings")).content.decode()
    assert "This server sends no e-mail" in page
    assert re.search(r'name="version-failed" value="email"[^>]*checked', page)
    assert re.search(r'name="scrim-finished" value="site"[^>]*checked', page)
    choices = {kind: "site" for kind in Kind.values} | {"test-verdict": "off", "email": "alice@example.org"}
    response = signed_in.post(reverse("notification-settings"), choices)
    assert response.status_code == 302
    stored = dict(NotificationSetting.objects.values_list("kind", "delivery"))
    assert stored == {
        "version-failed": "site",
        "bot-paused": "site",
        "tournament-finished": "site",
        "test-verdict": "off",
    }
    alice.refresh_from_db()
    assert alice.email == "alice@example.org"
    settings.EMAIL_HOST = "smtp.example.org"
    assert "This server sends no e-mail" not in signed_in.get(reverse("notification-settings")).content.decode()


def test_a_wrong_preference_is_refused_and_nothing_is_saved(signed_in, alice):
    choices = {kind: "site" for kind in Kind.values} | {"bot-paused": "pigeon", "email": "not an address"}
    page = signed_in.post(reverse("notification-settings"), choices).content.decode()
    assert "Select a valid choice" in page and "Enter a valid email address" in page
    assert not NotificationSetting.objects.exists()
