"""In a real browser: the replay viewer steps through real games with the keyboard, shows the engine's state at a
linked position, plays itself with Space, and fits a laptop and a phone (screenshots kept, folder printed)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.urls import reverse
from replay_helpers import (
    engine_observations,
    forfeit_log,
    partial_turn,
    rejected_log,
    sample_log,
    store_game,
    versions_for,
)

from tests.league.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NEEDS_CHROMIUM,
    OVERFLOW,
    playwright_beside_django,
    screenshot_folder,
)

pytestmark = NEEDS_CHROMIUM


SHOWN = """() => ({
  position: document.getElementById("replay-position").textContent,
  tops: Object.fromEntries([...document.querySelectorAll("[data-pile]")].map((pile) =>
    [pile.dataset.pile, Number(pile.querySelector("[data-top]").dataset.top)])),
  histories: Object.fromEntries([...document.querySelectorAll("[data-pile]")].map((pile) =>
    [pile.dataset.pile, [...pile.querySelectorAll(".history li")].map((item) => Number(item.textContent))])),
  hands: [...document.querySelectorAll("[data-seat]")].sort((a, b) => a.dataset.seat - b.dataset.seat).map((seat) =>
    [...seat.querySelectorAll(".hand .playing-card")].map((card) => Number(card.firstChild.textContent))),
  facts: [...document.querySelectorAll("[data-seat]")].sort((a, b) => a.dataset.seat - b.dataset.seat).map((seat) =>
    seat.querySelector(".seat-facts").textContent),
  draw: document.querySelector(".draw-count") ? document.querySelector(".draw-count").textContent : null,
  inForce: Object.fromEntries([...document.querySelectorAll("[data-pile]")].filter((pile) =>
    pile.querySelector(".in-force")).map((pile) => [pile.dataset.pile, pile.querySelector(".in-force").textContent])),
  played: [...document.querySelectorAll(".pile .playing-card.played")].map((card) => Number(card.dataset.top)),
})"""


@pytest.fixture(scope="module")
def browser():
    with playwright_beside_django() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def stored(transactional_db, django_user_model, make_version):
    """store(log) -> (game, versions): a game in the live server's database, with a bot version per seat."""
    owners = [django_user_model.objects.create_user(name, password="x") for name in ("alice", "bob")]

    def store(log):
        versions = versions_for(log, owners, make_version)
        return store_game(log, versions), versions

    return store


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory, pytestconfig) -> Path:
    return screenshot_folder(tmp_path_factory, pytestconfig, "replay")


def wait_for(page, expression: str, timeout_ms: int = 30_000) -> None:
    """Poll `expression` until it is true: wait_for_function evaluates with eval, which the site's CSP forbids."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_ms} ms: {expression}")
        page.wait_for_timeout(25)


def open_page(browser, url: str, width: int = 1280):
    page = browser.new_page(viewport={"width": width, "height": 900 if width > 600 else 844})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    wait_for(page, "performance.getEntriesByName('replay-drawn').length > 0")
    return page, errors


def hash_turn(page) -> str:
    return page.evaluate("location.hash")


def test_stepping_to_the_end_with_the_keyboard_shows_the_logged_result(live_server, browser, stored):
    log = sample_log("face-to-face")
    game, versions = stored(log)
    winner = versions[log["result"]["winner"]].bot.full_name
    page, errors = open_page(browser, live_server.url + reverse("game", args=[game.pk]))
    result = page.locator("#replay-result")
    assert result.is_hidden() and hash_turn(page) == ""
    page.keyboard.press("End")
    last = len(log["turns"])
    assert hash_turn(page) == f"#turn={last}"
    assert result.is_visible()
    headline = page.locator("#replay-headline").text_content()
    assert winner in headline and ("wins" in headline)
    assert log["result"]["detail"] in page.locator("#replay-detail").text_content()
    page.keyboard.press("Home")
    assert hash_turn(page) == "#turn=0" and result.is_hidden()
    for turn in range(1, last + 1):
        page.keyboard.press("ArrowRight")
        assert hash_turn(page) == f"#turn={turn}"
    assert result.is_visible() and page.locator("#replay-headline").text_content() == headline
    page.keyboard.press("ArrowRight")  # nothing after the end
    assert hash_turn(page) == f"#turn={last}"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Shift+ArrowRight")
    assert hash_turn(page) == f"#turn={last}.1"
    page.keyboard.press("Shift+ArrowLeft")
    assert hash_turn(page) == f"#turn={last - 1}"
    assert not errors


def test_a_forfeit_is_its_own_last_position_naming_the_bot_and_the_rule(live_server, browser, stored):
    log = rejected_log(sample_log("face-to-face"), 8)
    game, versions = stored(log)
    page, errors = open_page(browser, live_server.url + reverse("game", args=[game.pk]))
    page.keyboard.press("End")
    assert hash_turn(page) == "#turn=9"
    culprit = versions[log["result"]["seat"]].bot.full_name
    assert page.locator("#replay-headline").text_content().startswith(f"{culprit} made an illegal turn")
    assert log["result"]["detail"] in page.locator("section.rejected").text_content()
    assert log["rejected_turn"]["rule"] in page.locator("#replay-move").text_content()
    assert not errors


@pytest.mark.parametrize("game_id", ["face-to-face", "the-game", "extreme"])
def test_a_linked_position_shows_the_engines_state(live_server, browser, stored, game_id):
    log = sample_log(game_id)
    game, _ = stored(log)
    observations = engine_observations(log)
    url = live_server.url + reverse("game", args=[game.pk])
    last = len(log["turns"])
    page, errors = open_page(browser, url)
    for turn in sorted({0, 1, last // 2, last - 1, last}):
        page.goto(f"{url}#turn={turn}")
        page.reload()  # a fresh load from the link, not a hash change
        wait_for(page, "performance.getEntriesByName('replay-drawn').length > 0")
        shown = page.evaluate(SHOWN)
        engine = observations[turn]
        assert shown["tops"] == {pile: info["top"] for pile, info in engine[0]["piles"].items()}, f"turn {turn}"
        assert shown["histories"] == {pile: info["history"] for pile, info in engine[0]["piles"].items()}
        assert shown["hands"] == [seat["hand"] for seat in engine]
        if game_id == "face-to-face":
            for count, facts in zip(engine[0]["draw_pile_sizes"], shown["facts"], strict=True):
                assert f"draw pile {count} " in facts
        else:
            assert shown["draw"].startswith(f"Draw pile: {engine[0]['draw_pile_sizes'][0]} card")
        if game_id == "extreme":
            in_force = engine[0]["commands"]["in_force"]
            assert shown["inForce"] == {pile: f"\u221e {command} in force" for pile, command in in_force.items()}
        if turn:
            plays = log["turns"][turn - 1]["plays"]
            assert shown["played"] and set(shown["played"]) <= {card for card, _ in plays}
    # Play by play: the engine's own turn builder after the first play of the middle turn.
    middle = max(1, last // 2)
    page.goto(f"{url}#turn={middle}.1")
    page.reload()
    wait_for(page, "performance.getEntriesByName('replay-drawn').length > 0")
    shown = page.evaluate(SHOWN)
    builder = partial_turn(log, middle, 1)
    mover = log["turns"][middle - 1]["seat"]
    assert shown["tops"] == builder.tops
    assert shown["hands"][mover] == sorted(builder.hand)
    assert shown["position"].endswith(f"play 1/{len(log['turns'][middle - 1]['plays'])}")
    assert not errors


def test_space_plays_and_pauses(live_server, browser, stored):
    log = sample_log("the-game")
    game, _ = stored(log)
    page, errors = open_page(browser, live_server.url + reverse("game", args=[game.pk]))
    page.select_option("#replay-speed", "8")
    page.locator("#replay-board").click()  # focus on the page, not on a control
    page.keyboard.press(" ")
    assert page.locator("#replay-play").get_attribute("aria-pressed") == "true"
    wait_for(page, "/^#turn=([3-9]|\\d\\d)/.test(location.hash)", timeout_ms=5000)
    page.keyboard.press(" ")
    assert page.locator("#replay-play").get_attribute("aria-pressed") == "false"
    stopped = hash_turn(page)
    page.wait_for_timeout(600)  # three steps' time at this speed
    assert hash_turn(page) == stopped
    assert re.match(r"^#turn=\d+$", stopped)
    assert not errors


@pytest.mark.parametrize("width", [1280, 390])
def test_the_replay_fits_a_laptop_and_a_phone(live_server, browser, stored, screenshots, width):
    face_to_face = sample_log("face-to-face")
    cases = {
        "face-to-face": (face_to_face, ["#turn=12", "#turn=20.1"]),
        "the-game": (sample_log("the-game"), ["#turn=9", "#turn=15.2"]),
        "extreme": (sample_log("extreme"), ["#turn=10"]),
        "illegal-turn": (rejected_log(face_to_face, 8), [""]),
        "timeout": (forfeit_log(sample_log("the-game"), 6, "timeout", "no reply within 1 s plus a 0 s bank"), [""]),
    }
    for name, (log, positions) in cases.items():
        game, _ = stored(log)
        url = live_server.url + reverse("game", args=[game.pk])
        page, errors = open_page(browser, url, width)
        for position in [*positions, "end"]:
            if position == "end":
                page.keyboard.press("End")
            elif position:
                page.goto(url + position)
                page.reload()
                wait_for(page, "performance.getEntriesByName('replay-drawn').length > 0")
            layout = page.evaluate(OVERFLOW)
            label = f"{name}-{position.strip('#').replace('=', '-') or 'start'}-{width}"
            page.screenshot(path=str(screenshots / f"replay-{label}.png"), full_page=True)
            assert layout["scrollWidth"] <= layout["width"], f"{label}: the page scrolls sideways: {layout}"
            assert not layout["wide"], f"{label}: wider than the viewport: {layout['wide'][:5]}"
        assert not errors
        page.close()
