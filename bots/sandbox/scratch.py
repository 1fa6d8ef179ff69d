"""The sandbox's /tmp: a tmpfs of its own, capped in bytes and in files.

bwrap's own `--tmpfs` takes a size but no inode count, and a tmpfs's default inode count is half the
machine's RAM in pages: a bot could create hundreds of thousands of empty files, each holding about 1 KiB
of kernel memory that no rlimit counts. So the launcher mounts the tmpfs itself, with `nr_inodes`, in a user
and mount namespace of the sandbox's own made just before bwrap (util-linux's `unshare` and `mount`, run
as the sandbox's uid, mapped to root there), and bwrap binds it at /tmp. The host's mounts never change,
and the tmpfs ends with the namespace, i.e. with the sandbox's last process.

bwrap then runs as root in that namespace, so it is told the sandbox's uid/gid and to drop every
capability: the bot sees the same uid and has no more privilege than when bwrap ran unprivileged.
"""

from __future__ import annotations

from bots.sandbox.bwrap import system_tool

# $0: the mount point; then the options; "$@" after them: bwrap's command line
_MOUNT_SCRIPT = 'mount -t tmpfs -o "$1" sandbox-tmp "$0" && shift && exec "$@"'


def _tool(name: str) -> str:
    return system_tool(name, "it mounts each sandbox's /tmp")


def mount_options(size_bytes: int, inodes: int) -> str:
    return f"nosuid,nodev,mode=0700,size={size_bytes},nr_inodes={inodes}"


def launch_prefix(mount_point: str, size_bytes: int, inodes: int) -> list[str]:
    """What goes just before bwrap's argv: a private namespace in which `mount_point` is the capped tmpfs."""
    return [
        _tool("unshare"), "--map-root-user", "--mount", "--propagation", "private", "--",
        _tool("sh"), "-c", _MOUNT_SCRIPT, mount_point, mount_options(size_bytes, inodes),
    ]  # fmt: skip
