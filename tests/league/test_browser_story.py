"""The whole story in a real browser, with a real Celery worker playing: a person signs up, uploads a bot, watches
it become active, finds it on the leaderboard after its ladder games, opens one of its games from its page and
steps to the end with the keyboard, and the result shown is the one in the game's log."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import bots.house
from league.arena.models import Bot, Game, Rating
from league.arena.uploads.house import house_version
from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    playwright_beside_django,
    upload_through_the_form,
)

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]


def test_sign_up_upload_rise_on_the_ladder_and_replay_a_game(live_server, workers, wait_for, tmp_path):
    from playwright.sync_api import expect

    house_version("house:greedy")  # a ladder opponent besides the validation's house bot
    worker = workers(
        "w1",
        ARENA_VALIDATION_GAMES="2",
        ARENA_LADDER_INTERVAL="2",  # the beat schedules ladder matches every 2 s instead of 30
        ARENA_LADDER_MAX_PENDING="2",
        ARENA_LADDER_GAMES="2",
    )
    source = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path)
    print(f"story screenshots: {folder}")
    with playwright_beside_django() as playwright:  # database checks between browser steps
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{live_server.url}/accounts/signup/")
            page.locator("#id_username").fill("erin")
            page.locator("#id_password1").fill("a long enough pass phrase")
            page.locator("#id_password2").fill("a long enough pass phrase")
            page.get_by_role("button", name="Create my account").click()

            upload_through_the_form(page, "climber", source)
            expect(page.locator("#versions .badge").first).to_have_text("active", timeout=180_000)
            bot = Bot.objects.get(owner__username="erin", name="climber")

            wait_for("a rating", lambda: Rating.objects.filter(version__bot=bot).exists(), worker, timeout=240)
            page.goto(f"{live_server.url}/ladder/face-to-face/")
            row = page.locator("tr", has=page.get_by_role("link", name="climber"))
            expect(row).to_have_count(1)
            assert re.search(r"\b1\d{3}\b|\b\d{3}\b", row.text_content()), row.text_content()
            page.screenshot(path=str(folder / "story-ladder.png"), full_page=True)

            row.get_by_role("link", name="climber").click()
            expect(page.locator("section.standing")).to_contain_text("Elo")
            page.screenshot(path=str(folder / "story-bot.png"), full_page=True)
            replay = page.locator("table.games a", has_text="Replay").first
            game = Game.objects.get(pk=int(re.search(r"/games/(\d+)/", replay.get_attribute("href")).group(1)))
            replay.click()
            drawn = "performance.getEntriesByName('replay-drawn').length > 0"
            # Polled from here: wait_for_function evaluates its predicate with eval, which the site's CSP forbids.
            for _ in range(200):
                if page.evaluate(drawn):
                    break
                page.wait_for_timeout(50)
            else:
                pytest.fail("the replay viewer never drew the board")
            page.keyboard.press("End")
            log = game.verified_log()
            assert page.evaluate("location.hash") == f"#turn={len(log['turns'])}"
            headline = page.locator("#replay-headline").text_content()
            winner = log["result"].get("winner")
            seats = {seat.seat: seat.version.bot.full_name for seat in game.seats.select_related("version__bot")}
            if winner is None:
                assert "draw" in headline.lower(), headline
            else:
                # "... cannot make a legal turn: X wins", "X played all 58 cards and wins", ...
                assert f"{seats[winner]} wins" in headline or f"{seats[winner]} played all" in headline, headline
            assert (winner, log["result"]["termination"]) == (game.winner_seat, game.termination)
            page.screenshot(path=str(folder / "story-replay-end.png"), full_page=True)
        finally:
            browser.close()
    assert worker.poll() is None
