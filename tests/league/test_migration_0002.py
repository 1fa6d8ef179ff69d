"""Migration 0002 moves upload content to its own table, sets each ladder version and fills the aggregates."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("arena", "0001_initial")]
AFTER = [("arena", "0002_results_aggregates")]


@pytest.fixture
def old_schema(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    yield executor.loader.project_state(BEFORE).apps
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.slow  # migrates the test database back and forth
def test_it_moves_content_sets_active_versions_and_counts_results(old_schema):
    apps = old_schema
    User = apps.get_model("auth", "User")
    Bot, BotVersion = apps.get_model("arena", "Bot"), apps.get_model("arena", "BotVersion")
    Match, MatchEntry = apps.get_model("arena", "Match"), apps.get_model("arena", "MatchEntry")
    Game, GameSeat = apps.get_model("arena", "Game"), apps.get_model("arena", "GameSeat")
    owner = User.objects.create(username="old")
    bot, idle = Bot.objects.create(owner=owner, name="a"), Bot.objects.create(owner=owner, name="idle")
    other = Bot.objects.create(owner=owner, name="b")
    v1 = BotVersion.objects.create(bot=bot, number=1, sha256="1" * 64, kind="py", content=b"one", status="active")
    v2 = BotVersion.objects.create(bot=bot, number=2, sha256="2" * 64, kind="py", content=b"two", status="active")
    BotVersion.objects.create(bot=bot, number=3, sha256="3" * 64, kind="py", content=b"bad", status="failed")
    BotVersion.objects.create(bot=idle, number=1, sha256="4" * 64, kind="py", content=b"new", status="validating")
    b1 = BotVersion.objects.create(bot=other, number=1, sha256="5" * 64, kind="py", content=b"b", status="active")
    match = Match.objects.create(kind="ladder", game="face-to-face", games=3, seed="s", status="done", rated=True)
    MatchEntry.objects.create(match=match, index=0, version=v2)
    MatchEntry.objects.create(match=match, index=1, version=b1)
    for index, winner in enumerate([0, 1, 0]):
        game = Game.objects.create(
            match=match, index=index, game="face-to-face", seed="s", start_seat=0, termination="stuck",
            winner_seat=winner, log_zlib=b"", played_at=timezone.now(),
        )  # fmt: skip
        GameSeat.objects.create(game=game, seat=0, version=v2, points=float(winner == 0))
        GameSeat.objects.create(game=game, seat=1, version=b1, points=float(winner == 1))

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    BotUpload, Bot = apps.get_model("arena", "BotUpload"), apps.get_model("arena", "Bot")
    uploads = dict(BotUpload.objects.values_list("version_id", "content"))
    assert {pk: bytes(content) for pk, content in uploads.items()}[v1.pk] == b"one" and len(uploads) == 5
    assert "content" not in {f.name for f in apps.get_model("arena", "BotVersion")._meta.get_fields()}
    active = dict(Bot.objects.values_list("name", "active_version_id"))
    assert active == {"a": v2.pk, "b": b1.pk, "idle": None}
    entries = apps.get_model("arena", "MatchEntry").objects.order_by("index")
    assert [(e.games, e.wins, e.losses, e.points) for e in entries] == [(3, 2, 1, 2.0), (3, 1, 2, 1.0)]
    pair = apps.get_model("arena", "PairResult").objects.get()
    assert (pair.first_id, pair.second_id, pair.first_wins, pair.second_wins, pair.draws) == (v2.pk, b1.pk, 2, 1, 0)
