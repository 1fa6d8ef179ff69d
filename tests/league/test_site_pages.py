"""Pages that lead somewhere: owners, tournament matches from every cell, match scores in words, times with a zone."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.messages import get_messages
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Game, Match, Tournament, TournamentEntry
from league.arena.play import wording


@pytest.mark.parametrize(
    ("termination", "winner", "fault", "score", "words"),
    [
        ("stuck", 1, None, None, "bob/bar wins: alice/foo was stuck"),
        ("stuck", 0, None, None, "alice/foo wins: bob/bar was stuck"),
        ("all-cards-played", 0, None, None, "alice/foo wins: played all its cards"),
        ("timeout", 1, 0, None, "alice/foo forfeits: timeout"),
        ("illegal-turn", 0, 1, None, "bob/bar forfeits: illegal turn"),
        ("stuck", None, None, None, "draw"),
        ("all-cards-played", None, None, 0, "the team placed every card"),
        ("stuck", None, None, 7, "7 cards left: the team was stuck"),
        ("crash", None, 1, 12, "12 cards left: bob/bar forfeits: crash"),
    ],
)
def test_a_result_in_words_names_the_bots(termination, winner, fault, score, words):
    assert wording.game_result(termination, winner, fault, score, ["alice/foo", "bob/bar"]) == words


def test_points_are_written_with_halves():
    assert [wording.points(p) for p in (6.5, 3.5, 0.5, 0.0, 10.0)] == ["6½", "3½", "½", "0", "10"]


def test_times_carry_their_zone_and_a_machine_readable_datetime(settings):
    template = Template("{% load links %}{{ moment|when }}|{{ nothing|when }}")
    moment = datetime(2026, 11, 26, 12, 3, tzinfo=UTC)
    rendered = template.render(Context({"moment": moment, "nothing": None}))
    assert rendered == '<time datetime="2026-11-26T12:03:00+00:00">2026-11-26 12:03 UTC</time>|–'
    with timezone.override("Europe/Berlin"):
        assert "2026-11-26 13:03 CET" in template.render(Context({"moment": moment}))


def test_an_owner_page_lists_the_bots_with_their_ladder_place(client, alice, bob, make_version, record_games):
    a, b, c = make_version(alice, "alpha"), make_version(bob, "beta"), make_version(bob, "gamma")
    make_version(bob, "idle", status="failed")
    record_games(a, b, [1, 1, 1, 0])
    record_games(b, c, [0, 0, 0, 1])
    record_games(a, c, [0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    page = client.get(reverse("user", args=["bob"])).content.decode()
    text = " ".join(strip_tags(page[page.index("<main") : page.index("</main>")]).split())
    assert "beta" in text and "gamma" in text and "alpha" not in text
    b.rating.refresh_from_db()
    assert f"beta The Game: Face to Face v1 1 {b.rating.elo:.0f} ± {b.rating.margin:.0f} prov. 8" in text
    assert "gamma The Game: Face to Face v1 3" in text  # alpha (2nd) and beta are rated above it
    assert "idle The Game: Face to Face none active – unrated 0" in text
    assert client.get(reverse("user", args=["nobody"])).status_code == 404


def test_owner_names_link_to_their_page_on_the_ladder_home_and_bot_pages(client, alice, make_version):
    version = make_version(alice, "alpha")
    link = '<a href="/users/alice/">alice</a>'
    for url in (reverse("home"), reverse("ladder", args=["face-to-face"]), reverse("bot", args=[version.bot.pk])):
        assert link in client.get(url).content.decode(), url


@pytest.fixture
def cup(alice, bob, make_version, record_games):
    """A running tournament: alpha beat beta 2-1 in a finished match; beta vs gamma queued; two matches each round."""
    a, b, c = make_version(alice, "alpha"), make_version(bob, "beta"), make_version(bob, "gamma")
    cup = Tournament.objects.create(name="Winter Cup", status="running", games_per_pairing=3)
    for v in (a, b, c):
        TournamentEntry.objects.create(tournament=cup, bot=v.bot, version=v)
    done = record_games(a, b, [0, 1, 0], tournament=cup, kind="tournament")
    queued = Match.objects.create_with_entries([b, c], kind="tournament", tournament=cup, games=3, seed="q")
    failed = Match.objects.create_with_entries([a, c], kind="tournament", tournament=cup, games=3, seed="f")
    Match.objects.filter(pk=failed.pk).update(status="failed")
    return {"cup": cup, "versions": (a, b, c), "done": done, "queued": queued, "failed": failed}


def test_every_crosstable_cell_and_standings_row_leads_to_the_matches(client, cup):
    a, b, c = cup["versions"]
    page = client.get(reverse("tournament", args=[cup["cup"].pk])).content.decode()
    matches_url = reverse("tournament-matches", args=[cup["cup"].pk])
    for row in (a, b, c):
        assert f'href="{matches_url}?bot={row.bot_id}"' in page
        for column in {a, b, c} - {row}:
            assert f'href="{matches_url}?bot={row.bot_id}&amp;vs={column.bot_id}"' in page
    pair = client.get(matches_url, {"bot": a.bot_id, "vs": b.bot_id}).content.decode()
    assert f'href="/matches/{cup["done"].pk}/"' in pair
    assert f"/matches/{cup['queued'].pk}/" not in pair and f"/matches/{cup['failed'].pk}/" not in pair
    assert "alice/alpha 2 – 1 bob/beta" in " ".join(strip_tags(pair[pair.index("<main") :]).split())
    of_gamma = client.get(matches_url, {"bot": c.bot_id}).content.decode()
    assert f"/matches/{cup['queued'].pk}/" in of_gamma and f"/matches/{cup['failed'].pk}/" in of_gamma
    assert f"/matches/{cup['done'].pk}/" not in of_gamma
    assert client.get(matches_url, {"bot": "x"}).status_code == 404


def test_the_tournament_counts_its_matches_by_status(client, cup):
    live = client.get(reverse("tournament-live", args=[cup["cup"].pk])).content.decode()
    counts = {status: f'<strong data-count="{status}">{n}</strong>' for status, n in
              {"queued": 1, "running": 0, "done": 1, "failed": 1}.items()}  # fmt: skip
    assert all(count in live for count in counts.values()), live
    assert "3 of 9 games played" in live
    assert '<progress class="bar" aria-label="games played" max="9" value="3">33%' in live


def test_a_scheduled_tournament_counts_down_and_is_polled_until_it_finishes(client, alice, bob, make_version):
    cup = Tournament.objects.create(name="Later Cup", scheduled_at=timezone.now() + timedelta(minutes=5))
    for v in (make_version(alice, "alpha"), make_version(bob, "beta")):
        TournamentEntry.objects.create(tournament=cup, bot=v.bot)
    live = reverse("tournament-live", args=[cup.pk])
    fragment = client.get(live).content.decode()
    assert 'data-live="on"' in fragment and "data-countdown" in fragment and "alice</a>/<a" in fragment
    assert f'datetime="{cup.scheduled_at.isoformat()}"' in fragment
    Tournament.objects.filter(pk=cup.pk).update(scheduled_at=None)
    assert 'data-live="on"' not in client.get(live).content.decode()  # nothing will happen by itself
    Tournament.objects.filter(pk=cup.pk).update(status="running", started_at=timezone.now())
    assert 'data-live="on"' in client.get(live).content.decode()
    Tournament.objects.filter(pk=cup.pk).update(status="finished", finished_at=timezone.now())
    finished = client.get(live).content.decode()
    assert 'data-live="on"' not in finished and "finished <time" in finished


def test_the_match_page_shows_the_score_results_in_words_and_replays(client, alice, bob, make_version, record_games):
    a, b = make_version(alice, "foo"), make_version(bob, "bar")
    match = record_games(a, b, [0, 1, 0, 0, 1, 0, 0, 1, 0, 1])
    Game.objects.filter(match=match, index=9).update(termination="timeout", winner_seat=1, fault_seat=0)
    page = client.get(reverse("match", args=[match.pk])).content.decode()
    text = " ".join(strip_tags(page).split())
    assert "alice/foo 6 – 4 bob/bar" in text
    assert "alice/foo wins: bob/bar was stuck" in text and "bob/bar wins: alice/foo was stuck" in text
    assert "alice/foo forfeits: timeout" in text
    for game in Game.objects.filter(match=match):
        assert f'href="/games/{game.pk}/"' in page and f'href="/games/{game.pk}/log.json"' in page
    assert '<a href="/users/bob/">bob</a>/' in page


def test_the_upload_message_stays_true_after_validation(client, alice):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(alice)
    source = b"def play(observation):\n    return {'plays': []}\n"
    response = client.post(
        reverse("new-bot"),
        {"name": "fresh", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", source)},
    )
    (message,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert "fresh v1 is uploaded" in message and "queued" not in message and "versions table" in message


def test_the_login_page_is_titled_with_the_site_name(client, settings):
    page = client.get(reverse("login"), HTTP_HOST="127.0.0.1").content.decode()
    assert f"<title>Log in · {settings.SITE_NAME}</title>" in page


def test_unknown_pages_get_the_sites_own_404(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Nothing here" in page and "/no/such/page/" in page and 'href="/docs/"' in page


def test_the_500_page_needs_no_database_or_context():
    from django.template.loader import get_template

    assert "Something went wrong" in get_template("500.html").render()


def test_the_favicon_is_served_and_linked(client, db):
    page = client.get(reverse("home")).content.decode()
    assert '<link rel="icon" href="/static/arena/favicon.svg" type="image/svg+xml">' in page
    response = client.get("/static/arena/favicon.svg")
    assert response.status_code == 200 and b"<svg" in b"".join(response.streaming_content)
    assert client.get("/favicon.ico")["Location"] == "/static/arena/favicon.svg"
