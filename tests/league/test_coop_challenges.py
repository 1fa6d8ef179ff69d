"""The co-op challenge ladders: seasons of published deals, chunks scheduled and played, results and ratings."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

import bots.house
from league.arena.coop import challenges
from league.arena.coop import results as coop_results
from league.arena.ladder import bradley_terry, refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import (
    DealPair,
    DealResult,
    Game,
    GameSeat,
    Match,
    RatingFit,
    Season,
    SeasonRating,
    SeasonStanding,
)
from league.arena.play import matches
from league.arena.uploads.house import house_version
from tests.league.coop_helpers import comparisons, figures, play_queued, replayed_results

HOUSE = Path(bots.house.__file__).parent


def test_a_season_publishes_derivable_seeds_and_registers_the_expert(db, settings):
    season = challenges.start_season("the-game", deals=5, chunk=2, team_sizes=[1, 3])
    assert season.number == 1 and season.current and season.team_sizes == [1, 3]
    assert season.seeds() == [f"{season.seed}:{d}" for d in range(5)]
    assert season.deal_seed(4) == f"{season.seed}:4"
    with pytest.raises(ValueError, match="deals 0 to 4"):
        season.deal_seed(5)
    expert = house_version("house:expert", "the-game")
    assert challenges.members("the-game") == [expert]
    second = challenges.start_season("the-game", deals=5)
    season.refresh_from_db()
    assert (second.number, second.current, season.current) == (2, True, False)
    assert second.seed != season.seed
    assert challenges.current_season("the-game") == second


def test_a_season_refuses_a_competitive_game_and_bad_team_sizes(db):
    with pytest.raises(ValueError, match="co-op games"):
        challenges.start_season("face-to-face")
    with pytest.raises(ValidationError, match="team sizes"):
        challenges.start_season("extreme", team_sizes=[1, 6])
    assert not Season.objects.exists()


def test_chunks_are_queued_up_to_the_limit_fewest_first(alice, make_version, settings, sent):
    settings.ARENA_COOP_MAX_PENDING = 3
    season = challenges.start_season("the-game", deals=25, chunk=10, team_sizes=[1, 2])
    mine = make_version(alice, "mine", game="the-game")
    first = challenges.schedule("the-game")
    assert len(first) == 3
    assert challenges.schedule("the-game") == []  # bounded
    planned = {(m.ordered_versions()[0].pk, m.players, m.first_deal, m.games) for m in first}
    expert = house_version("house:expert", "the-game")
    # Each (version, team size) gets its first chunk before anyone gets a second; solo before pairs on a tie.
    assert planned == {(expert.pk, 1, 0, 10), (mine.pk, 1, 0, 10), (expert.pk, 2, 0, 10)}
    assert all(m.seed == season.seed and not m.duplicate and m.kind == "ladder" for m in first)
    Match.objects.filter(pk__in=[m.pk for m in first]).update(status=Match.Status.DONE)
    settings.ARENA_COOP_MAX_PENDING = 100
    rest = challenges.schedule("the-game")
    chunks = {(m.ordered_versions()[0].pk, m.players, m.first_deal, m.games) for m in rest}
    assert len(rest) == 2 * 2 * 3 - 3 and (mine.pk, 2, 20, 5) in chunks  # the last chunk holds 5 deals
    assert challenges.schedule("the-game") == []  # every chunk has its match
    newer = make_version(alice, "mine", game="the-game")
    again = challenges.schedule("the-game")
    assert {(m.ordered_versions()[0].pk, m.first_deal) for m in again if m.players == 1} == {
        (newer.pk, 0),
        (newer.pk, 10),
        (newer.pk, 20),
    }


def test_a_new_season_cancels_the_old_seasons_waiting_chunks_and_keeps_its_results(alice, make_version, sent):
    old = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1])
    challenges.schedule("the-game")
    (done, waiting) = Match.objects.order_by("pk")[:2]
    assert matches.play(done.pk, worker="test")
    kept = list(DealResult.objects.values_list("version_id", "deal", "cards_left"))
    assert len(kept) == 2
    new = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1])
    waiting.refresh_from_db()
    assert waiting.status == "failed" and "season ended" in waiting.error
    assert list(DealResult.objects.values_list("version_id", "deal", "cards_left")) == kept
    queued = challenges.schedule("the-game")
    assert queued and all(m.seed == new.seed for m in queued) and old.seed != new.seed


def test_played_chunks_store_the_seasons_seeds_standings_and_comparisons(
    alice, make_version, settings, sent, django_capture_on_commit_callbacks
):
    settings.ARENA_COOP_MAX_PENDING = 100
    season = challenges.start_season("the-game", deals=12, chunk=5, team_sizes=[1])
    greedy = make_version(alice, "greedy-copy", game="the-game", source=(HOUSE / "greedy.py").read_bytes())
    house_version("house:random", "the-game")
    challenges.schedule("the-game")
    with django_capture_on_commit_callbacks(execute=True):
        assert play_queued() == 3 * 3
    assert ("refit_ratings", (RatingPool.coop(season, 1).key,)) in sent
    for game in Game.objects.select_related("match"):
        assert game.seed == season.deal_seed(game.match.first_deal + game.index)
    results = replayed_results(season, 1)
    assert len(results) == 3 and all(sorted(deals) == list(range(12)) for deals in results.values())
    for standing in SeasonStanding.objects.filter(season=season, players=1):
        cards = [results[standing.version_id][d] for d in range(12)]
        deals, wins, mean, median = figures(cards)
        shown = coop_results.Figures(standing.deals, standing.wins, standing.cards_left, standing.histogram)
        assert (shown.deals, shown.wins, shown.mean, shown.median) == (deals, wins, pytest.approx(mean), median)
    stored = {(p.first_id, p.second_id): (p.first_wins, p.second_wins, p.draws) for p in DealPair.objects.all()}
    assert stored == comparisons(results)
    assert refits.run(RatingPool.coop(season, 1)) == 1
    rated = {r.version_id: r for r in SeasonRating.objects.filter(season=season, players=1)}
    assert set(rated) == set(results) and all(r.comparisons == 24 for r in rated.values())
    assert rated[greedy.pk].elo > rated[house_version("house:random", "the-game").pk].elo
    assert RatingFit.objects.get(game=RatingPool.coop(season, 1).key).games == 36
    assert not RatingFit.objects.filter(game="the-game").exists()  # Face to Face's keys are left alone


def test_a_chunk_stored_twice_counts_its_deals_once(alice, sent):
    season = challenges.start_season("the-game", deals=3, chunk=3, team_sizes=[1])
    (match,) = challenges.schedule("the-game")
    assert matches.play(match.pk, worker="test")
    again = Match.objects.create_with_entries(
        match.ordered_versions(), kind="ladder", game="the-game", games=3, players=1, seed=season.seed, duplicate=False
    )
    assert matches.play(again.pk, worker="test")
    (standing,) = SeasonStanding.objects.all()
    assert standing.deals == 3 and DealResult.objects.count() == 3


def test_a_self_play_team_seats_one_player_per_copy(alice, make_version, settings, sent):
    season = challenges.start_season("the-game", deals=2, chunk=2, team_sizes=[3])
    version = make_version(alice, "copy", game="the-game", source=(HOUSE / "greedy.py").read_bytes())
    match = next(m for m in challenges.schedule("the-game") if m.ordered_versions() == [version])
    spec = matches.match_spec(match, match.ordered_versions())
    assert spec.players == 3 and len(spec.bots) == 3  # the runner makes a player (a sandbox) per listed bot
    assert matches.play(match.pk, worker="test")
    seats = GameSeat.objects.filter(game__match=match)
    assert seats.count() == 6 and set(seats.values_list("version_id", flat=True)) == {version.pk}
    assert match.entries.get().games == 2
    results = replayed_results(season, 3)
    assert sorted(results[version.pk]) == [0, 1]
    assert SeasonStanding.objects.get(version=version, players=3).deals == 2


def test_a_chunk_that_failed_for_good_is_played_again_up_to_the_attempt_cap(db, settings, sent, monkeypatch):
    import bots.match

    settings.ARENA_COOP_MAX_PENDING = 1
    settings.ARENA_MATCH_MAX_ATTEMPTS = 2  # each match gives up after 2 broken runs; a chunk after 2 failed matches
    season = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1])
    real_run = bots.match.run_match

    def broken(spec, on_game=None):
        raise OSError("disk full")

    def fail_for_good(match):
        monkeypatch.setattr(bots.match, "run_match", broken)
        for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS):
            with pytest.raises(OSError):
                matches.play(match.pk, worker="test")
        monkeypatch.setattr(bots.match, "run_match", real_run)
        match.refresh_from_db()
        assert match.status == Match.Status.FAILED

    (first,) = challenges.schedule("the-game")
    assert first.first_deal == 0
    fail_for_good(first)
    (again,) = challenges.schedule("the-game")  # the failed chunk first: it has the fewest deals planned
    assert (again.first_deal, again.pk != first.pk) == (0, True)
    fail_for_good(again)
    (other,) = challenges.schedule("the-game")  # two failed matches: chunk 0 is given up, chunk 2 goes on
    assert other.first_deal == 2
    assert matches.play(other.pk, worker="test")
    assert challenges.schedule("the-game") == []  # chunk 0 stays missing; chunk 2 is done
    expert = house_version("house:expert", "the-game")
    assert sorted(DealResult.objects.filter(season=season, version=expert).values_list("deal", flat=True)) == [2, 3]


def test_a_coop_refit_whose_intervals_are_slow_shows_its_elos_first(alice, make_version, monkeypatch):
    season = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1])
    pool = RatingPool.coop(season, 1)
    a, b, c = (make_version(alice, name, game="the-game") for name in ("a", "b", "c"))
    now = timezone.now()

    def compare(first, second, first_wins, second_wins):
        DealPair.objects.update_or_create(
            season=season, players=1, first=first, second=second,
            defaults={"first_wins": first_wins, "second_wins": second_wins, "last_played": now},
        )  # fmt: skip

    compare(a, b, 3, 1)
    compare(b, c, 2, 2)
    refits.refit(pool)
    before = {r.version_id: r for r in SeasonRating.objects.filter(season=season)}
    compare(a, b, 7, 1)
    monkeypatch.setattr(refits, "ELOS_FIRST_AFTER", 0.0)
    seen = {}
    with_intervals = bradley_terry.Strengths.with_intervals

    def look_while_the_intervals_are_computed(located, previous=None):
        seen.setdefault("rows", {r.version_id: r for r in SeasonRating.objects.filter(season=season)})
        return with_intervals(located, previous)

    monkeypatch.setattr(bradley_terry.Strengths, "with_intervals", look_while_the_intervals_are_computed)
    assert refits.refit(pool) is True
    whole = refits.fit(refits.read_counts(pool))
    for pk, row in seen["rows"].items():
        was = before[pk]
        assert row.elo == pytest.approx(whole[pk].elo, abs=1e-9) and row.comparisons == whole[pk].games
        assert (row.low - row.elo, row.high - row.elo) == pytest.approx((was.low - was.elo, was.high - was.elo))
    assert seen["rows"][a.pk].comparisons == before[a.pk].comparisons + 4
    for row in SeasonRating.objects.filter(season=season):
        assert (row.elo, row.low, row.high) == pytest.approx((whole[row.version_id].elo, whole[row.version_id].low,
                                                              whole[row.version_id].high))  # fmt: skip
