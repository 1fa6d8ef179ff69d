"""Resource limits of one sandbox (one bot for one match), and the identity it runs as."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

from bots.protocol import LINE_CAP

KIB = 1024
MIB = 1024 * KIB

# The identity a root runner drops to for the sandbox: "nobody"/"nogroup" on Debian. Never 0.
DEFAULT_SANDBOX_ID = 65534

# Time controls the sandbox documents; the match runner passes them in as timeouts.
STARTUP_SECONDS = 5.0
TURN_SECONDS = 1.0
BANK_SECONDS = 10.0


@dataclass(frozen=True)
class SandboxLimits:
    """Limits for one sandbox. Byte counts are bytes; cpu_seconds counts over the whole match."""

    memory_bytes: int = 512 * MIB  # address space (RLIMIT_AS); also the cgroup memory limit, where offered
    cpu_seconds: int = 600  # CPU time of the sandbox's lifetime, i.e. of the match (RLIMIT_CPU)
    processes: int = 32  # threads count too (RLIMIT_NPROC); process creation is refused by seccomp anyway
    open_files: int = 64  # RLIMIT_NOFILE
    file_bytes: int = 8 * MIB  # largest file the bot may write (RLIMIT_FSIZE)
    scratch_bytes: int = 16 * MIB  # size of the writable /tmp
    scratch_files: int = 4096  # files and directories /tmp may hold (its inodes)
    stderr_bytes: int = 64 * KIB  # log kept per game; older output is dropped first
    reply_bytes: int = LINE_CAP  # one protocol line
    uid: int | None = None  # sandbox identity when the runner is root; None = DEFAULT_SANDBOX_ID
    gid: int | None = None
    use_cgroups: bool = True  # add cgroup memory/pids limits when the host lets us create cgroups
    require_cgroups: bool = False  # refuse to start without them (the league, for uploaded bots: cgroups.py)

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name in ("uid", "gid"):
                if value is not None and (not isinstance(value, int) or value <= 0):
                    raise ValueError(f"SandboxLimits.{spec.name} must be a positive id (never root), got {value!r}")
            elif spec.type in (bool, "bool"):
                if not isinstance(value, bool):
                    raise ValueError(f"SandboxLimits.{spec.name} must be True or False, got {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"SandboxLimits.{spec.name} must be a positive integer, got {value!r}")
        if self.require_cgroups and not self.use_cgroups:
            raise ValueError("SandboxLimits.require_cgroups needs use_cgroups")

    def rlimits(self) -> dict[str, int]:
        """The resource limits the harness sets on itself before it loads the bot."""
        return {
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_NPROC": self.processes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_CORE": 0,
        }

    def identity(self) -> tuple[int, int, bool]:
        """(uid, gid, switch): the ids the sandbox runs as, and whether the runner must switch to them."""
        if os.geteuid() == 0:
            uid = self.uid if self.uid is not None else DEFAULT_SANDBOX_ID
            gid = self.gid if self.gid is not None else DEFAULT_SANDBOX_ID
            return uid, gid, True
        own = (os.getuid(), os.getgid())
        wanted = (self.uid or own[0], self.gid or own[1])
        if wanted != own:
            raise ValueError(f"only a root runner can run bots as uid/gid {wanted}; this runner is {own}")
        return own[0], own[1], False
