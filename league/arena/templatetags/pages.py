"""Template tags for long lists: page links, and crosstable rows rendered without a template loop per cell."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from django import template
from django.core.paginator import Page
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


def page_links(number: int, num_pages: int, around: int = 2) -> list[int | None]:
    """The page numbers to link: the first, the last and `around` either side of `number`; None marks a gap."""
    shown = sorted({1, num_pages, *range(max(1, number - around), min(num_pages, number + around) + 1)})
    links: list[int | None] = []
    for previous, current in zip([0, *shown], shown, strict=False):
        if current - previous > 1:
            links.append(None)
        links.append(current)
    return links


@register.inclusion_tag("arena/_pager.html")
def pager(page: Any, label: str = "Pages") -> dict[str, Any]:
    """Previous/next and numbered links for a Django Page, or any page with `number`, `num_pages`, `has_previous`
    and `has_next` (a leaderboard's)."""
    num_pages = page.paginator.num_pages if isinstance(page, Page) else page.num_pages
    return {"page": page, "num_pages": num_pages, "label": label, "links": page_links(page.number, num_pages)}


@register.simple_tag
def cross_cells(row: Any, cells: Iterable[str | None], columns: Iterable[Any], matches_url: str) -> SafeString:
    """One crosstable row's cells, each linked to the matches between the row's and the column's bots.

    A 100-entry table has 10,000 cells, too many for a template loop.
    """
    link = f'<td><a href="{html.escape(matches_url)}?bot={row.version.bot_id}&amp;vs='
    return mark_safe(  # noqa: S308 - every part escaped or a number
        "".join(
            '<td class="self">·</td>'
            if cell is None
            else f'{link}{column.version.bot_id}">{html.escape(cell, quote=False)}</a></td>'
            for cell, column in zip(cells, columns, strict=True)
        )
    )
