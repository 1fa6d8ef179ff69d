"""docs/RULES.md is the project's copy of the shared rules, word for word.

The rules are kept beside the repository as ../shared/RULES.md (relative to the repository root; CI checks
the clone out with shared/ beside it). When that file is present, the copy must be identical to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COPY = REPO / "docs" / "RULES.md"
SHARED = REPO.parent / "shared" / "RULES.md"


def test_docs_rules_is_the_shared_rules_word_for_word() -> None:
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is absent (no shared/ beside this clone), so there is nothing to compare with")
    assert COPY.read_bytes() == SHARED.read_bytes(), (
        f"{COPY.relative_to(REPO)} differs from {SHARED}: copy the shared rules over it (cp {SHARED} {COPY})"
    )


def test_the_docs_point_at_the_rules_page() -> None:
    for page in sorted((REPO / "docs").glob("*.md")):
        if page != COPY:
            text = page.read_text(encoding="utf-8")
            assert "../shared/RULES.md" not in text, f"{page.name} points outside the repository; use RULES.md"
