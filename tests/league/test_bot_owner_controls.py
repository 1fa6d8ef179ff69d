"""The owner's controls on a bot's page: rename and describe, retire and bring back, download an upload; for the
owner, another user, staff and anonymous visitors."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.arena.models import Bot
from league.arena.uploads import versions

ROLES = ("anonymous", "owner", "other", "staff")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", password="correct horse battery", is_staff=True)


@pytest.fixture
def ace(alice, make_version):
    return make_version(alice, "ace", source=b"# ace's own code\ndef play(observation):\n    return []\n")


def client_as(client, role, alice, bob, staff):
    user = {"anonymous": None, "owner": alice, "other": bob, "staff": staff}[role]
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("role", "expected"), [("anonymous", 404), ("owner", 200), ("other", 404), ("staff", 200)], ids=ROLES
)
def test_only_the_owner_and_staff_download_an_upload(client, alice, bob, staff, ace, role, expected):
    response = client_as(client, role, alice, bob, staff).get(reverse("download-version", args=[ace.bot_id, 1]))
    assert response.status_code == expected
    if expected == 200:
        assert response.content == b"# ace's own code\ndef play(observation):\n    return []\n"
        assert response["Content-Disposition"] == 'attachment; filename="bot.py"'
        assert response["Content-Type"].startswith("text/x-python")


def test_a_pruned_version_or_a_missing_one_has_nothing_to_download(client, alice, make_version, ace):
    make_version(alice, "ace")  # v2 becomes the ladder version, so v1 can be pruned
    versions.prune(ace)
    client.force_login(alice)
    assert client.get(reverse("download-version", args=[ace.bot_id, 1])).status_code == 404
    assert client.get(reverse("download-version", args=[ace.bot_id, 9])).status_code == 404
    page = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    assert reverse("download-version", args=[ace.bot_id, 2]) in page
    assert reverse("download-version", args=[ace.bot_id, 1]) not in page


def test_the_download_links_show_for_the_owner_and_staff_only(client, alice, bob, staff, ace):
    link = reverse("download-version", args=[ace.bot_id, 1])
    for role, shown in (("anonymous", False), ("other", False), ("owner", True), ("staff", True)):
        client.logout()
        page = client_as(client, role, alice, bob, staff).get(reverse("bot", args=[ace.bot_id])).content.decode()
        assert (link in page) == shown, role
        assert ("Retire ace" in page) == (role == "owner"), role


@pytest.mark.parametrize(
    ("role", "expected"), [("anonymous", 302), ("owner", 302), ("other", 403), ("staff", 403)], ids=ROLES
)
def test_only_the_owner_retires_and_brings_back(client, alice, bob, staff, ace, role, expected):
    client = client_as(client, role, alice, bob, staff)
    response = client.post(reverse("retire-bot", args=[ace.bot_id]))
    assert response.status_code == expected
    retired = Bot.objects.get(pk=ace.bot_id).retired_at is not None
    assert retired == (role == "owner")
    if role == "anonymous":
        assert response["Location"].startswith(reverse("login"))
    if role == "owner":
        page = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
        assert "is retired: it left the ladder" in page and "Bring it back to the ladder" in page
        client.post(reverse("unretire-bot", args=[ace.bot_id]))
        assert Bot.objects.get(pk=ace.bot_id).retired_at is None


def test_retiring_is_a_post(client, alice, ace):
    client.force_login(alice)
    assert client.get(reverse("retire-bot", args=[ace.bot_id])).status_code == 405
    assert Bot.objects.get(pk=ace.bot_id).retired_at is None


@pytest.mark.parametrize(
    ("role", "expected"), [("anonymous", 302), ("owner", 302), ("other", 403), ("staff", 403)], ids=ROLES
)
def test_only_the_owner_renames_and_describes(client, alice, bob, staff, ace, role, expected):
    client = client_as(client, role, alice, bob, staff)
    response = client.post(reverse("edit-bot", args=[ace.bot_id]), {"name": "ace-2", "description": "Careful."})
    assert response.status_code == expected
    bot = Bot.objects.get(pk=ace.bot_id)
    assert (bot.name, bot.description) == (("ace-2", "Careful.") if role == "owner" else ("ace", ""))
    if role == "owner":
        assert response["Location"] == bot.get_absolute_url()
        assert "Careful." in client.get(bot.get_absolute_url()).content.decode()


def test_a_new_name_follows_the_rules_of_a_new_bot(client, alice, make_version, ace):
    make_version(alice, "other")
    client.force_login(alice)
    url = reverse("edit-bot", args=[ace.bot_id])
    taken = client.post(url, {"name": "OTHER", "description": ""})
    assert taken.status_code == 400 and "You already have a bot called OTHER." in taken.content.decode()
    bad = client.post(url, {"name": "no spaces", "description": ""})
    assert bad.status_code == 400 and "Use 1 to 40 letters" in bad.content.decode()
    assert client.post(url, {"name": "ACE", "description": ""}).status_code == 302  # its own name, another case
    assert Bot.objects.get(pk=ace.bot_id).name == "ACE"


def test_the_edit_page_shows_the_current_name_and_description(client, alice, ace):
    Bot.objects.filter(pk=ace.bot_id).update(description="Plays low first.")
    client.force_login(alice)
    page = client.get(reverse("edit-bot", args=[ace.bot_id])).content.decode()
    assert 'value="ace"' in page and "Plays low first.</textarea>" in page


def test_a_rename_shows_at_once_on_the_ladder(client, alice, ace, django_capture_on_commit_callbacks):
    from league.arena.models import FACE_TO_FACE, Rating

    Rating.objects.create(version=ace, game=FACE_TO_FACE, elo=1600, low=1500, high=1700, games=2)
    ladder = reverse("ladder", args=[FACE_TO_FACE])
    assert ">ace<" in client.get(ladder).content.decode()  # now cached
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("edit-bot", args=[ace.bot_id]), {"name": "renamed", "description": ""})
    assert ">renamed<" in client.get(ladder).content.decode()


def test_the_owner_sees_that_the_staff_disabled_the_bot(client, alice, ace):
    from league.arena.uploads import changes as bot_changes

    bot_changes.disable([ace.bot], "copied from another team")
    client.force_login(alice)
    page = client.get(reverse("bot", args=[ace.bot_id])).content.decode()
    assert "The staff disabled ace: copied from another team." in page
    response = client.post(reverse("unretire-bot", args=[ace.bot_id]), follow=True)
    assert "ace was not retired." in response.content.decode()
