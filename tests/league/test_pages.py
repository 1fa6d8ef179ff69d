"""The public pages render what is stored, and a failed version's details reach its owner only."""

from django.urls import reverse

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Game, Tournament, TournamentEntry


def failed_version(alice, make_version):
    version = make_version(alice, "flaky", status="failed")
    version.failure_reason = "game 1: crash: play raised RuntimeError('boom')"
    version.stderr_tail = "Traceback: secret token 42"
    version.save()
    return version


def test_the_owner_sees_why_a_version_failed(client, alice, make_version):
    version = failed_version(alice, make_version)
    client.force_login(alice)
    page = client.get(reverse("bot", args=[version.bot.pk])).content.decode()
    assert "play raised RuntimeError" in page and "secret token 42" in page
    status = client.get(reverse("bot-status", args=[version.bot.pk])).json()
    assert status["versions"][0]["stderr_tail"] == "Traceback: secret token 42"


def test_others_never_see_the_reason_or_stderr(client, alice, bob, make_version):
    version = failed_version(alice, make_version)
    for viewer in (bob, None):
        if viewer:
            client.force_login(viewer)
        else:
            client.logout()
        page = client.get(reverse("bot", args=[version.bot.pk])).content.decode()
        assert "failed validation" in page
        assert "secret token 42" not in page and "RuntimeError" not in page
        fragment = client.get(reverse("bot-versions", args=[version.bot.pk])).content.decode()
        assert "secret token 42" not in fragment
        status = client.get(reverse("bot-status", args=[version.bot.pk])).json()
        assert status["versions"][0] == {"number": 1, "sha256": version.sha256, "status": "failed"}


def test_the_versions_part_refreshes_itself_only_while_validating(client, alice, make_version):
    version = make_version(alice, "new", status="validating")
    fragment = client.get(reverse("bot-versions", args=[version.bot.pk])).content.decode()
    assert 'data-live="on"' in fragment
    version.status = "active"
    version.save()
    fragment = client.get(reverse("bot-versions", args=[version.bot.pk])).content.decode()
    assert 'data-live="on"' not in fragment


def test_the_leaderboard_lists_rank_owner_version_elo_and_record(client, alice, bob, make_version, record_games):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    record_games(a, b, [0, 0, 0, 1])
    refits.refit(RatingPool.ladder("face-to-face"))
    page = client.get(reverse("ladder", args=["face-to-face"])).content.decode()
    rating = a.rating
    assert f"{rating.elo:.0f} ± {rating.margin:.0f}" in page
    assert "3–1" in page and "75.0" in page and "alice" in page and "v1" in page
    assert page.index("alpha") < page.index("beta")
    assert client.get(reverse("ladder", args=["chess"])).status_code == 404


def test_the_tournament_page_shows_progress_standings_and_crosstable(client, alice, bob, make_version, record_games):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    t = Tournament.objects.create(name="Spring Cup", status="running", games_per_pairing=4)
    for v in (a, b):
        TournamentEntry.objects.create(tournament=t, bot=v.bot, version=v)
    match = record_games(a, b, [0, 1, 0], tournament=t, kind="tournament")
    match.games = 4
    match.status = "running"
    match.games_done = 3
    match.save()
    page = client.get(reverse("tournament", args=[t.pk])).content.decode()
    assert "Spring Cup" in page and 'max="4" value="3"' in page and "3 of 4 games played" in page
    assert "2/3" in page and "1/3" in page
    live = client.get(reverse("tournament-live", args=[t.pk])).content.decode()
    assert live.lstrip().startswith('<section id="standings"') and 'data-live="on"' in live


def test_the_game_log_is_verified_when_read(client, alice, bob, make_version, record_games):
    a, b = make_version(alice, "alpha"), make_version(bob, "beta")
    record_games(a, b, [0])
    game = Game.objects.get()
    response = client.get(reverse("game-log", args=[game.pk]))
    assert response.status_code == 409  # an empty log cannot replay
    assert f"game {game.pk}: the stored log does not replay" in response.json()["error"]


def test_a_validation_match_is_private_to_the_owner(client, alice, bob, make_version, record_games):
    mine = make_version(alice, "alpha", status="validating")
    match = record_games(mine, make_version(bob, "beta"), [1], kind="validation", rated=False)
    client.force_login(bob)
    assert client.get(reverse("match", args=[match.pk])).status_code == 404
    client.force_login(alice)
    assert client.get(reverse("match", args=[match.pk])).status_code == 200


def test_signup_logs_in_and_leads_to_the_upload_form(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "carol", "email": "", "password1": "a long passphrase 9", "password2": "a long passphrase 9"},
    )
    assert response.status_code == 302 and response["Location"] == reverse("new-bot")
    assert client.get(reverse("my-bots")).status_code == 200


def test_home_lists_the_ladder(client, alice, make_version):
    make_version(alice, "alpha")
    page = client.get(reverse("home")).content.decode()
    assert '<a href="/users/alice/">alice</a>/<a href="/bots/' in page and ">alpha</a>" in page
