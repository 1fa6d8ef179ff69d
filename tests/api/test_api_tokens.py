"""API tokens: their owner creates, replaces and revokes them on /account/tokens/; an operator with
`manage.py drf_create_token`; a script sends one as `Authorization: Token KEY`."""

from __future__ import annotations

import re

from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

PAGE = "/account/tokens/"


def shown_key(response) -> str:
    match = re.search(r'<code id="new-token">([0-9a-f]{40})</code>', response.content.decode())
    assert match, response.content.decode()
    return match.group(1)


def writes_with(key: str, bot_id: int):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.patch(f"/api/bots/{bot_id}/", {"description": "by script"}, format="json")


def test_the_page_needs_a_login(client, db):
    response = client.get(PAGE)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_owner_creates_uses_replaces_and_revokes_a_token(alice, make_version):
    bot = make_version(alice, "mybot").bot
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    page = client.get(PAGE)
    assert "You have no token." in page.content.decode()
    csrf = page.cookies["csrftoken"].value

    first = shown_key(client.post(PAGE, {"action": "create", "csrfmiddlewaretoken": csrf}))
    assert Token.objects.get(user=alice).key == first
    assert writes_with(first, bot.pk).status_code == 200
    later = client.get(PAGE).content.decode()
    assert first not in later and f"starting with <code>{first[:4]}" in later  # shown once only

    second = shown_key(client.post(PAGE, {"action": "create", "csrfmiddlewaretoken": csrf}))
    assert second != first and writes_with(first, bot.pk).status_code == 401
    assert writes_with(second, bot.pk).status_code == 200

    revoked = client.post(PAGE, {"action": "revoke", "csrfmiddlewaretoken": csrf}, follow=True)
    assert "Your token is revoked." in revoked.content.decode()
    assert not Token.objects.filter(user=alice).exists() and writes_with(second, bot.pk).status_code == 401


def test_a_post_without_the_csrf_token_is_refused(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(PAGE, {"action": "create"}).status_code == 403
    assert not Token.objects.exists()


def test_an_unknown_action_changes_nothing(client, alice):
    client.force_login(alice)
    Token.objects.create(user=alice)
    assert client.post(PAGE, {"action": "drop-tables"}).status_code == 400
    assert Token.objects.filter(user=alice).count() == 1


def test_an_operator_creates_a_token_with_drf_create_token(alice, make_version, capsys):
    bot = make_version(alice, "mybot").bot
    call_command("drf_create_token", "alice")
    key = re.search(r"([0-9a-f]{40})", capsys.readouterr().out).group(1)
    assert Token.objects.get(user=alice).key == key
    assert writes_with(key, bot.pk).status_code == 200
