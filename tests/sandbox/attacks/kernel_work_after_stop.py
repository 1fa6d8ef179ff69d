"""Attack (issue 20, finding 3): leave work in the kernel for when the bot is stopped. Just before each reply a thread
maps and populates a large region (mmap with MAP_POPULATE), a long system call that no signal but SIGKILL cuts
short: a stop lands on that thread only once the call returns, while the bot's other threads have long stopped."""

import mmap
import threading

SIZE = 256 << 20


def _populate():
    mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE).close()


def play(observation):
    threading.Thread(target=_populate).start()
    return {"plays": []}
