"""Why a page is slow: its queries, their time against the whole request's, and the slowest one's plan.

The page is requested in this process through Django's test client (no network, no gunicorn), once to
warm up and once captured; the slowest query is then run again under EXPLAIN (ANALYZE, BUFFERS).
"""

from __future__ import annotations

import time

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

SHOWN_SQL_CHARS = 400


def explain_page(path: str) -> str:
    client = Client(HTTP_HOST="127.0.0.1")
    client.get(path)
    with CaptureQueriesContext(connection) as captured:
        began = time.perf_counter()
        response = client.get(path)
        elapsed = time.perf_counter() - began
    queries = captured.captured_queries
    sql_seconds = sum(float(query["time"]) for query in queries)
    lines = [
        f"{path}: HTTP {response.status_code} in {elapsed * 1000:.1f} ms in process, "
        f"{len(queries)} queries taking {sql_seconds * 1000:.1f} ms"
    ]
    if not queries:
        return "\n".join(lines)
    slowest = max(queries, key=lambda query: float(query["time"]))
    lines.append(f"  slowest ({float(slowest['time']) * 1000:.1f} ms): {slowest['sql'][:SHOWN_SQL_CHARS]}")
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + slowest["sql"])
        lines += [f"    {row[0]}" for row in cursor.fetchall()]
    return "\n".join(lines)
