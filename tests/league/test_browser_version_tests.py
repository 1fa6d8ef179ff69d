"""A version test in a real browser: the owner starts it from the bot page with the keyboard, the test's page follows
it live to its verdict (the LLR chart, the counts, the verdict in words) without a reload, and fits a laptop and a
phone. Screenshots are kept in a folder the test prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from league.arena.models import Bot, BotVersion, Match, VersionTest
from league.arena.play import matches
from league.arena.uploads.house import house_version
from league.arena.versiontests import running
from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    OVERFLOW,
    SIZES,
    playwright_beside_django,
    screenshot_folder,
)

pytestmark = [NEEDS_CHROMIUM, pytest.mark.slow]


@pytest.fixture
def screenshots(tmp_path_factory, pytestconfig) -> Path:
    return screenshot_folder(tmp_path_factory, pytestconfig, "version-test")


def test_the_owner_starts_a_test_and_its_page_follows_it_to_the_verdict(
    live_server, transactional_db, django_user_model, screenshots, sent, settings
):

    settings.ARENA_TEST_BATCH_PAIRS = 2
    owner = django_user_model.objects.create_user("a-rather-long-user-name", password="correct horse battery")
    bot = Bot.objects.create(owner=owner, name="greedy-copy-with-a-long-name", house_ref="house:greedy")
    BotVersion.objects.create(bot=bot, number=1, sha256="b" * 64, kind="house", status="active")
    bot.refresh_active_version()
    house_version("house:random")
    login = Client()
    login.force_login(owner)
    session = login.cookies["sessionid"].value
    with playwright_beside_django() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=SIZES["phone"])
            context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
            page = context.new_page()
            page.goto(live_server.url + reverse("bot", args=[bot.pk]) + "#tests")
            page.locator("#tests").screenshot(path=str(screenshots / "bot-part-phone.png"))
            page.get_by_label("H1: Elo at least").fill("100")
            page.get_by_label("Elo model").select_option("logistic")
            page.get_by_label("Game cap").focus()
            page.keyboard.press("Control+A")
            page.keyboard.type("400")
            page.keyboard.press("Enter")
            page.wait_for_url("**/tests/*/")
            test = VersionTest.objects.get()
            assert (test.elo1, test.elo_model, test.max_games, test.base_version.bot.house_ref) == (
                100,
                "logistic",
                400,
                "house:random",
            )
            assert page.get_by_text("no games played yet").is_visible()
            # The batches are played meanwhile (here, in this process); the page shows the verdict unasked.
            for _ in range(40):
                running.release()
                waiting = list(Match.objects.filter(version_test=test, status="queued"))
                if not waiting:
                    break
                for match in waiting:
                    matches.play(match.pk, worker="browser-test")
            test.refresh_from_db()
            assert test.verdict == "H1"
            page.get_by_text("is stronger than house/random v1").wait_for(timeout=15_000)
            assert page.locator("#version-test-status").get_attribute("data-live") is None  # ended: it stops asking
            assert page.locator("svg polyline").count() == 1 and page.locator("a", has_text="Replay #").count() > 0
            for size_name, size in SIZES.items():
                page.set_viewport_size(size)
                page.screenshot(path=str(screenshots / f"test-page-{size_name}.png"), full_page=True)
                found = page.evaluate(OVERFLOW)
                assert not found["wide"], f"{size_name}: {found['wide'][:5]}"
                assert found["scrollWidth"] <= size["width"], found
            context.close()
        finally:
            browser.close()
