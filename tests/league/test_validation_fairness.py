"""Validations have their own queue, and one user's flood of uploads delays only that user's validations."""

from __future__ import annotations

from django.conf import settings

from league.arena.models import Bot, BotVersion, Match
from league.arena.uploads import validation as validations
from league.arena.uploads.intake import add_version, inspect_upload
from league.celery import app

GOOD_BOT = b"def play(observation):\n    return []\n"


def upload(bot, index):
    return add_version(bot, inspect_upload("bot.py", GOOD_BOT + b"# %d\n" % index))


def validation_of(version):
    return Match.objects.filter(kind="validation", entries__index=0, entries__version=version).first()


def test_validation_matches_go_to_their_own_queue_and_workers_consume_both():
    route = app.amqp.router.route({}, "league.arena.tasks.play_validation")
    assert route["queue"].name == settings.ARENA_VALIDATION_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    assert (
        app.amqp.router.route({}, "league.arena.tasks.play_match")["queue"].name == settings.CELERY_TASK_DEFAULT_QUEUE
    )
    consumed = {queue.name for queue in app.conf.task_queues}  # and scrims' (tests/league/test_scrims.py)
    assert consumed == {
        settings.CELERY_TASK_DEFAULT_QUEUE,
        settings.ARENA_VALIDATION_QUEUE,
        settings.ARENA_SCRIM_QUEUE,
        settings.ARENA_TEST_QUEUE,
        settings.ARENA_CONTROL_QUEUE,
        settings.ARENA_ANALYSIS_QUEUE,
    }


def test_a_flood_waits_behind_the_flooder_alone(alice, bob, settings, sent, django_capture_on_commit_callbacks):
    settings.ARENA_VALIDATIONS_IN_FLIGHT_PER_USER = 2
    settings.ARENA_UPLOADS_PER_HOUR = 1000
    flood = Bot.objects.create(owner=alice, name="flood")
    with django_capture_on_commit_callbacks(execute=True):
        versions = [upload(flood, index) for index in range(6)]
    assert all(version.status == "validating" for version in versions)
    assert [validation_of(v) is not None for v in versions] == [True, True, False, False, False, False]
    with django_capture_on_commit_callbacks(execute=True):
        other = upload(Bot.objects.create(owner=bob, name="quiet"), 0)
    assert validation_of(other) is not None  # not behind alice's four waiting ones
    assert sent[-1] == ("play_validation", (validation_of(other).pk,))

    # alice's first validation ends: her oldest waiting version is queued, and only it
    first = validation_of(versions[0])
    Match.objects.filter(pk=first.pk).update(status="done")
    with django_capture_on_commit_callbacks(execute=True):
        versions[0].mark_validated(True)
    assert [validation_of(v) is not None for v in versions] == [True, True, True, False, False, False]
    assert sent[-1] == ("play_validation", (validation_of(versions[2]).pk,))
    assert validations.release(alice.pk) == []  # two in flight: nothing more


def test_the_sweeper_releases_what_a_lost_signal_left_waiting(alice, settings, sent):
    settings.ARENA_VALIDATIONS_IN_FLIGHT_PER_USER = 1
    bot = Bot.objects.create(owner=alice, name="b")
    versions = [upload(bot, index) for index in range(3)]
    Match.objects.filter(kind="validation").update(status="done")
    BotVersion.objects.filter(pk=versions[0].pk).update(status="active")  # judged, but no signal arrived
    assert validations.release_all() == 1
    assert validation_of(versions[1]).status == "queued" and validation_of(versions[2]) is None
