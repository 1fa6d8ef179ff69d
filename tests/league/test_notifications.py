"""Owners are told: `notify` stores a notice as the user's preferences say, once per key, only if the caller's
transaction commits; its e-mail goes out once, after commit, only where EMAIL_HOST is set, and is retried, given up
on, or asked for again by the upkeep."""

from __future__ import annotations

import smtplib

import pytest
from django.core import mail
from django.db import transaction
from django.utils import timezone

from league.arena import notifications
from league.arena.models import Notification, NotificationSetting
from league.arena.notifications import delivery, inbox, preferences

Kind = notifications.Kind


@pytest.fixture
def email_on(settings):
    settings.EMAIL_HOST = "smtp.example.org"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://arena.example.org"


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user("carol", email="carol@example.org", password="x")


def test_notify_stores_a_notice_with_its_link(alice):
    notice = notifications.notify(alice, Kind.VERSION_VALIDATED, "ace v2 passed", "/bots/7/#versions")
    assert notice is not None and notice.pk
    stored = Notification.objects.get()
    assert (stored.recipient, stored.kind, stored.text) == (alice, "version-validated", "ace v2 passed")
    assert stored.url == "/bots/7/#versions"
    assert stored.unread and stored.email == ""
    assert inbox.unread_count(alice.pk) == 1


def test_notify_takes_a_user_id_and_a_kind_as_text(alice):
    assert notifications.notify(alice.pk, "scrim-finished", "done") is not None
    assert Notification.objects.get().kind == Kind.SCRIM_FINISHED


def test_an_unknown_kind_or_a_link_off_the_site_is_refused(alice):
    with pytest.raises(ValueError):
        notifications.notify(alice, "version-lost", "?")
    with pytest.raises(ValueError, match="path on the site"):
        notifications.notify(alice, Kind.BOT_PAUSED, "paused", "https://elsewhere.example/")
    assert not Notification.objects.exists()


def test_text_is_one_line_and_cut_to_fit(alice):
    notice = notifications.notify(alice, Kind.VERSION_FAILED, "failed:\n  Traceback\n" + "x" * 900)
    assert "\n" not in notice.text and len(notice.text) == 500 and notice.text.endswith("…")


def test_a_key_is_told_once(alice):
    with transaction.atomic():  # a repeated key leaves the caller's transaction usable
        assert notifications.notify(alice, Kind.BOT_PAUSED, "paused", key="paused:7:1") is not None
        assert notifications.notify(alice, Kind.BOT_PAUSED, "paused again", key="paused:7:1") is None
        assert Notification.objects.count() == 1
    assert notifications.notify(alice, Kind.BOT_PAUSED, "paused later", key="paused:7:2") is not None


def test_nothing_is_told_when_the_callers_transaction_rolls_back(alice, sent, email_on):
    alice.email = "alice@example.org"
    alice.save()

    class Undone(Exception):
        pass

    with pytest.raises(Undone), transaction.atomic():
        notifications.notify(alice, Kind.VERSION_FAILED, "failed")
        raise Undone
    assert not Notification.objects.exists()
    assert sent == []


def test_inactive_accounts_and_kinds_turned_off_get_nothing(alice, bob):
    bob.is_active = False  # e.g. the house bots' owner
    bob.save()
    assert notifications.notify(bob, Kind.TOURNAMENT_FINISHED, "over") is None
    preferences.save(alice.pk, {Kind.SCRIM_FINISHED: "off"})
    assert notifications.notify(alice, Kind.SCRIM_FINISHED, "done") is None
    assert notifications.notify(alice, Kind.VERSION_FAILED, "failed") is not None
    assert Notification.objects.count() == 1


def test_preferences_store_only_what_differs_from_the_default(alice):
    assert preferences.choices(alice.pk) == preferences.DEFAULTS
    preferences.save(alice.pk, {Kind.SCRIM_FINISHED: "email", Kind.VERSION_FAILED: "email"})
    assert list(NotificationSetting.objects.values_list("kind", "delivery")) == [("scrim-finished", "email")]
    assert preferences.choices(alice.pk)[Kind.SCRIM_FINISHED] == "email"
    preferences.save(alice.pk, {Kind.SCRIM_FINISHED: preferences.DEFAULTS[Kind.SCRIM_FINISHED]})
    assert not NotificationSetting.objects.exists()
    with pytest.raises(ValueError, match="no such kind"):
        preferences.save(alice.pk, {"version-lost": "email"})
    with pytest.raises(ValueError, match="delivery"):
        preferences.save(alice.pk, {Kind.SCRIM_FINISHED: "pigeon"})


def test_without_email_host_nothing_is_emailed(carol, sent, settings):
    settings.EMAIL_HOST = ""
    notice = notifications.notify(carol, Kind.VERSION_FAILED, "failed")
    assert notice.email == "" and sent == []


def test_no_address_or_a_site_only_kind_is_not_emailed(alice, carol, sent, email_on):
    assert notifications.notify(alice, Kind.VERSION_FAILED, "failed").email == ""  # alice has no address
    assert notifications.notify(carol, Kind.VERSION_VALIDATED, "passed").email == ""  # site only by default
    assert sent == []


def test_an_email_is_queued_on_commit_and_sent_once(carol, sent, email_on, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            notice = notifications.notify(carol, Kind.VERSION_FAILED, "ace v3 failed its validation", "/bots/7/")
            assert sent == []  # not before the notice is committed
    assert sent == [("send_notification_email", (notice.pk,))]
    assert delivery.send_email(notice.pk) is True
    assert delivery.send_email(notice.pk) is False  # a second delivery of the task sends nothing
    (message,) = mail.outbox
    assert message.to == ["carol@example.org"]
    assert message.subject == "[The Game Arena] ace v3 failed its validation"
    assert f"https://arena.example.org/notifications/{notice.pk}/" in message.body  # opens it, marking it read
    assert "https://arena.example.org/notifications/settings/" in message.body
    notice.refresh_from_db()
    assert notice.email == "sent" and notice.emailed_at is not None


def test_a_refusing_smtp_server_is_retried_then_given_up(carol, sent, email_on, monkeypatch):
    notice = notifications.notify(carol, Kind.BOT_PAUSED, "paused")

    def refuse(*args, **kwargs):
        raise smtplib.SMTPServerDisconnected("gone")

    monkeypatch.setattr(delivery, "send_mail", refuse)
    assert delivery.try_email(notice.pk, 0) == delivery.EMAIL_FIRST_RETRY_SECONDS
    assert delivery.try_email(notice.pk, 2) == 4 * delivery.EMAIL_FIRST_RETRY_SECONDS
    notice.refresh_from_db()
    assert notice.email == "pending"
    assert delivery.try_email(notice.pk, delivery.EMAIL_RETRIES) is None
    notice.refresh_from_db()
    assert notice.email == "failed" and inbox.unread_count(carol.pk) == 1  # still on the site


def test_an_address_removed_meanwhile_is_not_mailed(carol, sent, email_on):
    notice = notifications.notify(carol, Kind.BOT_PAUSED, "paused")
    carol.email = ""
    carol.save()
    assert delivery.send_email(notice.pk) is False and mail.outbox == []
    notice.refresh_from_db()
    assert notice.email == ""


def test_the_upkeep_asks_again_for_an_email_lost_an_hour_ago_once(
    carol, sent, email_on, django_capture_on_commit_callbacks
):
    notice = notifications.notify(carol, Kind.BOT_PAUSED, "paused")
    with django_capture_on_commit_callbacks(execute=True):
        assert delivery.resend_lost() == 0  # asked for just now: its task is on its way
        Notification.objects.filter(pk=notice.pk).update(email_asked_at=timezone.now() - delivery.LOST_AFTER * 2)
        assert delivery.resend_lost() == 1
        assert delivery.resend_lost() == 0  # asked again just now
    assert sent == [("send_notification_email", (notice.pk,))]


def test_marking_read_touches_only_the_users_own(alice, bob):
    mine = [notifications.notify(alice, Kind.SCRIM_FINISHED, f"scrim {k}") for k in range(3)]
    theirs = notifications.notify(bob, Kind.SCRIM_FINISHED, "bob's")
    assert inbox.mark_read(alice.pk, [mine[0].pk, theirs.pk]) == 1
    assert inbox.unread_count(alice.pk) == 2 and inbox.unread_count(bob.pk) == 1
    assert inbox.mark_read(alice.pk) == 2
    assert inbox.unread_count(alice.pk) == 0 and inbox.unread_count(bob.pk) == 1
    assert inbox.open_notice(alice.pk, theirs.pk) is None
    assert inbox.mark_unread(alice.pk, [mine[1].pk]) == 1 and inbox.unread_count(alice.pk) == 1
