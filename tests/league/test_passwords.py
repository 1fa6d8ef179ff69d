"""Password change and reset: the e-mail (Django's locmem backend in tests), its link, the same answer for any
address, the throttle, and the e-mail settings read from the environment."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"https?://[^/\s]+(/accounts/password/reset/[^\s]+/)")


@pytest.fixture
def carol(db):
    return get_user_model().objects.create_user("carol", "carol@example.org", "old password 1234")


def ask_reset(client, email: str):
    return client.post(reverse("password_reset"), {"email": email})


def test_a_reset_mails_a_link_that_sets_a_new_password_once(client, carol, settings):
    settings.SITE_NAME = "Test Arena"
    response = ask_reset(client, "Carol@Example.org")
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["carol@example.org"] and message.subject == "Your password on Test Arena"
    assert "Hello carol," in message.body
    path = LINK.search(message.body).group(1)
    form = client.get(path, follow=True)  # Django swaps the token for a session marker and redirects
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    new = {"new_password1": "a brand new secret 987", "new_password2": "a brand new secret 987"}
    done = client.post(form.redirect_chain[-1][0], new)
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    carol.refresh_from_db()
    assert carol.check_password("a brand new secret 987")
    client.logout()
    again = client.get(path, follow=True).content.decode()
    assert "This link does not work any more" in again


def test_the_answer_is_the_same_for_an_unknown_address(client, carol):
    known = ask_reset(client, "carol@example.org")
    unknown = ask_reset(client, "nobody@example.org")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [m.to for m in mail.outbox] == [["carol@example.org"]]
    page = client.get(known["Location"]).content.decode()
    assert "If an account has that address" in page


def test_a_disabled_account_gets_no_reset_mail(client, carol):
    from league.arena.uploads import changes as bot_changes

    bot_changes.disable_users([carol])
    assert ask_reset(client, "carol@example.org").status_code == 302
    assert mail.outbox == []


def test_reset_requests_are_throttled_per_address_and_per_e_mail(client, carol, settings):
    settings.ARENA_PASSWORD_RESETS_PER_HOUR = 2
    for _ in range(2):
        assert ask_reset(client, "carol@example.org").status_code == 302
    refused = ask_reset(client, "carol@example.org")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many password reset requests" in refused.content.decode()
    assert len(mail.outbox) == 2
    # Another client address asking for the same e-mail address is refused too: nobody floods an inbox.
    elsewhere = client.post(reverse("password_reset"), {"email": "CAROL@example.org "}, REMOTE_ADDR="10.9.8.7")
    assert elsewhere.status_code == 429


def test_a_signed_in_user_changes_their_password(client, carol):
    client.force_login(carol)
    page = client.get(reverse("password_change"))
    assert page.status_code == 200 and "Change your password" in page.content.decode()
    wrong = client.post(
        reverse("password_change"),
        {"old_password": "not it", "new_password1": "fresh secret 4567", "new_password2": "fresh secret 4567"},
    )
    assert wrong.status_code == 200 and "Your old password was entered incorrectly" in wrong.content.decode()
    right = client.post(
        reverse("password_change"),
        {
            "old_password": "old password 1234",
            "new_password1": "fresh secret 4567",
            "new_password2": "fresh secret 4567",
        },
    )
    assert right.status_code == 302 and right["Location"] == reverse("password_change_done")
    carol.refresh_from_db()
    assert carol.check_password("fresh secret 4567")
    assert client.get(reverse("my-bots")).status_code == 200  # still signed in here


def test_changing_a_password_needs_a_login(client, db):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_login_page_and_your_profile_link_to_the_password_pages(client, carol):
    assert reverse("password_reset") in client.get(reverse("login")).content.decode()
    client.force_login(carol)
    assert reverse("password_change") in client.get(reverse("user", args=["carol"])).content.decode()


def load_email_settings(tmp_path, **env: str) -> subprocess.CompletedProcess:
    environ = {"PATH": "/usr/bin:/bin", "ARENA_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "league.settings"}
    environ.update(env)
    code = (
        "from django.conf import settings as s; "
        "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.DEFAULT_FROM_EMAIL)"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=60
    )


def test_e_mail_goes_to_the_console_unless_an_smtp_server_is_named(tmp_path):
    console = load_email_settings(tmp_path)
    assert console.stdout.split()[0] == "django.core.mail.backends.console.EmailBackend", console.stderr
    smtp = load_email_settings(
        tmp_path, EMAIL_HOST="smtp.example.org", EMAIL_PORT="465", EMAIL_USE_SSL="true", DEFAULT_FROM_EMAIL="a@b.org"
    )
    assert smtp.stdout.split() == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.org",
        "465",
        "False",
        "True",
        "a@b.org",
    ], smtp.stderr


def test_e_mail_settings_that_contradict_each_other_are_refused(tmp_path):
    both = load_email_settings(tmp_path, EMAIL_HOST="smtp.example.org", EMAIL_USE_SSL="true", EMAIL_USE_TLS="true")
    assert both.returncode != 0 and "EMAIL_USE_SSL and EMAIL_USE_TLS are both true" in both.stderr
    port = load_email_settings(tmp_path, EMAIL_PORT="smtp")
    assert port.returncode != 0 and "EMAIL_PORT='smtp' is not an integer" in port.stderr
