"""The seccomp filter bwrap installs just before it executes the harness.

A deny-list on top of everything else (namespaces, rlimits, an unprivileged uid): what Python and a bot's
ordinary computing need stays allowed, threads included; what could reach the kernel's more dangerous
corners, other processes or the network is refused with an error (the bot sees an OSError, nothing is killed).
The program is built with libseccomp (PyPI `pyseccomp`, or Debian's `python3-seccomp`) and handed to bwrap as
compiled BPF, so nothing inside the sandbox needs the library.
"""

from __future__ import annotations

import errno
import functools
import os
import signal
import socket
import tempfile
from typing import Any

# clone(2) flags (linux/sched.h)
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

F_SETSIG = 10  # fcntl(2): the signal a file's readiness sends (fcntl.h)
PR_SET_PDEATHSIG = 1  # prctl(2)
# The calls that send a signal, and which argument is the signal's number.
SIGNAL_SENDERS = {
    "kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1, "rt_tgsigqueueinfo": 2, "pidfd_send_signal": 1,
}  # fmt: skip

# Refused outright with EPERM, grouped by what they would give a bot.
# fmt: off
DENIED: dict[str, tuple[str, ...]] = {
    "debugging other processes": (
        "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "perf_event_open",
    ),
    "mounting": (
        "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
        "fsmount", "fspick", "mount_setattr",
    ),
    "namespaces": ("unshare", "setns"),
    "process creation": ("fork", "vfork"),
    "bpf": ("bpf",),
    "kernel keyring": ("keyctl", "add_key", "request_key"),
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "kernel and system administration": (
        "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
        "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "lookup_dcookie", "open_by_handle_at",
        "name_to_handle_at", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
        "setdomainname", "iopl", "ioperm", "vhangup", "mbind", "migrate_pages", "move_pages",
        "set_mempolicy", "personality",
    ),
    # Kernel memory that RLIMIT_AS does not count, unbounded where there is no cgroup (IPC objects live
    # in the sandbox's own IPC namespace, but hold their memory until it ends)
    "memory outside the address space limit": (
        "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
        "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "memfd_create",
    ),
}

# Refused with ENOSYS, as if the kernel had no such call: they would show the host (its mounts, memory and
# load, file systems, security modules, NUMA layout, page cache) and a bot has no use for them. glibc's
# sysconf(_SC_PHYS_PAGES) and the like read sysinfo: inside, they answer nonsense instead.
HIDDEN: dict[str, tuple[str, ...]] = {
    "the host's mounts": ("statmount", "listmount", "sysfs", "ustat", "quotactl_fd"),
    "the host's memory and load": ("sysinfo", "get_mempolicy"),
    "the host's page cache": ("cachestat",),
    "the host's security modules": ("lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules"),
    "mounting": ("open_tree_attr",),
}
# fmt: on

# Calls newer than the libseccomp some hosts have (2.5 knows none of them), by number: from 424 on, every
# architecture but alpha, ia64 and mips numbers new system calls alike.
NEW_SYSCALLS = {
    "statmount": 457,
    "listmount": 458,
    "lsm_get_self_attr": 459,
    "lsm_set_self_attr": 460,
    "lsm_list_modules": 461,
    "open_tree_attr": 467,
}


MISSING_LIBRARY = "no libseccomp binding: pip install pyseccomp (or apt-get install python3-seccomp)"


@functools.lru_cache(maxsize=1)
def _library() -> Any:
    # cached: a failed import is not, and each sandbox's launch asks (a search of sys.path every time)
    try:
        import seccomp as library  # Debian's python3-seccomp
    except ImportError:
        try:
            import pyseccomp as library  # the same API over ctypes, from PyPI
        except ImportError:
            return None
    return library


def available() -> bool:
    return _library() is not None


@functools.lru_cache(maxsize=1)
def filter_bpf() -> bytes:
    """The compiled filter for this machine's architecture (cached: it never changes within a process)."""
    sc = _library()
    if sc is None:
        raise RuntimeError(MISSING_LIBRARY)
    deny = sc.ERRNO(errno.EPERM)
    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    _prefer_binary_tree(sc, rules)
    for names in DENIED.values():
        for name in names:
            rules.add_rule(deny, name)
    absent = sc.ERRNO(errno.ENOSYS)
    for names in HIDDEN.values():
        for name in names:
            rules.add_rule(absent, NEW_SYSCALLS.get(name, name))
    # A new process is a clone without CLONE_THREAD; a thread must not bring namespaces along either.
    rules.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    for flag in CLONE_NAMESPACES.values():
        rules.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, where a filter cannot look; ENOSYS makes libc fall back to clone.
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for call in ("socket", "socketpair"):
        rules.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), call, sc.Arg(0, sc.NE, socket.AF_UNIX))
    # Only the runner continues a stopped bot: a thread of its own sending SIGCONT as its process stops (the stop
    # lands thread by thread) would cancel the stop and run on into the opponent's turn. Besides the calls that
    # send signals, a POSIX timer, a file's F_SETSIG and the death signal could deliver it: timer_create passes
    # its signal in memory, where a filter cannot look, so it is refused outright.
    for call, signal_argument in SIGNAL_SENDERS.items():
        rules.add_rule(deny, call, sc.Arg(signal_argument, sc.EQ, signal.SIGCONT))
    rules.add_rule(deny, "timer_create")
    rules.add_rule(deny, "fcntl", sc.Arg(1, sc.EQ, F_SETSIG))
    rules.add_rule(deny, "prctl", sc.Arg(0, sc.EQ, PR_SET_PDEATHSIG), sc.Arg(1, sc.EQ, signal.SIGCONT))
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def _prefer_binary_tree(sc: Any, rules: Any) -> None:
    """Have libseccomp (2.5 and later) sort the calls into a binary tree instead of a chain: the kernel then runs a
    few comparisons, not all of them, for every call that has argument rules (the harness's kill after each reply),
    and installs the filter (which it first runs once per call number) in less time. Same decisions either way."""
    try:
        rules.set_attr(sc.Attr.CTL_OPTIMIZE, 2)
    except (AttributeError, OSError, RuntimeError, ValueError):
        pass  # an older libseccomp: the chain


def filter_fd() -> int:
    """A readable pipe holding the compiled filter, for bwrap's --seccomp FD (the caller closes it)."""
    program = filter_bpf()
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)  # a few KiB: fits in the pipe buffer, so this never blocks
    finally:
        os.close(write_end)
    return read_end
