"""Password and keyboard-interactive authentication against asyncssh's own SSH server on loopback: the secret is
asked once per process (never written anywhere), a wrong one is refused with a clear message and asked again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.connections import Connection, Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy, host_pattern
from dld_jupyter.activities.targets.ssh_loop import call
from tests.remote.conftest import free_port

PASSWORD = "correct horse"


class _Server(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        return username == "alice" and password == PASSWORD

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> tuple[str, str, str, list[tuple[str, bool]]]:
        return "", "", "", [("One-time code: ", False)]

    def validate_kbdint_response(self, username: str, responses: list[str]) -> bool:
        return responses == ["424242"]


class _PasswordOnly(_Server):
    def kbdint_auth_supported(self) -> bool:
        return False


def _reply(process: asyncssh.SSHServerProcess[str]) -> None:
    process.stdout.write("hello\n")
    process.exit(0)


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[int, Path]]:
    key = asyncssh.generate_private_key("ssh-ed25519")
    port = free_port()
    kind = request.param if hasattr(request, "param") else _Server

    async def start() -> asyncssh.SSHAcceptor:
        return await asyncssh.create_server(
            kind, "127.0.0.1", port, server_host_keys=[key], process_factory=_reply, encoding="utf-8"
        )

    acceptor = call(start(), 10)
    known = tmp_path / "known_hosts"
    known.write_text(f"{host_pattern('127.0.0.1', port)} {key.export_public_key('openssh').decode()}")
    yield port, known

    async def stop() -> None:  # on the SSH loop, where the server lives (asyncio is not thread-safe)
        acceptor.close()
        await acceptor.wait_closed()

    call(stop(), 10)


def _prompt(answers: dict[str, str], asked: list[str]):  # type: ignore[no-untyped-def]
    def prompt(question: str) -> str:
        asked.append(question)
        return next(answer for part, answer in answers.items() if part in question)

    return prompt


@pytest.mark.parametrize("server", [_PasswordOnly], indirect=True)
def test_password_asked_once_per_process(server: tuple[int, Path]) -> None:
    port, known = server
    asked: list[str] = []
    secrets = Secrets(_prompt({"Password": PASSWORD}, asked))
    connection = Connection(host="127.0.0.1", port=port, user="alice", auth="password", name="pw-test")
    for _ in range(2):
        session = ssh_session.connect(connection, HostKeyPolicy(known), secrets)
        assert session.run("anything")[1] == "hello\n"
        ssh_session.forget(connection.name)  # a new connection, same process
    assert asked == ["Password for pw-test: "]


@pytest.mark.parametrize("server", [_PasswordOnly], indirect=True)
def test_wrong_password_is_refused_then_asked_again(server: tuple[int, Path]) -> None:
    port, known = server
    asked: list[str] = []
    answers = iter(["wrong", PASSWORD])
    secrets = Secrets(lambda question: (asked.append(question), next(answers))[1])
    connection = Connection(host="127.0.0.1", port=port, user="alice", auth="password", name="wrong-pw")
    with pytest.raises(UnavailableError, match=r"permission denied .*check the user name and the password"):
        ssh_session.connect(connection, HostKeyPolicy(known), secrets)
    session = ssh_session.connect(connection, HostKeyPolicy(known), secrets)
    assert session.run("x")[1] == "hello\n" and len(asked) == 2
    ssh_session.forget(connection.name)


def test_keyboard_interactive(server: tuple[int, Path]) -> None:
    port, known = server
    asked: list[str] = []
    secrets = Secrets(_prompt({"One-time code": "424242"}, asked))
    connection = Connection(host="127.0.0.1", port=port, user="alice", auth="keyboard-interactive", name="kbd")
    session = ssh_session.connect(connection, HostKeyPolicy(known), secrets)
    assert session.run("x")[1] == "hello\n"
    assert asked == ["kbd One-time code: "]
    ssh_session.forget(connection.name)


@pytest.mark.parametrize("server", [_PasswordOnly], indirect=True)
def test_a_password_that_cannot_be_asked_says_how_to_log_in(server: tuple[int, Path]) -> None:
    port, known = server

    def no_input(question: str) -> str:  # what a kernel does when a run's thread asks
        raise RuntimeError("raw_input was called, but this frontend does not support input requests")

    connection = Connection(host="127.0.0.1", port=port, user="alice", auth="password", name="in-a-panel")
    with pytest.raises(UnavailableError, match=r"run dld\.targets\.login\('in-a-panel'\) in a cell first"):
        ssh_session.connect(connection, HostKeyPolicy(known), Secrets(no_input))
