"""In a real browser: the replay viewer's Analyse button asks for the analysis, its progress shows, then the
evaluation chart, the marks, the accuracy per seat and the expert's turn on demand; a point of the chart moves the
replay to its turn, and the local replay command follows. The page fits a laptop and a phone (screenshots kept).
The analysis runs at 2 rollouts a turn, straight after the request commits (no worker)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from replay_helpers import rejected_log, sample_log, store_game, versions_for
from test_browser_replay import wait_for

from league.arena import queue
from league.arena.analysis import runs
from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    OVERFLOW,
    SIZES,
    playwright_beside_django,
    screenshot_folder,
)

pytestmark = NEEDS_CHROMIUM

SUGGESTED = """async () => {
  const body = await (await fetch(document.getElementById("replay-analysis").dataset.url)).json();
  const differs = body.turns.find((turn) => turn.best !== turn.played);
  return differs ? differs.turn : 5;
}"""

# The chart is drawn as wide as its box (its labels keep their size on a phone): redrawn after a resize.
REDRAWN = """Math.abs(document.querySelector("#analysis-chart svg").viewBox.baseVal.width
  - Math.max(320, Math.round(document.getElementById("analysis-chart").clientWidth))) < 1"""


@pytest.fixture
def screenshots(tmp_path_factory, pytestconfig):
    return screenshot_folder(tmp_path_factory, pytestconfig, "analysis")


@pytest.fixture
def analysed_inline(monkeypatch, settings):
    """Analyses run as soon as they are asked for, in the web server's thread; other tasks are dropped."""
    settings.ARENA_ANALYSIS_ROLLOUTS = 2
    monkeypatch.setattr(queue, "_send", lambda name, args, *options: name == queue.ANALYSE_GAME and runs.run(*args))


def test_analyse_shows_the_chart_the_marks_and_the_accuracy(
    live_server, transactional_db, django_user_model, make_version, analysed_inline, screenshots
):

    owners = [django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob")]
    log = rejected_log(sample_log("face-to-face"), 12)  # 12 turns, then an illegal one: a short analysis
    game = store_game(log, versions_for(log, owners, make_version))
    login = Client()
    login.force_login(owners[1])
    session = login.cookies["sessionid"].value
    url = live_server.url + reverse("game", args=[game.pk])
    with playwright_beside_django() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=SIZES["laptop"])
        context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        wait_for(page, "performance.getEntriesByName('replay-drawn').length > 0")
        assert page.locator("#replay-command").text_content() == (
            f"python3 -m bots play {game.seats.get(seat=0).version.bot.name}.py "
            f"{game.seats.get(seat=1).version.bot.name}.py --from game-{game.pk}.json --turn 1"
        )
        page.locator("#analysis-ask").click()
        wait_for(page, "!document.getElementById('analysis-chart').hidden", 20_000)
        points = page.locator("#analysis-chart circle.point")
        assert points.count() == len(log["turns"])
        accuracy = page.locator("[data-accuracy-seat='0']").text_content()
        assert accuracy.startswith("accuracy ") and accuracy.endswith("%")
        assert "Analysed at up to 2 rollouts a turn" in page.locator("#analysis-status").text_content()
        shown = page.evaluate(SUGGESTED)  # the first turn where the expert would have played otherwise, if any
        points.nth(shown - 1).dispatch_event("click")
        assert page.evaluate("location.hash") == f"#turn={shown}"
        assert page.locator("#replay-command").text_content().endswith(f"--turn {shown}")
        story = page.locator("#turn-analysis").text_content()
        assert story.startswith(f"Turn {shown}, ")
        assert "its cards left at the end (0 if it wins) expected " in story, "Face to Face shows its cards figure too"
        marked = page.locator("#analysis-marks button.mark-link")
        if marked.count():  # a marked turn's button moves there, and the move line shows its mark
            marked.first.click()
            assert page.locator("#replay-move .mark").count() == 1
            points.nth(shown - 1).dispatch_event("click")
        show = page.locator("#turn-analysis button")
        if show.count():  # the expert played otherwise: its turn is shown on demand
            show.click()
            assert page.locator("#turn-analysis .best-turn .suggested.best").count() == 1
            assert page.locator("#replay-board .expert-play .ghost").count() >= 1, "drawn on the board too"
        for size, viewport in SIZES.items():
            page.set_viewport_size(viewport)
            wait_for(page, REDRAWN)
            page.locator("#replay-analysis").scroll_into_view_if_needed()
            page.screenshot(path=str(screenshots / f"analysis-{size}.png"), full_page=True)
            page.locator("#replay-story, #replay-analysis").last.screenshot(path=str(screenshots / f"chart-{size}.png"))
            fit = page.evaluate(OVERFLOW)
            assert fit["scrollWidth"] <= fit["width"] and not fit["wide"], fit
        assert not errors
        browser.close()
