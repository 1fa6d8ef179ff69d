"""Games as data: finished months' public games as gzip JSON-lines archives per game and month, each written once,
listed at /data/ and /api/archives/ with sizes and checksums, replayable line by line; private games never in."""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from games.__main__ import main as games_main
from league.arena.models import Game, Match
from league.arena.play import archives, seals
from tests.league.replay_helpers import played_log, store_game, versions_for

NOW = datetime(2026, 11, 15, 12, tzinfo=UTC)
OCTOBER = datetime(2026, 10, 20, tzinfo=UTC)


@pytest.fixture(scope="module")
def logs():
    return {
        kind: played_log("face-to-face", f"archive-{kind}") for kind in ("ladder", "tournament", "validation", "scrim")
    }


@pytest.fixture
def stored(logs, django_user_model, make_version, settings, tmp_path):
    settings.ARENA_ARCHIVE_DIR = tmp_path / "archives"
    owners = [django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob")]
    versions = versions_for(logs["ladder"], owners, make_version)
    games = {kind: store_game(log, versions, kind=kind) for kind, log in logs.items()}
    Game.objects.update(played_at=OCTOBER)
    this_month = store_game(logs["ladder"], versions, kind="ladder")  # November: not a finished month yet
    Game.objects.filter(pk=this_month.pk).update(played_at=NOW - timedelta(days=1))
    return games


def lines(path) -> list[dict]:
    with gzip.open(path, "rb") as archive:
        return [json.loads(line) for line in archive]


def test_a_finished_month_holds_its_public_games_only(stored):
    result = archives.export(NOW)
    assert [archive.name for archive in result.archives] == ["face-to-face-2026-10.jsonl.gz"]
    (archive,) = result.archives
    records = lines(archives.folder() / archive.name)
    public = [stored["ladder"].pk, stored["tournament"].pk]
    assert [record["id"] for record in records] == public and archive.games == 2
    kinds = {record["match"]["kind"] for record in records}
    assert kinds == {"ladder", "tournament"}  # never validation, scrim or private version-test games
    record = records[0]
    assert record["log"] == stored["ladder"].verified_log() and record["played_at"] == "2026-10-20T00:00:00Z"
    assert record["match"]["id"] == stored["ladder"].match_id and record["match"]["index"] == 0
    assert [seat["seat"] for seat in record["seats"]] == [0, 1]
    assert {seat["owner"] for seat in record["seats"]} == {"alice", "bob"}
    assert all(seat["version"] == 1 and seat["bot"].startswith("face-to-face-") for seat in record["seats"])
    data = (archives.folder() / archive.name).read_bytes()
    assert archive.bytes == len(data) and archive.sha256 == hashlib.sha256(data).hexdigest()
    assert archives.exported_through() == "2026-10"


def test_a_month_is_written_once(stored):
    archives.export(NOW)
    path = archives.folder() / "face-to-face-2026-10.jsonl.gz"
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    Game.objects.filter(pk=stored["validation"].pk).update(played_at=OCTOBER)
    again = archives.export(NOW + timedelta(days=3))
    assert again.archives == [] and again.games == 0
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    december = archives.export(datetime(2026, 12, 2, tzinfo=UTC))  # November is over: its game is written
    assert [(archive.month, archive.games) for archive in december.archives] == [("2026-11", 1)]
    assert archives.exported_through() == "2026-11"


def test_a_game_whose_log_no_longer_replays_is_left_out(stored):
    log = json.loads(zlib.decompress(bytes(stored["tournament"].log_zlib)))
    log["turns"][0]["plays"] = log["turns"][1]["plays"]
    Game.objects.filter(pk=stored["tournament"].pk).update(log_zlib=zlib.compress(json.dumps(log).encode()))
    result = archives.export(NOW)
    assert result.skipped == 1 and [record["id"] for record in lines(archives.folder() / result.archives[0].name)] == [
        stored["ladder"].pk
    ]


def test_the_lines_replay_with_the_games_command(stored, capsys):
    (archive,) = archives.export(NOW).archives
    assert games_main(["replay", str(archives.folder() / archive.name)]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(": ok 2 games (face-to-face 2)"), out


def test_listed_at_data_and_in_the_api_and_downloaded(stored, client):
    call_command("export_games")  # the real clock: October 2026 is over by the time anyone runs this
    (archive,) = archives.archives()
    page = client.get(reverse("data")).content.decode()
    assert f'href="/data/{archive.name}" download' in page and archive.sha256 in page
    response = client.get(f"/data/{archive.name}")
    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    assert hashlib.sha256(b"".join(response.streaming_content)).hexdigest() == archive.sha256
    api = client.get("/api/archives/").json()
    assert api["results"][0]["sha256"] == archive.sha256 and api["results"][0]["games"] == 2
    assert api["results"][0]["url"] == f"http://testserver/data/{archive.name}"
    for bad in ("nope-2026-10.jsonl.gz", "..%2Fsettings.py", archives.MARKER, f"{archive.name}.json"):
        assert client.get(f"/data/{bad}").status_code == 404, bad


def test_no_private_game_ever_reaches_an_archive(stored):
    Game.objects.update(played_at=OCTOBER)
    archives.export(NOW)
    private = set(
        Game.objects.filter(match__kind__in=[Match.Kind.VALIDATION, Match.Kind.SCRIM, Match.Kind.TEST]).values_list(
            "pk", flat=True
        )
    )
    exported = {record["id"] for path in archives.folder().glob("*.jsonl.gz") for record in lines(path)}
    assert private and not private & exported and len(exported) == 3


def test_replaying_on_several_processes_writes_the_same_bytes(stored, settings, tmp_path):
    (alone,) = archives.export(NOW).archives
    settings.ARENA_ARCHIVE_DIR = tmp_path / "two"
    (shared,) = archives.export(NOW, jobs=2).archives
    assert (
        shared == alone
        and (tmp_path / "two" / shared.name).read_bytes() == (tmp_path / "archives" / alone.name).read_bytes()
    )


def seal(game: Game) -> bytes:
    """The seal the store path writes (league.arena.play.results.save_games) for this game as it stands."""
    fields = (game.match_id, game.index, game.game, game.termination, game.winner_seat, game.score)
    return seals.seal(*fields, bytes(game.log_zlib))


def test_the_store_path_seals_each_game(make_version, record_games, alice):
    a, b = make_version(alice, "a"), make_version(alice, "b")
    games = record_games(a, b, [0, 1]).played_games.all()
    assert len(games) == 2
    for game in games:
        assert bytes(game.log_seal) == seal(game) and len(game.log_seal) == 32


def test_a_sealed_game_is_exported_as_stored_without_a_replay(stored, monkeypatch):
    for game in (stored["ladder"], stored["tournament"]):
        Game.objects.filter(pk=game.pk).update(log_seal=seal(game))
    monkeypatch.setattr(archives, "verify_log", lambda stored: pytest.fail("a sealed game was replayed"))
    result = archives.export(NOW, jobs=2)
    records = lines(archives.folder() / result.archives[0].name)
    assert [record["id"] for record in records] == [stored["ladder"].pk, stored["tournament"].pk]
    assert records[0]["log"] == stored["ladder"].verified_log() and result.skipped == 0


def test_a_seal_holds_under_a_retired_key_in_the_fallbacks_only(stored, settings):
    game = stored["ladder"]
    fields = (game.match_id, game.index, game.game, game.termination, game.winner_seat, game.score)
    made = seal(game)
    assert seals.holds(made, seals.keys(), *fields, bytes(game.log_zlib))
    with override_settings(SECRET_KEY="the key after rotation", SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]):
        assert seals.holds(made, seals.keys(), *fields, bytes(game.log_zlib))
    with override_settings(SECRET_KEY="the key after rotation", SECRET_KEY_FALLBACKS=[]):
        assert not seals.holds(made, seals.keys(), *fields, bytes(game.log_zlib))
    assert not seals.holds(made, seals.keys(), game.match_id, game.index + 1, *fields[2:], bytes(game.log_zlib))
    assert not seals.holds(b"", seals.keys(), *fields, bytes(game.log_zlib))


def test_a_sealed_game_changed_since_is_replayed_and_left_out_when_it_does_not_replay(stored):
    ladder, tournament = stored["ladder"], stored["tournament"]
    Game.objects.filter(pk=ladder.pk).update(log_seal=seal(ladder))
    Game.objects.filter(pk=tournament.pk).update(log_seal=seal(tournament), score=99)  # its outcome changed
    log = json.loads(zlib.decompress(bytes(ladder.log_zlib)))
    log["turns"][0]["plays"] = log["turns"][1]["plays"]
    Game.objects.filter(pk=ladder.pk).update(log_zlib=zlib.compress(json.dumps(log).encode()))  # its log changed
    result = archives.export(NOW)
    assert result.skipped == 2 and result.archives == []  # neither seal holds, and neither game replays
