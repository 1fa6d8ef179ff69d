"""Attack: hold kernel memory through the scratch tmpfs's inodes: hundreds of thousands of empty files."""

import os


def play(observation):
    created = 0
    error = None
    try:
        for index in range(observation["attack"]["files"]):
            os.close(os.open(f"/tmp/{index}", os.O_CREAT | os.O_WRONLY))
            created += 1
    except OSError as failure:
        error = f"{type(failure).__name__} {failure.errno}"
    info = os.statvfs("/tmp")
    return {"plays": [], "created": created, "error": error, "inodes": info.f_files}
