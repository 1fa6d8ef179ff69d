"""A stop that stays a stop (issue 20): what the attacks on the per-turn stop still get, and what the check costs.

    python -m bench.stop_attacks                  # everything
    python -m bench.stop_attacks --only attacks   # the resume attack, kernel work after the stop, fairness
    python -m bench.stop_attacks --only cost      # what holding a sandbox still costs a turn

attacks: the runner and three sandboxes pinned to one CPU, as on a worker with more matches than cores. An honest
opponent does a fixed amount of CPU work a turn (about 20 ms); it takes turns with an attacker (the bots of
tests/sandbox/attacks/) or with an honest instant bot. Its clock: the attacker's CPU time from the host
(its process CPU clock, threads that ended included) during the opponent's turns, scaled to 3 s of them; the
attacker's turn times as charged (what the game log shows); the opponent's part of the CPU the two sandboxes got
during its turns (the machine's other load drops out of it) and its median turn time, beside the attacker and
beside the honest bot, in alternating rounds.
  - resume: resume_by_fasync.py, which has a pipe continue it with SIGCONT once a long read ends in the kernel
    after its stop (issue 20, finding 2). Goal: <= 0.01 s of its CPU per 3 s of the opponent's turns.
  - kernel work: kernel_work_after_stop.py, a thread still populating 256 MiB in the kernel as the bot stops
    (finding 3). Goals: every CPU second it used is on its own clock (none falls while it is held, beyond the same
    0.01 s per 3 s); the opponent keeps >= 0.9 of the CPU share it has beside an honest bot.

cost: an instant bot answers --turns requests; per turn, the runner's wall time and CPU, and the parts of the
stop check alone: the two reads of the sandbox's CPU clock (at the stop, before the continue), the read of its
/proc/PID/stat (at the stop); and, where cgroup v2 is mounted, a freeze and thaw of a cgroup holding a stopped
sandbox (cgroup.freeze), the alternative that was measured and not taken.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench.harness import ROOT, loadavg, verdict
from bots.sandbox import SandboxedPlayer, pause

ATTACKS = ROOT / "tests" / "sandbox" / "attacks"
INSTANT = "TURN = {'plays': []}\ndef play(observation):\n    return TURN\n"
OPPONENT = """
import time
def play(observation):
    cpu = time.thread_time()
    for _ in range(observation["work"]):
        pass
    return {"plays": [], "cpu": time.thread_time() - cpu}
"""
OPPONENT_WORK = 600_000  # about 20 ms of CPU
RESUME_CAP = 0.01  # s of the attacker's CPU per 3 s of the opponent's turns
SHARE_GOAL = 0.9
UNIFIED = Path("/sys/fs/cgroup/unified")  # cgroup v2 beside v1 controllers (a hybrid host); else /sys/fs/cgroup


def process_cpu(pid: int) -> float:
    """CPU seconds of the process so far, every thread's, those that ended included (its process CPU clock)."""
    return time.clock_gettime((~pid << 3) | 2)


def pin(pid: int, cpus: set[int]) -> None:
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), cpus)


def rounds(opponent: SandboxedPlayer, rival: SandboxedPlayer, turns: int) -> dict[str, float]:
    """The opponent and `rival` take turns: the rival's CPU during the opponent's turns, the opponent's CPU, its turn
    times, and the rival's charged turn times and CPU in all."""
    figures = {"rival_during": 0.0, "mine": 0.0, "opponent_wall": 0.0, "rival_charged": 0.0, "rival_used": 0.0}
    times = []
    first = process_cpu(rival.sandbox_pid)
    for _ in range(turns):
        _, charged = rival.play({}, 10)
        figures["rival_charged"] += charged
        before = process_cpu(rival.sandbox_pid)
        reply, elapsed = opponent.play({"work": OPPONENT_WORK}, 10)
        figures["rival_during"] += process_cpu(rival.sandbox_pid) - before
        figures["mine"] += reply["cpu"]
        figures["opponent_wall"] += elapsed
        times.append(elapsed)
    figures["rival_used"] = process_cpu(rival.sandbox_pid) - first
    figures["median_turn"] = statistics.median(times)
    return figures


def bench_attack(files: dict[str, Path], attack: str, repeats: int, turns: int) -> dict[str, dict[str, float]]:
    cpu = {max(os.sched_getaffinity(0))}
    players = {name: SandboxedPlayer(files[name]) for name in ("opponent", "honest", attack)}
    results: dict[str, list[dict[str, float]]] = {"honest": [], attack: []}
    try:
        for player in players.values():
            player.start(10)
            pin(player.sandbox_pid, cpu)
        for _ in range(repeats):
            for name in results:
                results[name].append(rounds(players["opponent"], players[name], turns))
    finally:
        for player in players.values():
            player.close()
    return {name: {key: sum(row[key] for row in rows) for key in rows[0]} for name, rows in results.items()} | {
        f"{name} median turns": {"median": statistics.median(row["median_turn"] for row in rows)}
        for name, rows in results.items()
    }


def report_attacks(files: dict[str, Path], repeats: int, turns: int) -> None:
    print(f"attacks: runner and sandboxes on CPU {max(os.sched_getaffinity(0))}; {repeats} x {turns} rounds each")
    everything = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(everything)})
    try:
        for attack in ("resume_by_fasync", "kernel_work_after_stop"):
            figures = bench_attack(files, attack, repeats, turns)
            mine = figures[attack]
            per_3s = mine["rival_during"] / mine["opponent_wall"] * 3.0
            pairs = {"attacker": attack, "honest": "honest"}
            share = {name: figures[key]["mine"] / (figures[key]["mine"] + figures[key]["rival_during"])
                     for name, key in pairs.items()}  # fmt: skip
            relative = share["attacker"] / share["honest"]
            turn = {name: figures[f"{key} median turns"]["median"] * 1e3 for name, key in pairs.items()}
            print(f"  {attack}: attacker's CPU during the opponent's turns {mine['rival_during']:.4f} s over "
                  f"{mine['opponent_wall']:.2f} s = {per_3s:.4f} s per 3 s (goal <= {RESUME_CAP}: "
                  f"{verdict(per_3s <= RESUME_CAP)}); load {loadavg()}")  # fmt: skip
            outside = mine["rival_during"] / mine["rival_used"] if mine["rival_used"] else 0.0
            print(f"    its CPU in all {mine['rival_used']:.3f} s, of which {mine['rival_during']:.4f} s "
                  f"({outside:.1%}) fell while it was held, on no clock; its turns took {mine['rival_charged']:.3f} s "
                  f"as charged (goal: every CPU second on its own clock: {verdict(per_3s <= RESUME_CAP)})")  # fmt: skip
            print(f"    opponent's share of both sandboxes' CPU during its turns: {share['attacker']:.3f} beside it, "
                  f"{share['honest']:.3f} beside an honest bot = {relative:.3f} (goal >= {SHARE_GOAL}: "
                  f"{verdict(relative >= SHARE_GOAL)}); opponent's median turn {turn['attacker']:.1f} ms beside it, "
                  f"{turn['honest']:.1f} ms beside an honest bot")  # fmt: skip
    finally:
        os.sched_setaffinity(0, everything)


def _per_call(function, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - started) / repeat * 1e6


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def report_cost(files: dict[str, Path], turns: int) -> None:
    print("cost clock: per turn, the runner's wall time of play() (the request, the continue, the reply, the stop "
          "seen) and its CPU; per call, the parts of the stop check")  # fmt: skip
    with SandboxedPlayer(files["instant"]) as player:
        player.start(10)
        player.play({}, 5)
        walls = []
        runner = _cpu_seconds()
        for _ in range(turns):
            started = time.perf_counter()
            player.play({}, 5)
            walls.append(time.perf_counter() - started)
        runner_us = (_cpu_seconds() - runner) / turns * 1e6
        sandbox = player._sandbox
        clock = _per_call(lambda: pause.cpu_ns(sandbox.cpu_clock), turns)
        state = _per_call(lambda: pause.state(sandbox.stat_fd, sandbox.child_pid), turns)
        freeze = _freeze_and_thaw(sandbox.child_pid, turns)
    print(f"  turn: wall median {statistics.median(walls) * 1e6:.1f} us, runner CPU {runner_us:.1f} us a turn "
          f"({turns} turns; load {loadavg()})")  # fmt: skip
    print(f"  the stop check: CPU clock read {clock:.2f} us (two a turn: {2 * clock:.2f} us), /proc/PID/stat read "
          f"{state:.2f} us (one a turn, as before issue 20, now also counting the threads)")  # fmt: skip
    if freeze is None:
        print("  cgroup.freeze: no cgroup v2 tree here to measure it in")
    else:
        print(f"  cgroup.freeze and thaw of a stopped sandbox: {freeze:.2f} us a turn (not taken: see docs/bot-api.md)")


def _freeze_and_thaw(pid: int, repeat: int) -> float | None:
    """What freezing a stopped sandbox's cgroup after each turn and thawing it before the next would add a turn."""
    root = UNIFIED if (UNIFIED / "cgroup.controllers").exists() else Path("/sys/fs/cgroup")
    if os.geteuid() != 0 or not (root / "cgroup.controllers").exists():
        return None
    group = root / f"bench-freeze-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(pid))
    except OSError:
        return None
    freeze = os.open(group / "cgroup.freeze", os.O_WRONLY)
    events = os.open(group / "cgroup.events", os.O_RDONLY)
    try:

        def cycle() -> None:
            os.pwrite(freeze, b"1", 0)
            while b"frozen 1" not in os.pread(events, 256, 0):
                pass
            os.pwrite(freeze, b"0", 0)

        return _per_call(cycle, repeat)
    finally:
        os.close(freeze)
        os.close(events)
        try:
            (root / "cgroup.procs").write_text(str(pid))  # back to the root before the group goes
        except OSError:
            pass
        group.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["attacks", "cost"])
    parser.add_argument("--repeats", type=int, default=3, help="attacks: alternating rounds of each pairing")
    parser.add_argument("--rounds", type=int, default=25, help="attacks: opponent turns per repeat")
    parser.add_argument("--turns", type=int, default=5000, help="cost: turns")
    args = parser.parse_args()
    print(f"load average {loadavg()} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as scratch:
        files = {name: ATTACKS / f"{name}.py" for name in ("resume_by_fasync", "kernel_work_after_stop")}
        for name, source in {"instant": INSTANT, "honest": INSTANT, "opponent": OPPONENT}.items():
            files[name] = Path(scratch) / f"{name}.py"
            files[name].write_text(source)
        with SandboxedPlayer(files["instant"]) as warm_up:  # the seccomp program, the fork server, staging
            warm_up.start(10)
        if args.only in (None, "cost"):
            report_cost(files, args.turns)
        if args.only in (None, "attacks"):
            report_attacks(files, args.repeats, args.rounds)


if __name__ == "__main__":
    main()
