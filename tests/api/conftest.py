"""Fixtures for the API tests: the league's (database, users, versions, workers) plus API clients and a small league."""

from __future__ import annotations

import pytest

from tests.league import conftest as league_conftest

# The league's fixtures and hooks, found by pytest under these names.
_isolated_cache = league_conftest._isolated_cache
_fresh_page_cache = league_conftest._fresh_page_cache
pytest_sessionfinish = league_conftest.pytest_sessionfinish
alice = league_conftest.alice
bob = league_conftest.bob
make_version = league_conftest.make_version
record_games = league_conftest.record_games
sent = league_conftest.sent
workers = league_conftest.workers
wait_for = league_conftest.wait_for

GOOD_BOT = b"def play(observation):\n    return []\n"


@pytest.fixture(autouse=True)
def _exact_counts(settings):
    """List totals are counted afresh by every request here; test_api_queries tests the cached totals."""
    settings.API_COUNT_SECONDS = 0
    settings.ARENA_VALIDATION_GAMES = 2  # a short validation (the suite's time); test_validation plays the league's
    settings.ARENA_VALIDATION_OPPONENTS = ["house:random"]


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("staff", password="correct horse battery", is_staff=True)


@pytest.fixture
def api():
    """api(user=None): a DRF test client, signed in as `user` when given (token or session are tested apart)."""
    from rest_framework.test import APIClient

    def make(user=None):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def genuine_log(game):
    """Give a stored game a log the engine replays (record_games stores stubs): one house game played here."""
    from bots.match import BotSpec, MatchSpec, run_match
    from league.arena.models import Game

    spec = MatchSpec(
        game="face-to-face", bots=[BotSpec("house:random"), BotSpec("house:greedy")], games=1, seed="api", sandbox=False
    )
    played = run_match(spec).games[0]
    outcome = played.outcome
    Game.objects.filter(pk=game.pk).update(
        log_zlib=Game.compress_log(played.log),
        termination=outcome.termination.value,
        winner_seat=outcome.winner,
        score=outcome.score,
    )


@pytest.fixture
def league(db, alice, bob, make_version, record_games):
    """A small league. Alice owns `ace`: v1 active, v2 failed validation (private reason and stderr). Bob owns `bee`.
    A rated ladder match ace-bee (2 games, the first with a genuine log; Alice's entry has a stderr tail), a
    finished tournament between them (3 games), v2's validation match against bee (1 game), Alice's scrim request
    of ace against bee (4 games, not released), and a notification telling Alice. A co-op season of The Game
    (4 deals, solo and pairs): Alice's `solo` and Bob's `pal` played every deal (stored, not played)."""
    from django.utils import timezone

    from league.arena import notifications
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool
    from league.arena.models import BotVersion, MatchRequest, Tournament, TournamentEntry

    ace = make_version(alice, "ace")
    bee = make_version(bob, "bee")
    failed = make_version(alice, "ace", status="validating")
    validation = record_games(failed, bee, [1], kind="validation", rated=False)
    failed.mark_validated(False, reason="crash in game 1: secret-reason", stderr_tail="secret-stderr")
    genuine_log(validation.played_games.get())
    ladder = record_games(ace, bee, [0, 1])
    ladder.entries.filter(index=0).update(stderr_tail="ace-entry-stderr")
    genuine_log(ladder.played_games.get(index=0))
    tournament = Tournament.objects.create(name="Cup", status=Tournament.Status.FINISHED, started_at=timezone.now())
    TournamentEntry.objects.create(tournament=tournament, bot=ace.bot, version=ace)
    TournamentEntry.objects.create(tournament=tournament, bot=bee.bot, version=bee)
    played = record_games(ace, bee, [0, 0, 1], tournament=tournament, kind="tournament")
    refits.refit(RatingPool.ladder("face-to-face"))
    scrim = MatchRequest.objects.create(
        requester=alice, bot=ace.bot, version=ace, opponent=bee.bot, opponent_version=bee, games=4
    )
    season, solo, pal = coop_season(alice, bob, make_version)
    notice = notifications.notify(alice, notifications.Kind.VERSION_FAILED, "ace v2 failed its validation", "/bots/1/")
    return {
        "ace": ace.bot,
        "ace_v1": ace,
        "ace_failed": BotVersion.objects.get(pk=failed.pk),
        "bee": bee.bot,
        "bee_v1": bee,
        "ladder": ladder,
        "game": ladder.played_games.get(index=0),
        "tournament": tournament,
        "tournament_match": played,
        "validation": validation,
        "validation_game": validation.played_games.get(),
        "scrim": scrim,
        "season": season,
        "solo": solo.bot,
        "solo_v1": solo,
        "pal": pal.bot,
        "notice": notice,
    }


def coop_season(alice, bob, make_version):
    """A current season of The Game, 4 deals in teams of 1 and 2, with two bots' results stored and rated."""
    from league.arena.coop import challenges
    from league.arena.ladder import refits
    from league.arena.ladder.pools import RatingPool
    from tests.league.coop_helpers import record_coop

    season = challenges.start_season("the-game", deals=4, chunk=4, team_sizes=[1, 2])
    solo = make_version(alice, "solo", game="the-game")
    pal = make_version(bob, "pal", game="the-game")
    record_coop(season, solo, 1, [0, 3, 12, 0])
    record_coop(season, pal, 1, [5, 3, 0, 7])
    record_coop(season, solo, 2, [1, 2, 0, 0])
    record_coop(season, pal, 2, [4, 2, 1, 0])
    for players in season.team_sizes:
        refits.refit(RatingPool.coop(season, players))
    return season, solo, pal
