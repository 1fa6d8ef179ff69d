"""What the browser tests share: Debian's Chromium, the window sizes, the overflow check, the screenshot folder,
and Playwright beside the database."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from django.db import connections

if TYPE_CHECKING:
    from playwright.sync_api import Page, Playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]  # fmt: skip
NEEDS_CHROMIUM = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Chromium (tests/run.sh installs it)")
SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# Elements wider than the viewport, unless a scroll box that fits holds them.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const inScrollBox = (node) => {
    for (let box = node.parentElement; box && box !== document.body; box = box.parentElement) {
      const style = getComputedStyle(box).overflowX;
      if (/auto|scroll|hidden/.test(style)) return box.getBoundingClientRect().right <= width + 0.5;
    }
    return false;
  };
  const wide = [...document.body.querySelectorAll("*")]
    .filter((node) => node.getBoundingClientRect().right > width + 0.5 && !inScrollBox(node))
    .map((node) => `${node.tagName}.${node.className} right=${Math.round(node.getBoundingClientRect().right)}`);
  return {width, scrollWidth: document.documentElement.scrollWidth, wide};
}"""


def screenshot_folder(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config, label: str) -> Path:
    """Where a test saves its screenshots ($ARENA_SCREENSHOTS, else a temporary folder), printed for the reader."""
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path_factory.mktemp(f"{label}-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n{label} screenshots: {folder}")
    return folder


@contextmanager
def playwright_beside_django() -> Iterator[Playwright]:
    """Playwright's sync API, with the database callable between browser steps.

    Playwright keeps an event loop running in the test's thread, so Django takes the test's code for async code: it
    allows the database only with DJANGO_ALLOW_ASYNC_UNSAFE (restored afterwards), and what the test queries
    meanwhile goes through connections of that async context, apart from the thread's own. Those are closed before
    the loop stops: after it nothing could reach them, and their open sessions kept the test database from being
    dropped at the end of the run."""
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            try:
                yield playwright
            finally:
                connections.close_all()
    finally:
        if previous is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def upload_through_the_form(page: Page, name: str, source: bytes, game: str = "face-to-face") -> None:
    """Fill the upload form the page shows with a bot called `name` whose bot.py is `source`, and send it."""
    page.get_by_label("Name").fill(name)
    page.get_by_label("Game").select_option(game)
    page.get_by_label("File").set_input_files(files=[{"name": "bot.py", "mimeType": "text/x-python", "buffer": source}])
    page.get_by_role("button", name="Upload").click()
