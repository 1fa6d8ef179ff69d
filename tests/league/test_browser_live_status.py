"""In a real browser: the owner uploads a bot and sees it become active without reloading the page."""

from __future__ import annotations

from pathlib import Path

import pytest

import bots.house
from tests.league.browser import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, upload_through_the_form

pytestmark = NEEDS_CHROMIUM


@pytest.mark.slow
def test_the_owner_sees_validation_finish_without_reloading(live_server, workers, django_user_model, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    worker = workers("w1", ARENA_VALIDATION_GAMES="2")
    django_user_model.objects.create_user("dora", password="correct horse battery")
    source = (Path(bots.house.__file__).parent / "greedy.py").read_bytes()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{live_server.url}/accounts/login/")
            page.get_by_label("Username").fill("dora")
            page.get_by_label("Password").fill("correct horse battery")
            page.get_by_role("button", name="Log in").click()
            page.get_by_role("link", name="Upload a new bot").click()
            upload_through_the_form(page, "live-one", source)
            expect(page.locator("#versions .badge")).to_have_text("validating")
            page.evaluate("window.stillTheSamePage = true")
            expect(page.locator("#versions .badge")).to_have_text("active", timeout=120_000)
            assert page.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
            page.screenshot(path=str(tmp_path / "bot-active.png"), full_page=True)
        finally:
            browser.close()
    assert worker.poll() is None
