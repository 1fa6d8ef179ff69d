"""Attack: open a TCP connection to the test's listener on 127.0.0.1 (and the host's usual services)."""

import socket


def play(observation):
    results = {}
    for port in [observation["attack"]["port"], 5432, 6379, 80]:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
                connection.sendall(b"hello from the sandbox")
            results[str(port)] = "connected"
        except OSError as error:
            results[str(port)] = f"denied: {type(error).__name__} {error.errno}"
    return {"plays": [], "results": results}
