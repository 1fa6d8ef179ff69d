"""The sandbox's /tmp: a tmpfs of its own, capped in bytes and in files.

bwrap mounts a fresh tmpfs at /tmp (`--tmpfs`), but takes no inode count for it (nor, before 0.8, a size), and a tmpfs's
default inode count is half the machine's RAM in pages: a bot could create hundreds of thousands of empty files, each
holding about 1 KiB of kernel memory that no rlimit counts. So the harness's process, once it has joined the sandbox's
mount namespace and root and while it still has capabilities over them (zygote.py), remounts that tmpfs with `size` and
`nr_inodes` and makes it private to the sandbox's uid (mode 0700): before any of the bot's code runs. The tmpfs lives in
the sandbox's own mount namespace: the host's mounts never change, and it ends with the sandbox's last process. (It was
once mounted by `sh` and util-linux's `mount` in a user namespace made for bwrap by util-linux's `unshare`, and bound at
/tmp: three programs more to start per sandbox, each some of a millisecond of CPU.)
"""

from __future__ import annotations


def remount_options(size_bytes: int, inodes: int) -> str:
    """The options the harness's process remounts /tmp with (a tmpfs's size and inode count can be changed so)."""
    return f"size={size_bytes},nr_inodes={inodes}"
