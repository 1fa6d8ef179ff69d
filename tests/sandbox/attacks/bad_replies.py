"""Attack on the protocol: answers that are not JSON, too large, or exit the process mid-game."""

import gc
import os
import sys

OWNER_ONLY = "words for the owner's eyes only"


def play(observation):
    mode = observation["attack"]["mode"]
    if mode == "raw":  # past the harness, straight into its reply pipe: a line that is not JSON
        channel = next(item for item in gc.get_objects() if type(item).__name__ == "Channel")
        os.write(channel.proto_out, f"{OWNER_ONLY}\n".encode())
        return []
    if mode == "set":
        return {1, 2, 3}
    if mode == "nan":
        return [[float("nan"), "up1"]]
    if mode == "huge":
        return {"plays": [], "padding": "x" * 200_000}
    if mode == "sys.exit":
        sys.exit(0)
    if mode == "os._exit":
        os._exit(7)
    if mode == "raise":
        raise ValueError("the bot's own bug")
    if mode == "segfault":
        import ctypes

        ctypes.string_at(0)
    return []
