"""The worker container's confinement, reproduced here: can bubblewrap still build a bot's sandbox in it?

compose.yaml gives the worker its own seccomp profile, no_new_privs and a handful of capabilities; a Docker
engine is not needed to apply those to a process. `python -m bots.selfcheck` (what operators run in the
container) must pass under exactly them, and fail under what Docker's default profile does to namespaces.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_files import ROOT, SECCOMP_PROFILE, compose

from bots.sandbox.bwrap import python_runtime, reachable
from bots.sandbox.limits import DEFAULT_SANDBOX_ID

pytestmark = pytest.mark.slow  # starts servers and sandboxes: tens of seconds

SECCOMP_EXEC = Path(__file__).with_name("seccomp_exec.py")
# Docker's default profile refuses these to a container without CAP_SYS_ADMIN (clone: with namespace flags).
DOCKER_DEFAULT_WITHOUT_SYS_ADMIN = {
    "defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [
        {"names": ["unshare", "setns", "mount", "umount2", "pivot_root"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
        *(
            {
                "names": ["clone"],
                "action": "SCMP_ACT_ERRNO",
                "errnoRet": 1,
                "args": [{"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}],
            }
            for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
        ),
        {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    ],
}


def image_like_python() -> tuple[str, dict[str, str]]:
    """An interpreter uid 65534 can reach, as the image's /usr/local/bin/python is, and the PYTHONPATH it needs.

    The sandbox reads the runtime as the bot's uid; one it cannot reach (e.g. under a 0700 /root) would make
    the root launcher bind it elsewhere, which takes CAP_SYS_ADMIN that the container does not have.
    """
    if reachable(python_runtime().executable, DEFAULT_SANDBOX_ID, {DEFAULT_SANDBOX_ID}):
        return sys.executable, {"PYTHONPATH": str(ROOT)}
    system = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if not system.exists():
        pytest.skip(f"no Python {sys.version_info.major}.{sys.version_info.minor} that uid 65534 can reach")
    return str(system), {"PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()])}


@pytest.fixture
def sandbox_tmp() -> Iterator[str]:
    """A TMPDIR for the sandboxes that uid 65534 can traverse, removed even if a confined run could not."""
    folder = tempfile.mkdtemp(prefix="deploy-sandbox-")
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder)


def run_confined(profile: Path, capabilities: list[str], tmp: str) -> subprocess.CompletedProcess:
    """`python -m bots.selfcheck` as root with only `capabilities`, no_new_privs and the seccomp `profile`."""
    if os.geteuid() != 0:
        pytest.skip("the worker container starts as root; as another user the sandbox takes another path")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is missing")
    python, extra = image_like_python()
    bounding = ",".join(["-all", *(f"+{cap.lower()}" for cap in capabilities)])
    command = ["setpriv", f"--bounding-set={bounding}", "--inh-caps=-all", "--no-new-privs"]
    command += [python, str(SECCOMP_EXEC), str(profile), python, "-m", "bots.selfcheck"]
    environment = {"PATH": os.environ["PATH"], "TMPDIR": tmp, **extra}
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120, cwd="/")


def worker_capabilities() -> list[str]:
    worker = compose()["services"]["worker"]
    assert worker["cap_drop"] == ["ALL"]
    return worker["cap_add"]


def test_the_sandbox_works_under_the_worker_containers_confinement(sandbox_tmp):
    result = run_confined(SECCOMP_PROFILE, worker_capabilities(), sandbox_tmp)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("OK: played one game in the sandbox") and "uid 65534:65534" in result.stdout


def test_docker_s_default_seccomp_profile_would_stop_the_sandbox(tmp_path, sandbox_tmp):
    """Why compose.yaml ships its own profile, and proof that this test applies the profile it is given."""
    profile = tmp_path / "default-like.json"
    profile.write_text(json.dumps(DOCKER_DEFAULT_WITHOUT_SYS_ADMIN))
    result = run_confined(profile, worker_capabilities(), sandbox_tmp)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("FAILED: ") and "Deploying with Docker" in result.stdout


@pytest.mark.parametrize("missing", ["CHOWN", "DAC_OVERRIDE", "KILL", "SETUID", "SETGID"])
def test_every_capability_the_worker_keeps_is_one_the_sandbox_uses(missing, sandbox_tmp):
    capabilities = worker_capabilities()
    assert missing in capabilities
    result = run_confined(SECCOMP_PROFILE, [cap for cap in capabilities if cap != missing], sandbox_tmp)
    assert result.returncode == 1 and result.stdout.startswith("FAILED: "), f"{missing}: {result.stdout}{result.stderr}"
