"""The documentation pages the site serves, rendered from the Markdown files in docs/.

Raw HTML in the Markdown is shown as text, never passed through: the pages are built from repository files, but a
page that can carry markup from a file is one edit away from carrying a script. Links between the pages
(`engine-api.md#observation`) and to the starter bots (`starters/face_to_face.py`) become links on the site.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from xml.etree.ElementTree import Element

import markdown
from django.conf import settings
from django.urls import reverse
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
STARTERS_DIR = DOCS_DIR / "starters"


@dataclass(frozen=True)
class DocPage:
    slug: str
    filename: str
    title: str
    summary: str


# The pages for bot authors, in the order the index lists them; operators.md is for whoever runs a server.
PAGES = [
    DocPage("rules", "RULES.md", "The rules", "The three games' rules, as the engine enforces them."),
    DocPage("bot-api", "bot-api.md", "Writing a bot", "The bot contract: the package, the sandbox, time controls."),
    DocPage("engine-api", "engine-api.md", "Observations and turns", "What play() receives and what it returns."),
    DocPage("rules-decisions", "rules-decisions.md", "Rule decisions", "The finer points the engine settled."),
    DocPage("game-log", "game-log.md", "Game logs", "The JSON log of every game, as replays and downloads use it."),
    DocPage("house-bots", "house-bots.md", "House bots", "What each house bot does and how strong it is."),
    DocPage("analysis", "analysis.md", "Game analysis", "Every turn judged by the expert; replaying a turn locally."),
    DocPage("sprt", "sprt.md", "Version tests", "Is v2 better than v1? The sequential test that decides it."),
]
BY_SLUG = {page.slug: page for page in PAGES}
BY_FILENAME = {page.filename: page for page in PAGES}
STARTER_NAME = re.compile(r"^[a-z_]+\.py$")


def starters() -> list[str]:
    """The starter bots' file names, e.g. face_to_face.py."""
    return sorted(path.name for path in STARTERS_DIR.glob("*.py") if STARTER_NAME.match(path.name))


def starter_source(name: str) -> bytes | None:
    """A starter bot's source, or None when there is no starter by that name."""
    if not STARTER_NAME.match(name) or not (STARTERS_DIR / name).is_file():
        return None
    return (STARTERS_DIR / name).read_bytes()


def page_url(href: str) -> str | None:
    """The site's address for a relative link between the docs (`engine-api.md#x`, `starters/x.py`); else None."""
    target, hashmark, anchor = href.partition("#")
    if target in BY_FILENAME:
        return reverse("doc", args=[BY_FILENAME[target].slug]) + hashmark + anchor
    if target.startswith("starters/") and starter_source(target.removeprefix("starters/")) is not None:
        return reverse("starter", args=[target.removeprefix("starters/")])
    return None


SAFE_SCHEME = re.compile(r"^(https?:|mailto:|#|/|[^:/?#]*(?:[/?#]|$))", re.IGNORECASE)


class _SiteLinks(Treeprocessor):
    def run(self, root: Element) -> None:
        for link in root.iter("a"):
            href = link.get("href", "")
            if not SAFE_SCHEME.match(href):  # javascript:, data: and the like
                link.attrib.pop("href")
                continue
            site_href = page_url(href)
            if site_href is not None:
                link.set("href", site_href)


LIST_ITEM = re.compile(r"^ *([-*+]|\d+[.)]) ")


class _GitHubLists(Preprocessor):
    """Lists as the docs are written for GitHub (CommonMark): a list may follow a paragraph line directly, and nested
    items are indented by two spaces. Python-Markdown wants a blank line before a list and four-space nesting."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        in_fence = in_list = False
        for line in lines:
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            elif not in_fence:
                item = LIST_ITEM.match(line)
                if item and not in_list:
                    if out and out[-1].strip():
                        out.append("")
                    in_list = True
                elif line.strip() and not line.startswith(" ") and not item:
                    in_list = False
                if in_list and line.startswith(" "):
                    stripped = line.lstrip(" ")
                    line = " " * (2 * (len(line) - len(stripped))) + stripped
            out.append(line)
        return out


class _ScrollingTables(Treeprocessor):
    """Each table in a box of its own that scrolls sideways on a narrow screen (the site's .table-wrap)."""

    def run(self, root: Element) -> None:
        for parent in list(root.iter()):
            for index, child in enumerate(list(parent)):
                if child.tag == "table":
                    box = Element("div", {"class": "table-wrap"})
                    box.append(child)
                    parent.remove(child)
                    parent.insert(index, box)


class _SafeSiteDocs(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown's name)
        md.preprocessors.deregister("html_block")  # raw HTML blocks stay text ...
        md.preprocessors.register(_GitHubLists(md), "github_lists", 30)  # before fenced code (25)
        md.inlinePatterns.deregister("html")  # ... and so do inline tags; entities are still allowed
        md.treeprocessors.register(_SiteLinks(md), "site_links", 0)
        md.treeprocessors.register(_ScrollingTables(md), "scrolling_tables", 0)


def render(text: str) -> str:
    """Markdown to HTML with raw HTML escaped, GitHub-style heading ids, tables and fenced code."""
    return markdown.markdown(text, extensions=["tables", "fenced_code", "toc", _SafeSiteDocs()], output_format="html")


@lru_cache(maxsize=32)
def _rendered(path: Path, mtime_ns: int) -> str:
    return render(path.read_text(encoding="utf-8"))


def page_html(page: DocPage) -> str | None:
    """The page rendered (kept until its file changes), or None when its file is not in this checkout."""
    path = DOCS_DIR / page.filename
    try:
        mtime_ns = path.stat().st_mtime_ns
    except FileNotFoundError:
        return None
    return _rendered(path, mtime_ns)
