"""Attack: send UDP datagrams to the test's listener on 127.0.0.1, and try a raw socket."""

import socket


def play(observation):
    results = {}
    for family, kind, name in (
        (socket.AF_INET, socket.SOCK_DGRAM, "udp4"),
        (socket.AF_INET6, socket.SOCK_DGRAM, "udp6"),
        (socket.AF_INET, socket.SOCK_RAW, "raw"),
        (socket.AF_PACKET, socket.SOCK_RAW, "packet"),
        (socket.AF_NETLINK, socket.SOCK_RAW, "netlink"),
    ):
        try:
            with socket.socket(family, kind) as sender:
                if name == "udp4":
                    sender.sendto(b"hello from the sandbox", ("127.0.0.1", observation["attack"]["port"]))
            results[name] = "sent"
        except OSError as error:
            results[name] = f"denied: {type(error).__name__} {error.errno}"
    return {"plays": [], "results": results}
