"""Attack: reply, then end the main thread alone (raw exit(2)) while a thread carries on the protocol and another
spins: the leader is a zombie, never stopped, while the process runs on between its turns."""

import ctypes
import os
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
spins = 0
started = []


def spin():
    global spins
    while True:
        spins += 1


def play(observation):
    if not started:
        started.append(1)
        threading.Thread(target=spin, daemon=True).start()
        frame = sys._getframe(1)  # the harness's serve(): its Channel
        channel_class, channel = frame.f_globals["Channel"], frame.f_locals["channel"]

        def take_over():
            while channel.receive() is not None:
                channel.send({"type": "turn", "turn": {"plays": [], "spins": spins}})
            os._exit(0)

        def reply(self, message):
            self.send(message)
            threading.Thread(target=take_over).start()
            libc.syscall(60, 0)  # SYS_exit: this thread only

        channel_class.reply = reply
    return {"plays": [], "spins": spins}
