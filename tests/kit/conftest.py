"""Fixtures for the kit's tests: the league's (database, users, versions), for the site the kit fetches logs from."""

from __future__ import annotations

from tests.league import conftest as league_conftest

# The league's fixtures and hooks, found by pytest under these names.
_isolated_cache = league_conftest._isolated_cache
_fresh_page_cache = league_conftest._fresh_page_cache
pytest_sessionfinish = league_conftest.pytest_sessionfinish
make_version = league_conftest.make_version
