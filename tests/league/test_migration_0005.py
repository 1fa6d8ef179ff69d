"""Migration 0005 counts every version's results by seat from the stored games and starts each rating's history."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("arena", "0004_botversion_pruned_at")]
AFTER = [("arena", "0005_rating_history")]


@pytest.fixture
def old_schema(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    yield executor.loader.project_state(BEFORE).apps
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.slow  # migrates the test database back and forth
def test_it_fills_seat_results_and_a_first_point_per_rating(old_schema):
    apps = old_schema
    owner = apps.get_model("auth", "User").objects.create(username="old")
    Bot, BotVersion = apps.get_model("arena", "Bot"), apps.get_model("arena", "BotVersion")
    Match, Game, GameSeat = (apps.get_model("arena", name) for name in ("Match", "Game", "GameSeat"))
    a, b = (
        BotVersion.objects.create(bot=Bot.objects.create(owner=owner, name=name), number=1, sha256=name * 64)
        for name in "ab"
    )
    fitted_at = timezone.now()
    apps.get_model("arena", "RatingFit").objects.create(game="face-to-face", fitted_at=fitted_at)
    apps.get_model("arena", "Rating").objects.create(version=a, game="face-to-face", elo=1520, low=1400, high=1640)
    for kind, winners in (("ladder", [0, 1, 0, None]), ("validation", [0, 0])):
        match = Match.objects.create(kind=kind, game="face-to-face", games=len(winners), seed="s", status="done")
        for index, winner in enumerate(winners):
            game = Game.objects.create(
                match=match, index=index, game="face-to-face", seed="s", start_seat=0, termination="stuck",
                winner_seat=winner, log_zlib=b"", played_at=timezone.now(),
            )  # fmt: skip
            for seat, version in enumerate((a, b)):
                points = 0.5 if winner is None else float(winner == seat)
                GameSeat.objects.create(game=game, seat=seat, version=version, points=points)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    seats = apps.get_model("arena", "SeatResult").objects.order_by("version_id", "seat")
    assert [(s.version_id, s.seat, s.games, s.wins, s.losses, s.draws) for s in seats] == [
        (a.pk, 0, 4, 2, 1, 1),
        (b.pk, 1, 4, 1, 2, 1),
    ]  # the validation games are not counted
    (point,) = apps.get_model("arena", "RatingPoint").objects.all()
    assert (point.version_id, point.elo, point.low, point.high, point.fitted_at) == (a.pk, 1520, 1400, 1640, fitted_at)
