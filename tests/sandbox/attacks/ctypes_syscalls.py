"""Attack: raw system calls via ctypes: mount, namespaces, bpf, keyctl, io_uring, sockets, clone, setuid."""

import ctypes

# x86_64 system call numbers
CALLS = {
    "unshare-user": (272, 0x10000000),
    "unshare-net": (272, 0x40000000),
    "setns": (308, 0, 0),
    "mount": (165, b"none", b"/tmp", b"tmpfs", 0, None),
    "bpf": (321, 0, None, 0),
    "keyctl": (250, 0, 0),
    "add_key": (248, b"user", b"k", b"v", 1, 0xFFFFFFFC),
    "io_uring_setup": (425, 8, None),
    "socket-inet": (41, 2, 1, 0),
    "socket-inet6": (41, 10, 2, 0),
    "fork": (57,),
    "clone-process": (56, 17, 0, 0, 0, 0),  # SIGCHLD only: a fork
    "clone3": (435, None, 0),
    "perf_event_open": (298, None, 0, -1, -1, 0),
    "userfaultfd": (323, 0),
    "setuid-root": (105, 0),
    "chroot": (161, b"/tmp"),
    "kexec_load": (246, 0, 0, None, 0),
}


def play(observation):
    libc = ctypes.CDLL(None, use_errno=True)
    results = {}
    for name, (number, *args) in CALLS.items():
        result = libc.syscall(number, *args)
        results[name] = "allowed" if result >= 0 else f"denied: errno {ctypes.get_errno()}"
        if name in ("fork", "clone-process") and result == 0:
            libc.syscall(60, 0)  # a child, should it ever exist, leaves at once
    return {"plays": [], "results": results}
