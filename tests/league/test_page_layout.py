"""In a real browser at phone and laptop widths: no page scrolls sideways, and the pager works from the keyboard."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.arena.models import Rating, Tournament, TournamentEntry
from tests.league.browser import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM

PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}


pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]


@pytest.fixture
def league(transactional_db, django_user_model, make_version, record_games):
    """120 rated bots with long names, a 12-entry tournament with every pair played, and its matches."""
    owner = django_user_model.objects.create_user("a-rather-long-user-name", password="correct horse battery")
    versions = [make_version(owner, f"very-long-bot-name-number-{k:03d}") for k in range(120)]
    for k, version in enumerate(versions):
        Rating.objects.create(version=version, game="face-to-face", elo=2400 - 7 * k, low=2300, high=2500, games=1234)
    cup = Tournament.objects.create(name="The Long Autumn Cup", status="running", games_per_pairing=2)
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=v.bot, version=v) for v in versions[:12])
    match = None
    for i in range(12):
        for j in range(i + 1, 12):
            match = record_games(versions[i], versions[j], [0, 1], tournament=cup, kind="tournament")
    return {
        "home": reverse("home"),
        "ladder": reverse("ladder", args=["face-to-face"]) + "?page=2",
        "tournaments": reverse("tournaments"),
        "tournament": reverse("tournament", args=[cup.pk]),
        "bot": reverse("bot", args=[versions[0].bot.pk]),
        "match": reverse("match", args=[match.pk]),
    }


def test_no_page_is_wider_than_a_phone_or_a_laptop(live_server, league, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for size_name, size in (("phone", PHONE), ("laptop", LAPTOP)):
                page = browser.new_page(viewport=size)
                for name, url in league.items():
                    page.goto(live_server.url + url)
                    page.screenshot(path=str(tmp_path / f"{name}-{size_name}.png"), full_page=True)
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= size["width"], f"{name} is {width} px wide at {size['width']} px"
                    for box in page.locator("nav.pager, .table-wrap").all():
                        right = box.bounding_box()
                        assert right["x"] + right["width"] <= size["width"], f"{name}: a table or pager sticks out"
                page.close()
        finally:
            browser.close()


def test_the_pager_is_reached_and_followed_with_the_keyboard(live_server, league):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=PHONE)
            page.goto(live_server.url + reverse("ladder", args=["face-to-face"]))
            for _ in range(300):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.getAttribute('rel')") == "next":
                    break
            else:
                pytest.fail("Tab never reached the pager's next link")
            page.keyboard.press("Enter")
            expect(page).to_have_url(f"{live_server.url}/ladder/face-to-face/?page=2")
            expect(page.locator('nav.pager [aria-current="page"]')).to_have_text("2")
            expect(page.locator("tbody tr").first).to_contain_text("51")
        finally:
            browser.close()
