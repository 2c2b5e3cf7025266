"""A real OpenSSH server on loopback for the remote-target tests, and a target deployed on it once per session.

Each `Sshd` is its own `/usr/sbin/sshd -D` on a free port of 127.0.0.1 with a generated host key, one authorized
client key, `UsePAM no` and a private cache folder (`SetEnv DLD_CACHE_DIR`). The "remote" is this machine, so the
tests can look for leftover processes directly. scripts/setup.sh installs openssh-server in test mode.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from dld_jupyter.activities.targets.connections import Connection, Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
from dld_jupyter.activities.targets.ssh import SshTarget

SSHD = "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def keygen(path: Path, comment: str) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)], check=True)
    return path


def fingerprint(public_key: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-lf", str(public_key)], check=True, capture_output=True, text=True).stdout
    return out.split()[1]


@dataclass
class Sshd:
    folder: Path
    port: int
    host_key: Path
    client_key: Path
    process: subprocess.Popen[bytes]

    @property
    def known_hosts_line(self) -> str:
        kind, body = self.host_key.with_suffix(".pub").read_text().split()[:2]
        return f"[127.0.0.1]:{self.port} {kind} {body}\n"

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.host_key.with_suffix(".pub"))

    def connection(self, **changes: object) -> Connection:
        fields: dict[str, object] = {
            "host": "127.0.0.1",
            "port": self.port,
            "user": getpass.getuser(),
            "auth": "key",
            "identity": str(self.client_key),
            "deploy_dir": str(self.folder.parent / "deploy"),
        }
        fields.update(changes)
        return Connection(**fields)  # type: ignore[arg-type]

    def children(self) -> list[int]:
        """The sshd processes serving connections (children of the listener)."""
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]


def start_sshd(folder: Path, client_key: Path, env: dict[str, str] | None = None, extra: str = "") -> Sshd:
    """An sshd on a free port (`extra`: more sshd_config lines, e.g. a ForceCommand)."""
    folder.mkdir(parents=True, exist_ok=True)
    host_key = keygen(folder / "host_ed25519", "dld-test-host")
    authorized = folder / "authorized_keys"
    authorized.write_text(client_key.with_suffix(".pub").read_text())
    cache = folder / "target-cache"
    settings = " ".join(f"{name}={value}" for name, value in {"DLD_CACHE_DIR": str(cache), **(env or {})}.items())
    port = free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {folder / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {authorized}\nUsePAM no\nStrictModes no\nPermitRootLogin yes\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        f"AllowTcpForwarding yes\nSubsystem sftp internal-sftp\nLogLevel ERROR\nSetEnv {settings}\n{extra}"
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # the privilege separation folder sshd insists on
    with open(folder / "sshd.log", "wb") as log:  # the child keeps its own descriptor
        process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stderr=log)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return Sshd(folder, port, host_key, client_key, process)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"sshd did not start: {(folder / 'sshd.log').read_text()}")


@pytest.fixture(scope="package", autouse=True)
def local_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This side's cache (remembered target checks, settings) in a folder of the test session, not the user's."""
    folder = tmp_path_factory.mktemp("local-cache")
    before = os.environ.get("DLD_CACHE_DIR")
    os.environ["DLD_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("DLD_CACHE_DIR", None)
    else:
        os.environ["DLD_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def ssh_keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not os.access(SSHD, os.X_OK):
        pytest.fail(f"{SSHD} is missing: run scripts/setup.sh with DLD_SETUP_TESTS=1 (installs openssh-server)")
    return keygen(tmp_path_factory.mktemp("client") / "id_ed25519", "dld-test-client")


def _served(
    factory: pytest.TempPathFactory, role: str, client_key: Path, env: dict[str, str] | None = None, extra: str = ""
) -> Iterator[Sshd]:
    server = start_sshd(factory.mktemp(role) / "sshd", client_key, env, extra)
    yield server
    server.process.terminate()
    server.process.wait(10)


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory, ssh_keys: Path) -> Iterator[Sshd]:
    """The target."""
    yield from _served(tmp_path_factory, "target", ssh_keys)


@pytest.fixture(scope="session")
def bastion(tmp_path_factory: pytest.TempPathFactory, ssh_keys: Path) -> Iterator[Sshd]:
    """A second server, the ProxyJump bastion in front of the target."""
    yield from _served(tmp_path_factory, "bastion", ssh_keys)


@pytest.fixture
def offline_sshd(tmp_path_factory: pytest.TempPathFactory, ssh_keys: Path) -> Iterator[Sshd]:
    """A target whose pip reaches no package index (no config files, an index on a closed port)."""
    closed = f"http://127.0.0.1:{free_port()}/simple"
    env = {"PIP_CONFIG_FILE": "/dev/null", "PIP_INDEX_URL": closed, "PIP_RETRIES": "0", "PIP_DEFAULT_TIMEOUT": "2"}
    yield from _served(tmp_path_factory, "offline", ssh_keys, env)


@pytest.fixture(scope="session")
def known_hosts(tmp_path_factory: pytest.TempPathFactory, sshd: Sshd) -> Path:
    path = tmp_path_factory.mktemp("known") / "known_hosts"
    path.write_text(sshd.known_hosts_line)
    return path


@pytest.fixture(scope="session")
def deployed(sshd: Sshd, known_hosts: Path) -> SshTarget:
    """A target deployed once for the session (the first deployment's lines are kept on `.deploy_lines`)."""
    lines: list[str] = []
    target = SshTarget(sshd.connection(), HostKeyPolicy(known_hosts), Secrets(lambda q: ""), lines.append)
    started = time.monotonic()
    target.ensure_deployed()
    target.deploy_lines = lines  # type: ignore[attr-defined]
    target.deploy_s = time.monotonic() - started  # type: ignore[attr-defined]
    return target
