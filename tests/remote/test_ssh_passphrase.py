"""A passphrase-protected key from `ssh-keygen -N` against a real sshd on loopback (issue 40): the right passphrase
connects (asked once, never stored), a wrong one says "wrong passphrase" and is asked again next time, and without
bcrypt (which asyncssh needs for OpenSSH's key format, now in the [remote] extra) the message says to install it
instead of blaming the passphrase, as it did even for the right one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.connections import Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.activities.targets.ssh_session import forget
from tests.remote.conftest import Sshd, start_sshd

PHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    folder = tmp_path_factory.mktemp("passphrase")
    key = folder / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", PHRASE, "-C", "dld-test", "-f", str(key)], check=True)
    server = start_sshd(folder / "sshd", key)
    yield server
    server.process.terminate()
    server.process.wait(10)


def _target(server: Sshd, tmp_path: Path, answers: list[str], asked: list[str], **auth: str) -> SshTarget:
    (tmp_path / "known_hosts").write_text(server.known_hosts_line)
    connection = server.connection(name=f"pp-{len(asked)}-{tmp_path.name}", **auth)

    def answer(question: str) -> str:
        asked.append(question)
        return answers.pop(0)

    return SshTarget(connection, HostKeyPolicy(tmp_path / "known_hosts"), Secrets(answer))


@pytest.mark.parametrize("auth", ["key", "auto"])
def test_the_right_passphrase_connects_and_a_wrong_one_says_so(served: Sshd, tmp_path: Path, auth: str) -> None:
    asked: list[str] = []
    wrong = _target(served, tmp_path, ["not it"], asked, auth=auth)
    with pytest.raises(UnavailableError, match="wrong passphrase"):
        wrong.check()
    right = _target(served, tmp_path, [PHRASE], asked, auth=auth)
    try:
        code, out, _ = right.session().run("echo connected")
        assert code == 0 and out.strip() == "connected"
    finally:
        forget(right.connection.name)
    assert len(asked) == 2 and all("Passphrase for" in q for q in asked)


def test_without_bcrypt_the_message_says_to_install_it(served: Sshd) -> None:
    code = ("import sys\nsys.modules['bcrypt'] = None  # asyncssh cannot decrypt OpenSSH's key format\n"
            "from dld_jupyter.activities.targets.connections import Connection, Secrets\n"
            "from dld_jupyter.activities.targets.ssh_session import _client_keys\n"
            f"c = Connection(name='x', host='127.0.0.1', auth='key', identity={str(served.client_key)!r})\n"
            f"try:\n    _client_keys(c, Secrets(lambda q: {PHRASE!r}))\nexcept Exception as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "needs bcrypt: pip install 'dld_jupyter[remote]'" in done.stdout, done.stdout + done.stderr
    assert "wrong passphrase" not in done.stdout
