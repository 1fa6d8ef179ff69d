"""Attack: raise its own resource limits back up, and create a user namespace to regain capabilities."""

import os
import resource


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
    return {"plays": [], "results": results}
