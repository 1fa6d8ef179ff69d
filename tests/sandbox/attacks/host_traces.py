"""Attack: look for what the fork server knew (the runner's requests, host PIDs, its folder) through the frames
above the bot, the interpreter's argv and its modules' paths."""

import sys


def play(observation):
    frames, frame = [], sys._getframe()
    while frame is not None:
        frames.append({"function": frame.f_code.co_name, "file": frame.f_code.co_filename,
                       "locals": sorted(frame.f_locals)})  # fmt: skip
        frame = frame.f_back
    files = sorted({str(getattr(module, "__file__", None)) for module in list(sys.modules.values())})
    return {"plays": [], "frames": frames, "orig_argv": sys.orig_argv, "argv": sys.argv, "files": files}
