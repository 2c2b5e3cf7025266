"""Deployment of the worker on a target: check it, then build `<deploy dir>/dld-<version>-<hash>/` once.

The check (one remote Python command) finds the target's Python (3.10 or newer), platform, glibc, NVIDIA driver
(GPU build of ONNX Runtime and NVML where one is present, the CPU build elsewhere: exactly one build), its cache
folder (`DLD_CACHE_DIR` / `NV_DLD_CACHE_DIR` honoured there) and whether the matching deployment exists. The hash
covers this package's Python files and the requirement list, so a deployment matches until either changes.
Building happens in temporary folders renamed at the end (never half a deployment). The environment (a venv with
the requirements, `env-<hash>`, shared by every version that needs the same requirements) is installed from the
target's package index; when that fails, the wheels for the target's platform are downloaded here and sent over
SFTP, then installed with `--no-index`. The deployment itself holds this package's files (sent over SFTP) and a
link to its environment, so a new version of the package is deployed in seconds.
"""

from __future__ import annotations

import hashlib
import io
import json
import shlex
import subprocess
import sys
import tarfile
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from dld_jupyter._version import __version__
from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.ssh_session import SshSession

Say = Callable[[str], None]
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the dld_jupyter folder
SKIPPED = ("labextension", "static", "__pycache__")

PROBE = r"""
import json, os, platform, shutil, sys, sysconfig
deploy = os.path.expanduser(sys.argv[1])
deploy = deploy if os.path.isabs(deploy) else os.path.join(os.path.expanduser("~"), deploy)
cache = os.environ.get("DLD_CACHE_DIR") or os.environ.get("NV_DLD_CACHE_DIR") or os.path.join(
    os.path.expanduser("~"), ".cache", "dld_jupyter")
nvidia = os.path.exists("/proc/driver/nvidia/version") or shutil.which("nvidia-smi") is not None
print(json.dumps({"python": list(sys.version_info[:3]), "executable": sys.executable,
  "platform": sysconfig.get_platform(), "glibc": platform.libc_ver()[1], "machine": platform.machine(),
  "host": platform.node(), "nvidia": nvidia, "deploy": deploy, "cache": cache}))
"""


@dataclass(frozen=True)
class TargetInfo:
    """What the check found on the target, and the deployment that fits it."""

    python: tuple[int, int, int]
    executable: str
    platform: str
    glibc: str
    machine: str
    host: str
    nvidia: bool
    deploy_root: str
    cache: str
    requirements: tuple[str, ...]
    folder: str  # <deploy root>/dld-<version>-<hash>: lib/ (this package) and venv -> the environment
    deployed: bool
    environment: str  # <deploy root>/env-<hash of the requirements and python>: the venv, shared by versions
    environment_ready: bool

    @property
    def python_bin(self) -> str:
        return f"{self.folder}/venv/bin/python"

    def lines(self) -> list[str]:
        """The check's list, one line per item with its state (the CLI prints it; the dialog shows it)."""
        version = ".".join(map(str, self.python))
        return [
            f"host: {self.host} ({self.platform}, glibc {self.glibc or 'unknown'})",
            f"python: {version} ({self.executable}) ok",
            f"NVIDIA driver: {'found: GPU build of ONNX Runtime and NVML' if self.nvidia else 'none: CPU build'}",
            f"runtime: {' '.join(self.requirements)}",
            f"environment: {'ready' if self.environment_ready else 'to build'} in {self.environment}",
            f"worker {__version__}: {'deployed' if self.deployed else 'not deployed'} in {self.folder}",
        ]


def _local_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def requirements(nvidia: bool) -> tuple[str, ...]:
    """What the worker needs on a target: numpy, onnx and exactly one ONNX Runtime build (+ NVML for a GPU)."""
    wanted = ["numpy", "onnx", "onnx-ir", "onnxruntime-gpu" if nvidia else "onnxruntime"]
    if nvidia:
        wanted.append("nvidia-ml-py")
    pinned = []
    for name in wanted:
        version = _local_version(name) or (_local_version("onnxruntime") if name.startswith("onnxruntime") else None)
        pinned.append(f"{name}=={version}" if version else name)
    return tuple(pinned)


_PAYLOAD: tuple[bytes, str] | None = None
_HASH: str | None = None


def _package_files() -> list[tuple[str, Path]]:
    """The files a deployment carries: this package's sources and data, by their name inside the payload."""
    files = []
    for path in sorted(PACKAGE_ROOT.rglob("*")):
        relative = path.relative_to(PACKAGE_ROOT.parent)
        if path.is_file() and not any(part in SKIPPED for part in relative.parts) and path.suffix != ".pyc":
            files.append((str(relative), path))
    return files


def package_hash() -> str:
    """The content hash that names this package's deployment (cached for the process). Hashing alone: the
    compressed payload cost ~0.5-2 s on every CLI call that only checks a target (issue 40)."""
    global _HASH
    if _HASH is None:
        digest = hashlib.sha256()
        for name, path in _package_files():
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        _HASH = digest.hexdigest()
    return _HASH


def payload() -> tuple[bytes, str]:
    """This package's files as a tar.gz and their content hash, built when a deployment is sent (cached)."""
    global _PAYLOAD
    if _PAYLOAD is None:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, path in _package_files():
                data = path.read_bytes()
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))
        _PAYLOAD = (buffer.getvalue(), package_hash())
    return _PAYLOAD


_ANSWER_TYPES: dict[str, type] = {
    "executable": str,
    "platform": str,
    "glibc": str,
    "machine": str,
    "host": str,
    "nvidia": bool,
    "deploy": str,
    "cache": str,
}


def _answer(name: str, out: str) -> dict[str, Any]:
    """The check's JSON answer (its last line: a login banner may come first); UnavailableError quoting what the
    target printed when it is not the object PROBE prints."""
    lines = out.strip().splitlines()
    problem = ""
    try:
        data = json.loads(lines[-1]) if lines else None
    except ValueError:
        data, problem = None, "its last line is not JSON"
    if not problem and not isinstance(data, dict):
        problem = "it printed nothing" if not lines else "its last line is not a JSON object"
    if isinstance(data, dict):
        python = data.get("python")
        wrong = [key for key, kind in _ANSWER_TYPES.items() if not isinstance(data.get(key), kind)]
        if not (isinstance(python, list) and len(python) == 3 and all(type(v) is int for v in python)):
            wrong.insert(0, "python")
        if wrong or not data["deploy"] or not data["cache"]:
            problem = f"missing or wrong: {', '.join(wrong or ['deploy', 'cache'])}"
    if problem or not isinstance(data, dict):
        raise UnavailableError(
            f"target {name}: the deployment check's answer is unusable ({problem}); the target printed "
            f"{out[:300]!r}{'…' if len(out) > 300 else ''}. Is the `python3` that a login shell there finds the real "
            "Python 3.10+, and does the login print nothing after its output?"
        )
    return data


def check_target(session: SshSession, deploy_dir: str) -> TargetInfo:
    """Run the check on the target; UnavailableError when it cannot host the worker."""
    code, out, err = session.run(f"python3 -c {shlex.quote(PROBE)} {shlex.quote(deploy_dir)}", timeout=60)
    if code != 0:
        raise UnavailableError(
            f"target {session.connection.name}: no usable python3 ({err.strip() or 'exit ' + str(code)}); "
            "install Python 3.10 or newer with venv on the target"
        )
    data = _answer(session.connection.name, out)
    python = tuple(data["python"])
    if python < (3, 10):
        raise UnavailableError(
            f"target {session.connection.name}: python3 is {'.'.join(map(str, python))}; the worker needs 3.10+"
        )
    reqs = requirements(bool(data["nvidia"]))
    env_digest = hashlib.sha256(("\n".join(reqs) + str(python[:2])).encode()).hexdigest()[:12]
    digest = hashlib.sha256((package_hash() + env_digest).encode()).hexdigest()[:12]
    root = data["deploy"].rstrip("/")
    folder, environment = f"{root}/dld-{__version__}-{digest}", f"{root}/env-{env_digest}"
    q = shlex.quote
    code, out, _ = session.run(f"test -f {q(folder)}/.complete; echo $?; test -f {q(environment)}/.complete; echo $?")
    states = out.split()
    return TargetInfo(
        python=(python[0], python[1], python[2]),
        executable=str(data["executable"]),
        platform=str(data["platform"]),
        glibc=str(data["glibc"]),
        machine=str(data["machine"]),
        host=str(data["host"]),
        nvidia=bool(data["nvidia"]),
        deploy_root=str(data["deploy"]),
        cache=str(data["cache"]),
        requirements=reqs,
        folder=folder,
        deployed=states[:1] == ["0"],
        environment=environment,
        environment_ready=states[1:2] == ["0"],
    )


def deploy(session: SshSession, info: TargetInfo, say: Say = lambda line: None) -> TargetInfo:
    """Build the deployment `info.folder` (and its environment) unless it exists; returns the info, deployed."""
    if info.deployed:
        return info
    if not info.environment_ready:
        _build_environment(session, info, say)
    q = shlex.quote
    tmp = f"{info.deploy_root}/.tmp-{uuid.uuid4().hex[:8]}"
    session.check(f"mkdir -p {q(tmp)}", "creating the deployment folder")
    try:
        data, _ = payload()
        with tempfile.TemporaryDirectory() as local:
            archive = Path(local) / "payload.tar.gz"
            archive.write_bytes(data)
            say(f"sending dld_jupyter {__version__} ({len(data) // 1024} KiB)")
            session.put(str(archive), f"{tmp}/payload.tar.gz")
        unpack = "import tarfile; tarfile.open('payload.tar.gz').extractall('lib')"
        session.check(f"cd {q(tmp)} && python3 -c {q(unpack)} && rm payload.tar.gz", "unpacking the worker")
        session.check(f"ln -s {q(info.environment)} {q(tmp)}/venv", "linking the environment")
        _finish(session, tmp, info.folder, {"version": __version__, "environment": info.environment})
    finally:
        session.run(f"rm -rf {q(tmp)}", timeout=120)
    say(f"deployed in {info.folder}")
    return TargetInfo(**{**info.__dict__, "deployed": True, "environment_ready": True})


def _finish(session: SshSession, tmp: str, folder: str, marker: dict[str, Any]) -> None:
    """Mark `tmp` complete and rename it to `folder`; a concurrent deployment that won the race is as good."""
    q = shlex.quote
    session.check(f"printf %s {q(json.dumps(marker))} > {q(tmp)}/.complete", "marking the deployment")
    session.check(f"mv -T {q(tmp)} {q(folder)} 2>/dev/null || test -f {q(folder)}/.complete", "renaming it")


def _build_environment(session: SshSession, info: TargetInfo, say: Say) -> None:
    q = shlex.quote
    tmp = f"{info.deploy_root}/.tmp-env-{uuid.uuid4().hex[:8]}"
    session.check(f"mkdir -p {q(info.deploy_root)}", "creating the deployment folder")
    try:
        say("creating the virtual environment")
        session.check(f"python3 -m venv {q(tmp)}", "python3 -m venv (is python3-venv installed?)")
        pip = f"cd {q(tmp)} && bin/python -m pip install -q --disable-pip-version-check"
        reqs = " ".join(q(r) for r in info.requirements)
        say(f"installing {reqs} from the target's package index")
        code, _, err = session.run(f"{pip} {reqs}", timeout=1200)
        if code != 0:
            say(f"online install failed ({err.strip().splitlines()[-1:] or ['exit ' + str(code)]}); sending wheels")
            _offline(session, info, tmp, say)
            session.check(f"{pip} --no-index --find-links wheels {reqs} && rm -rf wheels", "offline install")
        _finish(session, tmp, info.environment, {"requirements": list(info.requirements)})
    finally:
        session.run(f"rm -rf {q(tmp)}", timeout=120)


def platform_tags(info: TargetInfo) -> list[str]:
    """pip's --platform tags that the target accepts (manylinux for its glibc and machine)."""
    machine = info.machine
    tags = [f"manylinux2014_{machine}"]
    if info.glibc.startswith("2."):
        tags += [f"manylinux_2_{minor}_{machine}" for minor in range(17, int(info.glibc.split(".")[1]) + 1)]
    return tags


def _offline(session: SshSession, info: TargetInfo, tmp: str, say: Say) -> None:
    with tempfile.TemporaryDirectory() as local:
        command = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "--dest", local]
        command += ["--python-version", f"{info.python[0]}{info.python[1]}", "--implementation", "cp"]
        for tag in platform_tags(info):
            command += ["--platform", tag]
        done = subprocess.run([*command, *info.requirements], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise UnavailableError(
                f"target {session.connection.name}: it reaches no package index and the wheels for "
                f"{info.platform} could not be downloaded here either: {done.stderr.strip()[-400:]}"
            )
        session.check(f"mkdir -p {shlex.quote(tmp)}/wheels", "creating the wheel folder")
        wheels = sorted(Path(local).glob("*.whl"))
        for number, wheel in enumerate(wheels, 1):
            say(f"sending wheel {number}/{len(wheels)}: {wheel.name}")
            session.put(str(wheel), f"{tmp}/wheels/{wheel.name}")
