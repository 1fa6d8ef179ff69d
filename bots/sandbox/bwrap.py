"""The bubblewrap command line for one sandbox, and the host facts it depends on.

The sandbox's file system is built from nothing: an empty read-only root holding the Python runtime
(interpreter, its shared libraries, the standard library without site-packages), the bot's own files, a minimal
read-only /dev and a small capped /tmp (scratch.py). Every namespace is new, so the network is a loopback of its own.
bwrap's child, held before its exec, is PID 1 of a PID namespace of its own, into which the fork server puts the
harness (process.py): when PID 1 dies, so does everything else in the sandbox.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SHARED_MEMORY = "/dev/shm"
SCRATCH_MIN_FREE = 1 << 30  # a tmpfs smaller than this (Docker's default /dev/shm is 64 MiB) is not used
PYTHON_FLAGS = ("-I", "-S", "-B", "-X", "utf8")  # isolated, no site, no bytecode, UTF-8 I/O
SANDBOX_DEVICES = ("null", "zero", "full", "random", "urandom")  # in the sandbox's /dev
SANDBOX_BOT_DIR = "/bot"
SANDBOX_HARNESS_DIR = "/harness"  # where tracebacks show the harness (it runs from the fork server's memory)
SANDBOX_TMP = "/tmp"
LAUNCH_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"  # where the launch finds its programs, and its PATH
# where bwrap finds the descriptors the runner gives it (stderr, and those its command line names): the fork server's
# launcher, which starts it, puts each there (zygote._launch)
BWRAP_FDS = {"stderr": 2, "info": 3, "seccomp": 4, "block": 5}


class SandboxUnavailable(RuntimeError):
    """This host cannot run a bot in a sandbox (bubblewrap or a kernel feature is missing)."""


def scratch_root() -> str:
    """Where the runner makes each sandbox's private directory: a roomy /dev/shm if there is one, else TMPDIR.

    A tmpfs makes creating and removing those directories cost microseconds; on a journalling file system
    each directory removal may wait for a journal commit (milliseconds, twice a match per bot).
    """
    try:
        info = os.statvfs(SHARED_MEMORY)
        usable = os.access(SHARED_MEMORY, os.W_OK | os.X_OK) and os.stat(SHARED_MEMORY).st_mode & 0o1777 == 0o1777
    except OSError:
        return tempfile.gettempdir()
    if usable and info.f_bavail * info.f_frsize >= SCRATCH_MIN_FREE:
        return SHARED_MEMORY
    return tempfile.gettempdir()


@dataclass(frozen=True)
class PythonRuntime:
    """What of this interpreter the sandbox needs: bound read-only at the same paths inside."""

    executable: str
    prefix: str
    stdlib: str
    hidden: tuple[str, ...]  # directories under stdlib that must look empty (site-packages)
    library_files: tuple[str, ...]  # libpython, when the interpreter links it
    library_dirs: tuple[str, ...]  # real system directories holding the other shared libraries
    symlinks: tuple[tuple[str, str], ...]  # (target, link): links the loader follows to reach them (/lib64 -> ...)


@functools.lru_cache(maxsize=1)
def python_runtime() -> PythonRuntime:
    executable = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    prefix = os.path.realpath(sys.base_prefix)
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})
    stdlib = os.path.realpath(paths["stdlib"])
    hidden = {os.path.realpath(paths[key]) for key in ("purelib", "platlib")}
    hidden = {path for path in hidden if path.startswith(stdlib + os.sep) and os.path.isdir(path)}
    files: set[str] = set()
    dirs: set[str] = set()
    links: set[tuple[str, str]] = set()
    for library in _shared_libraries(executable):
        real, chain = _resolve(library)
        links.update(chain)
        if os.path.basename(real).startswith("libpython"):  # only this one: not its whole directory
            files.add(real)
        else:
            dirs.add(os.path.dirname(real))
    # a link inside a bound directory comes with the bind; bwrap could not create it there anyway
    links = {(target, link) for target, link in links if os.path.dirname(link) not in dirs}
    return PythonRuntime(
        executable, prefix, stdlib, tuple(sorted(hidden)), tuple(sorted(files)), tuple(sorted(dirs)),
        tuple(sorted(links, key=lambda pair: pair[1])),
    )  # fmt: skip


def _resolve(path: str) -> tuple[str, list[tuple[str, str]]]:
    """The real path of `path` and every symlink met on the way, as (target, link) pairs."""
    chain: list[tuple[str, str]] = []
    parts = [part for part in path.split("/") if part]
    current = "/"
    for _ in range(64):  # bounded like the kernel's own link following
        if not parts:
            return current, chain
        candidate = os.path.join(current, parts.pop(0))
        if os.path.islink(candidate):
            target = os.readlink(candidate)
            chain.append((target, candidate))
            base = "/" if target.startswith("/") else current
            parts = [part for part in os.path.normpath(os.path.join(base, target)).split("/") if part] + parts
            current = "/"
        else:
            current = candidate
    raise SandboxUnavailable(f"too many symbolic links resolving {path}")


def _shared_libraries(executable: str) -> list[str]:
    """The libraries the interpreter loads, as the dynamic loader names them (ldd's view)."""
    ldd = shutil.which("ldd", path="/usr/bin:/bin")
    if ldd is None:
        raise SandboxUnavailable("ldd is missing: cannot tell which shared libraries Python needs")
    output = subprocess.run([ldd, executable], capture_output=True, text=True, check=False).stdout
    return re.findall(r"(?:=>\s+|^\s*)(/\S+)\s+\(0x", output, flags=re.MULTILINE)


def system_tool(name: str, needed_for: str) -> str:
    """The path of a util-linux (or shell) program the launch runs, from the system's folders only."""
    path = shutil.which(name, path=LAUNCH_PATH)
    if path is None:
        raise SandboxUnavailable(f"{name} (util-linux) is missing: {needed_for}")
    return path


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str:
    path = shutil.which("bwrap", path=os.environ.get("PATH", "") + ":/usr/bin:/bin")
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed, so untrusted bots cannot be run: apt-get install bubblewrap"
        )
    return path


@dataclass
class BwrapCommand:
    """Inputs for one sandbox's command line; `argv()` renders it."""

    bot_dir: str  # host directory with bot.py, bound read-only at /bot
    empty_dir: str  # an empty host directory, bound over site-packages
    seccomp_fd: int
    info_fd: int
    uid: int  # the sandbox's ids, which bwrap itself runs as (unprivileged): the bot sees the same
    gid: int
    block_fd: int  # bwrap's child waits on it, the sandbox built, before its exec: the fork server joins it there
    runtime: PythonRuntime = field(default_factory=python_runtime)
    runtime_source: str | None = None  # where the runtime's prefix is reachable on the host, if not at its path

    def _source(self, path: str) -> str:
        if self.runtime_source and (path == self.runtime.prefix or path.startswith(self.runtime.prefix + "/")):
            return self.runtime_source + path[len(self.runtime.prefix) :]
        return path

    def argv(self) -> list[str]:
        rt = self.runtime
        args = [
            bwrap_path(),
            "--unshare-all", "--unshare-user", "--disable-userns",
            "--uid", str(self.uid), "--gid", str(self.gid), "--cap-drop", "ALL",
            # the harness is PID 1 itself: bwrap's own reaper would not be reaped by bwrap when the harness
            # exits first, and would linger as a zombie; nothing in the sandbox can fork anyway
            "--as-pid-1", "--die-with-parent", "--new-session",
            "--hostname", "sandbox",
            "--clearenv", "--setenv", "HOME", SANDBOX_TMP, "--setenv", "TMPDIR", SANDBOX_TMP,
            # glibc reserves 64 MiB of address space per thread arena, which RLIMIT_AS would count
            "--setenv", "MALLOC_ARENA_MAX", "2",
            "--info-fd", str(self.info_fd),
            "--seccomp", str(self.seccomp_fd),
            "--block-fd", str(self.block_fd),
        ]  # fmt: skip
        for target, link in rt.symlinks:
            args += ["--symlink", target, link]
        for directory in rt.library_dirs:
            args += ["--ro-bind", self._source(directory), directory]
        for library in rt.library_files:
            args += ["--ro-bind", self._source(library), library]
        args += ["--ro-bind", self._source(rt.executable), rt.executable]
        args += ["--ro-bind", self._source(rt.stdlib), rt.stdlib]
        for hidden in rt.hidden:
            args += ["--ro-bind", self.empty_dir, hidden]
        args += [
            "--ro-bind", self.bot_dir, SANDBOX_BOT_DIR,
            *_device_binds(),
            # its own tmpfs, capped in bytes and files by the harness's process before the bot runs (scratch.py)
            "--tmpfs", SANDBOX_TMP,
            "--remount-ro", "/",
            "--chdir", SANDBOX_TMP,
            # what PID 1 would run if ever released (its block fd closed, the runner gone): print a line and exit,
            # which ends the sandbox
            rt.executable, "-V",
        ]  # fmt: skip
        return args


def _device_binds() -> list[str]:
    """The host's device nodes the sandbox's /dev holds, each bound over a file of the read-only root.

    Not bwrap's `--dev`, which makes a tmpfs with a devpts instance, a /dev/tty and /dev/shm: two file systems more to
    build and tear down per sandbox, and a terminal to keep out (a session leader, as the harness is, that opened a
    pseudo-terminal would be its controlling process, and the kernel continues that with SIGCONT when the terminal
    hangs up): here there is no /dev/pts, /dev/ptmx or /dev/tty to open at all."""
    binds = []
    for name in SANDBOX_DEVICES:
        binds += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    return binds


def reachable(path: str, uid: int, gids: set[int]) -> bool:
    """Whether `uid` (with groups `gids`) can reach and read `path`, judged by permission bits alone."""
    current = Path(path)
    for part in [*reversed(current.parents), current]:
        try:
            info = part.stat()
        except OSError:
            return False
        needed = 0o5 if part.is_dir() else 0o4  # directories: search (and read, for the final one)
        if part != current:
            needed = 0o1
        if info.st_uid == uid:
            bits = (info.st_mode >> 6) & 0o7
        elif info.st_gid in gids:
            bits = (info.st_mode >> 3) & 0o7
        else:
            bits = info.st_mode & 0o7
        if bits & needed != needed:
            return False
    return True
