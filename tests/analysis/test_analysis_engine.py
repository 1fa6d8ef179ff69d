"""The analysis engine's version changes with the leaf models' content, so the league makes stale analyses again."""

from bots.analysis import engine


def test_the_version_names_the_code_revision_and_the_models_content(tmp_path, monkeypatch):
    version = engine.engine_version()
    assert version.startswith(f"{engine.CODE_REVISION}.") and len(version.split(".")[1]) == 12
    refitted = tmp_path / "leaf_models.json"
    refitted.write_bytes(engine.MODELS_FILE.read_bytes() + b"\n")
    monkeypatch.setattr(engine, "MODELS_FILE", refitted)
    engine.engine_version.cache_clear()
    try:
        assert engine.engine_version() != version
    finally:
        engine.engine_version.cache_clear()
