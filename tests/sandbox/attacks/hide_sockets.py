"""Attack: outlive its process with Unix sockets, to tell the mirrored half of a duplicate match (a new process in the
same sandbox, same network namespace) a number: each bit a listening socket of an abstract name, kept alive after
the process's end by a cycle of descriptors in flight (a socket holding itself in its own queue). Reports at each
harness's first game the names it finds, then hides a number of its own."""

import array
import socket
import sys

NAMES = [f"arena-bit-{bit}" for bit in range(8)]
games = 0


def hide(name):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + name)
    listener.listen(1)
    carrier, sender = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    descriptors = array.array("i", [carrier.fileno(), listener.fileno()])
    sender.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, descriptors)])
    for held in (listener, carrier, sender):
        held.close()


def found(name):
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect("\0" + name)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def new_game(info):
    global games
    if games == 0:
        print("found", *[name for name in NAMES if found(name)], file=sys.stderr)
        number = int(info["seed"][:2], 16) | 1
        for bit, name in enumerate(NAMES):
            if number >> bit & 1 and not found(name):
                hide(name)
        print("hid", *[name for name in NAMES if found(name)], file=sys.stderr)
    games += 1


def play(observation):
    return {"plays": []}  # an illegal turn loses the game, but keeps the bot running
