#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what is missing, starts the services, runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v redis-server >/dev/null || need_apt+=(redis-server)
command -v pg_ctlcluster >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# The project and its test tools go into the checkout's .venv (Debian's python3 refuses system-wide installs).
PY=$(python3 league/bootstrap.py --extras test)

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
    for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
    for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi

# Property tests draw the same examples every run here, as in CI (tests/conftest.py); HYPOTHESIS_PROFILE=dev draws
# new ones each run.
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"

# Test processes at once (pytest-xdist, a test file per process at a time): much of the suite waits on servers,
# workers, sandboxes and a browser, so three keep two cores busy. Each process has its own test database, Redis
# database, data folder and queue (tests/conftest.py, tests/league/conftest.py). TEST_PROCESSES=0: one process.
PARALLEL=(-n "${TEST_PROCESSES:-3}" --dist loadfile)
[ "${TEST_PROCESSES:-3}" = 0 ] && PARALLEL=()

# The whole suite against the production parts: PostgreSQL (psycopg 3) and Redis ...
DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \
    "$PY" -m pytest -p no:cacheprovider "${PARALLEL[@]}" "$@"
# ... and the league once more on the embedded default: SQLite and the filesystem broker.
# (The browser tests ran above; what they look at does not depend on the database.) The league's tests are chosen by
# leaving the rest of tests/ out rather than by naming tests/league: named, its conftest would set Django up in the
# first pytest process, and the test processes would inherit its data folder and queue instead of making their own.
not_league=(--ignore-glob='tests/test_*.py' --ignore-glob='tests/league/test_browser_*' --ignore=tests/league/test_page_layout.py)
for folder in tests/*/; do [ "$folder" = tests/league/ ] || not_league+=(--ignore="$folder"); done
env -u DATABASE_URL -u CELERY_BROKER_URL "$PY" -m pytest -p no:cacheprovider "${PARALLEL[@]}" tests "${not_league[@]}"
