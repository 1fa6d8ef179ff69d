"""Page-number pagination with a bounded page size (`?page=N&page_size=M`, M <= 200) and cached totals.

Counting a filtered list of a hundred thousand matches costs more than the page itself, and the total only tells
how many pages there are: `count` is kept in the cache for API_COUNT_SECONDS (per distinct query) while every page
is read fresh. A total can lag that long behind; a page past the real end is then simply short or a 404.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.utils.functional import cached_property
from rest_framework.pagination import PageNumberPagination

from league.arena.lib.caching import CACHE_ERRORS


class CountCachingPaginator(Paginator):
    def page(self, number: int | str):  # noqa: ANN201 - a Django Page
        """A full page even when the cached total is behind (Django's own would cut it at the total)."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        return self._get_page(self.object_list[bottom : bottom + self.per_page], number, self)

    @cached_property
    def count(self) -> int:
        query = getattr(self.object_list, "query", None)
        seconds = getattr(settings, "API_COUNT_SECONDS", 30)
        if query is None or seconds <= 0:
            return super().count
        key = "api-count:" + hashlib.sha256(str(query).encode()).hexdigest()
        try:
            found = cache.get(key)
        except CACHE_ERRORS:
            return super().count
        if found is None:
            found = super().count
            try:
                cache.set(key, found, seconds)
            except CACHE_ERRORS:
                pass
        return found


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    django_paginator_class = CountCachingPaginator
