"""Upload checks that never answer 500, quotas with clear messages, pruning and validating again."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from league.arena.models import Bot, BotUpload, BotVersion, Match, Tournament, TournamentEntry
from league.arena.uploads import forms, versions
from league.arena.uploads.intake import UploadRejected, add_version, inspect_upload

GOOD_BOT = b"def play(observation):\n    return []\n"


def post_new_bot(client, content, filename="bot.py", name="mybot"):
    upload = SimpleUploadedFile(filename, content)
    return client.post(reverse("new-bot"), {"name": name, "game": "face-to-face", "description": "", "file": upload})


def post_version(client, bot, content, filename="bot.py"):
    return client.post(reverse("new-version", args=[bot.pk]), {"file": SimpleUploadedFile(filename, content)})


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "+".join(["1"] * 250_000),
        "x = " + "-" * 500_000 + "1",
        "x = " + "lambda: " * 100_000 + "1",
    ],
    ids=["250k-plus-terms", "500k-unary-minuses", "100k-nested-lambdas"],
)
def test_a_file_too_deeply_nested_to_compile_is_a_form_error(client, alice, sent, source):
    client.force_login(alice)
    response = post_new_bot(client, source.encode(), filename="deep.py")
    assert response.status_code == 200
    assert "deep.py does not compile: it is too deeply nested to compile" in response.content.decode()
    assert not Bot.objects.filter(owner=alice).exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [(b"x = 1\0\n", "source code string cannot contain null bytes"), (b"def f(:\n", "line 1:")],
)
def test_other_compile_failures_name_the_problem(source, message):
    with pytest.raises(UploadRejected, match="bad.py does not compile") as caught:
        inspect_upload("bad.py", source)
    assert message in str(caught.value)


def test_a_python_file_with_a_byte_order_mark_is_accepted(client, alice, sent):
    client.force_login(alice)
    response = post_new_bot(client, b"\xef\xbb\xbf" + GOOD_BOT)
    assert response.status_code == 302
    assert bytes(Bot.objects.get(owner=alice).versions.get().upload.content) == b"\xef\xbb\xbf" + GOOD_BOT


def test_a_double_submitted_new_bot_is_a_form_error(client, alice, sent, monkeypatch):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    # The second request of a double submit passed the form's name check before the first one committed.
    monkeypatch.setattr(forms.NewBotForm, "clean_name", lambda form: form.cleaned_data["name"])
    response = post_new_bot(client, GOOD_BOT + b"# again\n")
    assert response.status_code == 200
    assert "You already have a bot called mybot" in response.content.decode()
    assert Bot.objects.filter(owner=alice).count() == 1 and BotVersion.objects.filter(bot__owner=alice).count() == 1


@pytest.mark.parametrize("length", [201, 230, 255])
def test_a_long_file_name_is_a_form_error(client, alice, sent, length):
    client.force_login(alice)
    response = post_new_bot(client, GOOD_BOT, filename="b" * (length - 3) + ".py")
    assert response.status_code == 200
    assert f"the file name is {length} characters long; at most 200 are allowed" in response.content.decode()
    assert not Bot.objects.filter(owner=alice).exists()


def test_a_200_character_file_name_is_kept(client, alice, sent):
    client.force_login(alice)
    name = "b" * 197 + ".py"
    assert post_new_bot(client, GOOD_BOT, filename=name).status_code == 302
    assert BotVersion.objects.get(bot__owner=alice).filename == name


# --- quotas ------------------------------------------------------------------------------------------------------


def test_bots_per_user(client, alice, sent, settings):
    settings.ARENA_MAX_BOTS_PER_USER = 2
    client.force_login(alice)
    for index in range(2):
        assert post_new_bot(client, GOOD_BOT + b"#%d\n" % index, name=f"bot{index}").status_code == 302
    response = post_new_bot(client, GOOD_BOT + b"#3\n", name="bot3")
    assert "you already have 2 bots, the most one account may have" in response.content.decode()
    assert Bot.objects.filter(owner=alice).count() == 2


def test_versions_kept_per_bot_and_pruning_makes_room(client, alice, sent, settings):
    settings.ARENA_MAX_VERSIONS_PER_BOT = 2
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    bot = Bot.objects.get(owner=alice)
    BotVersion.objects.filter(bot=bot).update(status="failed")
    Match.objects.update(status="done")
    assert post_version(client, bot, GOOD_BOT + b"#2\n").status_code == 302
    BotVersion.objects.filter(bot=bot).update(status="failed")
    Match.objects.update(status="done")
    response = post_version(client, bot, GOOD_BOT + b"#3\n")
    assert response.status_code == 400
    assert "mybot keeps 2 versions, the most a bot may keep: prune an old version" in response.content.decode()
    response = client.post(reverse("prune-version", args=[bot.pk, 1]), follow=True)
    assert "mybot v1 is pruned" in response.content.decode()
    assert post_version(client, bot, GOOD_BOT + b"#3\n").status_code == 302
    assert list(bot.versions.order_by("number").values_list("number", flat=True)) == [1, 2, 3]


def test_bytes_per_user_across_bots(client, alice, sent, settings):
    settings.ARENA_MAX_UPLOAD_BYTES_PER_USER = 3 * (len(GOOD_BOT) + 3) + 2
    client.force_login(alice)
    for index in range(3):
        source = GOOD_BOT + b"#%d\n" % index  # the same size each time
        assert post_new_bot(client, source, name=f"bot{index}").status_code == 302
    response = post_new_bot(client, GOOD_BOT, name="bot4")
    assert "would pass your allowance of" in response.content.decode()
    assert Bot.objects.filter(owner=alice).count() == 3


# --- pruning -----------------------------------------------------------------------------------------------------


def test_a_pruned_version_keeps_its_row_games_and_hash(alice, make_version, record_games, bob):
    old = make_version(alice, "mybot")
    opponent = make_version(bob, "other")
    record_games(old, opponent, [0, 1])
    new = make_version(alice, "mybot")
    new.bot.refresh_active_version()
    sha = old.sha256
    logs = [bytes(game.log_zlib) for game in Match.objects.get(entries__version=old).played_games.order_by("index")]
    versions.prune(old)
    old.refresh_from_db()
    assert old.pruned_at is not None and old.sha256 == sha and old.status == "active"
    assert not BotUpload.objects.filter(version=old).exists()
    kept = [bytes(game.log_zlib) for game in Match.objects.get(entries__version=old).played_games.order_by("index")]
    assert kept == logs and len(logs) == 2  # logs replay without the code


def test_the_ladder_version_and_unfinished_play_cannot_be_pruned(client, alice, make_version, bob):
    version = make_version(alice, "mybot")
    version.bot.refresh_active_version()
    client.force_login(alice)
    response = client.post(reverse("prune-version", args=[version.bot_id, version.number]), follow=True)
    assert "was not pruned: v1 is the bot&#x27;s ladder version" in response.content.decode()
    newer = make_version(alice, "mybot")
    newer.bot.refresh_active_version()
    tournament = Tournament.objects.create(name="cup", status=Tournament.Status.RUNNING, started_at=timezone.now())
    TournamentEntry.objects.create(tournament=tournament, bot=version.bot, version=version)
    with pytest.raises(versions.NotAllowed, match="plays in a tournament that has not finished"):
        versions.prune(version)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    other = make_version(bob, "other")
    Match.objects.create_with_entries([version, other], kind="ladder", game="face-to-face", games=2, seed="s")
    with pytest.raises(versions.NotAllowed, match="has matches still to play"):
        versions.prune(version)
    assert BotUpload.objects.filter(version=version).exists()


def test_only_the_owner_prunes(client, alice, bob, make_version):
    make_version(alice, "mybot")
    version = make_version(alice, "mybot")
    old = version.bot.versions.get(number=1)
    client.force_login(bob)
    assert client.post(reverse("prune-version", args=[old.bot_id, 1])).status_code == 403
    assert BotUpload.objects.filter(version=old).exists()


# --- validating again --------------------------------------------------------------------------------------------


def _validation_of(version):
    return Match.objects.get(kind="validation", entries__version=version, entries__index=0)


def test_a_version_that_failed_for_a_server_reason_can_be_validated_again(
    client, alice, sent, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    version = BotVersion.objects.get(bot__owner=alice)
    Match.objects.filter(pk=_validation_of(version).pk).update(status="failed", error="the runner broke")
    version.mark_validated(False, "the server could not run the validation games: boom")
    sent.clear()
    page = client.get(version.bot.get_absolute_url()).content.decode()
    url = reverse("revalidate-version", args=[version.bot_id, 1])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, follow=True)
    assert "mybot v1 is being validated again" in response.content.decode()
    version.refresh_from_db()
    assert (version.status, version.failure_reason) == ("validating", "")
    newest = Match.objects.filter(kind="validation").order_by("-pk").first()
    assert newest.status == "queued" and sent == [("play_validation", (newest.pk,))]
    assert Match.objects.filter(kind="validation").count() == 2
    del page  # the button is in _versions.html (engineer W12b): see test_the_actions_render


def test_a_version_that_failed_by_its_own_fault_cannot(client, alice, sent):
    client.force_login(alice)
    post_new_bot(client, GOOD_BOT)
    version = BotVersion.objects.get(bot__owner=alice)
    Match.objects.filter(pk=_validation_of(version).pk).update(status="done")
    version.mark_validated(False, "game 1: crash: boom")
    response = client.post(reverse("revalidate-version", args=[version.bot_id, 1]), follow=True)
    assert "can be validated again only when the server could not run its validation games" in (
        response.content.decode()
    )
    version.refresh_from_db()
    assert version.status == "failed" and Match.objects.filter(kind="validation").count() == 1


def test_the_actions_render(alice, make_version):
    from django.template import Context, Template

    make_version(alice, "mybot", status="failed")
    ladder = make_version(alice, "mybot")
    ladder.bot.refresh_active_version()
    template = Template("{% load version_actions %}{% for v in versions %}[{% version_actions v True %}]{% endfor %}")
    html = template.render(Context({"versions": ladder.bot.versions.order_by("number")}))
    assert html.count("Prune") == 1 and "Validate again" not in html  # v2 is the ladder version
    assert reverse("prune-version", args=[ladder.bot_id, 1]) in html
    assert "Prune" not in Template("{% load version_actions %}{% version_actions v False %}").render(
        Context({"v": ladder.bot.versions.get(number=1)})
    )


def test_add_version_checks_the_quota_under_the_owner_lock(alice, settings, sent):
    settings.ARENA_MAX_VERSIONS_PER_BOT = 1
    bot = Bot.objects.create(owner=alice, name="b")
    add_version(bot, inspect_upload("bot.py", GOOD_BOT))
    with pytest.raises(UploadRejected, match="b keeps 1 versions"):
        add_version(bot, inspect_upload("bot.py", GOOD_BOT + b"\n"))
