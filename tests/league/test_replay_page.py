"""The replay page (/games/<id>/): its embedded positions are the engine's, it names the bots and the reason
the game ended, it refuses a log that does not verify, and validation games stay with the candidate's owner."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import pytest
from django.urls import reverse
from replay_helpers import (
    SAMPLE_BOTS,
    broken_command_log,
    engine_observations,
    forfeit_log,
    rejected_log,
    sample_log,
    store_game,
    versions_for,
)

import games
from league.arena.models import Game, Match

GAMES = list(SAMPLE_BOTS)


@pytest.fixture
def logs() -> dict[str, dict]:
    return {game: sample_log(game) for game in GAMES}


@pytest.fixture
def seat_versions(alice, bob, make_version):
    return lambda log: versions_for(log, [alice, bob], make_version)


def page_data(client, game: Game) -> tuple[str, dict]:
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 200, response.content[:500]
    html = response.content.decode()
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page embeds its data as JSON"
    return html, json.loads(found.group(1))


@pytest.mark.parametrize("game_id", GAMES)
def test_every_embedded_position_is_the_engines(client, logs, seat_versions, game_id):
    log = logs[game_id]
    game = store_game(log, seat_versions(log))
    _, data = page_data(client, game)
    expected = engine_observations(log)
    assert len(data["states"]) == len(log["turns"]) + 1 == len(expected)
    pile_ids = [pile["id"] for pile in data["piles"]]
    codes = {"none": "-", "keep-off": "k", "jump": "j"}
    histories = {pile["id"]: [pile["start"]] for pile in data["piles"]}
    signalled = False
    for number, (snapshot, seats) in enumerate(zip(data["states"], expected, strict=True)):
        shared = seats[0]
        assert snapshot["hands"] == [seat["hand"] for seat in seats], f"hands after turn {number}"
        assert snapshot["draw"] == shared["draw_pile_sizes"], f"draw piles after turn {number}"
        assert snapshot["tops"] == [shared["piles"][pile]["top"] for pile in pile_ids], f"tops after turn {number}"
        assert snapshot["to_move"] == shared["to_move"]
        if number:
            turn = data["turns"][number - 1]
            for card, pile in turn["plays"]:
                histories[pile].append(card)
            before = set(expected[number - 1][turn["seat"]]["hand"])
            assert turn["drawn"] == sorted(set(seats[turn["seat"]]["hand"]) - before)
            assert turn["plays"] == log["turns"][number - 1]["plays"] and turn["ms"] == log["turns"][number - 1]["ms"]
        # What the page's script lays on the piles is the engine's history, card for card.
        assert histories == {pile: shared["piles"][pile]["history"] for pile in pile_ids}, f"after turn {number}"
        if game_id == "face-to-face":
            assert "signals" not in snapshot and "in_force" not in snapshot
        else:
            wanted = ["".join(codes[seat_signals[pile]] for pile in pile_ids) for seat_signals in shared["signals"]]
            assert snapshot["signals"] == wanted
            signalled |= any(code != "----" for code in wanted)
        if game_id == "extreme":
            assert snapshot["in_force"] == shared["commands"]["in_force"]
    if game_id != "face-to-face":
        assert signalled, "the expert's signals are in the test's log, so the signals are really compared"
    assert data["result"]["termination"] == log["result"]["termination"]


def test_the_page_names_the_bots_links_the_log_and_says_it_was_verified(client, logs, seat_versions):
    log = logs["face-to-face"]
    versions = seat_versions(log)
    game = store_game(log, versions)
    html, data = page_data(client, game)
    assert [seat["name"] for seat in data["seats"]] == [v.bot.full_name for v in versions]
    assert all(seat["url"] == v.bot.get_absolute_url() for seat, v in zip(data["seats"], versions, strict=True))
    winner = versions[log["result"]["winner"]].bot.full_name
    assert data["result"]["headline"].endswith(f"{winner} wins") or data["result"]["headline"].startswith(winner)
    assert "log verified by the engine" in html
    assert f'href="{reverse("game-log", args=[game.pk])}"' in html and "download=" in html
    assert "/static/arena/replay.js" in html and "/static/arena/replay.css" in html


def test_without_seat_rows_the_page_names_the_bots_from_the_log(client, logs, seat_versions):
    log = logs["extreme"]
    game = store_game(log, seat_versions(log))
    game.seats.all().delete()
    _, data = page_data(client, game)
    assert [seat["name"] for seat in data["seats"]] == [seat["bot"] for seat in log["seats"]]


def test_the_page_of_a_whole_game_weighs_well_under_150_kb(client, logs, seat_versions):
    """HTML, script and style sheet together; bench/replay_page.py measures the longest game the rules allow."""
    from django.contrib.staticfiles import finders

    log = logs["the-game"]
    html, _ = page_data(client, store_game(log, seat_versions(log)))
    static = sum(len(Path(finders.find(name)).read_bytes()) for name in ("arena/replay.js", "arena/replay.css"))
    assert len(html.encode()) + static < 100 * 1024


def test_the_page_adds_no_inline_script(client, logs, seat_versions):
    """Data goes in a JSON block and code in a served file, ready for a content security policy."""
    log = logs["the-game"]
    html, _ = page_data(client, store_game(log, seat_versions(log)))

    def inline_scripts(text: str) -> int:
        tags = re.findall(r"<script\b[^>]*>", text)
        return sum(1 for tag in tags if "src=" not in tag and 'type="application/json"' not in tag)

    assert inline_scripts(html) == inline_scripts(client.get(reverse("home")).content.decode())


def test_repeated_bots_in_the_co_op_seats_are_told_apart(client, logs, seat_versions):
    log = logs["the-game"]
    _, data = page_data(client, store_game(log, seat_versions(log)))
    shorts = [seat["short"] for seat in data["seats"]]
    assert len(set(shorts)) == 3 and shorts[0].endswith("#1") and shorts[2].endswith("#3")


@pytest.mark.parametrize(
    ("ending", "expected"),
    [
        ("illegal-turn", "made an illegal turn"),
        ("command-broken", "broke a command"),
        ("timeout", "ran out of time"),
        ("crash", "crashed"),
    ],
)
def test_a_forfeit_names_the_bot_and_the_reason(client, logs, seat_versions, ending, expected):
    if ending == "illegal-turn":
        log = rejected_log(logs["face-to-face"], 7)
    elif ending == "command-broken":
        log = broken_command_log(logs["extreme"])
    else:
        detail = "no reply within the turn time (1 s) plus the bank (0 s left)" if ending == "timeout" else "boom"
        log = forfeit_log(logs["face-to-face"], 9, ending, detail)
    assert games.replay(log).termination.value == ending
    versions = seat_versions(log)
    _, data = page_data(client, store_game(log, versions))
    culprit = versions[log["result"]["seat"]].bot.full_name
    assert data["result"]["headline"].startswith(f"{culprit} {expected}")
    assert data["result"]["detail"] == log["result"]["detail"]
    assert len(data["states"]) == len(log["turns"]) + 1
    if ending in ("illegal-turn", "command-broken"):
        assert data["rejected"]["seat"] == log["result"]["seat"]
        assert data["rejected"]["plays"] == log["rejected_turn"]["turn"]["plays"]
        assert data["rejected"]["rule"] == log["rejected_turn"]["rule"]
    else:
        assert data["rejected"] is None


@pytest.mark.parametrize(
    "raw",
    [
        {"plays": [[2, "</script><script>alert('pile')</script>"]]},  # well formed, on a pile that does not exist
        "<img src=x onerror=alert('turn')>",  # not a turn at all
    ],
)
def test_a_hostile_rejected_turn_stays_text(client, logs, seat_versions, raw):
    log = rejected_log(logs["face-to-face"], 4, raw)
    html, data = page_data(client, store_game(log, seat_versions(log)))
    assert "<script>alert" not in html and "<img src=x" not in html
    shown = data["rejected"]["raw"] if data["rejected"]["plays"] is None else data["rejected"]["plays"][0][1]
    assert "alert(" in shown, "the bot's text reaches the page as data, escaped in the HTML"


def test_a_log_that_does_not_verify_gets_a_409_page_that_says_why(client, logs, seat_versions):
    log = logs["face-to-face"]
    game = store_game(log, seat_versions(log))
    changed = json.loads(json.dumps(log))
    first, second = changed["turns"][0]["plays"][:2]
    changed["turns"][0]["plays"][:2] = [second, first]  # the same cards, an order the rules may refuse
    changed["turns"][0]["plays"][0][0] = 1  # a card that does not exist: never playable
    Game.objects.filter(pk=game.pk).update(log_zlib=zlib.compress(json.dumps(changed).encode()))
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 409
    page = response.content.decode()
    assert "does not verify" in page and "turn 1" in page and "replay-data" not in page

    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(log_zlib=Game.compress_log(log), termination="timeout")
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code == 409 and "was recorded" in response.content.decode()


def test_a_validation_game_is_shown_only_to_the_candidates_owner(client, logs, alice, bob, make_version):
    from django.contrib.auth import get_user_model

    log = logs["face-to-face"]
    candidate, opponent = make_version(alice, "candidate", status="validating"), make_version(bob, "house-ish")
    game = store_game(log, [candidate, opponent], kind=Match.Kind.VALIDATION)
    url = reverse("game", args=[game.pk])
    assert client.get(url).status_code == 404
    client.force_login(bob)
    assert client.get(url).status_code == 404
    client.force_login(alice)
    assert client.get(url).status_code == 200
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    client.force_login(staff)
    assert client.get(url).status_code == 200


def test_an_unknown_game_is_404(client, db):
    assert client.get(reverse("game", args=[999999])).status_code == 404
