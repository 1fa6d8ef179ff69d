"""Rate limits: failed logins per account and per address (django-axes), sign-ups per address, uploads per user."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from league.arena.models import Bot

GOOD_BOT = b"def play(observation):\n    return []\n"


def log_in(client, username, password, address="10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def assert_retry_page(response, what):
    assert response.status_code == 429
    seconds = int(response["Retry-After"])
    page = response.content.decode()
    assert what in page
    assert re.search(r"try again in \d+ minutes? \(after \d\d:\d\d UTC\)", page), page
    return seconds


def test_wrong_passwords_lock_their_address_out_even_with_the_right_one(client, alice, settings):
    settings.AXES_FAILURE_LIMIT = 5
    for _ in range(4):
        assert log_in(client, "alice", "wrong").status_code == 200
    assert log_in(client, "alice", "wrong").status_code == 429  # the fifth failure locks
    response = log_in(client, "alice", "correct horse battery")
    seconds = assert_retry_page(response, "Too many failed logins")
    assert 14 * 60 < seconds <= 15 * 60
    assert "_auth_user_id" not in client.session


def test_a_stranger_guessing_cannot_lock_the_owner_or_the_admin_out(client, alice, admin_user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for name in ("alice", "admin"):
        for _ in range(10):
            log_in(client, name, "guess", address="10.6.6.6")
    assert log_in(Client(), "alice", "correct horse battery", address="10.0.0.2").status_code == 302
    admin = Client().post(reverse("admin:login"), {"username": "admin", "password": "password"}, REMOTE_ADDR="10.0.0.3")
    assert admin.status_code == 302  # logged in, from its own address
    assert log_in(Client(), "alice", "correct horse battery", address="10.6.6.6").status_code == 429


def test_wrong_passwords_from_one_address_lock_that_address(client, alice, bob, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for name in ("nobody1", "nobody2", "nobody3"):  # spraying: one guess an account
        log_in(client, name, "guess", address="10.9.9.9")
    assert log_in(Client(), "bob", "correct horse battery", address="10.9.9.9").status_code == 429
    # another address logs in
    assert log_in(Client(), "bob", "correct horse battery", address="10.0.0.7").status_code == 302


def test_a_right_password_resets_the_count(client, alice, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(2):
        log_in(client, "alice", "wrong")
    assert log_in(client, "alice", "correct horse battery").status_code == 302
    for _ in range(2):
        log_in(Client(), "alice", "wrong")
    assert log_in(Client(), "alice", "correct horse battery").status_code == 302


def test_behind_the_proxy_the_forwarded_address_counts(client, alice, settings):
    settings.AXES_FAILURE_LIMIT = 2
    settings.BEHIND_TLS_PROXY = True
    for _ in range(2):
        client.post(
            reverse("login"),
            {"username": "x", "password": "y"},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR="6.6.6.6, 10.1.1.1",
        )
    other = Client().post(
        reverse("login"),
        {"username": "alice", "password": "correct horse battery"},
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR="10.2.2.2",
    )
    assert other.status_code == 302  # the proxy's own address is not what was locked


def sign_up(client, username, address):
    data = {"username": username, "password1": "a long enough pass 9", "password2": "a long enough pass 9"}
    return client.post(reverse("signup"), data, REMOTE_ADDR=address)


def test_sign_ups_per_address_per_hour(settings, db):
    settings.ARENA_SIGNUPS_PER_HOUR = 3
    for index in range(3):
        assert sign_up(Client(), f"user{index}", "10.3.3.3").status_code == 302
    assert_retry_page(sign_up(Client(), "user9", "10.3.3.3"), "Too many sign-ups from your address this hour.")
    assert sign_up(Client(), "user8", "10.4.4.4").status_code == 302
    assert Client().get(reverse("signup"), REMOTE_ADDR="10.3.3.3").status_code == 200  # the form still shows


def test_uploads_per_user_per_hour(client, alice, bob, sent, settings):
    settings.ARENA_UPLOADS_PER_HOUR = 3
    client.force_login(alice)
    data = {"name": "mybot", "game": "face-to-face", "description": ""}
    assert client.post(reverse("new-bot"), {**data, "file": SimpleUploadedFile("bot.py", GOOD_BOT)}).status_code == 302
    bot = Bot.objects.get(owner=alice)
    for index in range(2):
        upload = SimpleUploadedFile("bot.py", GOOD_BOT + b"#%d\n" % index)
        assert client.post(reverse("new-version", args=[bot.pk]), {"file": upload}).status_code == 302
    upload = SimpleUploadedFile("bot.py", GOOD_BOT + b"#late\n")
    response = client.post(reverse("new-version", args=[bot.pk]), {"file": upload})
    assert_retry_page(response, "as many bots and versions as one account may in an hour")
    assert bot.versions.count() == 3
    other = {**data, "name": "two", "file": SimpleUploadedFile("bot.py", GOOD_BOT + b"#x\n")}
    assert client.post(reverse("new-bot"), other).status_code == 429
    client.force_login(bob)
    assert client.post(reverse("new-bot"), {**data, "file": SimpleUploadedFile("bot.py", GOOD_BOT)}).status_code == 302


def test_uploads_refused_at_compile_time_do_not_count_against_the_hourly_quota(client, alice, sent, settings):
    settings.ARENA_UPLOADS_PER_HOUR = 2
    client.force_login(alice)
    data = {"name": "mybot", "game": "face-to-face", "description": ""}
    assert client.post(reverse("new-bot"), {**data, "file": SimpleUploadedFile("bot.py", GOOD_BOT)}).status_code == 302
    bot = Bot.objects.get(owner=alice)
    for index in range(5):  # five uploads that do not compile: each refused, none counted
        broken = SimpleUploadedFile("bot.py", b"def play(observation:\n    return []  # %d\n" % index)
        response = client.post(reverse("new-version", args=[bot.pk]), {"file": broken})
        assert response.status_code == 400
    upload = SimpleUploadedFile("bot.py", GOOD_BOT + b"#fixed\n")
    assert client.post(reverse("new-version", args=[bot.pk]), {"file": upload}).status_code == 302
    late = SimpleUploadedFile("bot.py", GOOD_BOT + b"#late\n")
    assert client.post(reverse("new-version", args=[bot.pk]), {"file": late}).status_code == 429  # 2 accepted
