"""Attack: raise its own resource limits back up, and create a user namespace to regain capabilities."""

import ctypes
import os
import resource

PR_CAPBSET_READ, PR_GET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET = 23, 39, 47, 1


def capabilities():
    """Effective, permitted and inheritable sets (capget), and the bounding and ambient capabilities held."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    libc.capget(header, data)
    bounding = [cap for cap in range(64) if libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1]
    ambient = [cap for cap in range(64) if libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1]
    no_new_privs = libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
    return {"sets": list(data), "bounding": bounding, "ambient": ambient, "no_new_privs": no_new_privs}


def play(observation):
    results = {}
    for name in ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
        which = getattr(resource, name)
        try:
            resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            results[name] = "raised"
        except (ValueError, OSError) as error:
            results[name] = f"denied: {type(error).__name__}"
        results[name + " now"] = list(resource.getrlimit(which))
    try:
        os.unshare(os.CLONE_NEWUSER) if hasattr(os, "unshare") else None
        results["unshare"] = "n/a" if not hasattr(os, "unshare") else "allowed"
    except OSError as error:
        results["unshare"] = f"denied: {type(error).__name__}"
    results["uid"] = [os.getuid(), os.geteuid(), os.getgid()]
    results["capabilities"] = capabilities()
    return {"plays": [], "results": results}
