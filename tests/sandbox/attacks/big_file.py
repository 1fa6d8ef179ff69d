"""Attack: write a 1 GiB file (sparse and dense) into scratch."""


def play(observation):
    errors = []
    try:
        with open("/tmp/sparse", "wb") as handle:
            handle.seek(1 << 30)
            handle.write(b"x")
    except OSError as error:
        errors.append(f"sparse: {type(error).__name__} {error.errno}")
    written = 0
    try:
        with open("/tmp/dense", "wb") as handle:
            block = b"y" * (1 << 20)
            for _ in range(1024):
                handle.write(block)
                written += len(block)
    except OSError as error:
        errors.append(f"dense: {type(error).__name__} {error.errno}")
    return {"plays": [], "written": written, "errors": errors}
