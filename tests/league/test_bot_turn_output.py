"""What a bot writes in each turn is stored with the game by the worker and shown beside the replay to the bot's
owner alone, or to everyone once the owner makes it public; the public log never holds it."""

from __future__ import annotations

import json
import re

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
