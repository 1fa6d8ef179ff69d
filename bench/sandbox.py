"""Sandbox benchmarks for issue 3: start-up latency, turn round trip, and match throughput.

    python -m bench.sandbox                  # all three, at the issue's sizes
    python -m bench.sandbox --only startup   # sandbox start to first reply (bar: <= 100 ms)
    python -m bench.sandbox --only roundtrip # median turn round trip, bot thinking excluded (bar: <= 200 us)
    python -m bench.sandbox --only match     # sandboxed vs in-process greedy games/s (bar: >= 25 %)
    python -m bench.sandbox --only boot      # a match's two sandboxes: launched together, started, closed
    python -m bench.sandbox --only tripcpu   # CPU per round trip, runner and sandbox, beside a bare pipe's
    python -m bench.sandbox --only think     # the same for bots that think 0, 50 and 200 us a turn
    python -m bench.sandbox --only pairs     # CPU per game of each house pairing, sandboxed and in-process
    python -m bench.sandbox --only respawn   # a bot started over in its sandbox: CPU and page faults, by process
    python -m bench.sandbox --json           # the figures as JSON
    python -m bench.sandbox --one-cpu        # on one CPU, as a worker pool process plays (ARENA_WORKER_ONE_CPU)
    python -m bench.sandbox --monitors       # the fork server joins each sandbox through a monitor, as on a host
                                             # that gives it no user namespace of its own (for comparison)

Start-up is timed from SandboxedPlayer.start() (bwrap spawned) to the harness's reply to hello, with the bot
imported; the first start of the process is a warm-up and not counted (it builds the seccomp program and
compiles the harness once per runner process). The boot figure is what every match pays whatever its length:
its two bots' sandboxes launched together (as the match runner does), both started, both closed (killed and
reaped), in wall time and in CPU time of the runner and of the sandboxes. The round trip uses a bot that
answers at once with a real Face to Face observation, so what is measured is the runner, the pipes and the
harness: the runner's whole play() call, encoding, writing and waking included (the part the time control
counts against the bot, from the wake-up on, is printed beside it). The CPU per round trip (runner and
sandbox, boot subtracted) is set beside the same exchange between two bare processes over pipes, which is
the floor any two-process design pays, and beside that exchange with the sandbox's stop (the child stops itself
after each reply, the parent checks it in /proc and on its CPU clock and continues it, as pause.py does): the
floor of a stop that stays a stop, before any harness or runner code; and beside the sandbox's own harness, with
the same bot, run in a plain child process and driven so, with the runner's requests: what the harness's code
costs on top of the stop. What is left between that and the sandboxed figure is not the sandbox's making (its
seccomp filter, cgroups and namespaces, each taken away in turn, moved nothing beyond the noise): the runner's own
work between two trips leaves the harness's caches colder than this bare driver does. The match
compares two sandboxed greedy bots with the same two bots in this process, same seeds, in one run.
The think figure repeats the CPU per round trip for bots that spin a while before answering: on a loaded
machine the runner and the sandbox lose their caches to other processes while they wait, so a round trip costs
more CPU the longer the bot thinks (a cost the in-process player never pays). The pairs figure splits a
match's CPU per game into the runner's and the sandboxes' for each pairing of house bots (the league bench's
mix), sandboxed (uploaded copies) and in-process, with the turns per game: where a sandboxed game's CPU goes.
The respawn figure is what a fair duplicate match pays four times (each bot's new harness at the match's start, in a
kept sandbox, and again at its mirror half): the greedy bot started over in its sandbox (`forget`) and asked for one
turn, per start: CPU of the runner, of the fork server and of the harness (its start, its turn, its end), and the
page faults of the fork server and the harness, nearly all of them copy-on-write copies of the fork server's memory
that the two processes write after the fork (a CPython object's reference count is written whenever it is used).
Beside it, the wall time of starts 50 ms apart, as a match spaces them: where cgroups are used and no cgroup mount
has `favordynmods`, each such start waits for an RCU grace period to move the bot into its cgroups
(docs/operators.md).
With --one-cpu the bench keeps itself, and so its sandboxes and the bare processes, on one CPU under SCHED_BATCH,
as a worker pool process with ARENA_WORKER_ONE_CPU plays its matches (bots/sandbox/scheduling.py): without it, a
turn's two hand-offs may cross CPUs, which on a virtual machine costs more than the rest of the exchange (the bare
processes' round trip here: about 55 us of CPU across CPUs, 5 us on one).
The machine's load is printed too: on a shared machine the figures move with it. Each of issue 3's bars is
judged PASS or MISS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import signal
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import games
from bench import harness
from bots import protocol
from bots.match import BotSpec, MatchSpec, TimeControl, run_match
from bots.sandbox import SandboxedPlayer, cgroups, forkserver, pause, scheduling
from bots.sandbox import harness as sandbox_harness
from bots.sandbox.player import HELLO

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "bots" / "house" / "greedy.py"
RANDOM = REPO / "bots" / "house" / "random_bot.py"
STARTUP_BAR_MS = 100  # issue 3's bars
ROUNDTRIP_BAR_US = 200
MATCH_BAR = 0.25
INSTANT_BOT = "TURN = {'plays': []}\n\ndef play(observation):\n    return TURN\n"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_startup(bot: Path, starts: int) -> dict[str, float]:
    warm = SandboxedPlayer(bot)
    warm.start(10)
    warm.close()
    timings = []
    for _ in range(starts):
        player = SandboxedPlayer(bot)
        started = time.perf_counter()
        player.start(10)
        timings.append(time.perf_counter() - started)
        player.close()
    return {
        "starts": starts,
        "median_ms": statistics.median(timings) * 1e3,
        "p90_ms": percentile(timings, 0.9) * 1e3,
        "min_ms": min(timings) * 1e3,
    }


def bench_boot(bots: list[Path], matches: int) -> dict[str, float]:
    warm = SandboxedPlayer(bots[0])
    warm.start(10)
    warm.close()
    boots, closes = [], []
    cpu_before, children_before = time.process_time(), _sandboxes_cpu()
    for _ in range(matches):
        players = [SandboxedPlayer(bot) for bot in bots]
        started = time.perf_counter()
        for player in players:
            player.launch(10)
        for player in players:
            player.boot()
        for player in players:
            player.start(10)
        booted = time.perf_counter()
        for player in players:
            player.close()
        boots.append(booted - started)
        closes.append(time.perf_counter() - booted)
    sandbox_cpu = _sandboxes_cpu() - children_before
    return {
        "matches": matches,
        "start_median_ms": statistics.median(boots) * 1e3,
        "close_median_ms": statistics.median(closes) * 1e3,
        "runner_cpu_ms": (time.process_time() - cpu_before) / matches * 1e3,
        "sandbox_cpu_ms": sandbox_cpu / matches * 1e3,
    }


def sample_observations(count: int) -> list[dict]:
    """Observations from real Face to Face games between greedy bots, mid-game sizes included."""
    from bots.house import load_house_bot

    observations: list[dict] = []
    game = 0
    while len(observations) < count:
        state = games.new_game("face-to-face", seed=f"bench-{game}")
        bots = [load_house_bot("greedy"), load_house_bot("greedy")]
        while state.outcome is None and len(observations) < count:
            observation = state.observation(state.to_move)
            observations.append(observation)
            state.push(games.Turn.from_json(bots[state.to_move].play(observation)))
        game += 1
    return observations


def bench_roundtrip(bot: Path, turns: int) -> dict[str, float]:
    """The runner's whole `play` call, as a match makes it (encoding the observation, writing it, waking the
    stopped harness, the bot's reply, reading and decoding it, waiting for the harness to stop again); and the
    part of it the time control counts against the bot (from the wake-up on)."""
    observations = sample_observations(min(turns, 500))
    whole, counted = [], []
    with SandboxedPlayer(bot) as player:
        player.start(10)
        player.new_game({"game": "face-to-face", "players": 2, "seat": 0, "seed": 0, "options": {}}, 5)
        for index in range(turns):
            observation = observations[index % len(observations)]
            began = time.perf_counter()
            _, elapsed = player.play(observation, 5)
            whole.append(time.perf_counter() - began)
            counted.append(elapsed)
    return {
        "turns": turns,
        "median_us": statistics.median(whole) * 1e6,
        "p90_us": percentile(whole, 0.9) * 1e6,
        "counted_median_us": statistics.median(counted) * 1e6,
        "observation_bytes": statistics.median(len(json.dumps(obs)) for obs in observations),
    }


def _cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _sandboxed_trips(bot: Path, observations: list[dict], turns: int) -> tuple[float, float]:
    """(runner, sandbox) CPU seconds of one sandbox's start, `turns` round trips and close."""
    runner, children = _cpu_seconds(resource.RUSAGE_SELF), _sandboxes_cpu()
    with SandboxedPlayer(bot) as player:
        player.start(10)
        for index in range(turns):
            player.play(observations[index % len(observations)], 5)
    return _cpu_seconds(resource.RUSAGE_SELF) - runner, _sandboxes_cpu() - children


def _sandboxes_cpu() -> float:
    """CPU seconds of every sandbox so far: bwrap (the fork server's launcher's child) and the harness (the fork
    server's), counted in their parent's children's time once reaped, which each does at once: awaited here, up to a
    second."""
    servers = forkserver.running_servers()
    deadline = time.monotonic() + 1
    while any(len(harness.process_tree(server.process.pid)) > 2 for server in servers):  # itself and its launcher
        if time.monotonic() > deadline:
            break  # a sandbox still running: its CPU counts once it is reaped
        time.sleep(0.001)
    return sum(server.cpu_seconds() for server in servers)


def _bare_trips(request: bytes, reply: bytes, turns: int, stopping: bool = False) -> tuple[float, float]:
    """(parent, child) CPU seconds of `turns` request/reply exchanges between two processes over pipes,
    the parent waiting as the runner does (poll, then read). `stopping`: the child stops itself after each reply,
    and the parent checks it as the runner checks a sandbox (pause.py: its state in /proc and its CPU clock once
    it has replied, the clock again and SIGCONT with the next request), so that the difference is the price of a
    stop that stays a stop, before any harness or runner code."""

    def answer(from_parent: int, to_parent: int) -> int:
        while os.read(from_parent, 1 << 16):
            os.write(to_parent, reply)
            if stopping:
                os.kill(os.getpid(), signal.SIGSTOP)
        return 0

    return _exchange(answer, [request], turns, stopping)


def _unsandboxed_harness_trips(bot: Path, observations: list[dict], turns: int) -> tuple[float, float]:
    """(parent, child) CPU seconds of `turns` play requests, as the runner encodes them, to the sandbox's own harness
    with `bot` loaded, run in a plain child process (no bwrap, seccomp or cgroup), which stops itself after each
    reply and is checked and continued as a sandbox is: the harness's own code on top of the stop, driven by a loop
    that, unlike the runner, does nothing else between two trips."""
    requests = [protocol.encode_request({"type": "play", "observation": observation}) for observation in observations]

    def serve(from_parent: int, to_parent: int) -> int:
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, f"{sandbox_harness.BOT_MODULE}.py").write_text(bot.read_text())
            return sandbox_harness.serve(folder, [], from_parent, to_parent, protocol)

    return _exchange(serve, requests, turns, stopping=True, opening=[protocol.encode_request(HELLO)])


def _exchange(
    child: Callable[[int, int], int], requests: list[bytes], turns: int, stopping: bool, opening: Sequence[bytes] = ()
) -> tuple[float, float]:
    """(parent, child) CPU seconds of `turns` exchanges (`requests` in turn) with a forked process running `child`
    on its ends of two pipes, the parent timed from after the `opening` exchanges (a harness announces itself first)."""
    to_child, from_parent = os.pipe()
    from_child, to_parent = os.pipe()
    children = _cpu_seconds(resource.RUSAGE_CHILDREN)
    pid = os.fork()
    if pid == 0:
        os.close(from_parent)
        os.close(from_child)
        os._exit(child(to_child, to_parent))
    os.close(to_child)
    os.close(to_parent)
    pidfd = os.pidfd_open(pid)
    stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    clock = pause.cpu_clock(pid)
    poller = select.poll()
    poller.register(from_child, select.POLLIN)
    if opening:
        poller.poll(5000)
        os.read(from_child, 1 << 16)  # the announcement, unprompted and not followed by a stop
    held = False  # the child has stopped and awaits SIGCONT with the next request
    sequence = [*opening, *(requests[index % len(requests)] for index in range(turns))]
    started = _cpu_seconds(resource.RUSAGE_SELF)
    for turn, request in enumerate(sequence):
        if turn == len(opening):
            started = _cpu_seconds(resource.RUSAGE_SELF)
        os.write(from_parent, request)
        if held:
            pause.cpu_ns(clock)  # the runner's check that it stayed stopped, before it continues it
            pause.resume(pidfd)
        poller.poll(5000)
        os.read(from_child, 1 << 16)
        if stopping:
            while not pause.stopped_alone(stat_fd):
                os.sched_yield()
            pause.cpu_ns(clock)
            held = True
    parent = _cpu_seconds(resource.RUSAGE_SELF) - started
    os.close(from_parent)
    if held:
        pause.resume(pidfd)  # to read the end of its pipe
    os.waitpid(pid, 0)
    for fd in (from_child, pidfd, stat_fd):
        os.close(fd)
    return parent, _cpu_seconds(resource.RUSAGE_CHILDREN) - children


def bench_trip_cpu(bot: Path, turns: int, repeats: int = 3) -> dict[str, float]:
    observations = sample_observations(min(turns, 500))
    _sandboxed_trips(bot, observations, 1)  # warm-up: seccomp program and harness compiled once per process
    runner, sandbox, bare_parent, bare_child, stopping_parent, stopping_child = [], [], [], [], [], []
    unsandboxed_parent, unsandboxed_harness = [], []
    request = (json.dumps({"type": "play", "observation": observations[len(observations) // 2]}) + "\n").encode()
    for _ in range(repeats):
        boot_runner, boot_sandbox = _sandboxed_trips(bot, observations, 0)
        total_runner, total_sandbox = _sandboxed_trips(bot, observations, turns)
        runner.append((total_runner - boot_runner) / turns)
        sandbox.append((total_sandbox - boot_sandbox) / turns)
        reply = b'{"type":"turn","turn":{"plays":[]}}\n'
        parent, child = _bare_trips(request, reply, turns)
        bare_parent.append(parent / turns)
        bare_child.append(child / turns)
        parent, child = _bare_trips(request, reply, turns, stopping=True)
        stopping_parent.append(parent / turns)
        stopping_child.append(child / turns)
        parent, child = _unsandboxed_harness_trips(bot, observations, turns)
        unsandboxed_parent.append(parent / turns)
        unsandboxed_harness.append(child / turns)
    return {
        "turns": turns,
        "repeats": repeats,
        "runner_us": statistics.median(runner) * 1e6,
        "sandbox_us": statistics.median(sandbox) * 1e6,
        "bare_parent_us": statistics.median(bare_parent) * 1e6,
        "bare_child_us": statistics.median(bare_child) * 1e6,
        "bare_stopping_parent_us": statistics.median(stopping_parent) * 1e6,
        "bare_stopping_child_us": statistics.median(stopping_child) * 1e6,
        "unsandboxed_parent_us": statistics.median(unsandboxed_parent) * 1e6,
        "unsandboxed_harness_us": statistics.median(unsandboxed_harness) * 1e6,
    }


def thinking_bot(seconds: float) -> str:
    """A bot that spins `seconds` of CPU before each (empty) turn."""
    return (
        "import time\nTURN = {'plays': []}\n\ndef play(observation):\n"
        f"    until = time.perf_counter() + {seconds!r}\n    while time.perf_counter() < until:\n        pass\n"
        "    return TURN\n"
    )


def bench_think(folder: Path, turns: int) -> dict[str, dict[str, float]]:
    figures = {}
    for micros in (0, 50, 200):
        bot = folder / f"think_{micros}.py"
        bot.write_text(thinking_bot(micros / 1e6))
        figures[str(micros)] = bench_trip_cpu(bot, turns, repeats=1)
    return figures


def bench_pairs(game_count: int) -> dict[str, dict[str, float]]:
    figures = {}
    for first, second in (("greedy", "greedy"), ("random", "random"), ("greedy", "random")):
        row: dict[str, float] = {}
        for sandbox in (False, True):
            files = {"greedy": GREEDY, "random": RANDOM}
            bots = [BotSpec(str(files[name]) if sandbox else f"house:{name}") for name in (first, second)]
            spec = MatchSpec(
                "face-to-face", bots, games=game_count, seed="bench-pairs", duplicate=True, sandbox=sandbox
            )
            runner, children = _cpu_seconds(resource.RUSAGE_SELF), _sandboxes_cpu()
            result = run_match(spec)
            mode = "sandboxed" if sandbox else "in_process"
            row[f"{mode}_runner_ms"] = (_cpu_seconds(resource.RUSAGE_SELF) - runner) / game_count * 1e3
            row[f"{mode}_sandbox_ms"] = (_sandboxes_cpu() - children) / game_count * 1e3
            row["turns"] = sum(game.turns for game in result.games) / game_count
        figures[f"{first}-{second}"] = row
    return figures


def _fork_server_counts() -> tuple[int, float, int, float]:
    """(page faults, CPU seconds) of this process's fork servers and then of what they have reaped (the harnesses),
    so far, from /proc (CPU in clock ticks)."""
    faults = cpu = child_faults = child_cpu = 0
    for server in forkserver.running_servers():
        fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        faults, child_faults = faults + int(fields[7]), child_faults + int(fields[8])  # minflt, cminflt
        cpu, child_cpu = cpu + int(fields[11]) + int(fields[12]), child_cpu + int(fields[13]) + int(fields[14])
    ticks = os.sysconf("SC_CLK_TCK")
    return faults, cpu / ticks, child_faults, child_cpu / ticks


RESPAWN_GAP_SECONDS = 0.05  # between two starts of the spaced figure: what a match's games put between its starts


def bench_respawn(bot: Path, starts: int) -> dict[str, float]:
    observation = sample_observations(1)[0]
    with SandboxedPlayer(bot) as player:
        player.start(10)
        player.play(observation, 5)
        faults, cpu, child_faults, child_cpu = _fork_server_counts()
        runner, began = time.process_time(), time.perf_counter()
        for _ in range(starts):
            player.forget()
            player.play(observation, 5)
        wall, runner = time.perf_counter() - began, time.process_time() - runner
        faults_after, cpu_after, child_faults_after, child_cpu_after = _fork_server_counts()
        spaced = []
        for _ in range(max(1, starts // 10)):
            time.sleep(RESPAWN_GAP_SECONDS)
            began = time.perf_counter()
            player.forget()
            player.play(observation, 5)
            spaced.append(time.perf_counter() - began)
    return {
        "starts": starts,
        "wall_ms": wall / starts * 1e3,
        "spaced_starts": len(spaced),
        "spaced_wall_median_ms": statistics.median(spaced) * 1e3,
        "cgroups_favor_moves": cgroups.favors_moves(),
        "runner_cpu_ms": runner / starts * 1e3,
        "fork_server_cpu_ms": (cpu_after - cpu) / starts * 1e3,
        "harness_cpu_ms": (child_cpu_after - child_cpu) / starts * 1e3,
        "fork_server_faults": (faults_after - faults) / starts,
        "harness_faults": (child_faults_after - child_faults) / starts,
    }


def bench_match(game_count: int) -> dict[str, float]:
    def games_per_second(sandbox: bool) -> float:
        spec = MatchSpec(
            game="face-to-face",
            bots=[BotSpec(str(GREEDY), name="greedy-a"), BotSpec(str(GREEDY), name="greedy-b")],
            games=game_count,
            seed="bench-sandbox",
            time_control=TimeControl(turn=5.0, bank=10.0, startup=10.0),
            sandbox=sandbox,
        )
        started = time.perf_counter()
        result = run_match(spec)
        return len(result.games) / (time.perf_counter() - started)

    in_process = games_per_second(sandbox=False)
    sandboxed = games_per_second(sandbox=True)
    return {
        "games": game_count,
        "in_process_games_per_s": in_process,
        "sandboxed_games_per_s": sandboxed,
        "ratio": sandboxed / in_process,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", choices=["startup", "boot", "respawn", "roundtrip", "tripcpu", "think", "pairs", "match"]
    )
    parser.add_argument("--starts", type=int, default=30, help="--only respawn: ten times as many")
    parser.add_argument("--matches", type=int, default=20, help="--only boot: matches' worth of sandboxes")
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--games", type=int, default=200, help="--only match; --only pairs: a tenth of it")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one-cpu", action="store_true", help="on one CPU under SCHED_BATCH, as a worker plays")
    parser.add_argument("--monitors", action="store_true", help="a monitor per sandbox joins it (zygote.py)")
    args = parser.parse_args()
    forkserver.JOIN_PID_NAMESPACE = not args.monitors

    figures: dict[str, object] = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if args.one_cpu:
        figures["cpu"] = scheduling.pin_to_one_cpu(-1)  # the last CPU it may use
        scheduling.wait_without_preempting()
    with tempfile.TemporaryDirectory() as scratch:
        instant = Path(scratch) / "instant.py"
        instant.write_text(INSTANT_BOT)
        if args.only in (None, "startup"):
            figures["startup"] = bench_startup(instant, args.starts)
            figures["startup_greedy"] = bench_startup(GREEDY, max(args.starts // 3, 5))
        if args.only in (None, "boot"):
            figures["boot"] = bench_boot([GREEDY, RANDOM], args.matches)
        if args.only in (None, "respawn"):
            figures["respawn"] = bench_respawn(GREEDY, args.starts * 10)
        if args.only in (None, "roundtrip"):
            figures["roundtrip"] = bench_roundtrip(instant, args.turns)
        if args.only in (None, "tripcpu"):
            figures["tripcpu"] = bench_trip_cpu(instant, args.turns)
        if args.only in (None, "think"):
            figures["think"] = bench_think(Path(scratch), args.turns // 5)
        if args.only in (None, "pairs"):
            figures["pairs"] = bench_pairs(max(args.games // 10, 1))
        if args.only in (None, "match"):
            figures["match"] = bench_match(args.games)

    if args.json:
        print(json.dumps(figures, indent=2))
        return
    where = "" if figures.get("cpu") is None else f"; this bench and its sandboxes on CPU {figures['cpu']} alone"
    joining = "a monitor per sandbox joins it" if args.monitors else "the fork server forks each harness into it"
    print(f"load average {figures['load_average'][0]:.2f} on {figures['cpus']} CPUs{where}; {joining}")
    if "startup" in figures:
        for key, label in (("startup", "an instant bot"), ("startup_greedy", "the greedy bot")):
            row = figures[key]
            print(f"sandbox start to first reply ({label}, {row['starts']} starts; clock: from start(), bwrap "
                  f"spawned, to the harness's reply to hello, the bot imported): median {row['median_ms']:.1f} ms,"
                  f" p90 {row['p90_ms']:.1f} ms, min {row['min_ms']:.1f} ms")  # fmt: skip
            print(f"  {harness.verdict(row['median_ms'] <= STARTUP_BAR_MS)}  median start-up <= {STARTUP_BAR_MS} ms")
    if "boot" in figures:
        row = figures["boot"]
        print(f"a match's two sandboxes (greedy and random, {row['matches']} matches; clock: from launching both "
              f"to both started, then closing both, killed and reaped): start {row['start_median_ms']:.1f} ms, "
              f"close {row['close_median_ms']:.1f} ms (medians); CPU per match: runner {row['runner_cpu_ms']:.1f} "
              f"ms, sandboxes {row['sandbox_cpu_ms']:.1f} ms")  # fmt: skip
    if "respawn" in figures:
        row = figures["respawn"]
        print(f"the greedy bot started over in its sandbox and asked for a turn ({row['starts']} starts; clock: from "
              f"forget() to the turn's reply), per start: {row['wall_ms']:.2f} ms; CPU: runner "
              f"{row['runner_cpu_ms']:.2f} ms, fork server {row['fork_server_cpu_ms']:.2f} ms, harness "
              f"{row['harness_cpu_ms']:.2f} ms; page faults: fork server {row['fork_server_faults']:.0f}, harness "
              f"{row['harness_faults']:.0f}")  # fmt: skip
        moves = "favordynmods on" if row["cgroups_favor_moves"] else "no cgroup mount has favordynmods"
        print(f"the same, {row['spaced_starts']} starts {RESPAWN_GAP_SECONDS * 1e3:.0f} ms apart (as a match spaces "
              f"them; {moves}): {row['spaced_wall_median_ms']:.2f} ms per start (median wall)")  # fmt: skip
    if "roundtrip" in figures:
        row = figures["roundtrip"]
        print(f"turn round trip ({row['turns']} turns, observations ~{row['observation_bytes']:.0f} bytes, a bot "
              f"that answers at once; clock: the runner's whole play() call, from encoding the observation through "
              f"writing it, waking the harness, its reply, decoding it, to the harness stopped again): median "
              f"{row['median_us']:.0f} us, p90 {row['p90_us']:.0f} us; of it counted against the bot's time (from "
              f"the wake-up on): median {row['counted_median_us']:.0f} us")  # fmt: skip
        print(f"  {harness.verdict(row['median_us'] <= ROUNDTRIP_BAR_US)}  median round trip <= {ROUNDTRIP_BAR_US} us")
    if "tripcpu" in figures:
        row = figures["tripcpu"]
        print(f"CPU per round trip ({row['turns']} turns, median of {row['repeats']}; a sandbox's start and close "
              f"subtracted): runner {row['runner_us']:.1f} us, sandbox {row['sandbox_us']:.1f} us; "
              f"bare processes over pipes: {row['bare_parent_us']:.1f} us + {row['bare_child_us']:.1f} us, "
              f"and with the stop and its checks: {row['bare_stopping_parent_us']:.1f} us"
              f" + {row['bare_stopping_child_us']:.1f} us; the harness in a plain process, stopped and checked so: "
              f"{row['unsandboxed_parent_us']:.1f} us + {row['unsandboxed_harness_us']:.1f} us")  # fmt: skip
    for micros, row in figures.get("think", {}).items():
        print(f"CPU per round trip, a bot thinking {micros} us a turn ({row['turns']} turns): "
              f"runner {row['runner_us']:.1f} us, sandbox {row['sandbox_us']:.1f} us (thinking included)")  # fmt: skip
    for pairing, row in figures.get("pairs", {}).items():
        print(f"{pairing}, {max(args.games // 10, 1)} games of {row['turns']:.1f} turns: CPU per game in-process "
              f"{row['in_process_runner_ms']:.2f} ms; sandboxed: runner {row['sandboxed_runner_ms']:.2f} ms + "
              f"sandboxes {row['sandboxed_sandbox_ms']:.2f} ms (start-up included)")  # fmt: skip
    if "match" in figures:
        row = figures["match"]
        print(f"greedy vs greedy, {row['games']} Face to Face games (clock: run_match from its start to its "
              f"result, sandboxes' start and close included): in-process {row['in_process_games_per_s']:.1f} "
              f"games/s, sandboxed {row['sandboxed_games_per_s']:.1f} games/s = {row['ratio']:.0%}")  # fmt: skip
        print(f"  {harness.verdict(row['ratio'] >= MATCH_BAR)}  sandboxed >= {MATCH_BAR:.0%} of in-process games/s")


if __name__ == "__main__":
    main()
