"""Attack: ask the kernel about the host (mounts, memory and load, page cache, security modules), hold memory that
the address space limit does not count (SysV shared memory, message queues, memfds), and drop the runtime's pages from
the host's page cache, which every sandbox shares."""

import ctypes
import os
import struct

# x86_64 system call numbers
HIDDEN = {
    "statmount": (457, None, None, 0, 0),
    "sysinfo": (99,),  # buffer passed below
    "sysfs": (139, 3),  # how many file system types the kernel has
    "ustat": (136, 0, None),
    "cachestat": (451, 0, None, None, 0),
    "get_mempolicy": (239, None, None, 0, None, 0),
    "lsm_list_modules": (461, None, None, 0),
    "lsm_get_self_attr": (459, 100, None, None, 0),
    "quotactl_fd": (443, 0, 0, 0, None),
}
OVER_THE_LIMIT = {
    "shmget": (29, 0, 1 << 30, 0o1600),  # IPC_PRIVATE, 1 GiB, IPC_CREAT
    "msgget": (68, 0, 0o1600),
    "semget": (64, 0, 1, 0o1600),
    "mq_open": (240, b"q", 0o100, 0o600, None),  # O_CREAT
    "memfd_create": (319, b"m", 0),
}
LSMT_ROOT = 0xFFFFFFFFFFFFFFFF


def outcome(libc, result):
    return "allowed" if result >= 0 else f"denied: errno {ctypes.get_errno()}"


def play(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    results = {}
    buffer = ctypes.create_string_buffer(4096)
    for name, (number, *args) in {**HIDDEN, **OVER_THE_LIMIT}.items():
        if name == "sysinfo":
            args = [buffer]
        results[name] = outcome(libc, libc.syscall(number, *args))
    # listmount with a real request: the mount ids of the sandbox's namespace (statmount would name their sources)
    request = ctypes.create_string_buffer(struct.pack("=IIQQQ", 32, 0, LSMT_ROOT, 0, 0))
    ids = (ctypes.c_uint64 * 64)()
    results["listmount"] = outcome(libc, libc.syscall(458, request, ids, 64, 0))
    try:
        os.memfd_create("python")
        results["os.memfd_create"] = "allowed"
    except OSError as error:
        results["os.memfd_create"] = f"denied: errno {error.errno}"
    try:
        with open(os.__file__, "rb") as runtime_file:
            os.posix_fadvise(runtime_file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        results["os.posix_fadvise"] = "allowed"
    except OSError as error:
        results["os.posix_fadvise"] = f"denied: errno {error.errno}"
    # what Python's own callers of sysinfo and friends still get: an answer, never a crash
    python = {"cpu_count": os.cpu_count(), "uname": os.uname().sysname}
    for key in ("SC_PHYS_PAGES", "SC_AVPHYS_PAGES", "SC_NPROCESSORS_ONLN", "SC_PAGE_SIZE"):
        try:
            python[key] = os.sysconf(key)
        except OSError as error:
            python[key] = f"OSError {error.errno}"
    return {"plays": [], "results": results, "python": python}
