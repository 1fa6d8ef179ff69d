"""/api/docs/ in Chromium under the site's content security policy: Swagger UI renders, an endpoint opens and
shows its example, and the console reports no violation of the policy."""

from __future__ import annotations

import pytest

from tests.league.browser import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM, SIZES
from tests.league.test_content_security import POLICY, directives

pytestmark = [NEEDS_CHROMIUM, pytest.mark.slow]


def test_the_api_docs_render_and_show_an_endpoints_example(live_server, transactional_db):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=SIZES["laptop"])
            page.set_default_timeout(15_000)
            console: list[str] = []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
            response = page.goto(f"{live_server.url}/api/docs/")
            policy = directives(response.headers.get("content-security-policy", ""))
            assert {name: policy.get(name) for name in POLICY} == POLICY, (response.status, response.headers)
            operation = page.locator("#operations-bots-bots_retrieve")
            operation.locator(".opblock-summary").click()
            example = operation.locator(".responses-wrapper .highlight-code").first
            example.wait_for()
            assert '"name": "cautious"' in example.inner_text()  # league/api/docs.py's example of a bot
            assert page.locator(".info .title").inner_text().startswith("The Game Arena API")
            violations = [line for line in console if "Content Security Policy" in line or "pageerror" in line]
            assert violations == [], violations
            assert [line for line in console if line.startswith("error")] == [], console
        finally:
            browser.close()
