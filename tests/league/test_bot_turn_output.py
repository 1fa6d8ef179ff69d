"""What a bot writes in each turn is stored with the game by the worker and shown beside the replay to the bot's
owner alone, or to everyone once the owner makes it public; the public log never holds it."""

from __future__ import annotations

import json
import random
import re
import zlib

import pytest
from django.test import Client
from django.urls import reverse

from league.arena.models import Bot, GameOutput, Match
from league.arena.play import matches
from league.arena.uploads.house import house_version

TALKER = b"""\
import sys

from bots.house.greedy import play as greedy


def play(observation):
    print("SECRET-PLAN for turn", observation["turn"], file=sys.stderr)
    return greedy(observation)
"""


@pytest.fixture
def played(alice, make_version, sent, django_capture_on_commit_callbacks):
    talker = make_version(alice, "talker", source=TALKER)
    match = Match.objects.create_with_entries(
        [talker, house_version("house:greedy")], kind="exhibition", game="face-to-face", games=1, seed="talk"
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert matches.play(match.pk, worker="test:1")
    return match.played_games.get()


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def shown_output(client: Client, game) -> dict:
    html = client.get(reverse("game", args=[game.pk])).content.decode()
    found = re.search(r'<script id="replay-output" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1)) if found else {}


def test_the_worker_stores_each_turn_and_only_the_owner_sees_it(played, alice, bob):
    records = GameOutput.objects.get(game=played).records()
    talker_turns = [record for record in records if record["seat"] == 0]
    assert talker_turns and all(record["ms"] is not None for record in talker_turns)
    assert all("SECRET-PLAN for turn" in record["stderr"] for record in talker_turns if record["turn"] > 0)
    assert {record["seat"] for record in records} == {0}, "the house bot prints nothing and is not captured"

    mine = shown_output(client_for(alice), played)
    first = min(int(turn) for turn in mine)
    assert "SECRET-PLAN" in mine[str(first)][0]["stderr"] and mine[str(first)][0]["seat"] == 0
    for stranger in (client_for(bob), client_for()):
        assert shown_output(stranger, played) == {}
        assert b"SECRET-PLAN" not in stranger.get(reverse("game", args=[played.pk])).content
    for public_log in (reverse("game-log", args=[played.pk]), f"/api/games/{played.pk}/log"):
        response = client_for(alice).get(public_log)
        assert response.status_code == 200 and b"SECRET-PLAN" not in response.content


def test_the_owner_makes_the_output_public_and_opts_in_to_analyses(played, alice, bob):
    bot = Bot.objects.get(name="talker")
    options = reverse("bot-options", args=[bot.pk])
    assert client_for(bob).post(options, {"output_public": "on"}).status_code == 403
    assert client_for().post(options, {"output_public": "on"}).status_code == 302  # to the log-in page
    bot.refresh_from_db()
    assert not bot.output_public
    response = client_for(alice).post(options, {"output_public": "on", "analyse_losses": "on"})
    assert response.status_code == 302
    bot.refresh_from_db()
    assert bot.output_public and bot.analyse_losses
    assert "SECRET-PLAN" in json.dumps(shown_output(client_for(), played))
    client_for(alice).post(options, {})
    bot.refresh_from_db()
    assert not bot.output_public and not bot.analyse_losses


BLOCK = "".join(random.Random(7).choice("abcdefghij é✓\n") for _ in range(6_000))  # repeats only 6,000 apart


@pytest.mark.parametrize("text", ["", "plan é ✓\n" * 3, "x" * 40_000, BLOCK * 5])
def test_stored_records_read_back_as_written_whatever_their_size(text):
    """The deflate window follows the text's size (up to zlib's largest): small and large records alike come back
    whole, through the reader every page uses, and compress as well as with the full window (a window too small
    to reach back 6,000 bytes would not find BLOCK's repeats)."""
    records = [
        {"turn": 0, "seat": 0, "bot": "talker", "ms": None, "stderr": text},
        {"turn": 1, "seat": 0, "bot": "talker", "ms": 0.125, "stderr": text[:10], "dropped": 2**40},
    ]
    stored = GameOutput.compress(records)
    assert GameOutput(records_zlib=stored).records() == records
    assert len(stored) <= len(zlib.compress(json.dumps(records, separators=(",", ":")).encode(), 6)) + 8


def test_records_orjson_refuses_are_stored_by_the_json_module():
    records = [{"turn": 1, "seat": 0, "bot": "talker", "ms": 1.5, "stderr": "", "dropped": 2**70}]
    assert GameOutput(records_zlib=GameOutput.compress(records)).records() == records
