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
from dataclasses import dataclass
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
# fcntl(2) and ioctl(2) commands that make a file signal its owner when it is ready (asm-generic/fcntl.h, ioctls.h,
# sockios.h), and the open flag that turns it on
F_SETFL = 4
F_SETOWN = 8
F_SETSIG = 10
F_SETOWN_EX = 15
O_ASYNC = 0o20000
FIOASYNC = 0x5452
FIOSETOWN = 0x8901
SIOCSPGRP = 0x8902
PR_SET_PDEATHSIG = 1  # prctl(2)
MADV_HUGEPAGE = 14  # madvise(2)
MADV_COLLAPSE = 25
# The calls that send a signal, and which argument is the signal's number.
SIGNAL_SENDERS = {
    "kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1, "rt_tgsigqueueinfo": 2, "pidfd_send_signal": 1,
}  # fmt: skip

# The kernel reads an `int` argument from the low 32 bits of its register and ignores the rest, so a rule comparing
# all 64 bits would take SIGCONT | 1 << 32 for another signal and let the call through. Every comparison with an
# int's value therefore looks at the low 32 bits alone.
INT_BITS = 0xFFFF_FFFF


@dataclass(frozen=True)
class Equals:
    """Argument `index`, an int, is `value`: compared in its low 32 bits, all the kernel reads."""

    index: int
    value: int

    def arg(self, sc: Any) -> Any:
        return sc.Arg(self.index, sc.MASKED_EQ, INT_BITS, self.value)


@dataclass(frozen=True)
class HasBits:
    """Argument `index` has every bit of `bits` set (whatever its other bits, high word included)."""

    index: int
    bits: int

    def arg(self, sc: Any) -> Any:
        return sc.Arg(self.index, sc.MASKED_EQ, self.bits, self.bits)


@dataclass(frozen=True)
class LacksBits:
    """Argument `index` has none of the bits of `bits` set."""

    index: int
    bits: int

    def arg(self, sc: Any) -> Any:
        return sc.Arg(self.index, sc.MASKED_EQ, self.bits, 0)


@dataclass(frozen=True)
class IsNot:
    """Argument `index` is anything but `value`, compared in all 64 bits: a non-zero high word makes it differ, so a
    call that smuggles one in is refused too (on the refusing side, a wide comparison is the safe one)."""

    index: int
    value: int

    def arg(self, sc: Any) -> Any:
        return sc.Arg(self.index, sc.NE, self.value)


Condition = Equals | HasBits | LacksBits | IsNot


@dataclass(frozen=True)
class ArgumentRule:
    """Refuse `call` with `error` when every condition on its arguments holds."""

    call: str
    when: tuple[Condition, ...]
    why: str
    error: int = errno.EPERM


def _argument_rules() -> tuple[ArgumentRule, ...]:
    new_process = "a new process (a clone without CLONE_THREAD)"
    rules = [ArgumentRule("clone", (LacksBits(0, CLONE_THREAD),), new_process)]
    rules += [
        ArgumentRule("clone", (HasBits(0, flag),), f"a thread in a namespace of its own ({name})")
        for name, flag in CLONE_NAMESPACES.items()
    ]
    rules += [
        ArgumentRule(call, (IsNot(0, socket.AF_UNIX),), "a socket of the network", errno.EAFNOSUPPORT)
        for call in ("socket", "socketpair")
    ]
    # Only the runner continues a stopped bot: a thread of its own sending SIGCONT as its process stops (the stop lands
    # thread by thread), or a signal the kernel sends it later (a file's readiness, its parent's death), would cancel
    # the stop and run on into the opponent's turn. POSIX timers pass their signal in memory, where a filter cannot
    # look: they are refused outright (DENIED).
    rules += [
        ArgumentRule(call, (Equals(index, signal.SIGCONT),), "sending SIGCONT")
        for call, index in SIGNAL_SENDERS.items()
    ]
    rules += [
        ArgumentRule("prctl", (Equals(0, PR_SET_PDEATHSIG), Equals(1, signal.SIGCONT)), "SIGCONT at its parent's death")
    ]
    # A file that signals its owner when ready (O_ASYNC) sends SIGIO, or any signal F_SETSIG names, at a moment of the
    # kernel's choosing: bots have no use for any of it, so none of it is offered.
    signalling = "a file that signals when it is ready"
    rules += [ArgumentRule("fcntl", (Equals(1, command),), signalling) for command in (F_SETOWN, F_SETSIG, F_SETOWN_EX)]
    rules += [ArgumentRule("fcntl", (Equals(1, F_SETFL), HasBits(2, O_ASYNC)), signalling)]
    rules += [ArgumentRule("ioctl", (Equals(1, request),), signalling) for request in (FIOASYNC, FIOSETOWN, SIOCSPGRP)]
    # Huge pages make a page fault (and the compaction behind it) long kernel work that a stop cannot cut short
    rules += [ArgumentRule("madvise", (Equals(2, advice),), "huge pages") for advice in (MADV_HUGEPAGE, MADV_COLLAPSE)]
    return tuple(rules)


ARGUMENT_RULES = _argument_rules()

# Refused outright with EPERM, grouped by what they would give a bot.
# fmt: off
DENIED: dict[str, tuple[str, ...]] = {
    "debugging other processes": (
        "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
        "perf_event_open",
    ),
    "mounting": (
        "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
        "fsmount", "fspick", "mount_setattr",
    ),
    "namespaces": ("unshare", "setns"),
    "process creation": ("fork", "vfork"),
    "signals sent later (a POSIX timer's is passed in memory, where a filter cannot look)": ("timer_create",),
    "bpf": ("bpf",),
    # the page cache is the host's, and the runtime's pages in it every sandbox's: a bot that dropped them (DONTNEED)
    # would slow the other bots' start and could tell them, or its own next process, a number by which pages are gone
    "dropping pages of the host's page cache": ("fadvise64",),
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
    # clone3 passes its flags in memory, where a filter cannot look (for CLONE_THREAD, CLONE_NEW*): ENOSYS makes
    # libc fall back to clone, whose flags ARGUMENT_RULES check
    "flags a filter cannot see": ("clone3",),
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
    return compile_filter(DENIED, HIDDEN, ARGUMENT_RULES)


def compile_filter(
    denied: dict[str, tuple[str, ...]], hidden: dict[str, tuple[str, ...]], argument_rules: tuple[ArgumentRule, ...]
) -> bytes:
    """The BPF program of these tables (the sandbox's are DENIED, HIDDEN and ARGUMENT_RULES)."""
    sc = _library()
    if sc is None:
        raise RuntimeError(MISSING_LIBRARY)
    deny = sc.ERRNO(errno.EPERM)
    absent = sc.ERRNO(errno.ENOSYS)
    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    _prefer_binary_tree(sc, rules)
    for names in denied.values():
        for name in names:
            rules.add_rule(deny, name)
    for names in hidden.values():
        for name in names:
            rules.add_rule(absent, NEW_SYSCALLS.get(name, name))
    for rule in argument_rules:
        rules.add_rule(sc.ERRNO(rule.error), rule.call, *(condition.arg(sc) for condition in rule.when))
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def syscall_number(name: str) -> int:
    """The number of system call `name` on this machine's architecture."""
    sc = _library()
    if sc is None:
        raise RuntimeError(MISSING_LIBRARY)
    return NEW_SYSCALLS.get(name) or sc.resolve_syscall(sc.system_arch(), name)


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
