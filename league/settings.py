"""Settings for the league server; every deployment knob is an environment variable.

docs/operators.md has the table. With nothing set, the server runs embedded: SQLite and a
filesystem message broker under ARENA_DATA_DIR, so one machine needs no other server.

Database connections are kept open for DATABASE_CONN_MAX_AGE seconds (default 60; 0 closes each
after its request) and checked before reuse unless DATABASE_CONN_HEALTH_CHECKS is false.

Pages cache what changes only when ratings are refitted or a match is stored (league/arena/lib/caching.py).
CACHE_URL picks the cache: unset, each process keeps its own local-memory cache; `redis://host:6379/1`
(or `rediss://`, `unix://`) shares one Redis among all web servers; `dummy://` turns caching off.
CACHE_TIMEOUT (default 300 s) bounds how long a fragment is kept even if no change is announced.
"""

from __future__ import annotations

import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from league.env import env_bool, env_caches, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("ARENA_DATA_DIR", str(BASE_DIR / "var"))).resolve()

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false")
    SECRET_KEY = "insecure-development-key-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = env_str("SITE_NAME", "The Game Arena")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "axes",
    "csp",
    "league.arena",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "league.api",
]

MIDDLEWARE = [
    "league.arena.lib.middleware.RequestSizeLimit",  # first: refuses an oversized body before anything reads it
    "league.arena.lib.request_metrics.RequestLatency",  # /metrics/'s request latency, nearly the whole request
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # the admin's CSS and JS, also without a front proxy
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "league.urls"
WSGI_APPLICATION = "league.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "league.arena.site.context.site",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'arena.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=env_bool("DATABASE_CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web server and workers write concurrently: wait for the lock instead of failing at once,
    # and take the write lock at BEGIN so two writers cannot deadlock upgrading read locks.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-arena.sqlite3")}
    DATA_DIR.mkdir(parents=True, exist_ok=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = env_caches("CACHE_URL", DATA_DIR / "page-generations", timeout=env_int("CACHE_TIMEOUT", 300, minimum=1))
# Rate-limit counters (league/arena/lib/throttles.py) must be seen by every web process, as the generation tokens are.
CACHES["throttles"] = {**CACHES["generations"], "KEY_PREFIX": "arena-throttle"}
if CACHES["throttles"]["BACKEND"].endswith("FileBasedCache"):
    CACHES["throttles"]["LOCATION"] = str(DATA_DIR / "throttles")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out account or address before the password check
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True
FORMAT_MODULE_PATH = ["league.formats"]  # times printed without a format name their zone (the admin's, mostly)

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(DATA_DIR / "static")))
WHITENOISE_USE_FINDERS = True  # serve the admin's files even before `collectstatic` has run
if "STATIC_ROOT" not in os.environ:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Deployment: TLS, cookies, content security policy (docs/operators.md) -----------------------
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if BEHIND_TLS_PROXY else None
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No inline script or style anywhere: pages load theirs from league/arena/static/arena/.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- E-mail (password resets): printed to the log unless EMAIL_HOST names an SMTP server -------------
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)  # TLS from the first byte, usually port 465
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)  # STARTTLS, usually port 587
if EMAIL_USE_SSL and EMAIL_USE_TLS:
    raise ImproperlyConfigured("EMAIL_USE_SSL and EMAIL_USE_TLS are both true: set one (465: SSL; 587: TLS)")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "webmaster@localhost")
# The site's address as its users reach it: the links in notification e-mails start with it.
SITE_URL = env_str("SITE_URL", "http://localhost:8000")
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT_HOURS", 24, minimum=1) * 3600

# --- Request and upload limits, throttles ---------------------------------------------------
# Uploads above this stay on disk while the request is handled (Django deletes them afterwards).
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# A request body (but its files) larger than this is refused while Django parses it.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
ARENA_UPLOADS_PER_HOUR = env_int("ARENA_UPLOADS_PER_HOUR", 30, minimum=1)
ARENA_SIGNUPS_PER_HOUR = env_int("ARENA_SIGNUPS_PER_HOUR", 5, minimum=1)
# Password reset requests per hour, counted per address and per e-mail address asked for.
ARENA_PASSWORD_RESETS_PER_HOUR = env_int("ARENA_PASSWORD_RESETS_PER_HOUR", 5, minimum=1)
# Failed logins: after this many from one address, whatever accounts they tried, that address is refused for the
# cool-off. An account as such is never locked: a stranger guessing the admin's password locks out only the stranger,
# never the admin logging in from elsewhere (locking per account would let anyone lock anyone out).
AXES_FAILURE_LIMIT = env_int("ARENA_LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ARENA_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_CLIENT_IP_CALLABLE = "league.arena.lib.throttles.client_address"
AXES_LOCKOUT_CALLABLE = "league.arena.lib.throttles.login_locked_out"
AXES_VERBOSE = False

# --- Celery -------------------------------------------------------------------------------
BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(DATA_DIR / "broker-control"),
        "polling_interval": 0.2,
    }
    for _key in ("data_folder_in", "data_folder_out", "control_folder"):
        Path(CELERY_BROKER_TRANSPORT_OPTIONS[_key]).mkdir(parents=True, exist_ok=True)
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # A message left unacknowledged by a dead worker comes back after this many seconds. The upkeep recovers lost
        # work from the database within a lease, so this is only a backstop, and a match's message that comes back
        # is turned away by its claim. It must stay above the longest countdown the league sends (an e-mail's last
        # retry waits 8 min): Redis would deliver a message held for its countdown again, and again, meanwhile.
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 600, minimum=60),
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# A match playing when the broker goes away plays on and stores its results (the database, not the broker, says
# what is done); Celery 6 would cancel it instead. A worker starting before the broker waits for it.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker that lost the broker tries again after 0.2 s, then 0.7 s, ... at most 5 s apart (Celery: 2 s, 4 s, ... 30 s):
# a restarted Redis is back within a second, and each second a worker waits for it is a second of no play.
CELERY_WORKER_CONSUMER = "league.worker_consumer:QuickReconnect"
CELERY_TASK_DEFAULT_QUEUE = env_str("ARENA_QUEUE", "arena")
# Validation matches have a queue of their own, so a flood of uploads never waits in front of ladder and tournament
# matches (nor they in front of a new version). Version tests' batches have a queue of their own, below those: a batch
# is put on it only while no ladder, tournament or validation match waits (league/arena/versiontests/running.py).
# Scrims (owners' unrated match requests) have a queue of their own too, below everything else: they are put on it only
# while no ladder, tournament, validation or test match waits, a few at a time (league/arena/scrims/requests.py).
# The short control tasks (refits, finishing tournaments, the clock's periodic ones, the upkeep above all) have one too,
# and on Redis the highest priority (0; matches have 6), so a worker takes them before its next match however many a
# tournament queued. Game analyses (league/arena/analysis) have a queue of their
# own, so an operator can run them on workers of their own (or keep them off the machines that play matches), and on
# Redis the lowest priority (9): Redis workers ask for every queue they consume by priority first, so a worker that
# consumes matches too takes any waiting match before an analysis.
# A worker without --queues consumes all.
ARENA_VALIDATION_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.validation"
ARENA_SCRIM_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.scrim"
ARENA_TEST_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.test"
ARENA_CONTROL_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.control"
ARENA_ANALYSIS_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}.analysis"
CELERY_TASK_QUEUES = [
    Queue(CELERY_TASK_DEFAULT_QUEUE),
    Queue(ARENA_VALIDATION_QUEUE),
    Queue(ARENA_SCRIM_QUEUE),
    Queue(ARENA_TEST_QUEUE),
    Queue(ARENA_CONTROL_QUEUE),
    Queue(ARENA_ANALYSIS_QUEUE),
]
_MATCHES = {"priority": 6}
_CONTROL = {"queue": ARENA_CONTROL_QUEUE, "priority": 0}
CELERY_TASK_ROUTES = {
    "league.arena.tasks.play_match": {"queue": CELERY_TASK_DEFAULT_QUEUE, **_MATCHES},
    "league.arena.tasks.play_validation": {"queue": ARENA_VALIDATION_QUEUE, **_MATCHES},
    "league.arena.tasks.play_scrim": {"queue": ARENA_SCRIM_QUEUE, **_MATCHES},
    "league.arena.tasks.analyse_game": {"queue": ARENA_ANALYSIS_QUEUE, "priority": 9},
    "league.arena.tasks.play_test": {"queue": ARENA_TEST_QUEUE, **_MATCHES},
    **{
        f"league.arena.tasks.{name}": _CONTROL
        for name in (
            "refit_ratings",
            "start_tournament",
            "finish_tournament",
            "start_due_tournaments",
            "schedule_ladder",
            "schedule_challenges",
            "release_scrims",
            "release_tests",
            "upkeep",
            "send_notification_email",
            "export_games",
        )
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")


def _every(task: str, seconds: int) -> dict:
    # A tick not run before the next is due is dropped (workers down for a while do not find a pile of them).
    return {
        "task": f"league.arena.tasks.{task}",
        "schedule": timedelta(seconds=seconds),
        "options": {"expires": seconds},
    }


CELERY_BEAT_SCHEDULE = {
    "ladder": _every("schedule_ladder", env_int("ARENA_LADDER_INTERVAL", 30, minimum=1)),
    "challenges": _every("schedule_challenges", env_int("ARENA_COOP_INTERVAL", 10, minimum=1)),
    "tournaments": _every("start_due_tournaments", 10),
    "scrims": _every("release_scrims", env_int("ARENA_SCRIM_INTERVAL", 10, minimum=1)),
    "tests": _every("release_tests", env_int("ARENA_TEST_INTERVAL", 10, minimum=1)),
    # Everything a lost task would have done, re-derived from the database (league/arena/ops/upkeep.py).
    "upkeep": _every("upkeep", env_int("ARENA_SWEEP_INTERVAL", 3, minimum=1)),
    # A finished month's public games into their archives (each month once; a run with nothing new is a no-op).
    "export-games": _every("export_games", env_int("ARENA_EXPORT_INTERVAL", 3600, minimum=60)),
}

# --- The arena ----------------------------------------------------------------------------
ARENA_CACHE_DIR = Path(env_str("ARENA_CACHE_DIR", str(DATA_DIR / "cache")))
ARENA_SANDBOX = env_bool("ARENA_SANDBOX", True)
# true: run uploaded bots even where the worker cannot create cgroups (a container): rlimits alone then bound
# them, and memory held outside the address space is not (docs/operators.md). false: such a worker refuses.
ARENA_SANDBOX_WITHOUT_CGROUPS = env_bool("ARENA_SANDBOX_WITHOUT_CGROUPS", False)
# true: each worker pool process keeps itself and its sandboxes on one CPU (the Nth process on the Nth CPU it may
# use), which makes a sandboxed turn's hand-offs cheaper (bots/sandbox/scheduling.py). Off by default: two workers on
# one machine would put their first pool processes on the same CPU.
ARENA_WORKER_ONE_CPU = env_bool("ARENA_WORKER_ONE_CPU", False)
ARENA_MAX_PY_BYTES = env_int("ARENA_MAX_PY_BYTES", 1 << 20, minimum=1)
ARENA_MAX_ZIP_BYTES = env_int("ARENA_MAX_ZIP_BYTES", 10 << 20, minimum=1)
# The largest request body accepted at all; a larger Content-Length is answered 413 before the body is read
# (league/arena/lib/middleware.py). Default: the largest upload allowed plus 1 MiB for the form around it.
ARENA_MAX_REQUEST_BYTES = env_int(
    "ARENA_MAX_REQUEST_BYTES", max(ARENA_MAX_PY_BYTES, ARENA_MAX_ZIP_BYTES) + (1 << 20), minimum=1024
)
ARENA_MAX_ZIP_ENTRIES = env_int("ARENA_MAX_ZIP_ENTRIES", 200, minimum=1)
ARENA_MAX_UNPACKED_BYTES = env_int("ARENA_MAX_UNPACKED_BYTES", 50 << 20, minimum=1)
ARENA_MAX_COMPRESSION_RATIO = env_int("ARENA_MAX_COMPRESSION_RATIO", 100, minimum=1)
# Quotas: versions whose upload is kept per bot (prune old ones to upload more), bots per user, and the bytes of
# kept uploads per user.
ARENA_MAX_VERSIONS_PER_BOT = env_int("ARENA_MAX_VERSIONS_PER_BOT", 20, minimum=1)
ARENA_MAX_BOTS_PER_USER = env_int("ARENA_MAX_BOTS_PER_USER", 10, minimum=1)
ARENA_MAX_UPLOAD_BYTES_PER_USER = env_int("ARENA_MAX_UPLOAD_BYTES_PER_USER", 100 << 20, minimum=1)
# Validation matches of one user queued or running at once; more wait (their versions "validating") and are queued
# as earlier ones finish, so one user's flood of uploads delays only that user.
ARENA_VALIDATIONS_IN_FLIGHT_PER_USER = env_int("ARENA_VALIDATIONS_IN_FLIGHT_PER_USER", 2, minimum=1)
# Games against each opponent, on duplicate deals (bench.validation: 20 catch every known broken bot).
ARENA_VALIDATION_GAMES = env_int("ARENA_VALIDATION_GAMES", 20, minimum=1)
ARENA_VALIDATION_OPPONENTS = env_list("ARENA_VALIDATION_OPPONENTS", ["house:random", "house:greedy"])
if not ARENA_VALIDATION_OPPONENTS:
    raise ImproperlyConfigured("ARENA_VALIDATION_OPPONENTS names no house bot: validation would play no game")
ARENA_LADDER_GAMES = env_int("ARENA_LADDER_GAMES", 10, minimum=1)
ARENA_LADDER_MAX_PENDING = env_int("ARENA_LADDER_MAX_PENDING", 4, minimum=0)
# A new version's first matches are its placement: it is paired first, meets the house bots, and may play this many
# matches at once (league/arena/ladder/scheduling.py); no opponent takes more than the fair share of a version's
# matches while others are free.
ARENA_LADDER_PLACEMENT_MATCHES = env_int("ARENA_LADDER_PLACEMENT_MATCHES", 30, minimum=0)
ARENA_LADDER_PLACEMENT_PARALLEL = env_int("ARENA_LADDER_PLACEMENT_PARALLEL", 2, minimum=1)
ARENA_LADDER_FAIR_SHARE = env_float("ARENA_LADDER_FAIR_SHARE", 0.125, minimum=0.0)
# A rating is provisional (marked on the ladder, the bot page and in the API) below this many games or above this
# half-width of its 95 % interval, in Elo.
ARENA_LADDER_PROVISIONAL_GAMES = env_int("ARENA_LADDER_PROVISIONAL_GAMES", 100, minimum=0)
ARENA_LADDER_PROVISIONAL_MARGIN = env_float("ARENA_LADDER_PROVISIONAL_MARGIN", 75.0, minimum=0.0)
# A ladder version that forfeits more than this share of its recent ladder games (the last ..._GAMES, judged once it
# has played ..._MIN_GAMES of them since it joined or was resumed) is paused: off the ladder, its owner told.
ARENA_FORFEIT_PAUSE_SHARE = env_float("ARENA_FORFEIT_PAUSE_SHARE", 0.2, minimum=0.0)
ARENA_FORFEIT_PAUSE_GAMES = env_int("ARENA_FORFEIT_PAUSE_GAMES", 50, minimum=1)
ARENA_FORFEIT_PAUSE_MIN_GAMES = env_int("ARENA_FORFEIT_PAUSE_MIN_GAMES", 10, minimum=1)
if ARENA_FORFEIT_PAUSE_SHARE >= 1:
    raise ImproperlyConfigured(f"ARENA_FORFEIT_PAUSE_SHARE={ARENA_FORFEIT_PAUSE_SHARE} is a share below 1")
ARENA_TURN_SECONDS = env_float("ARENA_TURN_SECONDS", 1.0, minimum=0.001)
ARENA_BANK_SECONDS = env_float("ARENA_BANK_SECONDS", 10.0, minimum=0.0)
ARENA_STARTUP_SECONDS = env_float("ARENA_STARTUP_SECONDS", 5.0, minimum=0.001)
# A running match (or refit) whose heartbeat, sent every second, is this old is presumed dead and played again.
ARENA_MATCH_LEASE_SECONDS = env_int("ARENA_MATCH_LEASE_SECONDS", 5, minimum=2)
# A match's store whose worker sends nothing for this long between two statements (frozen, paused) is ended by
# PostgreSQL, so that the row locks it holds (its versions' results, which other stores write too) keep no other
# worker waiting; the worker tries the store again once it runs, if its lease is still alive (lib/stalls.py). 0: never.
ARENA_STORE_IDLE_SECONDS = env_float("ARENA_STORE_IDLE_SECONDS", 1.0, minimum=0.0)
ARENA_MATCH_MAX_ATTEMPTS = env_int("ARENA_MATCH_MAX_ATTEMPTS", 3, minimum=1)
# The co-op challenge ladders (league/arena/coop/challenges.py): matches queued or running at once, self-play team
# sizes.
ARENA_COOP_MAX_PENDING = env_int("ARENA_COOP_MAX_PENDING", 4, minimum=0)
ARENA_COOP_TEAM_SIZES = env_list("ARENA_COOP_TEAM_SIZES", ["1", "2", "3", "4", "5"])
if not ARENA_COOP_TEAM_SIZES or not set(ARENA_COOP_TEAM_SIZES) <= {"1", "2", "3", "4", "5"}:
    raise ImproperlyConfigured(f"ARENA_COOP_TEAM_SIZES={ARENA_COOP_TEAM_SIZES!r}: list team sizes from 1 to 5")
ARENA_COOP_TEAM_SIZES = sorted({int(size) for size in ARENA_COOP_TEAM_SIZES})
ARENA_SCRIM_GAMES_PER_DAY = env_int("ARENA_SCRIM_GAMES_PER_DAY", 100, minimum=0)  # per user, over any 24 hours
ARENA_SCRIM_IN_FLIGHT = env_int("ARENA_SCRIM_IN_FLIGHT", 2, minimum=1)  # scrim matches queued or running at once
# Scrims are released only while at most this many ladder, tournament or validation matches wait for a worker.
ARENA_SCRIM_MAX_BACKLOG = env_int("ARENA_SCRIM_MAX_BACKLOG", 0, minimum=0)
# Game analyses (league/arena/analysis): how many a user may ask for in any 24 hours (analyses someone already asked
# for are shared and free; 0 turns asking off), the rollouts per turn at most (the precision every page and the API
# use; bots.analysis), and how old a running analysis's heartbeat (or a queued one's message) may get before the
# upkeep sends it again.
ARENA_ANALYSES_PER_DAY = env_int("ARENA_ANALYSES_PER_DAY", 20, minimum=0)
ARENA_ANALYSIS_ROLLOUTS = env_int("ARENA_ANALYSIS_ROLLOUTS", 256, minimum=2)
ARENA_ANALYSIS_LEASE_SECONDS = env_int("ARENA_ANALYSIS_LEASE_SECONDS", 120, minimum=10)
# Version tests (league/arena/versiontests/running.py): per user, tests running at once and games played in any
# 24 hours; the largest game cap of a test; pairs (or shared co-op deals) per batch; batches of one test queued or
# running at once (so that many workers share it); released only while at most ARENA_TEST_MAX_BACKLOG ladder,
# tournament or validation matches wait.
ARENA_TESTS_AT_ONCE = env_int("ARENA_TESTS_AT_ONCE", 2, minimum=0)
ARENA_TEST_GAMES_PER_DAY = env_int("ARENA_TEST_GAMES_PER_DAY", 20_000, minimum=0)
ARENA_TEST_MAX_GAMES = env_int("ARENA_TEST_MAX_GAMES", 20_000, minimum=2)
ARENA_TEST_BATCH_PAIRS = env_int("ARENA_TEST_BATCH_PAIRS", 8, minimum=1)
ARENA_TEST_IN_FLIGHT = env_int("ARENA_TEST_IN_FLIGHT", 4, minimum=1)
ARENA_TEST_MAX_BACKLOG = env_int("ARENA_TEST_MAX_BACKLOG", 0, minimum=0)
ARENA_RATING_PRIOR_GAMES = env_float("ARENA_RATING_PRIOR_GAMES", 2.0, minimum=1e-6)  # 0 would let ratings diverge
# The public games' monthly archives (league/arena/play/archives.py), written by the export task on a worker and
# served at /data/ by the web: a folder both see.
ARENA_ARCHIVE_DIR = Path(env_str("ARENA_ARCHIVE_DIR", str(DATA_DIR / "archives")))
# /metrics/ (league/arena/ops/metrics.py) answers a request with this bearer token, or from these addresses or
# networks (comma-separated, e.g. 10.0.0.0/8,127.0.0.1); with neither, nobody.
ARENA_METRICS_TOKEN = env_str("ARENA_METRICS_TOKEN", "")
ARENA_METRICS_ALLOWED_IPS = env_list("ARENA_METRICS_ALLOWED_IPS", [])
try:
    ARENA_METRICS_ALLOWED_NETWORKS = [ipaddress.ip_network(item, strict=False) for item in ARENA_METRICS_ALLOWED_IPS]
except ValueError as error:
    raise ImproperlyConfigured(f"ARENA_METRICS_ALLOWED_IPS: {error}") from None

# --- The REST API (league/api/) ---------------------------------------------------------------
# Rates are "N/second|minute|hour|day"; counted in the "default" cache (per process unless CACHE_URL is shared).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",  # first: a script without a token gets 401
        "rest_framework.authentication.SessionAuthentication",  # the site's login, CSRF-checked
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "league.api.pagination.Pages",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": ["league.api.throttles.AnonThrottle", "league.api.throttles.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "120/minute"),
        "user": env_str("API_THROTTLE_USER", "600/minute"),
        "uploads": env_str("API_THROTTLE_UPLOADS", "30/hour"),
    },
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],  # /api/docs/ is the page for people
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "league.api.errors.exception_handler",
    "PAGE_SIZE": 50,
}
API_COUNT_SECONDS = env_int("API_COUNT_SECONDS", 30, minimum=0)  # how long a list's total may be reused
SPECTACULAR_SETTINGS = {
    "TITLE": f"{SITE_NAME} API",
    "DESCRIPTION": (
        "Bots, versions, tournaments, matches, games, leaderboards and co-op challenge seasons of the league. "
        "See /api/docs/."
    ),
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",  # "null or an object" is exact in 3.1 (3.0's nullable beside allOf is ambiguous)
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",  # Swagger UI from this server's static files: no CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},  # no badge from validator.swagger.io
    "ENUM_NAME_OVERRIDES": {
        "VersionStatus": "league.arena.models.BotVersion.Status",
        "VersionKind": "league.arena.models.BotVersion.Kind",
        "MatchStatus": "league.arena.models.Match.Status",
        "MatchKind": "league.arena.models.Match.Kind",
        "TournamentStatus": "league.arena.models.Tournament.Status",
        "TournamentFormat": "league.arena.models.Tournament.Format",
        "GameEnum": "league.arena.models.GAME_CHOICES",
        "CoopGame": "league.api.coop_serializers.COOP_GAME_CHOICES",
        "ScrimStatus": "league.arena.scrims.requests.State.CHOICES",
        "VersionTestStatus": "league.arena.models.VersionTest.Status",
    },
}

# One format for the web server, the workers (Celery leaves the root logger alone) and the clock: time, level,
# process and logger, so a worker's line says when it happened and which pool process said it.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s [%(processName)s %(process)d] %(name)s: %(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
