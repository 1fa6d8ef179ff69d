"""The bot page in a real browser at a laptop's and a phone's width: nothing sticks out of the viewport but inside
its own scroll box, the chart keeps its place; screenshots are kept in a folder the test prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import Match
from league.arena.play import results
from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    OVERFLOW,
    SIZES,
    playwright_beside_django,
    screenshot_folder,
)
from tests.league.test_forfeit_pause import store_ladder_match

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]

# Where the chart's shown layout sits on the page (not in the viewport, which scrolls), and its card's width.
CHART_BOX = """() => {
  const shown = [...document.querySelectorAll("figure.chart > svg")].filter(svg => svg.getClientRects().length);
  const box = shown[0].getBoundingClientRect();
  return {x: box.x, y: box.y + window.scrollY, width: box.width, height: box.height, shown: shown.length,
          layout: shown[0].getAttribute("class"), card: shown[0].parentElement.clientWidth};
}"""


@pytest.fixture
def screenshots(tmp_path_factory, pytestconfig) -> Path:
    return screenshot_folder(tmp_path_factory, pytestconfig, "bot-page")


@pytest.fixture
def busy_bot(transactional_db, django_user_model, make_version, record_games, played_game):
    """A long-named bot of a long-named owner: two versions, 12 opponents, 12 refits, a failed third version; v2
    forfeited 12 games against the last rival (12 of its last 50), which paused the bot."""
    owner = django_user_model.objects.create_user("a-rather-long-user-name", password="correct horse battery")
    rival_owner = django_user_model.objects.create_user("another-long-owner-name", password="x")
    rivals = [make_version(rival_owner, f"very-long-rival-bot-name-{k:02d}") for k in range(12)]
    name = "a-very-long-bot-name-for-a-phone"
    first = version = make_version(owner, name)
    for k, rival in enumerate(rivals):
        if k == 6:
            version = make_version(owner, name)  # v2 from the seventh refit on
        record_games(version, rival, [0, 1, 0, None, 1 if k % 3 else 0])
        if k in (8, 10):
            record_games(first, rival, [1, 1])  # v1 plays on (a tournament): the two lines overlap in time
        refits.refit(RatingPool.ladder("face-to-face"))
    store_ladder_match(version, rivals[-1], forfeits=12, clean=0)
    failed = make_version(owner, name, status="failed")
    failed.failure_reason = "game 2: crash: KeyError: 'no such pile: p9.up'"
    failed.stderr_tail = "Traceback (most recent call last):\n" + '  File "bot.py", line 2, in play\n' * 30
    failed.stderr_tail += "KeyError: 'no such pile: p9.up' " + "x" * 300
    failed.save()
    with transaction.atomic():
        match = Match.objects.create_with_entries(
            [failed, rivals[0]], kind="validation", game="face-to-face", games=2, seed="v", rated=False, status="done"
        )
        results.save_games(match, [failed, rivals[0]], [played_game(0, 0), played_game(1, 1)], {}, timezone.now())
    return owner, failed.bot


def test_the_bot_page_fits_a_laptop_and_a_phone(live_server, busy_bot, screenshots):
    owner, bot = busy_bot
    login = Client()
    login.force_login(owner)
    session = login.cookies["sessionid"].value
    with playwright_beside_django() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size_name, size in SIZES.items():
                for viewer in ("visitor", "owner"):
                    context = browser.new_context(viewport=size)
                    if viewer == "owner":
                        context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
                    page = context.new_page()
                    page.goto(live_server.url + reverse("bot", args=[bot.pk]))
                    chart = page.evaluate(CHART_BOX)
                    page.screenshot(path=str(screenshots / f"bot-{viewer}-{size_name}.png"), full_page=True)
                    page.screenshot(path=str(screenshots / f"bot-{viewer}-{size_name}-top.png"))
                    page.locator("figure.chart").screenshot(path=str(screenshots / f"chart-{size_name}.png"))
                    found = page.evaluate(OVERFLOW)
                    assert not found["wide"], f"{viewer} at {size_name}: {found['wide'][:5]}"
                    assert found["scrollWidth"] <= size["width"], found
                    assert 0 < chart["width"] <= size["width"] and chart["height"] > 0.25 * chart["width"]
                    # one layout, the card's full width (less its padding)
                    assert chart["shown"] == 1 and chart["width"] >= 0.9 * chart["card"], chart
                    assert chart["layout"] == ("wide" if size["width"] > 640 else "narrow")
                    # each version's line is named in the legend, in readable text
                    legend = page.locator(".chart-legend li")
                    assert legend.count() == 2 and legend.first.inner_text().startswith("v2 (active): Elo")
                    if viewer == "owner":
                        assert page.locator(".failure pre.stderr").first.is_visible()
                        assert page.get_by_role("button", name=f"Resume {bot.name}").is_visible()
                    assert page.locator("#paused a").count() == 5  # the newest forfeited games
                    assert page.locator("table.failures").is_visible()
                    # the chart's table opens below it, in its box
                    page.get_by_text("The rating history as a table").click()
                    assert not page.evaluate(OVERFLOW)["wide"]
                    assert page.evaluate(CHART_BOX) == chart  # no shift
                    context.close()
        finally:
            browser.close()
