"""Benchmark: an upload through the REST API, and how soon its validation result arrives, on an idle league.

    python -m bench.api_upload                                  # PostgreSQL + Redis on 127.0.0.1
    python -m bench.api_upload --repeat 10 --database-url postgres://postgres@127.0.0.1:5432/arena_bench_api

A fresh database, gunicorn (2 workers, DEBUG off) and one Celery worker (one pool process, sandbox on, no ladder
scheduling: nothing else runs). Each round uploads a copy of the house bot `greedy` (a comment makes each copy
new) as a new bot with POST /api/bots/ and times: the response (goal <= 1 s), and the moment GET
/api/versions/<id>/ first says `active` (goal <= 10 s; it is polled every 50 ms). A first, untimed upload warms
the worker up (its house opponent is created, its sandbox cache filled). Prints each round, min and median, and
the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import harness
from bots.upload import Client, multipart

ROOT = Path(__file__).resolve().parents[1]

GREEDY = (ROOT / "bots" / "house" / "greedy.py").read_bytes()


def prepare(env: dict[str, str]) -> str:
    """Migrate the fresh database and make a user with a token; the token."""
    script = (
        "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
        "u = get_user_model().objects.create_user('bench'); print(Token.objects.create(user=u).key)"
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return out.stdout.decode().split()[-1]


def one_upload(client: Client, name: str, timeout: float = 120) -> tuple[float, float]:
    """(seconds until the upload's response, seconds until the version is active)."""
    content = GREEDY + f"\n# {name} {uuid.uuid4()}\n".encode()
    body, content_type = multipart({"name": name, "game": "face-to-face"}, "file", "bot.py", content)
    started = time.perf_counter()
    created = client.request("POST", "/api/bots/", body, content_type)
    answered = time.perf_counter() - started
    version = created["version"]
    while version["status"] == "validating":
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"{name}: still validating after {timeout:.0f} s")
        time.sleep(0.05)
        version = client.get(f"/api/versions/{version['id']}/")
    if version["status"] != "active":
        raise SystemExit(f"{name} failed validation: {version.get('failure_reason')}")
    return answered, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/arena_bench_api")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    data_dir = tempfile.mkdtemp(prefix="bench-api-")
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="league.settings",
        DATABASE_URL=args.database_url,
        CELERY_BROKER_URL=args.broker,
        ARENA_DATA_DIR=data_dir,
        ARENA_QUEUE=f"bench-api-{os.getpid()}",
        ARENA_LADDER_MAX_PENDING="0",
        ALLOWED_HOSTS="127.0.0.1",
        API_THROTTLE_UPLOADS="1000/hour",
        ARENA_MAX_BOTS_PER_USER=str(args.repeat + 1),  # each round is a new bot of the one user, after the warm-up's
        LOG_LEVEL="WARNING",
        **harness.as_in_production(),
    )
    harness.fresh_postgres(args.database_url)
    token = prepare(env)
    worker_log = Path(data_dir) / "worker.log"
    worker = harness.start_worker(1, worker_log, "--hostname", f"bench-api-{os.getpid()}@%h", env=env)
    try:
        with harness.gunicorn(env) as server:
            client = Client(server.url, token)
            before = harness.loadavg()
            print(
                "clock: from sending POST /api/bots/ to its response, and on to the first GET /api/versions/<id>/ "
                "(every 50 ms) that says active: the validation games played by the worker included"
            )
            warm = one_upload(client, "warm-up")
            print(f"warm-up (worker start, house opponent created): response {warm[0]:.3f} s, active {warm[1]:.2f} s")
            rounds = [one_upload(client, f"copy-{n}") for n in range(args.repeat)]
            for n, (answered, active) in enumerate(rounds):
                print(f"round {n}: response {answered * 1000:.0f} ms, active after {active:.2f} s")
            responses = [answered for answered, _ in rounds]
            actives = [active for _, active in rounds]
            summary = {
                "response_ms": {
                    "min": round(min(responses) * 1000),
                    "median": round(statistics.median(responses) * 1000),
                },
                "active_s": {"min": round(min(actives), 2), "median": round(statistics.median(actives), 2)},
                "rounds": args.repeat,
                "loadavg_before": before,
                "loadavg_after": harness.loadavg(),
            }
            print(json.dumps(summary))
            print(
                f"{harness.verdict(max(responses) <= 1.0)}  response <= 1000 ms in every round: "
                f"max {max(responses) * 1000:.0f} ms"
            )
            print(f"{harness.verdict(max(actives) <= 10.0)}  active <= 10 s in every round: max {max(actives):.2f} s")
    finally:
        harness.stop_worker(worker)


if __name__ == "__main__":
    main()
