"""The notification centre in a real browser at a laptop's and a phone's width: the navigation's count, the list
and the preferences fit (nothing sticks out of the viewport); by keyboard alone an owner marks a notice read and
all read; the count in the navigation follows a new notice without a reload. Screenshots go to a folder the test
prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from league.arena import notifications
from league.arena.models import Notification
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
Kind = notifications.Kind


@pytest.fixture
def screenshots(tmp_path_factory, pytestconfig) -> Path:
    return screenshot_folder(tmp_path_factory, pytestconfig, "notifications")


@pytest.fixture
def owner(transactional_db, django_user_model):
    user = django_user_model.objects.create_user("a-rather-long-user-name", password="correct horse battery")
    notifications.notify(
        user,
        Kind.VERSION_FAILED,
        "a-very-long-bot-name-for-a-phone v4 failed its validation: game 3: illegal-turn: played 17 on the "
        "ascending pile p1.up at 23, which is not a legal place for it; the hand was 5 17 33 41 58 60",
        "/bots/1/#versions",
    )
    notifications.notify(user, Kind.VERSION_VALIDATED, "a-very-long-bot-name-for-a-phone v5 passed its validation.")
    notifications.notify(
        user,
        Kind.SCRIM_FINISHED,
        "Scrim finished: a-rather-long-user-name/a-very-long-bot-name-for"
        "-a-phone beat another-long-owner-name/very-long-rival-bot-name-07 7–3 (10 games).",
        "/",
    )
    cup = "Tournament “Autumn cup” finished: ace placed 2nd of 8 (9½ points from 14 games); "
    cup += "ace-two placed 5th of 8 (6 points from 14 games)."
    notifications.notify(user, Kind.TOURNAMENT_FINISHED, cup, "/")
    return user


def test_the_notification_centre_fits_both_widths_and_works_by_keyboard(live_server, owner, screenshots):
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
                for name in ("notifications", "notification-settings"):
                    page.goto(live_server.url + reverse(name))
                    page.screenshot(path=str(screenshots / f"{name}-{size_name}.png"), full_page=True)
                    found = page.evaluate(OVERFLOW)
                    assert not found["wide"], f"{name} at {size_name}: {found['wide'][:5]}"
                    assert found["scrollWidth"] <= size["width"], found
                context.close()

            context = browser.new_context(viewport=SIZES["laptop"])
            context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
            page = context.new_page()
            page.goto(live_server.url + reverse("notifications"))
            assert page.locator("header .notices .count").inner_text().startswith("4")
            # Keyboard only: tab to the first "Mark read" and press Enter.
            first_mark = page.get_by_role("button", name="Mark read").first
            for _ in range(40):
                page.keyboard.press("Tab")
                if first_mark.evaluate("node => node === document.activeElement"):
                    break
            else:
                raise AssertionError("Tab never reached the first Mark read button")
            with page.expect_navigation():  # the form posts and the page comes back with one notice fewer
                page.keyboard.press("Enter")
            assert page.locator("header .notices .count").inner_text().startswith("3")
            assert Notification.objects.filter(read_at__isnull=True).count() == 3
            page.get_by_role("button", name="Mark all read").focus()
            with page.expect_navigation():
                page.keyboard.press("Enter")
            assert page.locator("header .notices .count").count() == 0
            page.screenshot(path=str(screenshots / "notifications-all-read-laptop.png"), full_page=True)

            # A new notice shows in the navigation without a reload (the badge polls every 30 s; 0.5 s here).
            page.goto(live_server.url + reverse("home"))
            page.evaluate("document.querySelector('header .notices').dataset.liveEvery = '500'")
            page.evaluate("arenaLive(document.querySelector('header .notices'))")
            notifications.notify(owner, Kind.BOT_PAUSED, "ace was paused: it forfeited 6 of its last 20 games")
            page.wait_for_selector("header .notices .count", timeout=10_000)
            assert page.locator("header .notices .count").inner_text().startswith("1")
            page.screenshot(path=str(screenshots / "home-with-count-laptop.png"))
            context.close()
        finally:
            browser.close()
