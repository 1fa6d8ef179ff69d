"""The sandbox's /tmp: a tmpfs of its own, capped in bytes and in files.

bwrap mounts a fresh tmpfs at /tmp (`--tmpfs`), but takes no inode count for it (nor, before 0.8, a size), and a
tmpfs's default inode count is half the machine's RAM in pages: a bot could create hundreds of thousands of empty
files, each holding about 1 KiB of kernel memory that no rlimit counts. So the fork server's monitor, once it has
joined the sandbox's mount namespace and root and while it still has capabilities over them (zygote.py), remounts
that tmpfs with `size` and `nr_inodes` and makes it private to the sandbox's uid (mode 0700), before it forks the
harness: before any of the bot's code runs. The tmpfs lives in
the sandbox's own mount namespace: the host's mounts never change, and it ends with the sandbox's last process.

bwrap itself runs as root in a user namespace made just before it (util-linux's `unshare`, run as the sandbox's
uid, mapped to root there), so it is told the sandbox's uid/gid and to drop every capability: the bot sees the
same uid and has no more privilege than when bwrap ran unprivileged. (The tmpfs was once mounted in that namespace
by `sh` and util-linux's `mount` before bwrap, and bound at /tmp: two programs more to start per sandbox, some
3 ms of CPU.)
"""

from __future__ import annotations

from bots.sandbox.bwrap import system_tool


def remount_options(size_bytes: int, inodes: int) -> str:
    """The options the harness's process remounts /tmp with (a tmpfs's size and inode count can be changed so)."""
    return f"size={size_bytes},nr_inodes={inodes}"


def launch_prefix() -> list[str]:
    """What goes just before bwrap's argv: a user (and mount) namespace in which bwrap runs as root."""
    return [system_tool("unshare", "bwrap runs in a user namespace of its own"),
            "--map-root-user", "--mount", "--propagation", "private", "--"]  # fmt: skip
