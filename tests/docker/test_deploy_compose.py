"""docker/compose.yaml and docker/.env.example against what the code really reads and runs (no Docker engine here)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from deploy_files import (
    COMPOSE,
    DOCKER,
    ROOT,
    arena_services,
    compose,
    compose_variables,
    dockerfile,
    entrypoint_subcommands,
    entrypoint_variables,
    env_example,
    healthcheck_module,
    settings_variables,
)

ARENA_SERVICES = {"migrate", "web", "worker", "beat"}


def test_the_services_are_the_deployment_the_operators_guide_describes():
    services = compose()["services"]
    assert set(services) == ARENA_SERVICES | {"db", "redis", "prometheus"}
    assert services["prometheus"]["profiles"] == ["metrics"]  # optional: only with --profile metrics
    assert set(arena_services()) == ARENA_SERVICES
    assert re.fullmatch(r"postgres:1[56](-bookworm)?", services["db"]["image"])
    assert services["redis"]["image"].startswith("redis:")


def test_every_long_running_service_has_a_health_check_and_waits_for_healthy_dependencies():
    services = compose()["services"]
    for name, service in services.items():
        if name != "migrate":  # a one-off job: the others wait for it to complete instead
            assert service["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
        for dependency, condition in service.get("depends_on", {}).items():
            assert dependency in services, f"{name} depends on an unknown service {dependency}"
            expected = "service_completed_successfully" if dependency == "migrate" else "service_healthy"
            assert condition == {"condition": expected}, f"{name} -> {dependency}"
    for name in ("web", "worker", "beat"):
        assert set(services[name]["depends_on"]) == {"db", "redis", "migrate"}, name
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["redis"]["healthcheck"]["test"][1:] == ["redis-cli", "ping"]


def test_workers_scale_and_beat_stays_single():
    services = compose()["services"]
    worker = services["worker"]
    # `--scale worker=N` needs no fixed container name and no fixed host port
    assert "container_name" not in worker and "ports" not in worker
    assert all("container_name" not in service for service in services.values())
    assert services["beat"].get("deploy", {}).get("replicas", 1) == 1


def test_named_volumes_hold_the_database_the_broker_and_the_clock():
    document = compose()
    declared = set(document["volumes"])
    used = {}
    for name, service in document["services"].items():
        for volume in service.get("volumes", []):
            source, target = volume.split(":")[:2]
            assert not source.startswith(("/", ".")), f"{name} mounts a host path {source}: use a named volume"
            assert source in declared, f"{name} uses an undeclared volume {source}"
            used[name] = target
    assert used == {
        "db": "/var/lib/postgresql/data",
        "redis": "/data",
        "beat": "/var/lib/arena",
        "web": "/var/lib/arena/archives",  # the workers export the public games' archives, the web serves them
        "worker": "/var/lib/arena/archives",
        "prometheus": "/prometheus",
    }


def test_the_optional_prometheus_scrapes_the_metrics_with_the_token():
    document = compose()
    prometheus = document["services"]["prometheus"]
    (config,) = prometheus["configs"]
    scrape_file = COMPOSE.parent / document["configs"][config["source"]]["file"]
    (job,) = yaml.safe_load(scrape_file.read_text())["scrape_configs"]
    assert job["metrics_path"] == "/metrics/" and job["static_configs"] == [{"targets": ["web:8000"]}]
    (secret,) = prometheus["secrets"]
    assert job["authorization"] == {"type": "Bearer", "credentials_file": f"/run/secrets/{secret}"}
    assert document["secrets"][secret] == {"environment": "ARENA_METRICS_TOKEN"}
    assert "ARENA_METRICS_TOKEN" in settings_variables()
    assert prometheus["ports"][0].startswith("127.0.0.1:")  # its page is not published beyond the host


def test_every_build_names_a_stage_of_the_dockerfile():
    stages = {instruction.stage for instruction in dockerfile() if instruction.keyword == "FROM"}
    images = {}
    for name, service in arena_services().items():
        build = service["build"]
        context = (COMPOSE.parent / build["context"]).resolve()
        assert context == ROOT, f"{name}: the build context must be the repository"
        assert (context / build["dockerfile"]).resolve() == DOCKER / "Dockerfile"
        assert build["target"] in stages, f"{name}: no stage {build['target']} in the Dockerfile"
        images.setdefault(service["image"], set()).add(build["target"])
    assert all(len(targets) == 1 for targets in images.values()), f"one image name per target: {images}"
    targets = {name: service["build"]["target"] for name, service in arena_services().items()}
    assert targets == {"migrate": "web", "web": "web", "beat": "web", "worker": "worker"}


def test_every_command_is_an_entrypoint_subcommand():
    subcommands = entrypoint_subcommands()
    assert {"web", "worker", "beat", "migrate", "manage", "healthcheck"} <= subcommands
    checks = set(healthcheck_module().CHECKS)
    for name, service in arena_services().items():
        assert service["command"] == [name], f"{name} runs {service['command']}"
        assert name in subcommands
        if "healthcheck" in service:
            test = service["healthcheck"]["test"]
            assert test[:3] == ["CMD", "/app/docker/entrypoint.sh", "healthcheck"], name
            assert test[3:] == [name] and name in checks, name


def test_the_worker_gets_what_bubblewrap_needs_and_little_else():
    worker = compose()["services"]["worker"]
    options = worker["security_opt"]
    seccomp = [option.split("=", 1)[1] for option in options if option.startswith("seccomp=")]
    assert seccomp == ["seccomp-worker.json"] and (COMPOSE.parent / seccomp[0]).is_file()
    assert "apparmor=unconfined" in options and "no-new-privileges:true" in options
    assert worker["cap_drop"] == ["ALL"]
    assert "SYS_ADMIN" not in worker["cap_add"]
    assert all("privileged" not in service for service in compose()["services"].values())


def test_the_environment_compose_sets_is_read_by_the_settings_or_the_entrypoint():
    readable = settings_variables() | entrypoint_variables()
    for name, service in arena_services().items():
        assert service["env_file"] == ".env", name
        unknown = set(service.get("environment", {})) - readable
        assert not unknown, f"{name} sets variables nothing reads: {unknown}"
    db = compose()["services"]["db"]["environment"]
    assert set(db) == {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}  # what the postgres image reads
    database_url = compose()["services"]["web"]["environment"]["DATABASE_URL"]
    for variable in db:
        assert f"${{{variable}" in database_url  # the site logs in as the user the database was made for


def test_env_example_documents_every_variable_and_only_real_ones():
    example = env_example()
    missing_from_example = (compose_variables() | settings_variables()) - set(example)
    assert not missing_from_example, f"not in docker/.env.example: {sorted(missing_from_example)}"
    read = compose_variables() | settings_variables() | entrypoint_variables()
    dead = set(example) - read
    assert not dead, f"docker/.env.example lists variables nothing reads: {sorted(dead)}"
    required = {name for name in compose_variables() if re.search(rf"\$\{{{name}:\?", COMPOSE.read_text())}
    required |= {"SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DEBUG"}
    inactive = {name for name in required if not example[name][1]}
    assert not inactive, f"required but commented out in docker/.env.example: {inactive}"
    assert example["DEBUG"] == ("false", True)


@pytest.mark.parametrize("commented", [False, True], ids=["as-shipped", "every-example-uncommented"])
def test_env_example_values_are_accepted_by_the_settings(commented, tmp_path):
    """The settings load with .env.example as the environment (the readers reject malformed values)."""
    environment = {name: value for name, (value, active) in env_example().items() if active or commented}
    service = compose()["services"]["web"]
    environment["DATABASE_URL"] = "postgres://arena:secret@db:5432/arena"  # what compose builds from POSTGRES_*
    environment["CELERY_BROKER_URL"] = service["environment"]["CELERY_BROKER_URL"]
    environment["ARENA_DATA_DIR"] = environment["ARENA_CACHE_DIR"] = str(tmp_path)
    environment["STATIC_ROOT"] = str(tmp_path / "static")
    probe = (
        "import json; from django.conf import settings; "
        "print(json.dumps([settings.DEBUG, settings.ALLOWED_HOSTS, settings.DATABASES['default']['ENGINE'], "
        "settings.SECRET_KEY]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "league.settings", **environment},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    debug, hosts, engine, key = json.loads(result.stdout)
    assert (debug, hosts, engine) == (False, ["arena.example.org"], "django.db.backends.postgresql")
    assert key == env_example()["SECRET_KEY"][0]
