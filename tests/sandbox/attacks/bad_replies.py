"""Attack on the protocol: answers that are not JSON, too large, or exit the process mid-game."""

import os
import sys


def play(observation):
    mode = observation["attack"]["mode"]
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
