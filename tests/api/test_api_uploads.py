"""Uploading through the API: the site's form checks every upload, so each refusal reads exactly as on the site,
and an accepted upload is stored and queued for validation as the form stores it."""

from __future__ import annotations

import html
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from league.arena.models import Bot, BotVersion, Match

GOOD_BOT = b"def play(observation):\n    return []\n"


def zipped(**members: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def nothing_stored() -> bool:
    return (
        not Bot.objects.exclude(owner__username="house").exists()
        and not BotVersion.objects.exclude(kind="house").exists()
        and not Match.objects.exists()
    )


def test_a_new_bot_is_stored_and_queued(api, alice, sent, django_capture_on_commit_callbacks):
    upload = SimpleUploadedFile("bot.py", GOOD_BOT)
    data = {"name": "mybot", "game": "face-to-face", "description": "d", "file": upload}
    with django_capture_on_commit_callbacks(execute=True):
        response = api(alice).post("/api/bots/", data, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    bot = Bot.objects.get(owner=alice, name="mybot")
    version = bot.versions.get()
    assert response["Location"] == f"/api/bots/{bot.pk}/"
    assert (body["id"], body["owner"], body["description"], body["active_version"]) == (bot.pk, "alice", "d", None)
    assert (body["version"]["id"], body["version"]["number"], body["version"]["status"]) == (
        version.pk,
        1,
        "validating",
    )
    assert bytes(version.upload.content) == GOOD_BOT
    match = Match.objects.get(kind="validation")
    assert body["version"]["validation_match"] == match.pk
    # (the house bot joining the ladder on first use has the ladder scheduled)
    assert [task for task in sent if task[0] != "schedule_ladder"] == [("play_validation", (match.pk,))]


def test_a_new_version_keeps_the_old_ones(api, alice, make_version, sent, django_capture_on_commit_callbacks):
    first = make_version(alice, "mybot")
    with django_capture_on_commit_callbacks(execute=True):
        response = api(alice).post(
            f"/api/bots/{first.bot.pk}/versions/", {"file": SimpleUploadedFile("b.py", GOOD_BOT)}, format="multipart"
        )
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 2 and response.json()["filename"] == "b.py"
    assert list(first.bot.versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert len([task for task in sent if task[0] != "schedule_ladder"]) == 1


# Each refused upload: (form fields, file name, content, settings); the API must say what the site's form says.
REFUSALS = {
    "syntax error": ({}, "broken.py", b"def play(observation)\n", {}),
    "not utf-8": ({}, "bot.py", b"x = '\xff'\n", {}),
    "wrong type": ({}, "bot.txt", GOOD_BOT, {}),
    "empty": ({}, "bot.py", b"", {}),
    "too big": ({}, "bot.py", b"#" * 300, {"ARENA_MAX_PY_BYTES": 100}),
    "zip without bot.py": ({}, "bot.zip", zipped(**{"main.py": GOOD_BOT}), {}),
    "zip leaving its folder": ({}, "bot.zip", zipped(**{"bot.py": GOOD_BOT, "../evil.py": GOOD_BOT}), {}),
    "not a zip": ({}, "bot.zip", b"PK not really", {}),
    "bad name": ({"name": "no spaces"}, "bot.py", GOOD_BOT, {}),
    "unknown game": ({"game": "chess"}, "bot.py", GOOD_BOT, {}),
    "no name": ({"name": ""}, "bot.py", GOOD_BOT, {}),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_a_refused_new_bot_reads_as_on_the_site(case, client, api, alice, settings):
    fields, filename, content, overrides = REFUSALS[case]
    for name, value in overrides.items():
        setattr(settings, name, value)
    data = {"name": "mybot", "game": "face-to-face", "description": "", **fields}
    response = api(alice).post(
        "/api/bots/", {**data, "file": SimpleUploadedFile(filename, content)}, format="multipart"
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["fields"]
    client.force_login(alice)
    site = html.unescape(
        client.post(reverse("new-bot"), {**data, "file": SimpleUploadedFile(filename, content)}).content.decode()
    )
    for messages in error["fields"].values():
        for message in messages:
            assert message in site and message in error["message"]
    assert nothing_stored()


def test_the_same_file_twice_and_a_taken_name_are_refused(api, alice, make_version):
    version = make_version(alice, "mybot", source=GOOD_BOT)
    client = api(alice)
    again = client.post(
        f"/api/bots/{version.bot.pk}/versions/", {"file": SimpleUploadedFile("bot.py", GOOD_BOT)}, format="multipart"
    )
    assert again.json()["error"]["fields"] == {"file": ["this exact file is already version 1 of mybot"]}
    data = {"name": "MYBOT", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", GOOD_BOT + b"#\n")}
    taken = client.post("/api/bots/", data, format="multipart")
    assert taken.json()["error"]["fields"] == {
        "name": ["You already have a bot called MYBOT; upload a new version of it instead."]
    }
    assert BotVersion.objects.filter(bot__owner=alice).count() == 1


def test_an_upload_must_be_multipart(api, alice, make_version):
    version = make_version(alice, "mybot")
    response = api(alice).post(f"/api/bots/{version.bot.pk}/versions/", {"file": "text"}, format="json")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
    missing = api(alice).post("/api/bots/", {"name": "x", "game": "face-to-face"}, format="json")
    assert missing.json()["error"]["fields"] == {"file": ["This field is required."]}


def test_the_owner_downloads_exactly_the_upload(api, alice, make_version):
    source = zipped(**{"bot.py": GOOD_BOT, "helper.py": b"X = 1\n"})
    version = make_version(alice, "zipped", source=source)
    BotVersion.objects.filter(pk=version.pk).update(kind="zip", filename="mine.zip")
    response = api(alice).get(f"/api/versions/{version.pk}/source")
    assert response.status_code == 200 and response.content == source
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="mine.zip"'
