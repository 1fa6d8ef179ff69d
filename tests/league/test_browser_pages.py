"""In Chromium: every page fits a phone and a laptop (wide tables scroll in their own box), and a tournament page
counts down, starts and fills in while a real worker plays, without a reload. Screenshots go to a printed folder."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from league.arena.coop import challenges
from league.arena.ladder import refits
from league.arena.ladder.pools import RatingPool
from league.arena.models import FACE_TO_FACE, Game, Rating, Tournament, TournamentEntry
from league.arena.site import docs
from league.arena.uploads import changes as bot_changes
from tests.league.browser import CHROMIUM, CHROMIUM_ARGS, NEEDS_CHROMIUM
from tests.league.coop_helpers import record_coop

PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
PASSWORD = "correct horse battery"


pytestmark = [
    NEEDS_CHROMIUM,
    pytest.mark.slow,
]

# Elements sticking out past the right edge of the window, unless a scroll box that itself fits holds them.
OUTSIDE_THE_VIEWPORT = """(width) => {
  const offenders = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) continue;
    let holder = element.parentElement, held = false;
    while (holder && holder !== document.body) {
      if (["auto", "scroll"].includes(getComputedStyle(holder).overflowX)) {
        held = holder.getBoundingClientRect().right <= width + 0.5;
        break;
      }
      holder = holder.parentElement;
    }
    if (!held) offenders.push(`${element.tagName.toLowerCase()}.${element.className} ends at ${Math.round(box.right)}`);
  }
  return offenders;
}"""


@pytest.fixture
def artifacts(request, tmp_path, capsys) -> Path:
    """The folder screenshots go to: $ARENA_ARTIFACTS_DIR/<test> if set, else the test's kept tmp folder."""
    base = os.environ.get("ARENA_ARTIFACTS_DIR")
    folder = Path(base) / request.node.name if base else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    with capsys.disabled():
        print(f"\n{request.node.name}: screenshots in {folder}")
    return folder


def browser_session(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


@pytest.fixture
def league(transactional_db, django_user_model, make_version, record_games):
    """60 rated bots with long names, a finished 12-entry tournament, a draft one counting down, a failed version."""
    owner = django_user_model.objects.create_user("a-rather-long-user-name", password=PASSWORD)
    django_user_model.objects.create_superuser("root", password=PASSWORD)
    versions = [make_version(owner, f"very-long-bot-name-number-{k:03d}") for k in range(60)]
    for k, version in enumerate(versions):
        Rating.objects.create(version=version, game=FACE_TO_FACE, elo=2400 - 7 * k, low=2300, high=2500, games=1234)
    failed = make_version(owner, "broken-bot", status="failed")
    failed.failure_reason = "game 2: illegal turn: " + "play 1: 26 cannot go on p0.up showing 27; " * 6
    failed.stderr_tail = "Traceback (most recent call last):\n" + "x" * 400 + "\nRuntimeError: a-very-long-word" * 3
    failed.save()
    cup = Tournament.objects.create(
        name="The Long Autumn Cup of Very Long Bot Names", status="finished", games_per_pairing=2,
        started_at=timezone.now() - timedelta(hours=1), finished_at=timezone.now(),
    )  # fmt: skip
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=v.bot, version=v) for v in versions[:12])
    match = None
    for i in range(12):
        for j in range(i + 1, 12):
            match = record_games(versions[i], versions[j], [0, 1], tournament=cup, kind="tournament")
    Game.objects.filter(match=match, index=1).update(termination="timeout", winner_seat=0, fault_seat=1)
    bot_changes.retire(versions[1].bot)
    # a co-op season with a long-named bot's results at three team sizes, rated: its bot page and the home page
    season = challenges.start_season("the-game", deals=20, chunk=10, team_sizes=[1, 2, 3])
    coop_bot = make_version(owner, "a-very-long-cooperative-bot-name", game="the-game")
    rival = make_version(owner, "another-long-cooperative-bot-name", game="the-game")
    for players in (1, 2, 3):
        record_coop(season, coop_bot, players, [k % 7 for k in range(10)])
        record_coop(season, rival, players, [k % 5 for k in range(10)])  # so that both are rated
        refits.refit(RatingPool.coop(season, players))
    later = Tournament.objects.create(name="Winter Cup", scheduled_at=timezone.now() + timedelta(hours=3))
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=later, bot=v.bot) for v in versions[:5])
    return {
        "home": reverse("home"),
        "ladder": reverse("ladder", args=[FACE_TO_FACE]) + "?page=2",
        "tournaments": reverse("tournaments"),
        "tournament": reverse("tournament", args=[cup.pk]),
        "tournament-draft": reverse("tournament", args=[later.pk]),
        "pairing": reverse("tournament-matches", args=[cup.pk]) + f"?bot={versions[0].bot_id}&vs={versions[1].bot_id}",
        "match": reverse("match", args=[match.pk]),
        "bot": reverse("bot", args=[versions[0].bot.pk]),
        "owner": reverse("user", args=[owner.username]),
        "docs": reverse("docs"),
        "rules": reverse("doc", args=["rules"]),
        "bot-api": reverse("doc", args=["bot-api"]),
        "engine-api": reverse("doc", args=["engine-api"]),
        "kit": reverse("kit"),
        "data": reverse("data"),
        "retired-bot": reverse("bot", args=[versions[1].bot.pk]),
        "coop-bot": reverse("bot", args=[coop_bot.bot_id]),
        "coop-ladder": reverse("ladder", args=["the-game"]),
        "coop-ladder-teams": reverse("season-ladder", args=[season.pk, 3]),
        "login": reverse("login"),
        "signup": reverse("signup"),
        "password-reset": reverse("password_reset"),
        "password-reset-sent": reverse("password_reset_done"),
        "not-found": "/no/such/page/",
        # the owner's pages, once logged in
        "my-bots": reverse("my-bots"),
        "upload": reverse("new-bot"),
        "failed-bot": reverse("bot", args=[failed.bot.pk]),
        "own-retired-bot": reverse("bot", args=[versions[1].bot.pk]),
        "edit-bot": reverse("edit-bot", args=[versions[0].bot.pk]),
        "password-change": reverse("password_change"),
    }


OWNERS_ONLY = ("my-bots", "upload", "failed-bot")
FIT_A_LAPTOP = ("ladder", "coop-ladder", "coop-ladder-teams")


def test_every_page_fits_a_phone_and_a_laptop(live_server, league, artifacts):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = browser_session(playwright)
        try:
            for size_name, size in (("phone", PHONE), ("laptop", LAPTOP)):
                page = browser.new_page(viewport=size)
                for name, url in league.items():
                    if name == OWNERS_ONLY[0]:
                        log_in(page, live_server.url, "a-rather-long-user-name")
                    page.goto(live_server.url + url)
                    page.screenshot(path=str(artifacts / f"{name}-{size_name}.png"), full_page=True)
                    page.screenshot(path=str(artifacts / f"{name}-{size_name}-top.png"))
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= size["width"], f"{name} is {width} px wide at {size['width']} px"
                    offenders = page.evaluate(OUTSIDE_THE_VIEWPORT, size["width"])
                    assert not offenders, f"{name} at {size['width']} px: {offenders[:5]}"
                    if size_name == "laptop" and name in FIT_A_LAPTOP:  # every column shown without scrolling
                        assert not page.locator(".scroll-hint").count(), f"{name} scrolls sideways at 1280 px"
                    for wrap in page.locator(".table-wrap").all():
                        overflows = wrap.evaluate("(w) => w.scrollWidth > w.clientWidth + 1")
                        hinted = wrap.evaluate("(w) => !!w.nextElementSibling?.classList.contains('scroll-hint')")
                        assert overflows == hinted, f"{name}: a table that scrolls sideways says so, and only then"
                page.close()
        finally:
            browser.close()


def test_the_admin_lists_fit_a_laptop(live_server, league, artifacts):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = browser_session(playwright)
        try:
            page = browser.new_page(viewport=LAPTOP)
            log_in(page, live_server.url, "root")
            for model in ("tournament", "match", "bot", "botversion", "game", "rating"):
                page.goto(f"{live_server.url}/admin/arena/{model}/")
                page.screenshot(path=str(artifacts / f"admin-{model}-laptop.png"), full_page=True)
                results = page.locator("#changelist .results")
                wide = results.evaluate("(box) => box.scrollWidth - box.clientWidth")
                assert wide <= 1, f"the {model} list is {wide} px wider than the screen"
        finally:
            browser.close()


PLAYING = """() => document.querySelector("#standings .badge").textContent === "running"
    && document.querySelector("#standings progress").value > 0
    && document.querySelectorAll("#standings tbody tr").length > 0"""
GAMES = 8  # a pairing's games
SLOW_TURN = 0.02  # seconds: about 1 s a game, so the tournament runs for a while whatever the machine's speed


def unhurried_starter(name: str) -> bytes:
    """The Face to Face starter bot taking SLOW_TURN seconds a turn, so a tournament lasts long enough to watch."""
    starter = (docs.STARTERS_DIR / "face_to_face.py").read_text()
    slow = f"\n\nimport time\n_play = play\n\n\ndef play(observation):  # {name}\n    time.sleep({SLOW_TURN})\n"
    return (starter + slow + "    return _play(observation)\n").encode()


def test_a_tournament_counts_down_starts_and_fills_in_without_a_reload(
    live_server, workers, wait_for, artifacts, django_user_model, make_version
):
    from playwright.sync_api import expect, sync_playwright

    owner = django_user_model.objects.create_user("patient")
    entrants = [make_version(owner, name, source=unhurried_starter(name)) for name in ("tortoise", "snail", "sloth")]
    cup = Tournament.objects.create(
        name="Countdown Cup", games_per_pairing=GAMES, turn_seconds=0.5, bank_seconds=2,
        scheduled_at=timezone.now() + timedelta(seconds=15),
    )  # fmt: skip
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=version.bot) for version in entrants)
    worker = workers("w1", beat=True, ARENA_SANDBOX="false")  # what is watched here is the page, not the sandbox
    with sync_playwright() as playwright:
        browser = browser_session(playwright)
        try:
            page = browser.new_page(viewport=PHONE)
            page.goto(f"{live_server.url}{reverse('tournament', args=[cup.pk])}")
            page.evaluate("window.stillTheSamePage = true")
            countdown = page.locator("#standings time[data-countdown]")
            expect(countdown).to_have_text(re.compile(r"^\d+ s$"))
            first = countdown.inner_text()
            expect(countdown, "the countdown does not count").not_to_have_text(first, timeout=5000)
            page.screenshot(path=str(artifacts / "countdown-phone.png"), full_page=True)
            top_before = page.locator("#standings progress").bounding_box()["y"]

            expect(page.locator("#standings .badge")).to_have_text("running", timeout=90_000)
            counts = page.locator("#standings [data-count]").all_inner_texts()
            assert sum(map(int, counts)) == 3, f"the three matches are counted once started: {counts}"
            assert page.locator("#standings progress").bounding_box()["y"] == top_before, "the progress bar moved"
            page.screenshot(path=str(artifacts / "started-phone.png"), full_page=True)

            bar = page.locator("#standings progress")
            page.wait_for_function(PLAYING, timeout=120_000)  # a live update half-way, not just the end
            expect(page.locator("#standings table").first).to_be_visible()
            page.screenshot(path=str(artifacts / "playing-phone.png"), full_page=True)

            expect(page.locator("#standings .badge")).to_have_text("finished", timeout=240_000)
            expect(page.locator("#standings [data-count=done]")).to_have_text("3")
            expect(bar).to_have_attribute("value", str(3 * GAMES))
            points = page.locator("#standings table").first.locator("tbody tr td:nth-child(4)").all_inner_texts()
            assert sum(float(p.replace("½", ".5")) for p in points) == 3 * GAMES, points
            assert page.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
            assert page.locator("#standings").get_attribute("data-live") is None, "a finished page still polls"
            page.screenshot(path=str(artifacts / "finished-phone.png"), full_page=True)
        finally:
            browser.close()
    wait_for("the tournament to be finished in the database", lambda: cup_status(cup) == "finished", worker, 10)


def cup_status(cup: Tournament) -> str:
    cup.refresh_from_db()
    return cup.status
