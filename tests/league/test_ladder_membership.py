"""Retired bots, disabled bots and the bots of disabled accounts leave the ladder, by one rule (`on_ladder`): not
scheduled (ladder or co-op season), not on the leaderboards or ranked, left out of tournaments starting later, their
queued ladder matches withdrawn; their games stay and still replay. Bringing them back undoes it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.arena.coop import challenges
from league.arena.ladder import leaderboards, scheduling
from league.arena.models import FACE_TO_FACE, Bot, BotVersion, Match, Rating, Tournament, TournamentEntry
from league.arena.tournaments import starting as tournaments
from league.arena.uploads import changes as bot_changes
from league.arena.uploads.intake import UploadRejected, add_version, inspect_upload
from tests.api.conftest import genuine_log

WAYS_OFF = ["retired", "disabled", "owner disabled"]


def take_off(bot: Bot, way: str) -> None:
    if way == "retired":
        assert bot_changes.retire(bot)
    elif way == "disabled":
        assert bot_changes.disable([bot], "cheating") == 1
    else:
        assert bot_changes.disable_users([bot.owner]) == 1


def bring_back(bot: Bot, way: str) -> None:
    if way == "retired":
        assert bot_changes.unretire(bot)
    elif way == "disabled":
        assert bot_changes.enable([bot]) == 1
    else:
        assert bot_changes.enable_users([bot.owner]) == 1


@pytest.fixture
def three(alice, bob, django_user_model, make_version):
    carol = django_user_model.objects.create_user("carol", password="correct horse battery")
    versions = [make_version(alice, "ace"), make_version(bob, "bee"), make_version(carol, "cee")]
    for k, version in enumerate(versions):
        Rating.objects.create(version=version, game=FACE_TO_FACE, elo=1600 - 10 * k, low=1500, high=1700, games=4)
    return versions


def ladder_names() -> list[str]:
    return [row.bot.name for row in leaderboards.leaderboard_page(FACE_TO_FACE, 1).rows]


@pytest.mark.parametrize("way", WAYS_OFF)
def test_a_bot_off_the_ladder_is_neither_scheduled_nor_listed_and_comes_back(three, way, settings, sent):
    ace = three[0].bot
    assert ladder_names() == ["ace", "bee", "cee"]
    take_off(Bot.objects.get(pk=ace.pk), way)
    ace = Bot.objects.select_related("owner").get(pk=ace.pk)
    assert not ace.is_on_ladder
    assert not Bot.objects.on_ladder().filter(pk=ace.pk).exists()
    assert ladder_names() == ["bee", "cee"]
    assert [row.rank for row in leaderboards.leaderboard_page(FACE_TO_FACE, 1).rows] == [1, 2]
    assert three[0] not in scheduling.members(FACE_TO_FACE)
    settings.ARENA_LADDER_MAX_PENDING = 10
    queued = scheduling.schedule(FACE_TO_FACE)
    assert queued and all(three[0] not in match.versions.all() for match in queued)

    bring_back(Bot.objects.get(pk=ace.pk), way)
    assert ladder_names() == ["ace", "bee", "cee"]
    assert three[0] in scheduling.members(FACE_TO_FACE)


def test_the_house_bots_stay_on_the_ladder_though_their_owner_never_logs_in(db):
    from league.arena.uploads.house import house_version

    version = house_version("house:greedy")
    assert not version.bot.owner.is_active
    assert Bot.objects.on_ladder().filter(pk=version.bot_id).exists()
    assert version in scheduling.members(FACE_TO_FACE)


@pytest.mark.parametrize("way", WAYS_OFF)
def test_leaving_withdraws_queued_ladder_matches_only(three, way, record_games):
    ace, bee, cee = three
    queued = Match.objects.create_with_entries([ace, bee], kind="ladder", games=2, seed="q")
    running = Match.objects.create_with_entries([ace, cee], kind="ladder", games=2, seed="r", status="running")
    others = Match.objects.create_with_entries([bee, cee], kind="ladder", games=2, seed="o")
    done = record_games(ace, bee, [0, 1])
    take_off(ace.bot, way)
    assert not Match.objects.filter(pk=queued.pk).exists()
    assert set(Match.objects.values_list("pk", flat=True)) == {running.pk, others.pk, done.pk}
    assert done.played_games.count() == 2


@pytest.mark.parametrize("way", WAYS_OFF)
def test_its_games_stay_and_still_replay(three, way, record_games, client):
    ace, bee, _ = three
    match = record_games(ace, bee, [0])
    game = match.played_games.get()
    genuine_log(game)
    take_off(ace.bot, way)
    assert client.get(reverse("game-log", args=[game.pk])).status_code == 200
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    assert client.get(reverse("match", args=[match.pk])).status_code == 200


def test_a_tournament_starting_later_leaves_it_out(three, sent):
    ace, bee, cee = three
    cup = Tournament.objects.create(name="Cup")
    for version in three:
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    bot_changes.retire(ace.bot)
    matches = tournaments.start(cup.pk)
    assert len(matches) == 1 and set(matches[0].versions.all()) == {bee, cee}
    assert TournamentEntry.objects.get(tournament=cup, bot=ace.bot).version is None


def test_a_tournament_needs_two_entrants_on_the_ladder(three, sent):
    ace, bee, _ = three
    cup = Tournament.objects.create(name="Cup")
    for version in (ace, bee):
        TournamentEntry.objects.create(tournament=cup, bot=version.bot)
    bot_changes.disable([bee.bot])
    with pytest.raises(tournaments.TournamentError, match="neither retired nor disabled; it has 1"):
        tournaments.start(cup.pk)


def test_co_op_seasons_schedule_only_bots_on_the_ladder(alice, bob, make_version, settings, sent):
    mine = make_version(alice, "coop-a", game="the-game")
    theirs = make_version(bob, "coop-b", game="the-game")
    season = challenges.start_season("the-game", deals=4, chunk=2, team_sizes=[1])
    bot_changes.retire(mine.bot)
    assert mine not in challenges.members("the-game") and theirs in challenges.members("the-game")
    settings.ARENA_COOP_MAX_PENDING = 50
    queued = challenges.schedule("the-game")
    played = {v for match in queued for v in match.versions.all()}
    assert theirs in played and mine not in played
    assert season.current


def test_the_bot_page_and_profile_say_so_and_show_no_rank(three, client, alice):
    ace = three[0].bot
    bot_changes.retire(ace)
    page = client.get(reverse("bot", args=[ace.pk])).content.decode()
    assert "retired" in page and "no longer plays on the ladder" in page and "Rank <strong>" not in page
    profile = client.get(reverse("user", args=["alice"])).content.decode()
    assert "badge retired" in profile and '<a href="/ladder/face-to-face/">1</a>' not in profile
    bob_bot = three[1].bot
    assert "Rank <strong>1</strong>" in client.get(reverse("bot", args=[bob_bot.pk])).content.decode()


def test_a_disabled_bot_takes_no_new_version_a_retired_one_does(three, sent):
    ace, bee, _ = three
    bot_changes.retire(ace.bot)
    upload = inspect_upload("bot.py", b"def play(observation):\n    return []\n# v2\n")
    assert add_version(ace.bot, upload).number == 2
    bot_changes.disable([bee.bot])
    with pytest.raises(UploadRejected, match="bee was disabled by the staff: it takes no new versions"):
        add_version(bee.bot, upload)
    assert BotVersion.objects.filter(bot=bee.bot).count() == 1


def test_retiring_twice_changes_nothing_and_unretire_needs_a_retired_bot(three):
    ace = three[0].bot
    assert bot_changes.retire(ace) and not bot_changes.retire(ace)
    assert bot_changes.unretire(ace) and not bot_changes.unretire(ace)
    assert ace.retired_at is None


def test_an_unretired_bot_the_staff_disabled_stays_off(three):
    ace = three[0].bot
    bot_changes.retire(ace)
    bot_changes.disable([ace])
    bot_changes.unretire(ace)
    assert not Bot.objects.on_ladder().filter(pk=ace.pk).exists()


def test_the_api_lists_it_as_off_the_ladder(three, client):
    ace = three[0].bot
    bot_changes.disable([ace], "copied code")
    body = client.get(f"/api/bots/{ace.pk}/").json()
    assert body["on_ladder"] is False and body["disabled_at"] and body["retired_at"] is None
    on = [bot["name"] for bot in client.get("/api/bots/?active=true").json()["results"]]
    off = [bot["name"] for bot in client.get("/api/bots/?active=false").json()["results"]]
    assert "ace" not in on and "ace" in off and "bee" in on
    ladder = client.get(f"/api/leaderboards/{FACE_TO_FACE}/").json()["results"]
    assert [row["bot"]["name"] for row in ladder] == ["bee", "cee"]


@pytest.mark.parametrize("way", ["disabled", "owner disabled"])
def test_the_staffs_disabling_holds_back_validations_until_enabled(three, way, sent):
    from league.arena.uploads import validation as validations

    ace, bee, _ = three
    upload = inspect_upload("bot.py", b"def play(observation):\n    return []\n# v2\n")
    new = add_version(ace.bot, upload)  # its validation match is queued at once
    opponent_side = add_version(bee.bot, upload)  # bee's validation: the house bot plays it, ace has no part
    validation = Match.objects.get(kind="validation", entries__index=0, entries__version=new)
    take_off(ace.bot, way)
    assert not Match.objects.filter(pk=validation.pk).exists()
    assert Match.objects.filter(kind="validation", entries__index=0, entries__version=opponent_side).exists()
    assert list(validations.waiting(ace.bot.owner_id)) == []
    assert validations.release(ace.bot.owner_id) == []  # the sweeper does not queue it again either
    bring_back(Bot.objects.get(pk=ace.bot_id), way)
    assert Match.objects.filter(kind="validation", entries__index=0, entries__version=new, status="queued").exists()


def test_a_retired_bots_new_version_is_still_validated(three, sent):
    ace = three[0]
    bot_changes.retire(ace.bot)
    new = add_version(ace.bot, inspect_upload("bot.py", b"def play(observation):\n    return []\n# v2\n"))
    assert Match.objects.filter(kind="validation", entries__index=0, entries__version=new).exists()
