"""Attack: fill memory through the writable scratch tmpfs (many files, then one 1 GiB file)."""


def play(observation):
    written = 0
    errors = []
    block = b"x" * (1 << 20)
    for index in range(2000):
        try:
            with open(f"/tmp/fill-{index}", "wb") as handle:
                handle.write(block)
            written += len(block)
        except OSError as error:
            errors.append(f"{type(error).__name__} {error.errno}")
            break
    try:
        with open("/tmp/huge", "wb") as handle:
            for _ in range(1024):
                handle.write(block)
                written += len(block)
    except OSError as error:
        errors.append(f"{type(error).__name__} {error.errno}")
    return {"plays": [], "written": written, "errors": errors}
