"""Fault drill: one tournament played clean and under each fault, on services of its own; prints times and ratios.

    python -m bench.faults                                   # the clean run, then every fault
    python -m bench.faults --faults kill-worker,restart-redis --bots 16 --games 10

Each run gets a fresh copy of a migrated database on a PostgreSQL started here (initdb into a temporary folder,
on a free port), an empty Redis started here, two Celery workers with different names and a beat, all with the
league's default settings. The tournament (a double round robin of house-bot copies on seeded deals, so every run
plays the same games) is started, the fault injected once a share of its matches is done, and the run timed from
the tournament's start until it is finished and its ratings are fitted on every game, without any help. The
shared PostgreSQL and Redis of the machine are never touched.

The faults: `kill-worker` (SIGKILL a worker's whole process group mid-match, restarted 2 s later as a supervisor
would), `restart-redis` (killed and started again empty, as after a crash without persistence), `crash-postgres`
(SIGKILL the postmaster and every backend, then start it again: crash recovery), `workers-down` (both workers
killed and started again a minute later); and the bench's own: `kill-early` (kill-worker at 5% of the matches, so the
killed match must jump the queue), `kill-pool-process` (SIGKILL only the pool process playing a match),
`freeze-worker` (SIGSTOP a worker mid-match for 8 s, past its lease, then SIGCONT: it must store nothing stale and
charge no bot for the stall), `redis-at-the-tail` (restart-redis at 90%), `kill-refit-worker` (SIGKILL the worker
whose pool process holds the ladder's refit claim, mid-refit, restarted 2 s later: no refit may be lost), and
`full-scratch`, played by uploads of the house bots in the sandbox: w1 runs in a mount namespace of its own whose
scratch space (a small tmpfs) the drill fills, blocks and inodes, as the tournament starts, and frees once half the
matches are done; w1 must hand its matches back uncounted, report itself sick, play nothing meanwhile and play again
once well. It is compared with, and timed against, a clean sandboxed run on w2 alone.

Each run is compared game by game with the clean run of the same seeds (winner, termination, turns), and its
ratings with the clean run's, and no match may be charged a failure of its own; a run passes with all of that and its
time within budget (1.3x the clean run; both
workers away: clean + the time away + 10 s), else it prints MISS and why ("missed its time budget", ...). The freeze
drill's line also names its floor (`capacity_floor`): what half the workers away for the freeze costs at the least.
`tests/faults/test_faults.py` runs the first four and checks what must hold at any speed, not the time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from bench import harness
from league.arena.ops.workers import league_queues, worker_command

ROOT = Path(__file__).resolve().parents[1]

PG_BIN = Path("/usr/lib/postgresql/15/bin")
QUEUE = "drill"
FAULT_AT = 0.3  # the share of the matches done when the fault strikes
SUPERVISOR_DELAY = 2.0  # a killed worker is started again this long after (docker's restart policy would)
WORKERS_DOWN_SECONDS = 60.0
FREEZE_SECONDS = 8.0  # past the 5 s lease
POSTGRES_DOWN_SECONDS = 10.0  # at most, the crashed database stays down until a worker notices
# A worker started with a scratch space of its own: a small tmpfs on /dev/shm in a mount namespace of its own (too
# small for bots/sandbox/bwrap.py's scratch_root, which then takes TMPDIR, a folder on it). The drill fills it.
PRIVATE_SCRATCH = "/dev/shm/scratch"
PRIVATE_SCRATCH_MOUNT = (
    'mount -t tmpfs -o size=64m,nr_inodes=2048,mode=1777 tmpfs /dev/shm && mkdir -m 1777 {scratch} && exec "$@"'
)

SETUP = """
import sys
import django
django.setup()
from django.contrib.auth import get_user_model
from league.arena.uploads.house import house_sha256
from league.arena.uploads.intake import inspect_upload
from league.arena.models import Bot, BotUpload, BotVersion, Tournament, TournamentEntry
from bots.house import house_module
import importlib.util
refs, count, games, uploads = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
owner = get_user_model().objects.create(username="drill")
tournament = Tournament.objects.create(
    name="drill", format="double-round-robin", games_per_pairing=games, duplicate=True,
    turn_seconds=5, bank_seconds=30, startup_seconds=10,
)
for i in range(count):
    name = refs[i % len(refs)]
    if uploads:  # the house bot's source uploaded, played in the sandbox (known good: not validated, made active)
        source = open(importlib.util.find_spec(house_module(name)).origin, "rb").read()
        upload = inspect_upload(f"{name}.py", source)
        bot = Bot.objects.create(owner=owner, name=f"{name}-{i}")
        version = BotVersion.objects.create(
            bot=bot, number=1, sha256=upload.sha256, kind=upload.kind, filename=upload.filename,
            size=len(upload.content), status="active",
        )
        BotUpload.objects.create(version=version, content=upload.content)
    else:
        bot = Bot.objects.create(owner=owner, name=f"{name}-{i}", house_ref=f"house:{name}")
        BotVersion.objects.create(bot=bot, number=1, sha256=house_sha256(name), kind="house", status="active")
    bot.refresh_active_version()
    TournamentEntry.objects.create(tournament=tournament, bot=bot)
"""
START = "import django; django.setup(); from league.arena.tournaments import starting; starting.start(1)"


def wait_until(what: str, check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def kill_group(process: subprocess.Popen, how: int = signal.SIGKILL, timeout: float = 30.0) -> None:
    """Signal the process group `process` leads and wait until every process in it has ended, not only the leader:
    a PostgreSQL backend still exiting holds the cluster's shared memory, and a restart then refuses to start."""
    try:
        os.killpg(process.pid, how)
    except ProcessLookupError:
        pass
    process.wait()
    wait_until(f"process group {process.pid} to end", lambda: harness.group_gone(process.pid), timeout)


class Service(ABC):
    """A server of the drill's own on a port of its own: chosen at the first start, kept across restarts."""

    name = "the service"
    start_seconds = 60.0

    def __init__(self) -> None:
        self.port = harness.unused_port()
        self.process: subprocess.Popen | None = None
        self.started = False

    @abstractmethod
    def launch(self) -> subprocess.Popen:
        """Start the server on `self.port`."""

    @abstractmethod
    def ready(self) -> bool:
        """Whether the server on `self.port` answers."""

    @property
    @abstractmethod
    def log_path(self) -> Path:
        """Where the server writes its log."""

    def start(self) -> None:
        """Start the server and wait until it listens on its port and answers. At the first start a port taken
        meanwhile is chosen again; a restart keeps the port the league's workers know, and tries again while a
        server that exited at once is within its start time."""
        deadline = time.monotonic() + self.start_seconds
        for _ in range(5):
            self.process = self.launch()
            if harness.listens(self.process, self.port, self.start_seconds, self.ready):
                self.started = True
                return
            if not self.started:
                self.port = harness.unused_port()
            elif time.monotonic() > deadline:
                break
            else:
                time.sleep(1)
        raise RuntimeError(f"{self.name} could not listen on port {self.port}; its log ends:\n{self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError as error:
            return f"(no log: {error})"


class Postgres(Service):
    """A PostgreSQL cluster of our own, run as the postgres user when we are root (initdb refuses root).

    Its files live in a folder of their own under the system's temporary folder, which the postgres user can reach
    (a test's temporary folder sits below one private to root); `remove()` deletes it.
    """

    name = "PostgreSQL"

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="fault-drill-postgres-"))
        self.data = self.folder / "data"
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            self.folder.chmod(0o755)
            shutil.chown(self.folder, self.user, self.user)
        try:
            subprocess.run(
                [PG_BIN / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
                check=True,
                capture_output=True,
                user=self.user,
            )
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def url(self, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    @property
    def log_path(self) -> Path:
        return self.folder / "postgres.log"

    def launch(self) -> subprocess.Popen:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                [PG_BIN / "postgres", "-D", self.data, "-p", str(self.port), "-k", self.folder, "-h", "127.0.0.1",
                 "-c", "fsync=off", "-c", "max_connections=100"],
                stdout=log, stderr=subprocess.STDOUT, user=self.user, start_new_session=True,
            )  # fmt: skip

    def ready(self) -> bool:
        try:
            with psycopg.connect(self.url(), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def crash(self) -> None:
        """SIGKILL the postmaster and every backend at once, as a crash of its machine or container would."""
        assert self.process is not None
        kill_group(self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                kill_group(self.process)

    def execute(self, sql: str, database: str = "postgres") -> None:
        with psycopg.connect(self.url(database), autocommit=True) as connection:
            connection.execute(sql)


class Redis(Service):
    """A Redis of our own that keeps nothing on disk, so a restart comes back empty."""

    name = "Redis"
    start_seconds = 30.0

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log_path(self) -> Path:
        return self.folder / "redis.log"

    def launch(self) -> subprocess.Popen:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", self.folder],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip

    def ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def crash(self) -> None:
        assert self.process is not None
        kill_group(self.process)

    def stop(self) -> None:
        if self.process is not None:
            kill_group(self.process, signal.SIGTERM)


@dataclass
class Run:
    """One tournament: its time, what was stored, and the ratings by bot name."""

    name: str
    seconds: float
    load: float
    matches: dict[str, int]
    games_expected: int
    games_stored: int
    bad_matches: list[int]
    pair_games: int
    fitted_games: int
    ratings: dict[str, tuple[float, int, int, int]]
    charged: int  # matches charged a failure of their own (no drill's fault is a match's)
    logs: dict[str, str] = field(repr=False)
    trouble: list[str] = field(default_factory=list)  # what the fault itself found wrong (see Drill.trouble)
    # (the entrants in entry order, the match's seed, the game's index) -> (winner, termination, turns)
    games: dict[tuple[str, str, int], tuple[str, str, int]] = field(default_factory=dict, repr=False)

    def differences(self, clean: Run) -> list[str]:
        """What this run stored otherwise than the clean run of the same seeds: ratings, and game by game."""
        found = []
        if self.ratings != clean.ratings:
            found.append("ratings differ from the clean run's")
        differ = [key for key in clean.games.keys() | self.games.keys() if self.games.get(key) != clean.games.get(key)]
        if differ:
            key = sorted(differ)[0]
            found.append(
                f"{len(differ)} games differ from the clean run's, e.g. {key}: "
                f"{self.games.get(key)} against {clean.games.get(key)}"
            )
        return found

    def problems(self) -> list[str]:
        """What is wrong with this run by itself (the comparison with the clean run is the caller's)."""
        found = list(self.trouble)
        if self.charged:
            found.append(f"{self.charged} matches charged a failure of their own")
        if set(self.matches) != {"done"}:
            found.append(f"matches not all done: {self.matches}")
        if self.games_stored != self.games_expected or self.bad_matches:
            found.append(
                f"{self.games_stored} games stored for {self.games_expected} planned; "
                f"matches whose games are not exactly 0..n-1: {self.bad_matches[:10]}"
            )
        if self.pair_games != self.games_expected or self.fitted_games != self.games_expected:
            found.append(
                f"rated results count {self.pair_games} games, the ratings were fitted on {self.fitted_games}, "
                f"{self.games_expected} were played"
            )
        return found


class Drill:
    """The services, a migrated template database, and the worker processes of the current run."""

    def __init__(self, folder: Path, bots: int, games: int, house: str) -> None:
        self.folder, self.bots, self.games, self.house = folder, bots, games, house
        self.postgres = Postgres()
        self.redis = Redis(folder / "redis")
        self.processes: dict[str, subprocess.Popen] = {}
        self.database = ""
        self.runs = 0
        self.sandboxed = False  # this run's bots are uploads, played in the sandbox
        self.private_scratch: set[str] = set()  # the workers of this run started with a scratch space of their own
        self.trouble: list[str] = []  # what this run's fault found wrong (a fault that did not strike, say)

    def __enter__(self) -> Drill:
        try:
            (self.folder / "redis").mkdir(exist_ok=True)
            self.postgres.start()
            self.redis.start()
            self.postgres.execute("CREATE DATABASE drill_template")
            subprocess.run(
                [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                cwd=ROOT, env=self.env("drill_template"), check=True,
            )  # fmt: skip
        except BaseException:  # a failed start, or a signal meanwhile, stops what did start
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_league()
        self.redis.stop()
        self.postgres.stop()
        shutil.rmtree(self.postgres.folder, ignore_errors=True)

    def env(self, database: str) -> dict[str, str]:
        """The environment of every league process: this drill's services, production's settings, and the league's
        defaults otherwise."""
        ours = ("ARENA_", "CELERY_", "DATABASE_", "CACHE_", "DJANGO_", "API_", "LOG_", "SECRET_KEY", "DEBUG")
        env = {key: value for key, value in os.environ.items() if not key.startswith(ours)}
        env.update(
            PYTHONPATH=str(ROOT),
            DJANGO_SETTINGS_MODULE="league.settings",
            DATABASE_URL=self.postgres.url(database),
            CELERY_BROKER_URL=self.redis.url,
            ARENA_DATA_DIR=str(self.folder / f"var-{database}"),
            ARENA_QUEUE=QUEUE,
            ARENA_LADDER_MAX_PENDING="0",
            ARENA_SANDBOX="1" if self.sandboxed else "0",
            **harness.as_in_production(),
        )
        return env

    # --- the league's processes ---------------------------------------------------------------------------------

    def start_worker(self, name: str) -> None:
        command = worker_command(1, "--hostname", f"{name}@%h", "--queues", league_queues(QUEUE))
        env = None
        if name in self.private_scratch:
            mount = PRIVATE_SCRATCH_MOUNT.format(scratch=PRIVATE_SCRATCH)
            command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh", *command]
            env = {**self.env(self.database), "TMPDIR": PRIVATE_SCRATCH}
        self._start(name, command, env)

    def scratch_of(self, name: str) -> Path:
        """Where the host sees the private scratch space of the worker `name` (through its mount namespace)."""
        return Path(f"/proc/{self.processes[name].pid}/root{PRIVATE_SCRATCH}")

    def start_beat(self) -> None:
        schedule = self.folder / f"beat-{self.database}"
        command = [sys.executable, "-m", "celery", "-A", "league", "beat", "--loglevel", "INFO", "--schedule", schedule]
        self._start("beat", command)

    def _start(self, name: str, command: list, env: dict[str, str] | None = None) -> None:
        log = open(self.log_path(name), "ab")
        self.processes[name] = subprocess.Popen(
            command, cwd=ROOT, env=env or self.env(self.database), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        log.close()

    def log_path(self, name: str) -> Path:
        return self.folder / f"{self.database}-{name}.log"

    def database_outages_noticed(self) -> int:
        """How many times this run's workers have logged the database unavailable so far."""
        paths = [self.log_path(name) for name in self.processes if name.startswith("w")]
        return sum(path.read_bytes().count(b": database unavailable") for path in paths if path.exists())

    def wait_ready(self, name: str) -> None:
        process, path = self.processes[name], self.log_path(name)
        deadline = time.monotonic() + 90
        while b" ready." not in path.read_bytes()[-200_000:]:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker {name} did not start:\n{path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)

    def kill(self, name: str) -> None:
        kill_group(self.processes[name])

    def stop_league(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGQUIT)
        for process in self.processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                pass
            kill_group(process)

    # --- reading the database -------------------------------------------------------------------------------------

    def query(self, sql: str, *args: object) -> list[tuple]:
        with psycopg.connect(self.postgres.url(self.database), connect_timeout=2) as connection:
            return connection.execute(sql, args).fetchall()

    def done_share(self) -> float:
        ((done, total),) = self.query("SELECT count(*) FILTER (WHERE status = 'done'), count(*) FROM arena_match")
        return done / total if total else 0.0

    def settled(self) -> bool:
        """Finished, and the ratings fitted on every game (what a person looking at the site waits for)."""
        try:
            rows = self.query(
                "SELECT t.status, t.started_at, f.games, f.pending, f.claim_token IS NULL"
                " FROM arena_tournament t LEFT JOIN arena_ratingfit f ON f.game = t.game"
            )
        except psycopg.OperationalError:
            return False  # the database is down (the fault): ask again
        status, _, fitted, pending, unclaimed = rows[0]
        return status == "finished" and fitted == self.planned_games and not pending and unclaimed

    @property
    def planned_games(self) -> int:
        return self.bots * (self.bots - 1) * self.games

    def read_run(self, name: str, seconds: float, load: float) -> Run:
        matches = dict(self.query("SELECT status, count(*) FROM arena_match GROUP BY status"))
        bad = self.query(
            "SELECT m.id FROM arena_match m LEFT JOIN arena_game g ON g.match_id = m.id GROUP BY m.id"
            " HAVING count(g.id) <> m.games OR min(g.index) <> 0 OR max(g.index) <> m.games - 1"
            " OR count(DISTINCT g.index) <> count(g.id)"
        )
        ((stored,),) = self.query("SELECT count(*) FROM arena_game")
        ((charged,),) = self.query("SELECT count(*) FROM arena_match WHERE failures > 0")
        ((pairs,),) = self.query("SELECT coalesce(sum(first_wins + second_wins + draws), 0) FROM arena_pairresult")
        ((fitted,),) = self.query("SELECT coalesce(max(games), 0) FROM arena_ratingfit")
        ratings = {
            name: (round(elo, 6), games, wins, losses)
            for name, elo, games, wins, losses in self.query(
                "SELECT b.name, r.elo, r.games, r.wins, r.losses FROM arena_rating r"
                " JOIN arena_botversion v ON v.id = r.version_id JOIN arena_bot b ON b.id = v.bot_id"
            )
        }
        logs = {path.stem: path.read_text(errors="replace") for path in self.folder.glob(f"{self.database}-*.log")}
        games = {
            (entrants, seed, index): (winner or "", termination, turns)
            for entrants, seed, index, winner, termination, turns in self.query(
                "SELECT (SELECT string_agg(b.name, ',' ORDER BY e.index) FROM arena_matchentry e"
                "  JOIN arena_botversion v ON v.id = e.version_id JOIN arena_bot b ON b.id = v.bot_id"
                "  WHERE e.match_id = m.id),"
                " m.seed, g.index,"
                " (SELECT b.name FROM arena_gameseat s JOIN arena_botversion v ON v.id = s.version_id"
                "  JOIN arena_bot b ON b.id = v.bot_id WHERE s.game_id = g.id AND s.seat = g.winner_seat),"
                " g.termination, g.turns"
                " FROM arena_game g JOIN arena_match m ON m.id = g.match_id"
            )
        }
        return Run(
            name=name,
            seconds=seconds,
            load=load,
            matches=matches,
            games_expected=self.planned_games,
            games_stored=stored,
            bad_matches=[pk for (pk,) in bad],
            pair_games=int(pairs),
            fitted_games=fitted,
            ratings=ratings,
            charged=charged,
            logs=logs,
            games=games,
            trouble=list(self.trouble),
        )

    # --- one run ----------------------------------------------------------------------------------------------

    def run(
        self,
        name: str,
        fault: Callable[[Drill], None] | None,
        timeout: float = 600,
        workers: tuple[str, ...] = ("w1", "w2"),
        sandboxed: bool = False,
    ) -> Run:
        """The tournament from a fresh database, with `fault` injected once FAULT_AT of its matches are done;
        `sandboxed`: its bots are uploads, played in the sandbox."""
        self.runs += 1
        self.database = f"drill_{self.runs}_{name.replace('-', '_')}"
        self.sandboxed, self.trouble = sandboxed, []
        self.private_scratch = set(PRIVATE_SCRATCH_WORKERS.get(name, ()))
        self.postgres.execute(f"CREATE DATABASE {self.database} TEMPLATE drill_template")
        subprocess.run(
            [sys.executable, "-c", SETUP, self.house, str(self.bots), str(self.games), "1" if sandboxed else "0"],
            cwd=ROOT, env=self.env(self.database), check=True,
        )  # fmt: skip
        self.processes = {}
        try:
            for worker in workers:
                self.start_worker(worker)
            self.start_beat()
            for worker in workers:
                self.wait_ready(worker)
            load = os.getloadavg()[0]
            if name in BEFORE_START:
                BEFORE_START[name](self)
            subprocess.run([sys.executable, "-c", START], cwd=ROOT, env=self.env(self.database), check=True)
            ((started,),) = self.query("SELECT extract(epoch FROM started_at) FROM arena_tournament")
            deadline = time.monotonic() + timeout
            if fault is not None:
                share = FAULT_AT_SHARE.get(name, FAULT_AT)
                wait_until(f"{share:.0%} of the matches", lambda: self.done_share() >= share, timeout)
                fault(self)
            wait_until(
                "the tournament to finish and its ratings to be fitted", self.settled, deadline - time.monotonic()
            )
            # Settled when both the tournament's finish and the covering fit were committed (by their own stamps: a
            # fault that still watches the workers after the end, full-scratch's recovery, say, does not count).
            ((settled,),) = self.query(
                "SELECT extract(epoch FROM greatest(t.finished_at, f.fitted_at))"
                " FROM arena_tournament t JOIN arena_ratingfit f ON f.game = t.game"
            )
            seconds = float(settled) - float(started)
            load = max(load, os.getloadavg()[0])
        finally:
            self.stop_league()
        return self.read_run(name, seconds, load)


# --- the faults -----------------------------------------------------------------------------------------------


def pool_processes(drill: Drill, name: str) -> set[int]:
    worker = drill.processes[name]
    return {pid for pid in harness.process_tree(worker.pid) if pid != worker.pid}


def wait_playing(drill: Drill, name: str) -> int:
    """The pid of a pool process of `name` that is playing a match, once one is."""
    found: list[int] = []

    def playing() -> bool:
        found[:] = playing_pool_processes(drill, name)
        return bool(found)

    wait_until(f"{name} to be playing a match", playing, 60)
    return found[0]


def playing_pool_processes(drill: Drill, name: str) -> list[int]:
    """The pool processes of `name` that hold a running match's claim."""
    pool = {str(pid): pid for pid in pool_processes(drill, name)}
    claims = drill.query("SELECT claimed_by FROM arena_match WHERE status = 'running'")
    return [pool[pid] for (claimed,) in claims if (pid := claimed.rpartition(":")[2]) in pool]


def kill_worker(drill: Drill) -> None:
    """SIGKILL w1's whole process group while one of its pool processes plays a match; start it again 2 s later.

    A match may take a tenth of a second, so the group is frozen (SIGSTOP) first and killed only if one of its pool
    processes still holds a running match then; else it goes on and the next match is aimed at."""
    group = drill.processes["w1"].pid
    deadline = time.monotonic() + 60
    while True:
        wait_playing(drill, "w1")
        os.killpg(group, signal.SIGSTOP)
        if playing_pool_processes(drill, "w1"):
            break
        os.killpg(group, signal.SIGCONT)
        if time.monotonic() > deadline:
            raise SystemExit("w1 never held a running match when frozen")
    drill.kill("w1")
    time.sleep(SUPERVISOR_DELAY)
    drill.start_worker("w1")


def kill_pool_process(drill: Drill) -> None:
    """SIGKILL only the pool process of w1 that plays a match: Celery starts another, the match is played again."""
    os.kill(wait_playing(drill, "w1"), signal.SIGKILL)


def freeze_worker(drill: Drill) -> None:
    """SIGSTOP w1's whole process group mid-match for longer than a lease, then SIGCONT: it must store nothing stale
    and charge no bot for the stall (the match is played again elsewhere)."""
    wait_playing(drill, "w1")
    group = drill.processes["w1"].pid
    os.killpg(group, signal.SIGSTOP)
    time.sleep(FREEZE_SECONDS)
    os.killpg(group, signal.SIGCONT)


def kill_refit_worker(drill: Drill) -> None:
    """SIGKILL the worker whose pool process holds the ladder's refit claim, mid-refit; start it again 2 s later.

    The claim row names its holder (node:pid). The worker is frozen (SIGSTOP) first and killed only if the claim is
    still held then, so the kill lands inside the refit; a refit that ended meanwhile lets the worker go on, and the
    next is aimed at. The refit must not be lost: the ratings must end equal to the clean run's."""
    with psycopg.connect(drill.postgres.url(drill.database), autocommit=True) as connection:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            held = connection.execute(
                "SELECT claim_token, claimed_by FROM arena_ratingfit WHERE claim_token IS NOT NULL"
            ).fetchone()
            if held is not None:
                token, claimant = held
                pid = int(claimant.rpartition(":")[2])
                name = next((name for name in ("w1", "w2") if pid in pool_processes(drill, name)), None)
                if name is not None:
                    group = drill.processes[name].pid
                    os.killpg(group, signal.SIGSTOP)
                    still = connection.execute("SELECT 1 FROM arena_ratingfit WHERE claim_token = %s", (token,))
                    if still.fetchone() is not None:
                        drill.kill(name)
                        time.sleep(SUPERVISOR_DELAY)
                        drill.start_worker(name)
                        return
                    os.killpg(group, signal.SIGCONT)
            time.sleep(0.002)
    raise RuntimeError("no refit was caught holding its claim within 120 s")


def fill_scratch(drill: Drill) -> None:
    """Fill w1's scratch space, its blocks and then its inodes, before the tournament starts."""
    filler = drill.scratch_of("w1") / "filler"
    filler.mkdir()
    try:
        with open(filler / "blocks", "wb") as out:
            while True:
                out.write(b"\0" * (1 << 20))
                out.flush()
    except OSError:
        pass
    try:
        for i in range(1_000_000):
            (filler / f"inode-{i}").touch()
    except OSError:
        pass


def full_scratch(drill: Drill) -> None:
    """With w1's scratch space full from the start (`fill_scratch`), every sandboxed run of w1 fails with ENOSPC: w1
    must hand each match back uncounted, report itself sick and stop taking matches; once half the matches are done
    the space is freed, and w1 must report itself well and play again."""
    filler = drill.scratch_of("w1") / "filler"

    def health() -> tuple[bool, str] | None:
        rows = drill.query("SELECT sick, reason FROM arena_workerhealth WHERE name LIKE 'w1@%%'")
        return rows[0] if rows else None

    def played_by_w1() -> int:
        ((count,),) = drill.query("SELECT count(*) FROM arena_match WHERE status = 'done' AND claimed_by LIKE 'w1@%%'")
        return count

    try:
        wait_until("w1 to report itself sick", lambda: (health() or (False,))[0], 60)
    except RuntimeError as error:
        drill.trouble.append(f"the full scratch did not strike: {error}")
    before = played_by_w1()
    wait_until("half the matches", lambda: drill.done_share() >= 0.5, 600)
    shutil.rmtree(filler)
    try:
        wait_until("w1 to report itself well", lambda: not (health() or (True,))[0], 30)
        wait_until("w1 to play a match again", lambda: played_by_w1() > before or drill.done_share() == 1, 60)
    except RuntimeError as error:
        drill.trouble.append(f"w1 did not recover: {error}")


def restart_redis(drill: Drill) -> None:
    """Redis killed and started again empty: every queued message, and the task messages in flight, are gone."""
    drill.redis.crash()
    drill.redis.start()


def crash_postgres(drill: Drill) -> None:
    """The postmaster and its backends SIGKILLed, then started again (crash recovery replays the WAL) once a worker
    has found it gone, or after POSTGRES_DOWN_SECONDS: restarted at once, it may be back before any task touched it
    (workers slowed down by a busy machine play on without a query for a while), and then the drill shows nothing
    surviving the crash."""
    noticed = drill.database_outages_noticed()
    drill.postgres.crash()
    deadline = time.monotonic() + POSTGRES_DOWN_SECONDS
    while drill.database_outages_noticed() == noticed and time.monotonic() < deadline:
        time.sleep(0.1)
    drill.postgres.start()


def workers_down(drill: Drill) -> None:
    """Both workers killed, and started again a minute later."""
    drill.kill("w1")
    drill.kill("w2")
    time.sleep(WORKERS_DOWN_SECONDS)
    drill.start_worker("w1")
    drill.start_worker("w2")


# The faults tests/faults/test_faults.py drills too (what must hold at any speed, not the time budgets).
FAULTS: dict[str, Callable[[Drill], None]] = {
    "kill-worker": kill_worker,
    "restart-redis": restart_redis,
    "crash-postgres": crash_postgres,
    "workers-down": workers_down,
}
# The bench drills these too.
DRILLS: dict[str, Callable[[Drill], None]] = {
    **FAULTS,
    "kill-early": kill_worker,  # at 5%: the killed match waits behind nearly the whole tournament unless it jumps it
    "kill-pool-process": kill_pool_process,
    "freeze-worker": freeze_worker,
    "redis-at-the-tail": restart_redis,
    "kill-refit-worker": kill_refit_worker,
    "full-scratch": full_scratch,
}
FAULT_AT_SHARE = {"kill-early": 0.05, "redis-at-the-tail": 0.9, "full-scratch": 0.0}
# Drills played by uploads in the sandbox, compared with (and timed against) a clean sandboxed run on w2 alone.
SANDBOXED = {"full-scratch"}
PRIVATE_SCRATCH_WORKERS = {"full-scratch": ("w1",)}
BEFORE_START = {"full-scratch": fill_scratch}  # what a drill does to its workers before the tournament starts


def budget(fault: str, clean: float) -> float:
    """The most a run with `fault` may take (issue 21): 1.3x the clean run (a sandboxed drill's: the clean sandboxed
    run on w2 alone); with both workers away, the clean run plus the time they are away plus 10 s."""
    if fault == "workers-down":
        return clean + WORKERS_DOWN_SECONDS + 10.0
    return 1.3 * clean


def capacity_floor(fault: str, clean: float) -> float | None:
    """The least a run with `fault` can take for want of workers, as a share of the clean run, where the fault takes
    a worker away without its work being lost: freezing one of the 2 single-process workers for FREEZE_SECONDS
    leaves half the league's processes for that long, so the tournament needs about FREEZE_SECONDS / 2 more (when
    the clean run keeps both processes busy, as it does). None for the other faults."""
    if fault == "freeze-worker":
        return 1 + FREEZE_SECONDS / 2 / clean
    return None


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def stop_cleanly_on_signals() -> None:
    """SIGTERM, SIGHUP and SIGINT end the drill through its clean-up, as an error would: the workers, the beat, Redis
    and PostgreSQL are stopped and the folders removed (each runs in a session of its own, so no signal sent to the
    drill's terminal or process group reaches them, and without this they were left running). A second signal during
    the clean-up is ignored, so as not to cut it short."""

    def stop(number: int, _frame: object) -> None:
        for ignored in STOP_SIGNALS:
            signal.signal(ignored, signal.SIG_IGN)
        raise SystemExit(f"stopped by {signal.Signals(number).name}; the drill's processes and folders are removed")

    for number in STOP_SIGNALS:
        signal.signal(number, stop)


def main() -> None:
    stop_cleanly_on_signals()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--faults", default=",".join(DRILLS), help="comma-separated, from: " + ", ".join(DRILLS))
    parser.add_argument("--bots", type=int, default=15, help="tournament entrants (double round robin)")
    parser.add_argument("--games", type=int, default=60, help="games per pairing")
    parser.add_argument("--house", default="random,greedy", help="house bots the entrants are copies of")
    parser.add_argument("--keep", help="a folder to keep the databases' files and the processes' logs in")
    args = parser.parse_args()
    faults = [name for name in args.faults.split(",") if name]
    unknown = set(faults) - set(DRILLS)
    if unknown:
        raise SystemExit(f"unknown faults: {', '.join(sorted(unknown))}; known: {', '.join(DRILLS)}")
    with tempfile.TemporaryDirectory(prefix="fault-drill-") as temporary:
        folder = Path(args.keep or temporary)
        folder.mkdir(parents=True, exist_ok=True)
        report(Drill(folder, args.bots, args.games, args.house), faults)


def report(drill: Drill, faults: list[str]) -> None:
    """The clean run, then each fault, one line each: PASS only with every check ok and the time within budget."""
    with drill:
        clean = drill.run("clean", None)
        matches = sum(clean.matches.values())
        print(f"{matches} matches, {clean.games_expected} games, 2 workers of 1 process each; load {harness.loadavg()}")
        print(
            "clock: from the tournament's start (its started_at; workers and beat up) until every match is stored "
            "and a committed refit covers its games (the later of the tournament's finished_at and the fit's "
            "fitted_at); a run passes with every check ok (every match stored once, every game equal to the clean "
            "run's, ratings equal, no match charged a failure) within its budget (1.3x the clean run, a sandboxed "
            "drill's: the clean sandboxed run on w2 alone; both workers away: clean + away + 10 s)"
        )
        print(f"      {'run':18} {'seconds':>8} {'ratio':>6} {'budget':>7}  load  checks")
        checks = "; ".join(clean.problems()) or "ok"
        print(
            f"{harness.verdict(not clean.problems())}  {'clean':18} {clean.seconds:8.1f} {1:6.2f} {'':>7}  "
            f"{clean.load:4.2f}  {checks}",
            flush=True,
        )
        alone = None  # the clean sandboxed run on w2 alone: what the sandboxed drills are compared with and timed by
        for name in faults:
            base = clean
            if name in SANDBOXED:
                if alone is None:
                    alone = drill.run("clean-w2-sandboxed", None, workers=("w2",), sandboxed=True)
                    checks = "; ".join(alone.problems()) or "ok"
                    print(
                        f"{harness.verdict(not alone.problems())}  {'clean-w2-sandboxed':18} {alone.seconds:8.1f} "
                        f"{alone.seconds / clean.seconds:6.2f} {'':>7}  {alone.load:4.2f}  {checks} "
                        "(the sandboxed drills' clean run: uploads, on w2 alone)",
                        flush=True,
                    )
                base = alone
            run = drill.run(name, DRILLS[name], sandboxed=name in SANDBOXED)
            limit = budget(name, base.seconds)
            problems = run.problems() + run.differences(base)
            if run.seconds > limit:
                problems.append(f"missed its time budget ({run.seconds:.1f} s > {limit:.1f} s)")
            floor = capacity_floor(name, base.seconds)
            note = "" if floor is None else f" (its floor: {floor:.2f}x, half the workers away {FREEZE_SECONDS:.0f} s)"
            print(
                f"{harness.verdict(not problems)}  {name:18} {run.seconds:8.1f} "
                f"{run.seconds / base.seconds:6.2f} {limit:7.1f}  {run.load:4.2f}  {'; '.join(problems) or 'ok'}{note}",
                flush=True,
            )


if __name__ == "__main__":
    main()
