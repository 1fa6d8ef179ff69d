"""The staff disable (and enable) bots and accounts in the admin: a disabled account cannot log in or use its API
token, and its bots leave the ladder; the tournament entry picker offers only bots on the ladder."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.urls import reverse
from rest_framework.authtoken.models import Token

from league.arena.models import Bot, Match


@pytest.fixture
def root(db):
    return get_user_model().objects.create_superuser("root", password="correct horse battery")


@pytest.fixture
def admin_client(client, root):
    client.force_login(root)
    return client


def act(client, model: str, action: str, ids: list[int]):
    url = reverse(f"admin:{'auth_user' if model == 'user' else 'arena_bot'}_changelist")
    return client.post(url, {"action": action, "_selected_action": [str(pk) for pk in ids]}, follow=True)


def test_a_disabled_account_cannot_log_in_or_use_its_token_and_its_bots_leave(
    admin_client, client_factory, bob, alice, make_version
):
    bee, ace = make_version(bob, "bee"), make_version(alice, "ace")
    queued = Match.objects.create_with_entries([bee, ace], kind="ladder", games=2, seed="q")
    token = Token.objects.create(user=bob)
    bobs = client_factory()
    bobs.force_login(bob)
    assert bobs.get(reverse("my-bots")).status_code == 200

    page = act(admin_client, "user", "disable_accounts", [bob.pk]).content.decode()
    assert "1 account disabled." in page
    bob.refresh_from_db()
    assert not bob.is_active
    assert bobs.get(reverse("my-bots")).status_code == 302  # the open session no longer counts
    login = client_factory().post(reverse("login"), {"username": "bob", "password": "correct horse battery"})
    assert login.status_code == 200 and "_auth_user_id" not in login.wsgi_request.session
    api = client_factory().get("/api/bots/?mine=true", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.status_code == 401
    assert not Bot.objects.on_ladder().filter(pk=bee.bot_id).exists()
    assert not Match.objects.filter(pk=queued.pk).exists()
    assert Bot.objects.on_ladder().filter(pk=ace.bot_id).exists()

    assert "1 account enabled." in act(admin_client, "user", "enable_accounts", [bob.pk]).content.decode()
    assert client_factory().get("/api/bots/?mine=true", HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 200
    assert Bot.objects.on_ladder().filter(pk=bee.bot_id).exists()


def test_staff_cannot_disable_their_own_account(admin_client, root):
    page = act(admin_client, "user", "disable_accounts", [root.pk]).content.decode()
    assert "You cannot disable your own account." in page
    assert User.objects.get(pk=root.pk).is_active


def test_unticking_active_in_the_user_form_does_what_the_action_does(admin_client, bob, alice, make_version):
    bee, ace = make_version(bob, "bee"), make_version(alice, "ace")
    queued = Match.objects.create_with_entries([bee, ace], kind="ladder", games=2, seed="q")
    form = admin_client.get(reverse("admin:auth_user_change", args=[bob.pk])).context["adminform"].form
    data = {key: value for key, value in form.initial.items() if value is not None and key != "password"}
    data.update(is_active="", date_joined_0="2026-11-26", date_joined_1="12:00:00", groups=[], user_permissions=[])
    data.pop("date_joined", None)
    data.pop("last_login", None)
    response = admin_client.post(reverse("admin:auth_user_change", args=[bob.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert not User.objects.get(pk=bob.pk).is_active
    assert not Match.objects.filter(pk=queued.pk).exists()


def test_staff_disable_and_enable_bots(admin_client, bob, make_version):
    bee = make_version(bob, "bee")
    assert "1 bot disabled." in act(admin_client, "bot", "disable_bots", [bee.bot_id]).content.decode()
    assert Bot.objects.get(pk=bee.bot_id).disabled_at is not None
    listed = admin_client.get(reverse("admin:arena_bot_changelist") + "?ladder=disabled").content.decode()
    assert ">bee<" in listed
    on = admin_client.get(reverse("admin:arena_bot_changelist") + "?ladder=on").content.decode()
    assert ">bee<" not in on
    assert "1 bot enabled." in act(admin_client, "bot", "enable_bots", [bee.bot_id]).content.decode()
    assert Bot.objects.on_ladder().filter(pk=bee.bot_id).exists()


def test_the_tournament_entry_picker_offers_only_bots_on_the_ladder(admin_client, alice, bob, make_version):
    from league.arena.uploads import changes as bot_changes

    make_version(alice, "ace")
    bee = make_version(bob, "bee")
    bot_changes.retire(bee.bot)
    url = reverse("admin:autocomplete")
    params = {"app_label": "arena", "model_name": "tournamententry", "field_name": "bot", "term": ""}
    names = [row["text"] for row in admin_client.get(url, params).json()["results"]]
    assert names == ["alice/ace"]


@pytest.fixture
def client_factory():
    from django.test import Client

    return Client
