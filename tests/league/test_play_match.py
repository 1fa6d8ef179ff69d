"""A worker plays a match through the bots runner and stores games, seats and logs in one go."""

import pytest

from league.arena import queue
from league.arena.models import Game, LogTampered, Match
from league.arena.play import matches
from league.arena.uploads.house import house_version


@pytest.fixture
def house_match(db):
    greedy, rnd = house_version("house:greedy"), house_version("house:random")
    return Match.objects.create_with_entries(
        [greedy, rnd], kind="exhibition", game="face-to-face", games=4, seed="t-1", duplicate=True
    )


def test_it_plays_and_stores_every_game(house_match, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.play(house_match.pk, worker="test:1") is True
    house_match.refresh_from_db()
    assert (house_match.status, house_match.games_done, house_match.attempts) == ("done", 4, 1)
    games = list(house_match.played_games.order_by("index"))
    assert [g.index for g in games] == [0, 1, 2, 3]
    greedy, rnd = house_match.ordered_versions()
    for game in games:
        seats = {s.seat: s for s in game.seats.all()}
        assert {seats[0].version, seats[1].version} == {greedy, rnd}
        assert sorted(s.points for s in seats.values()) == [0.0, 1.0]
        assert seats[game.winner_seat].points == 1.0
        log = game.verified_log()
        assert log["seed"] == game.seed and len(log["turns"]) == game.turns
        assert {s["version"] for s in log["seats"]} == {greedy.version_id, rnd.version_id}
    # duplicate deals: both deals from one side, then both from the other (bots started afresh in between)
    assert [game.seed for game in games[2:]] == [game.seed for game in games[:2]] and games[0].seed != games[1].seed
    assert [game.seats.get(seat=0).version for game in games] == [greedy, greedy, rnd, rnd]
    assert ("refit_ratings", ("face-to-face",)) in sent


def test_playing_twice_stores_once(house_match, sent):
    assert matches.play(house_match.pk, worker="test:1") is True
    assert matches.play(house_match.pk, worker="test:2") is False
    assert Game.objects.filter(match=house_match).count() == 4


def test_a_worker_that_lost_its_claim_stores_nothing(house_match, sent, monkeypatch):
    original = matches.store

    def taken_over(match, token, versions, result):
        Match.objects.filter(pk=match.pk).update(claim_token=None)  # another worker re-claimed it
        original(match, token, versions, result)

    monkeypatch.setattr(matches, "store", taken_over)
    assert matches.play(house_match.pk, worker="test:1") is False
    assert not Game.objects.exists()


def test_a_broken_runner_puts_the_match_back(
    house_match, sent, monkeypatch, settings, django_capture_on_commit_callbacks
):
    import bots.match

    def broken(spec, on_game=None):
        raise OSError("disk full")

    monkeypatch.setattr(bots.match, "run_match", broken)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(OSError):
        matches.play(house_match.pk, worker="test:1")
    house_match.refresh_from_db()
    assert house_match.status == "queued" and "disk full" in house_match.error
    assert sent == [("play_match", (house_match.pk,))]
    assert sent.options == [{"countdown": 10, "priority": queue.RESEND_PRIORITY}]  # ahead of fresh ones, when due
    assert house_match.retry_due_at is not None
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2
    with pytest.raises(OSError):
        matches.play(house_match.pk, worker="test:1")
    house_match.refresh_from_db()
    assert house_match.status == "failed"


def test_a_tampered_log_is_refused_when_read(house_match, sent):
    matches.play(house_match.pk, worker="test:1")
    game = Game.objects.filter(match=house_match).first()
    log = game.verified_log()
    log["turns"][0]["plays"][0][0] = 99
    game.log_zlib = Game.compress_log(log)
    game.save()
    with pytest.raises(LogTampered, match=f"game {game.pk}: the stored log does not replay"):
        game.verified_log()


def test_a_result_changed_in_the_database_is_refused_when_read(house_match, sent):
    matches.play(house_match.pk, worker="test:1")
    game = Game.objects.filter(match=house_match).first()
    game.winner_seat = 1 - game.winner_seat
    game.save()
    with pytest.raises(LogTampered, match=f"game {game.pk}: the log replays to"):
        game.verified_log()
