"""In Chromium, as staff: the tournament page's buttons, their confirmation, the machinery page and the branded
admin fit a phone and a laptop; a staff member cancels a tournament by keyboard. Screenshots go to a printed folder."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from league.arena.models import Match, RatingFit, Tournament, TournamentEntry, WorkerHealth
from league.arena.uploads.house import house_version
from tests.league.browser import NEEDS_CHROMIUM
from tests.league.test_browser_pages import (
    LAPTOP,
    OUTSIDE_THE_VIEWPORT,
    PASSWORD,
    PHONE,
    artifacts,  # noqa: F401  (a fixture)
    browser_session,
    log_in,
)

pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]


@pytest.fixture
def machinery_state(transactional_db, django_user_model):
    """A running tournament (one match being played, one failed with a long reason), a registration-open draft."""
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    versions = [house_version(f"house:{name}") for name in ("greedy", "random", "expert")]
    cup = Tournament.objects.create(
        name="The Autumn Cup of Fairly Long Names", status="running", started_at=timezone.now() - timedelta(minutes=5)
    )
    for version in versions:
        TournamentEntry.objects.create(tournament=cup, bot=version.bot, version=version)
    now = timezone.now()
    fields = {"kind": "tournament", "game": "face-to-face", "games": 500, "seed": "s", "tournament": cup}
    Match.objects.create_with_entries(
        versions[:2], status="running", claimed_by="worker-with-a-long-host-name.example.org:123456",
        started_at=now, heartbeat_at=now, games_done=120, **fields,
    )  # fmt: skip
    Match.objects.create_with_entries(
        versions[1:], status="failed", finished_at=now, attempts=3, claimed_by="w2@host:7",
        error="attempt 3: the match runner failed: OSError(28, 'No space left on device: /var/lib/arena/cache/bots/"
        + "0123456789abcdef" * 4 + ".py')", **fields,
    )  # fmt: skip
    Match.objects.create_with_entries([versions[0], versions[2]], status="queued", **fields)
    RatingFit.objects.create(game="face-to-face", games=1234, fitted_at=now - timedelta(minutes=2))
    WorkerHealth.objects.create(
        name="w3@worker-with-a-long-host-name.example.org", sick=True, since=now - timedelta(minutes=3), checked_at=now,
        reason="cannot write to /dev/shm: [Errno 28] No space left on device: '/dev/shm/.thegame-selfcheck-"
        + "0123456789abcdef" * 2 + "'",
    )  # fmt: skip
    draft = Tournament.objects.create(name="Winter Cup", registration_open=True)
    TournamentEntry.objects.create(tournament=draft, bot=versions[0].bot)
    return {"cup": cup, "draft": draft}


def test_staff_pages_fit_and_a_tournament_is_cancelled_by_keyboard(live_server, machinery_state, artifacts):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    cup, draft = machinery_state["cup"], machinery_state["draft"]
    pages = {
        "tournament-running": cup.get_absolute_url(),
        "tournament-draft": draft.get_absolute_url(),
        "confirm-cancel": reverse("tournament-action", args=[cup.pk, "cancel"]),
        "machinery": reverse("machinery"),
        "admin-index": reverse("admin:index"),
        "admin-tournament": reverse("admin:arena_tournament_change", args=[draft.pk]),
    }
    with sync_playwright() as playwright:
        browser = browser_session(playwright)
        try:
            for size_name, size in (("phone", PHONE), ("laptop", LAPTOP)):
                page = browser.new_page(viewport=size)
                log_in(page, live_server.url, "root")
                for name, url in pages.items():
                    page.goto(live_server.url + url)
                    page.screenshot(path=str(artifacts / f"{name}-{size_name}.png"), full_page=True)
                    if name.startswith("admin"):
                        continue  # Django's own admin layout: looked at in the screenshots, not measured
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= size["width"], f"{name} is {width} px wide at {size['width']} px"
                    offenders = page.evaluate(OUTSIDE_THE_VIEWPORT, size["width"])
                    assert not offenders, f"{name} at {size['width']} px: {offenders[:5]}"
                page.close()

            machinery = browser.new_page(viewport=LAPTOP)  # open beside, to see it follow the cancellation
            log_in(machinery, live_server.url, "root")
            machinery.goto(live_server.url + reverse("machinery"))
            expect(machinery.locator("#running")).to_have_text("Matches running (1)")
            page = browser.new_page(viewport=PHONE)
            log_in(page, live_server.url, "root")
            page.goto(live_server.url + cup.get_absolute_url())
            cancel = page.get_by_role("link", name="Cancel the tournament")
            cancel.focus()
            page.keyboard.press("Enter")
            expect(page.get_by_role("heading", level=1)).to_contain_text("Cancel the tournament")
            page.get_by_role("button", name="Yes: cancel the tournament").focus()
            page.keyboard.press("Enter")
            expect(page.locator(".messages")).to_contain_text("cancelled; 2 matches withdrawn")
            expect(page.locator("#standings .badge").first).to_have_text("cancelled")
            expect(page.locator("#standings")).to_contain_text("0 of 1500 games played")  # the dropped run counts 0
            page.screenshot(path=str(artifacts / "tournament-cancelled-phone.png"), full_page=True)
            # no reload: the machinery page fetches its figures every 5 s
            expect(machinery.locator("#running")).to_have_text("Matches running (0)", timeout=15_000)
        finally:
            browser.close()
    cup.refresh_from_db()
    assert cup.status == "cancelled"
