"""Page-number pagination with a bounded page size: `?page=N&page_size=M` (M <= 200)."""

from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
