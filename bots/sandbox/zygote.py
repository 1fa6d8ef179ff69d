"""The fork server: a warm interpreter that puts each bot's harness into the sandbox bubblewrap built for it.

Started once per runner process (forkserver.py) as `python -I -S -B -X utf8 zygote.pyc FD LAUNCH_FD [--monitors]`,
as the sandbox's uid, with the sandbox's environment and nothing else: it never holds anything of the runner's. It first
makes itself a user namespace of its own (our uid and gid mapped to themselves, CAP_SYS_ADMIN kept there alone, none
over anything of the host's), and forks the launcher: a small process, which keeps no capability, that starts each
sandbox's bubblewrap when the runner asks on LAUNCH_FD (posix_spawn, as its child, in the runner's PID namespace: so
the runner neither forks itself nor starts a program to become the sandbox's uid first, and every PID bwrap reports
is one the runner can use). bubblewrap thus makes the sandbox's namespaces inside ours.

The fork server then imports the harness and the modules bots commonly use, and serves the runner's other request
on its control socket (SOCK_SEQPACKET, FD; a JSON message with descriptors as SCM_RIGHTS): to put the harness into a
sandbox bubblewrap has built and holds blocked before its exec (its user namespaces, mount, network, IPC, UTS,
cgroup and PID namespaces, and its root), with the bot's pipes. It joins that sandbox's PID namespace for its
children (which its capability in its own user namespace allows) and forks the harness, as PID 2 (bubblewrap's
blocked child is PID 1). The harness joins the rest (capping the sandbox's /tmp in bytes and files before its last
join: scratch.py), drops what bubblewrap would have dropped at its exec (capabilities, the bounding set) and installs
what it would have installed (no_new_privs, the death signal, a new session, the seccomp filter), all before any of
the bot's code runs. So every file, mount and namespace of the sandbox is still bubblewrap's; what the fork server
saves is the interpreter's start and the imports, most of a sandbox's start-up.

The fork server reports the harness's host PID, and later how it ended, on the request's info socket. It watches
each harness through a pidfd, which only an exit wakes, so a harness stopping after each reply costs it nothing.
Where the host gives it no user namespace of its own, it forks a monitor per sandbox instead, which joins every
namespace, forks the harness and reports as the fork server would. Standard library only.
"""

import ctypes
import fcntl
import functools
import gc
import json
import os
import select
import signal
import socket
import sys
import time

# What the harness uses, and what bots most often import: loaded once here instead of in every sandbox.
PRELOAD = (
    "bisect", "collections", "copy", "dataclasses", "enum", "functools", "heapq", "itertools", "json", "math",
    "operator", "random", "re", "resource", "statistics", "string", "time", "traceback", "typing",
)  # fmt: skip
MAX_FDS = 16
MONITORS = "--monitors"  # an argument: join each sandbox through a monitor, from the host's user namespace
PYTHON_FLAGS = ("-I", "-S", "-B", "-X", "utf8")  # as the runner starts us (bwrap.py)
# where the harness finds its pipes: requests, replies, and (while it awaits its cgroups) the admission pipe
PROTOCOL_FDS = ("requests", "replies", "admit")
REQUESTS_FD, REPLIES_FD, ADMIT_FD = 3, 4, 5
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWUTS = 0x04000000
CAP_SYS_ADMIN = 21
PR_SET_PDEATHSIG = 1
MS_NOSUID, MS_NODEV, MS_REMOUNT = 2, 4, 32  # mount(2) flags (linux/mount.h)
MNT_DETACH = 2  # umount2(2): detach now, free once unused
TMP_MODE = 0o700  # scratch.py: the sandbox's /tmp is its uid's alone
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
NS_GET_USERNS = 0xB701  # linux/nsfs.h: the user namespace that owns a namespace
# the order in which a sandbox's namespaces are joined: first the user namespace that owns its mounts (bwrap made it as
# our uid, in ours, which gives us every capability in it, and so the other joins), last the sandbox's own one, nested
# in that one by bwrap's --disable-userns (after which we have no capability left outside it); "pid" only makes it
# our children's, so the harness's parent joins it
JOIN_ORDER = ("outer_user", "mnt", "net", "ipc", "uts", "cgroup", "pid", "user")
SANDBOX_NAMESPACES = ("mnt", "net", "ipc", "uts", "cgroup", "pid", "user")  # of bwrap's child

_libc = ctypes.CDLL(None, use_errno=True)


def _call(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_capability() -> int:
    with open("/proc/sys/kernel/cap_last_cap") as text:
        return int(text.read())


def _drop_privileges(last_cap: int) -> None:
    """What bubblewrap does in its child before the exec: no capability in any set, none to regain."""
    _call(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    for cap in range(last_cap + 1):
        _call(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"dropping capability {cap} from the bounding set")
    _call(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clearing ambient capabilities")
    _keep_capabilities(0)
    _call(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")


def _keep_capabilities(mask: int) -> None:
    """Make `mask` (of the first 32 capabilities) our effective and permitted sets, and clear the inheritable set."""
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    sets = (_CapData * 2)()
    sets[0].effective = sets[0].permitted = mask
    _call(_libc.capset(ctypes.byref(header), sets), f"keeping capabilities {mask:#x} alone")


def _cap_tmp(options: str, fresh: bool) -> None:
    """Remount the sandbox's /tmp, the tmpfs bwrap made, capped in bytes and files (bwrap sets no inode count), and
    make it the sandbox's uid's alone. `fresh`: a harness started again in its sandbox, so a new tmpfs replaces the
    last harness's, and nothing that one left (files, extended attributes of /tmp itself) reaches the new one."""
    if fresh:
        _call(_libc.umount2(b"/tmp", MNT_DETACH), "detaching the last harness's /tmp")
        _call(_libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()), "mounting a new /tmp")
    else:
        flags = MS_REMOUNT | MS_NOSUID | MS_NODEV  # as bwrap mounted it: a remount sets the mount's flags anew
        _call(_libc.mount(b"tmpfs", b"/tmp", None, flags, options.encode()), "capping /tmp")
    os.chmod("/tmp", TMP_MODE)


def _install_seccomp(program: bytes) -> None:
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _call(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "installing the seccomp filter")


class Request:
    """One sandbox to join, as the runner sent it."""

    def __init__(self, message: dict, fds: list[int]) -> None:
        names = message["fds"]
        if len(names) != len(fds):
            raise ValueError(f"{len(fds)} descriptors for {len(names)} names")
        self.fd = dict(zip(names, fds, strict=True))
        self.bot_dir: str = message["bot_dir"]
        self.settings: list[str] = message["settings"]
        self.init_pid: int = message["init_pid"]  # bwrap's child, PID 1 of the sandbox
        self.tmp_options: str = message["tmp"]  # what /tmp, bwrap's tmpfs, is remounted with (scratch.py)
        self.fresh_tmp: bool = message.get("fresh_tmp", False)  # another harness had the sandbox: a new /tmp
        self.deadline = time.monotonic() + message["timeout"]
        self.wait_for_admission = "admit" in self.fd  # a byte on it once the harness is in its cgroups


class Launch:
    """A bwrap to start, as the runner sent it: its command line and environment, and the descriptor each of the
    fds it was sent becomes in it (`places`: stderr and the descriptors its command line names)."""

    def __init__(self, message: dict, fds: list[int]) -> None:
        names = message["fds"]
        if len(names) != len(fds) or sorted(names) != sorted(message["places"]):
            raise ValueError(f"{len(fds)} descriptors for {len(names)} names and places {sorted(message['places'])}")
        self.fd = dict(zip(names, fds, strict=True))
        self.places = {name: int(place) for name, place in message["places"].items()}
        if sorted(self.places.values()) != list(range(2, 2 + len(self.places))):
            raise ValueError(f"descriptors to place at {sorted(self.places.values())}, not 2, 3, ...")
        self.argv: list[str] = message["launch"]
        self.env: dict[str, str] = message["env"]


class Zygote:
    """Serves the runner's requests to put a harness into a sandbox, and reports how each harness ended.

    Once it has forked a harness, its children's PID namespace stays that sandbox's (it cannot go back to the host's):
    so it forks nothing but harnesses, each after joining its own sandbox's PID namespace, and the launcher starts
    every other process. It serves one request at a time, which may wait for a sandbox to be built: the runner's
    thread that asked waits too, so harnesses exiting meanwhile are reaped once it is answered."""

    def __init__(self, control: socket.socket, config: dict, launcher: int, joins_pid: bool) -> None:
        self.control = control
        self.seccomp = bytes.fromhex(config["seccomp"])
        self.last_cap = _last_capability()
        self.harness, self.protocol = _load_harness(config["harness_dir"])
        self.joins_pid = joins_pid  # else a monitor per sandbox joins its PID namespace
        self.own_pidfd = os.pidfd_open(os.getpid())  # our children check it once their death signal is set
        self.launcher_pidfd = os.pidfd_open(launcher)
        self.children: dict[int, int | None] = {}  # pidfd of a harness (or monitor): its info socket (None: none)
        self.poller = select.poll()

    def serve(self) -> None:
        """Answer requests until the runner closes its end (or the launcher ends); reap each harness as it exits and
        report how. In a harness's process, ends by raising EnterHarness."""
        self.poller.register(self.control, select.POLLIN)
        self.poller.register(self.launcher_pidfd, select.POLLIN)
        while True:
            for fd, _ in self.poller.poll():
                if fd == self.control.fileno():
                    if not self._answer():
                        return  # the runner is gone
                elif fd == self.launcher_pidfd:
                    return  # the runner starts the fork server again, launcher and all
                else:
                    self._reap(fd)

    def _answer(self) -> bool:
        """Answer one request; False once the runner has closed its end."""
        data, ancillary, _, _ = self.control.recvmsg(1 << 16, socket.CMSG_SPACE(MAX_FDS * 4))
        fds = _received_fds(ancillary)
        if not data:
            return False
        try:
            reply = {"harness": self._spawn(Request(json.loads(data), fds))}
        except Exception as error:  # the runner reports it as an unavailable sandbox
            reply = {"error": f"{type(error).__name__}: {error}"}
        for fd in fds:
            os.close(fd)
        _send(self.control, reply)
        return True

    def _spawn(self, request: Request) -> int:
        """Fork the harness into the sandbox (or, where this fork server cannot join PID namespaces, a monitor that
        does); its PID, or the monitor's. The child's pidfd is watched: its exit is reaped and reported."""
        if not self.joins_pid:
            return self._watch(self._fork_monitor(request), None)  # which reports the harness itself
        namespaces = _sandbox_namespaces(request)
        try:
            # our children's PID namespace from now on: the next fork is the sandbox's PID 2 (the next request's
            # sets it again before its own fork; the launcher, not we, starts every bwrap)
            _call(_libc.setns(namespaces["pid"], CLONE_NEWPID), "joining the pid namespace")
            harness = os.fork()
        except BaseException:
            _close(namespaces)
            raise
        if harness == 0:
            raise EnterHarness(self._enter_harness(request, namespaces))  # which closes them once it has joined
        _close(namespaces)
        return self._watch(harness, request.fd["info"])

    def _watch(self, pid: int, info: int | None) -> int:
        """Watch our new child `pid` until it exits (the poll loop reaps it); with `info`, its harness's socket,
        report its host PID there, with a pidfd. Should that fail (no descriptor left), the child is killed and
        reaped at once: an unreaped harness would hold its sandbox's PID 1 from ending."""
        pidfd = kept = None
        try:
            pidfd = os.pidfd_open(pid)
            if info is not None:
                kept = os.dup(info)
                _report(kept, {"harness-pid": pid}, pidfd)  # the pidfd: no PID reuse can fool the runner
        except BaseException:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            for descriptor in (pidfd, kept):
                if descriptor is not None:
                    os.close(descriptor)
            raise
        self.children[pidfd] = kept
        self.poller.register(pidfd, select.POLLIN)  # readable once it has exited, never on its stops
        return pid

    def _reap(self, pidfd: int) -> None:
        """Collect an ended harness (or monitor), and report a harness's end as bwrap passes an exit on."""
        info = self.children.pop(pidfd)
        self.poller.unregister(pidfd)
        ended = os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
        os.close(pidfd)
        if info is not None:
            _report(info, _exit_report(ended))
            os.close(info)

    def _enter_harness(self, request: Request, namespaces: dict[str, int]) -> functools.partial:
        """In the harness's process, forked into the sandbox's PID namespace: join the rest of the sandbox, and make
        the process what bubblewrap makes of its child; the call that serves the bot. A failure is reported on the
        request's info socket, and the process ends."""
        self.control.detach()  # its number may be one the harness's pipes take: closed below, never by the object
        try:
            _join(namespaces, request.tmp_options, request.fresh_tmp, join_pid=False)
            if not self._die_with_fork_server():
                os._exit(1)
            return self._prepare_harness(request)
        except BaseException as error:
            try:
                _report(request.fd["info"], {"error": f"{type(error).__name__}: {error}"})
            finally:
                os._exit(1)  # never back into the fork server's loop

    def _die_with_fork_server(self) -> bool:
        """Have this child of ours killed when we die; False if we died before that was set. Only once it has joined
        the sandbox: joining a user namespace gains capabilities there, and the kernel then clears a death signal."""
        _call(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "death signal")
        return not _exited(self.own_pidfd)

    def _fork_monitor(self, request: Request) -> int:
        pid = os.fork()
        if pid == 0:
            try:
                self.control.close()  # first: nothing of this process may ever answer the runner
                for descriptor in (*self.children, *filter(None, self.children.values())):  # other sandboxes'
                    os.close(descriptor)
                code = self._monitor(request)
            except EnterHarness:
                raise  # this is the harness's process now, on its way to main()
            except BaseException as error:
                _report(request.fd["info"], {"error": f"{type(error).__name__}: {error}"})
                code = 1
            os._exit(code)
        return pid

    def _monitor(self, request: Request) -> int:
        """Join the sandbox, fork the harness into it, report its host PID (with a pidfd), then how it ended."""
        fd = request.fd
        namespaces = _sandbox_namespaces(request)
        _join(namespaces, request.tmp_options, request.fresh_tmp, join_pid=True)
        if not self._die_with_fork_server():
            return 1
        harness = os.fork()  # PID 2 of the sandbox's PID namespace
        if harness == 0:
            raise EnterHarness(self._prepare_harness(request))
        _close(namespaces)
        for descriptor in fd.values():
            if descriptor != fd["info"]:
                os.close(descriptor)
        pidfd = os.pidfd_open(harness)
        _report(fd["info"], {"harness-pid": harness}, pidfd)  # the pidfd: no PID reuse can fool the runner
        while not _exited(pidfd, None):  # woken by its exit alone, never by its stops
            pass
        _report(fd["info"], _exit_report(os.waitid(os.P_PIDFD, pidfd, os.WEXITED)))
        return 0

    def _prepare_harness(self, request: Request) -> functools.partial:
        """The harness's process, in the sandbox, made what bubblewrap makes of its child before the exec; returns
        the call that serves the bot, to be made once nothing of the fork server's is left on the stack."""
        fd = request.fd
        # out of the way first (above every fd the fork server holds), then to their places
        wanted = [name for name in ("stderr", *PROTOCOL_FDS) if name in fd]
        above = max(fd.values()) + 1
        high = {name: fcntl.fcntl(fd[name], fcntl.F_DUPFD_CLOEXEC, above) for name in wanted}
        devnull = os.open("/dev/null", os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(high["stderr"], 1)
        os.dup2(high["stderr"], 2)
        placed = [name for name in PROTOCOL_FDS if name in high]
        for target, name in enumerate(placed, start=REQUESTS_FD):
            os.dup2(high[name], target, inheritable=False)
        os.closerange(REQUESTS_FD + len(placed), 1 << 20)  # everything else of the fork server's, /dev/null's too
        os.chdir("/tmp")
        os.environ["PWD"] = "/tmp"
        os.setsid()
        _drop_privileges(self.last_cap)
        _call(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "death signal")  # after the credentials change
        _install_seccomp(self.seccomp)
        if request.wait_for_admission:
            os.read(ADMIT_FD, 1)
            os.close(ADMIT_FD)
        _as_inside(self.harness, self.protocol)
        return functools.partial(
            self.harness.serve, request.bot_dir, request.settings, REQUESTS_FD, REPLIES_FD, self.protocol
        )


class Launcher:
    """Starts each sandbox's bwrap for the runner: a small process of its own (forked before the imports), whose
    children's PID namespace is always the runner's, so that bwrap and the PIDs it reports are the host's."""

    def __init__(self, requests: socket.socket) -> None:
        self.requests = requests

    def serve(self) -> None:
        """Answer requests until the runner closes its end."""
        while True:
            try:
                data, ancillary, _, _ = self.requests.recvmsg(1 << 16, socket.CMSG_SPACE(MAX_FDS * 4))
            except InterruptedError:
                continue
            fds = _received_fds(ancillary)
            if not data:  # the runner is gone
                return
            pidfd = None
            try:
                pid, pidfd = _launch(Launch(json.loads(data), fds))
                reply = {"bwrap": pid}
            except Exception as error:  # the runner reports it as an unavailable sandbox
                reply = {"error": f"{type(error).__name__}: {error}"}
            for fd in fds:
                os.close(fd)
            _send(self.requests, reply, pidfd)
            if pidfd is not None:
                os.close(pidfd)


def _launch(launch: Launch) -> tuple[int, int]:
    """Start the program the runner asked for (bwrap), with its descriptors in their places, in a new session; its
    PID, and a pidfd on it opened before anything could reap it (no PID reuse can fool the runner). posix_spawn:
    the child shares our memory until its exec, so nothing is copied."""
    above = max(*launch.fd.values(), *launch.places.values()) + 1
    high = range(above, above + len(launch.fd))
    actions = [(os.POSIX_SPAWN_DUP2, fd, spare) for fd, spare in zip(launch.fd.values(), high, strict=True)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in launch.fd.values()]
    for spare, name in zip(high, launch.fd, strict=True):
        actions += [(os.POSIX_SPAWN_DUP2, spare, launch.places[name]), (os.POSIX_SPAWN_CLOSE, spare)]
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        pid = os.posix_spawn(launch.argv[0], launch.argv, launch.env, file_actions=actions, setsid=True)
        try:
            return pid, os.pidfd_open(pid)
        except OSError:
            os.killpg(pid, signal.SIGKILL)  # its session's only group, and unreaped: nobody else's
            raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class EnterHarness(BaseException):  # noqa: N818 - a way out of the fork server's stack, not an error
    """Raised in a harness's process, caught by main(): the fork server's frames, and what they held (requests,
    PIDs, paths), are gone before the bot's code runs."""

    def __init__(self, serve: functools.partial) -> None:
        super().__init__()
        self.serve = serve


def _as_inside(*harness_modules) -> None:
    """The interpreter as a fresh one inside would be: nothing cached of the outside, no host path in view, the
    harness's module names free for the bot."""
    sys.path_importer_cache.clear()
    sys.argv[:] = ["/harness/harness.py"]
    sys.orig_argv[:] = [sys.executable, *PYTHON_FLAGS, "/harness/harness.py"]
    main = sys.modules["__main__"]
    for module in (main, *harness_modules):
        name = "zygote" if module is main else module.__name__.removeprefix("_arena_")
        module.__file__ = f"/harness/{name}.py"
        module.__cached__ = module.__loader__ = module.__spec__ = None
    for name in ("_arena_harness", "_arena_protocol"):
        sys.modules.pop(name, None)


def _sandbox_namespaces(request: Request) -> dict[str, int]:
    """The namespaces and root of the sandbox, once bwrap's child has built it (read as the sandbox's uid, which may
    read them where a root runner without CAP_SYS_PTRACE, as in a container, may not)."""
    _await_built(request.init_pid, request.deadline)
    found: dict[str, int] = {}
    try:
        for name in SANDBOX_NAMESPACES:
            if os.path.exists(f"/proc/self/ns/{name}"):
                found[name] = os.open(f"/proc/{request.init_pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
        found["outer_user"] = fcntl.ioctl(found["mnt"], NS_GET_USERNS)  # close-on-exec, as the kernel opens it
        found["root"] = os.open(f"/proc/{request.init_pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        # opened by PID: only if both are still alive now was no PID reused meanwhile
        if _exited(request.fd["bwrap"]) or _exited(request.fd["init"]):
            raise ProcessLookupError("the sandbox ended before the harness could join it")
    except BaseException:
        _close(found)
        raise
    return found


def _close(descriptors: dict[str, int]) -> None:
    for descriptor in descriptors.values():
        os.close(descriptor)


def _join(namespaces: dict[str, int], tmp_options: str, fresh_tmp: bool, join_pid: bool) -> None:
    """Join the sandbox's namespaces and root, in JOIN_ORDER (its PID namespace too if `join_pid`: it is then our
    children's), capping its /tmp (`fresh_tmp`: a new one) before the last join."""
    for name in JOIN_ORDER:
        if name == "pid":
            os.fchdir(namespaces["root"])
            os.chroot(".")
            if not join_pid:
                continue
        if name == "user":
            # before the last join, which leaves us no capability over the namespace that owns the sandbox's
            # mounts (bwrap's innermost user namespace is a child of that one)
            _cap_tmp(tmp_options, fresh_tmp)
        if name not in namespaces:  # a kernel without cgroup namespaces
            continue
        kind = CLONE_NEWUSER if name.endswith("user") else 0
        _call(_libc.setns(namespaces[name], kind), f"joining the {name} namespace")


def _exit_report(ended: os.waitid_result) -> dict:
    """How a harness ended (its waitid), reported as bubblewrap passes an exit on: its code, or 128 + its signal."""
    signalled = ended.si_code != os.CLD_EXITED
    return {"exit": 128 + ended.si_status if signalled else ended.si_status}


def _exited(pidfd: int, timeout: float | None = 0) -> bool:
    """Whether the process of `pidfd` has exited (its pidfd is readable), waiting up to `timeout` seconds (None:
    for good) for it."""
    waiter = select.poll()
    waiter.register(pidfd, select.POLLIN)
    return bool(waiter.poll(None if timeout is None else timeout * 1000))


def _await_built(pid: int, deadline: float) -> None:
    """Until bwrap's child has built the sandbox: its last step before waiting on its block fd is to drop every
    capability, which /proc/PID/status shows (bwrap names its child before it has set anything up)."""
    with open(f"/proc/{pid}/status", "rb", buffering=0) as status:
        for attempt in range(1 << 30):
            for line in status.read().splitlines():
                if line.startswith(b"CapEff:") and int(line.split()[1], 16) == 0:
                    return
            if time.monotonic() > deadline:
                raise TimeoutError("bwrap did not build the sandbox in time")
            status.seek(0)
            time.sleep(0.0002 if attempt < 50 else 0.002)


def _load_harness(directory: str):
    sys.path.insert(0, directory)
    try:
        import _arena_harness as harness
        import _arena_protocol as protocol
    finally:
        sys.path.remove(directory)
    return harness, protocol


def _received_fds(ancillary: list) -> list[int]:
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds += list(memoryview(data[:usable]).cast("i"))
    return fds


def _report(channel: int, message: dict, pidfd: int | None = None) -> None:
    """One report on the request's info socket (SOCK_SEQPACKET: one message each), with a pidfd if given. Never
    waits, and a runner that has closed its end of it gets none."""
    try:
        with socket.socket(fileno=os.dup(channel)) as reports:
            _send(reports, message, pidfd, socket.MSG_DONTWAIT)
    except OSError:
        pass


def _send(connection: socket.socket, message: dict, pidfd: int | None = None, flags: int = 0) -> None:
    rights = [] if pidfd is None else [(socket.SOL_SOCKET, socket.SCM_RIGHTS, pidfd.to_bytes(4, sys.byteorder))]
    connection.sendmsg([json.dumps(message).encode()], rights, flags)


def _reap_any(signum: int = 0, frame: object = None) -> None:
    """Collect the launcher's children (each bwrap) that have ended: at once, so that their CPU time is counted in
    its children's as soon as they end."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _own_user_namespace() -> bool:
    """Make this process the owner of a user namespace of its own, keeping our uid and gid (so the files we reach
    stay the same), with CAP_SYS_ADMIN in it alone: what joining a sandbox's PID namespace takes. Every bwrap the
    launcher starts then makes its namespaces inside this one. False where the host refuses (no user namespaces for
    us, or a security module that denies us their capabilities): the fork server then joins sandboxes through a
    monitor per sandbox, from the host's user namespace."""
    probe = os.fork()  # tried in a child first: a user namespace, once entered, cannot be left
    if probe == 0:
        try:
            usable = _enter_user_namespace() and _libc.unshare(CLONE_NEWUTS) == 0  # takes CAP_SYS_ADMIN there
        except BaseException:
            usable = False
        os._exit(0 if usable else 1)
    if os.waitstatus_to_exitcode(os.waitpid(probe, 0)[1]) != 0:
        return False
    return _enter_user_namespace()


def _enter_user_namespace() -> bool:
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWUSER) != 0:
        return False
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as mapping:
            mapping.write(text)
    _keep_capabilities(1 << CAP_SYS_ADMIN)
    return True


def _start_launcher(launches: socket.socket, control: socket.socket) -> int:
    """Fork the launcher (small: before the imports), which serves `launches` until the runner closes it, and dies
    with us; its PID."""
    zygote = os.getpid()
    pid = os.fork()
    if pid != 0:
        launches.close()
        return pid
    code = 0
    try:
        control.close()
        _call(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "death signal")
        if os.getppid() == zygote:
            _keep_capabilities(0)
            signal.signal(signal.SIGCHLD, _reap_any)
            Launcher(launches).serve()
    except BaseException:
        code = 1
    os._exit(code)


def main(argv: list[str]) -> int:
    # No death signal here (it would follow the runner's thread that started us, not the runner): the runner's
    # end of the control socket closes when it dies, and then this loop ends, and with it every harness (their death
    # signals), the launcher (its death signal) and every bwrap (--die-with-parent).
    control = socket.socket(fileno=int(argv[1]))
    launches = socket.socket(fileno=int(argv[2]))
    for channel in (control, launches):
        os.set_inheritable(channel.fileno(), False)  # no bwrap we start may hold either
    # while /proc/self is still ours to write (below, it is root's)
    joins_pid = argv[3:] != [MONITORS] and _own_user_namespace()
    _call(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable")  # no other process of this uid may trace us
    launcher = _start_launcher(launches, control)
    config = json.loads(control.recv(1 << 20))
    for name in PRELOAD:
        __import__(name)
    zygote = Zygote(control, config, launcher, joins_pid)
    # Out of the collector's sight for good: a harness's collections then never walk (nor copy, page by page, from
    # this process's memory) the thousands of objects the imports made, which it shares with every other harness
    gc.freeze()
    control.send(json.dumps({"ready": True, "launcher": launcher, "joins_pid": zygote.joins_pid}).encode())
    try:
        zygote.serve()
        return 0
    except EnterHarness as entering:
        serve = entering.serve
    del zygote, control, config  # with the exception gone, nothing of the fork server's is left to reach
    return serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
