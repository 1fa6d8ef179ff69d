#!/bin/sh
# The container's entry point: one subcommand per service (docs/operators.md, "Deploying with Docker").
#   web          [MIGRATE_ON_START=true: migrate first] gunicorn league.wsgi on 0.0.0.0:$PORT, $WEB_CONCURRENCY workers
#   worker       celery -A league worker, $WORKER_CONCURRENCY processes, queues $WORKER_QUEUES (default: the league's)
#   beat         celery -A league beat (exactly one per deployment)
#   migrate      manage.py migrate
#   manage ARGS  manage.py ARGS, e.g. `manage createsuperuser`
#   healthcheck web|worker|beat   exit 0 when that service answers (the compose health checks)
# Extra arguments after web, worker and beat are passed on to gunicorn or celery.
set -eu
cd "$(dirname "$0")/.."
# The code next to this script, whatever else is installed (the image installs /app itself, editable).
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

usage() {
    echo "usage: $0 web|worker|beat|migrate|manage ARGS|healthcheck web|worker|beat" >&2
    exit 64
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
web)
    if [ "${MIGRATE_ON_START:-false}" = true ]; then
        python manage.py migrate --noinput
    fi
    # /metrics/'s request latency adds up every gunicorn worker's samples from this folder (prometheus-client's
    # multiprocess mode); a fresh one each start, so no dead worker's samples linger.
    PROMETHEUS_MULTIPROC_DIR="$(mktemp -d /tmp/arena-metrics.XXXXXX)"
    export PROMETHEUS_MULTIPROC_DIR
    exec gunicorn league.wsgi \
        --bind "0.0.0.0:${PORT:-8000}" \
        --workers "${WEB_CONCURRENCY:-2}" \
        --access-logfile - \
        "$@"
    ;;
worker)
    set -- --concurrency "${WORKER_CONCURRENCY:-2}" "$@"
    if [ -n "${WORKER_QUEUES:-}" ]; then
        set -- --queues "$WORKER_QUEUES" "$@"
    fi
    exec celery -A league worker --without-mingle --without-gossip --loglevel "${LOG_LEVEL:-INFO}" "$@"
    ;;
beat)
    exec celery -A league beat --loglevel "${LOG_LEVEL:-INFO}" "$@"
    ;;
migrate)
    exec python manage.py migrate --noinput "$@"
    ;;
manage)
    exec python manage.py "$@"
    ;;
healthcheck)
    exec python docker/healthcheck.py "$@"
    ;;
*)
    echo "$0: unknown subcommand '$command'" >&2
    usage
    ;;
esac
