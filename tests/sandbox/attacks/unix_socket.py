"""Attack: connect to the test's Unix socket (a path on the host, and an abstract name)."""

import socket


def play(observation):
    results = {}
    for name, address in (
        ("path", observation["attack"]["path"]),
        ("abstract", "\0" + observation["attack"]["abstract"]),
    ):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.settimeout(0.5)
                client.connect(address)
                client.sendall(b"hello from the sandbox")
            results[name] = "connected"
        except OSError as error:
            results[name] = f"denied: {type(error).__name__} {error.errno}"
    return {"plays": [], "results": results}
