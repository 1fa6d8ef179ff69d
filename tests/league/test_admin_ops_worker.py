"""Admin operations with real Celery worker processes: a tournament scheduled in the admin starts on time with
nobody logged in; a failed match re-run from the tournament's page; a cancel while matches are being played
stores nothing of them; two named workers share one tournament and play every match exactly once."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

import bots.house
from league.arena.models import BotUpload, Game, Tournament, TournamentEntry
from league.arena.uploads.house import house_version

HOUSE = Path(bots.house.__file__).parent
ENDED_TASK = re.compile(r"Task league\.arena\.tasks\.play_match\[[^\]]+\] (succeeded|raised|retry)")
pytestmark = pytest.mark.slow


@pytest.fixture
def staff_client(client, transactional_db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


def house_bots(*names: str) -> list:
    return [house_version(f"house:{name}") for name in names]


def copy_of_house_bot(make_version, owner, name: str, house: str = "greedy"):
    source = (HOUSE / f"{house}.py").read_bytes() + f"\n# {name}\n".encode()  # its own hash, the house bot's play
    return make_version(owner, name, source=source)


def status_of(tournament: Tournament) -> str:
    tournament.refresh_from_db()
    return tournament.status


def assert_played_once(tournament: Tournament) -> None:
    """Every match done, claimed once, with exactly its games stored."""
    matches = list(tournament.matches.all())
    assert matches and {m.status for m in matches} == {"done"}
    assert [m.attempts for m in matches] == [1] * len(matches)
    for match in matches:
        indexes = list(Game.objects.filter(match=match).order_by("index").values_list("index", flat=True))
        assert indexes == list(range(match.games))


def test_scheduled_in_the_admin_it_starts_on_time_and_a_failed_match_is_rerun(
    staff_client, workers, wait_for, alice, make_version
):
    greedy, rnd = house_bots("greedy", "random")
    fragile = copy_of_house_bot(make_version, alice, "fragile")
    upload = BotUpload.objects.get(version=fragile)
    kept = bytes(upload.content)
    upload.delete()  # the worker cannot fetch this bot: its matches break on the server's side
    worker = workers("w1", beat=True, ARENA_MATCH_MAX_ATTEMPTS="1")

    when = timezone.localtime(timezone.now() + timedelta(seconds=4))
    response = staff_client.post(
        reverse("admin:arena_tournament_add"),
        {
            "name": "Scheduled Cup", "game_and_format": "face-to-face:round-robin", "games_per_pairing": 4,
            "duplicate": "on", "turn_seconds": 1, "bank_seconds": 10, "startup_seconds": 5,
            "scheduled_at_0": when.strftime("%Y-%m-%d"), "scheduled_at_1": when.strftime("%H:%M:%S"),
        },
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[-3000:]
    cup = Tournament.objects.get(name="Scheduled Cup")
    staff_client.post(
        reverse("admin:arena_tournament_changelist"), {"action": "add_all_active", "_selected_action": [cup.pk]}
    )
    assert cup.entries.count() == 3
    staff_client.logout()  # nobody is logged in when it starts

    wait_for("the scheduled start", lambda: status_of(cup) != "draft", worker, timeout=60)
    assert cup.started_at >= when - timedelta(seconds=1)
    wait_for("the tournament to end", lambda: status_of(cup) == "finished", worker)
    failed = cup.matches.filter(status="failed")
    assert failed.count() == 2 and all("the match runner failed" in m.error for m in failed)
    assert not Game.objects.filter(match__in=failed).exists()

    BotUpload.objects.create(version=fragile, content=kept)  # the server's problem is fixed
    staff_client.force_login(get_user_model().objects.get(username="root"))
    page = staff_client.get(cup.get_absolute_url()).content.decode()
    assert reverse("tournament-action", args=[cup.pk, "rerun-failed"]) in page
    done = staff_client.post(reverse("tournament-action", args=[cup.pk, "rerun-failed"]), follow=True)
    assert "Scheduled Cup: 2 failed matches queued again." in done.content.decode()
    wait_for("the re-run", lambda: status_of(cup) == "finished", worker)
    assert_played_once(cup)
    assert cup.progress() == (12, 12)
    assert {greedy.bot_id, rnd.bot_id, fragile.bot_id} == set(cup.entries.values_list("bot_id", flat=True))


def test_cancel_while_matches_are_played_stores_none_of_them(staff_client, workers, wait_for, tmp_path):
    worker = workers("w1", beat=False)
    cup = Tournament.objects.create(name="Long Cup", games_per_pairing=20000)
    for version in house_bots("greedy", "random", "expert"):
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    started = staff_client.post(reverse("tournament-action", args=[cup.pk, "start"]), follow=True)
    assert "Long Cup: started: 3 matches queued." in started.content.decode()

    def playing() -> bool:
        return cup.matches.filter(status="running", games_done__gt=0).exists()

    wait_for("a match to be played", playing, worker, timeout=120)
    cancelled = staff_client.post(reverse("tournament-action", args=[cup.pk, "cancel"]), follow=True)
    assert "Long Cup: cancelled; 3 matches withdrawn." in cancelled.content.decode()

    log = tmp_path / "worker-w1.log"
    # The playing worker's next heartbeat finds its claim gone: it stops mid-match and stores nothing.
    wait_for("the worker to drop its match", lambda: "claim lost while playing" in log.read_text(), worker, 60)
    # Every match's task over (the dropped ones and those never claimed): whatever the worker stores, it has stored.
    wait_for("the three matches' tasks to end", lambda: len(ENDED_TASK.findall(log.read_text())) == 3, worker, 120)
    assert status_of(cup) == "cancelled"
    assert set(cup.matches.values_list("status", flat=True)) == {"cancelled"}
    assert not Game.objects.filter(match__tournament=cup).exists()
    assert cup.progress() == (0, 60000)
    assert "withdrawn" in staff_client.get(cup.get_absolute_url()).content.decode()


@pytest.mark.skipif(
    connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"),
    reason="two worker processes sharing a tournament is checked on PostgreSQL and Redis",
)
def test_two_named_workers_share_a_tournament_and_play_each_match_once(
    staff_client, workers, wait_for, alice, make_version
):
    entrants = [*house_bots("greedy", "random", "expert")]
    entrants += [
        copy_of_house_bot(make_version, alice, f"copy-{n}", house) for n, house in ((1, "greedy"), (2, "random_bot"))
    ]
    cup = Tournament.objects.create(name="Shared Cup", format="double-round-robin", games_per_pairing=20)
    for version in entrants:
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    first = workers("alpha", beat=True)
    second = workers("beta", beat=False)
    staff_client.post(reverse("tournament-action", args=[cup.pk, "start"]))
    assert cup.matches.count() == 20

    wait_for("the shared tournament", lambda: status_of(cup) == "finished", first, timeout=300)
    assert second.poll() is None
    assert_played_once(cup)
    assert Game.objects.filter(match__tournament=cup).count() == cup.matches.aggregate(n=Sum("games"))["n"] == 400
    # A claim names the worker as its operator did (--hostname alpha@host) and the pool process that played
    # the match: each worker's pool played some, under its own name.
    claims = {}
    for claim in cup.matches.values_list("claimed_by", flat=True):
        node, _, pid = claim.rpartition(":")
        claims.setdefault(node.partition("@")[0], set()).add(int(pid))
    assert claims.keys() == {"alpha", "beta"}, claims
    assert claims["alpha"] <= pool_pids(first) and claims["beta"] <= pool_pids(second), claims


def pool_pids(worker) -> set[int]:
    """The pids of a worker process's children (its pool processes), from /proc."""
    children = set()
    for task in Path(f"/proc/{worker.pid}/task").iterdir():
        children |= {int(pid) for pid in (task / "children").read_text().split()}
    return children
