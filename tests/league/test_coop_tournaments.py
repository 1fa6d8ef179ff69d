"""Co-op tournaments: created in the admin, solo deals or pairs, standings and the partner table."""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from pathlib import Path
from statistics import fmean

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

import bots.house
import games
from league.arena.models import Game, Match, Tournament, TournamentEntry
from league.arena.tournaments import coop as coop_tournaments
from league.arena.tournaments import starting as tournaments
from league.arena.uploads.house import house_version
from tests.league.coop_helpers import figures, play_queued

HOUSE = Path(bots.house.__file__).parent


def admin_form(game: str, format: str) -> dict:
    return {
        "name": "Co-op Cup", "game_and_format": f"{game}:{format}", "games_per_pairing": 3,
        "turn_seconds": 1, "bank_seconds": 10, "startup_seconds": 5,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("game", "format", "accepted"),
    [
        ("the-game", "pairs", True),
        ("extreme", "solo-deals", True),
        ("the-game", "round-robin", False),
        ("face-to-face", "pairs", False),
    ],
)
def test_the_admin_creates_coop_tournaments_in_the_coop_formats_only(client, db, game, format, accepted):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    client.post(reverse("admin:arena_tournament_add"), admin_form(game, format))
    assert Tournament.objects.filter(game=game, format=format).exists() == accepted


@pytest.fixture
def entrants(alice, make_version):
    greedy = make_version(alice, "greedy-copy", game="the-game", source=(HOUSE / "greedy.py").read_bytes())
    return [greedy, house_version("house:random", "the-game"), house_version("house:greedy", "the-game")]


def cup(format: str, versions, deals: int = 4) -> Tournament:
    tournament = Tournament.objects.create(name=format, game="the-game", format=format, games_per_pairing=deals)
    for version in versions:
        TournamentEntry.objects.create(tournament=tournament, bot=version.bot)
    return tournament


def replayed(tournament: Tournament) -> list[tuple[list[int], int, str]]:
    """(version per seat, cards left, seed) of every stored game, from the logs."""
    played = []
    for game in Game.objects.filter(match__tournament=tournament).prefetch_related("seats"):
        log = json.loads(zlib.decompress(bytes(game.log_zlib)))
        seats = [seat.version_id for seat in sorted(game.seats.all(), key=lambda s: s.seat)]
        played.append((seats, games.replay(log).score, log["seed"]))
    return played


def test_solo_deals_give_every_entrant_the_same_deals_and_ranks_by_mean_cards_left(entrants, sent):
    tournament = cup("solo-deals", entrants)
    started = tournaments.start(tournament.pk)
    assert len(started) == 3 and {(m.players, m.games, m.duplicate) for m in started} == {(1, 4, False)}
    assert play_queued() == 3
    tournament.refresh_from_db()
    assert tournament.mark_finished_if_done() or tournament.status == "finished"
    played = replayed(tournament)
    seeds = defaultdict(set)
    cards = defaultdict(list)
    for (version,), left, seed in played:
        seeds[version].add(seed)
        cards[version].append(left)
    assert len({frozenset(s) for s in seeds.values()}) == 1  # the same deals for everybody
    table = coop_tournaments.table(tournament)
    assert not table.pairs and not table.partner_rows
    for standing in table.standings:
        deals, wins, mean, median = figures(cards[standing.version.pk])
        assert (standing.figures.deals, standing.figures.wins, standing.figures.median) == (deals, wins, median)
        assert standing.score == pytest.approx(mean)
    scores = [s.score for s in table.standings]
    assert scores == sorted(scores)


def test_pairs_play_every_deal_in_both_seat_orders_with_a_partner_table(client, entrants, sent):
    tournament = cup("pairs", entrants, deals=3)
    started = tournaments.start(tournament.pk)
    assert len(started) == 3 and {(m.players, m.games, m.duplicate) for m in started} == {(2, 6, True)}
    play_queued()
    played = replayed(tournament)
    orders = defaultdict(set)
    together = defaultdict(list)
    for seats, left, seed in played:
        orders[frozenset(seats), seed].add(tuple(seats))
        together[frozenset(seats)].append(left)
    assert len(orders) == 3 * 3 and all(len(o) == 2 for o in orders.values())  # each deal, both seat orders
    table = coop_tournaments.table(tournament)
    for standing in table.standings:
        me = standing.version.pk
        partners = {next(iter(pair - {me})): fmean(scores) for pair, scores in together.items() if me in pair}
        assert standing.partners == pytest.approx(partners)
        assert standing.score == pytest.approx(fmean(partners.values()))
        assert standing.figures.deals == 12
    page = client.get(reverse("tournament", args=[tournament.pk])).content.decode()
    assert "Partners" in page and "mean cards left" in page.lower()
    assert Match.objects.filter(tournament=tournament, status="done").count() == 3
