"""Scrims in a real browser at a laptop's and a phone's width: the owner asks from the bot page with the keyboard
only, lands on the request's page; the bot page's scrims table and the request's page fit both widths (tables scroll
in their own box). Screenshots are kept in a folder the test prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.arena.models import Match, MatchRequest
from league.arena.play import results
from league.arena.scrims import requests as scrims
from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    OVERFLOW,
    SIZES,
    playwright_beside_django,
    screenshot_folder,
)

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]


@pytest.fixture
def screenshots(tmp_path_factory, pytestconfig) -> Path:
    return screenshot_folder(tmp_path_factory, pytestconfig, "scrim")


@pytest.fixture
def scrim_league(transactional_db, django_user_model, make_version, played_game):
    """A long-named owner's bot with a finished scrim (12 games), a failed one and a waiting one."""
    owner = django_user_model.objects.create_user("a-rather-long-user-name", password="correct horse battery")
    rival_owner = django_user_model.objects.create_user("another-long-owner-name", password="x")
    rivals = [make_version(rival_owner, f"very-long-rival-bot-name-{k:02d}") for k in range(3)]
    mine = make_version(owner, "a-very-long-bot-name-for-a-phone")
    finished = scrims.request_scrim(owner, mine.bot, rivals[0].bot, 12)
    for _chunk in range(2):
        (match,) = scrims.release()
        winners = [0, 1, 0, None, 0, 1, 0, 0, 1, 0][: match.games]
        with transaction.atomic():
            Match.objects.filter(pk=match.pk).update(status="done", games_done=match.games)
            played = [played_game(index, winner) for index, winner in enumerate(winners)]
            results.save_games(match, [mine, rivals[0]], played, {}, timezone.now())
    failed = scrims.request_scrim(owner, mine.bot, rivals[1].bot, 30)
    MatchRequest.objects.filter(pk=failed.pk).update(error=f"{rivals[1].bot.full_name} no longer has an active version")
    scrims.request_scrim(owner, mine.bot, rivals[2].bot, 5)
    return owner, mine, finished, rivals


def test_scrims_fit_a_laptop_and_a_phone_and_work_by_keyboard(live_server, scrim_league, screenshots, played_game):
    owner, mine, finished, rivals = scrim_league
    bot = mine.bot
    login = Client()
    login.force_login(owner)
    session = login.cookies["sessionid"].value
    with playwright_beside_django() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size_name, size in SIZES.items():
                context = browser.new_context(viewport=size)
                context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
                page = context.new_page()
                for name, url in (
                    ("bot", reverse("bot", args=[bot.pk]) + "#scrims"),
                    ("request", reverse("scrim", args=[finished.pk])),
                ):
                    page.goto(live_server.url + url)
                    page.screenshot(path=str(screenshots / f"scrim-{name}-{size_name}.png"), full_page=True)
                    if name == "bot":
                        part = screenshots / f"scrim-bot-part-{size_name}.png"
                        page.locator("#scrims").screenshot(path=str(part))
                    found = page.evaluate(OVERFLOW)
                    assert not found["wide"], f"{name} at {size_name}: {found['wide'][:5]}"
                    assert found["scrollWidth"] <= size["width"], found
                assert page.get_by_text("beat").first.is_visible()
                assert page.locator("a", has_text="Replay #").count() == 12
                context.close()
            # By keyboard: the opponent select and the games field are labelled, Enter submits.
            context = browser.new_context(viewport=SIZES["phone"])
            context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
            page = context.new_page()
            page.goto(live_server.url + reverse("bot", args=[bot.pk]))
            page.get_by_label("Opponent").focus()
            page.keyboard.press("ArrowDown")  # the first opponent
            page.keyboard.press("Tab")
            page.keyboard.press("Control+A")
            page.keyboard.type("3")
            page.keyboard.press("Enter")
            page.wait_for_url("**/scrims/*/")
            page.screenshot(path=str(screenshots / "scrim-asked-phone.png"), full_page=True)
            asked = MatchRequest.objects.order_by("-pk").first()
            assert asked.games == 3 and asked.opponent == rivals[0].bot
            assert page.get_by_text("no games played yet").is_visible()
            # The page follows the request: its games are played meanwhile, and the result appears unasked.
            MatchRequest.objects.exclude(pk=asked.pk).update(error="stopped")  # (the older waiting one)
            (match,) = scrims.release()
            assert match.match_request_id == asked.pk
            with transaction.atomic():
                Match.objects.filter(pk=match.pk).update(status="done", games_done=3)
                played = [played_game(index, 0) for index in range(3)]
                results.save_games(match, [mine, rivals[0]], played, {}, timezone.now())
            page.get_by_text(f"{bot.full_name} beat {rivals[0].bot.full_name} 3–0").wait_for(timeout=15_000)
            assert page.locator("a", has_text="Replay #").count() == 3
            assert page.locator("#scrim-status").get_attribute("data-live") is None  # done: it stops asking
            context.close()
        finally:
            browser.close()
