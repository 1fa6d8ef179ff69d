"""Uploading through the web form: accepted uploads are stored and queued, refused ones leave nothing."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from league.arena.models import Bot, BotVersion, Match

GOOD_BOT = b"def play(observation):\n    return []\n"


def post_new_bot(client, content, filename="bot.py", name="mybot"):
    upload = SimpleUploadedFile(filename, content)
    return client.post(reverse("new-bot"), {"name": name, "game": "face-to-face", "description": "d", "file": upload})


def nothing_stored():
    return (
        not Bot.objects.exclude(owner__username="house").exists()
        and not BotVersion.objects.exclude(kind="house").exists()
        and not Match.objects.exists()
    )


def test_it_stores_a_new_bot_and_queues_its_validation(client, alice, sent, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_new_bot(client, GOOD_BOT)
    bot = Bot.objects.get(owner=alice, name="mybot")
    assert response.status_code == 302 and response["Location"] == bot.get_absolute_url()
    version = bot.versions.get()
    assert (version.number, version.status, bytes(version.upload.content)) == (1, "validating", GOOD_BOT)
    match = Match.objects.get(kind="validation")
    assert [v.pk for v in match.ordered_versions()][0] == version.pk
    assert match.ordered_versions()[1].bot.house_ref == "house:random"
    # (the house bot joining the ladder on first use has the ladder scheduled)
    assert [task for task in sent if task[0] != "schedule_ladder"] == [("play_validation", (match.pk,))]


def test_it_shows_the_reason_and_stores_nothing(client, alice, sent, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_new_bot(client, b"def play(observation)\n", filename="broken.py")
    assert response.status_code == 200
    assert "broken.py does not compile: line 1:" in response.content.decode()
    assert nothing_stored() and sent == []


def test_it_refuses_an_oversized_upload_before_reading_it(client, alice, settings):
    settings.ARENA_MAX_PY_BYTES = 100
    client.force_login(alice)
    response = post_new_bot(client, b"#" * 300)
    assert "a .py upload may be at most" in response.content.decode()
    assert nothing_stored()


def test_it_keeps_old_versions(client, alice, sent, django_capture_on_commit_callbacks):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    bot = Bot.objects.get(name="mybot")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("new-version", args=[bot.pk]), {"file": SimpleUploadedFile("bot.py", GOOD_BOT + b"# v2\n")}
        )
    assert response.status_code == 302
    assert list(bot.versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert bytes(bot.versions.get(number=1).upload.content) == GOOD_BOT


def test_it_refuses_the_same_file_twice(client, alice):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    bot = Bot.objects.get(name="mybot")
    response = client.post(reverse("new-version", args=[bot.pk]), {"file": SimpleUploadedFile("bot.py", GOOD_BOT)})
    assert response.status_code == 400
    assert "this exact file is already version 1 of mybot" in response.content.decode()
    assert bot.versions.count() == 1


def test_it_refuses_a_duplicate_bot_name(client, alice):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    response = post_new_bot(client, GOOD_BOT + b"\n", name="MyBot")
    assert "You already have a bot called MyBot" in response.content.decode()
    assert Bot.objects.filter(owner=alice).count() == 1


def test_only_the_owner_uploads_versions(client, alice, bob):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    bot = Bot.objects.get(name="mybot")
    client.force_login(bob)
    response = client.post(reverse("new-version", args=[bot.pk]), {"file": SimpleUploadedFile("bot.py", b"x=1\n")})
    assert response.status_code == 403
    assert bot.versions.count() == 1


def test_uploading_needs_an_account(client):
    response = client.get(reverse("new-bot"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
