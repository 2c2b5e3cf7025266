"""One authenticated SSH connection to a target, used from blocking code: commands, SFTP, long-running processes.

Every byte goes over this one connection (exec channels and SFTP, no extra port), which lives on the private loop
of `ssh_loop`. Connecting honours ~/.ssh/config through asyncssh (aliases, HostName, User, Port, IdentityFile,
ProxyJump, ProxyCommand); the credentials of the connection dialog go to the final host only, a jump host
authenticates with the agent and its own config. ProxyJump hops are opened here (`_jumps`), so their host keys are
checked, refused with a fingerprint and accepted like the target's. Connect failures become `UnavailableError`s
that say what to fix, naming the host and port the config resolves. Sessions are kept per target name, so the
second run of a kernel session reuses the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

import asyncssh

from dld_jupyter.activities import timing
from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.targets.connections import SECRETS, Connection, Secrets
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
from dld_jupyter.activities.targets.identity import check_identity
from dld_jupyter.activities.targets.ssh_config import host_config
from dld_jupyter.activities.targets.ssh_loop import call

CONNECT_TIMEOUT_S = 20.0
KEEPALIVE_S, KEEPALIVE_COUNT = 5.0, 3
COMMAND_TIMEOUT_S = 600.0


class _Client(asyncssh.SSHClient):
    """Host keys through the policy; password and keyboard-interactive answers through the secrets."""

    def __init__(self, connection: Connection, policy: HostKeyPolicy, secrets: Secrets) -> None:
        self.connection, self.policy, self.secrets = connection, policy, secrets
        self.asked = 0
        self.lost: Exception | None = None
        self.closed = threading.Event()

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        return self.policy.validate(host, addr, port, key)

    def password_auth_requested(self) -> str | None:
        if self.connection.auth not in ("auto", "password") or self.asked >= 1:
            return None  # a refused password is not sent again and again: the user is told instead
        self.asked += 1
        return self.secrets.get(self.connection.name, "password", f"Password for {self.connection.name}: ")

    def kbdint_auth_requested(self) -> str | None:
        return "" if self.connection.auth in ("auto", "password", "keyboard-interactive") else None

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Sequence[tuple[str, bool]]
    ) -> list[str] | None:
        if self.asked >= 2:
            return None
        self.asked += 1
        what = "password" if len(prompts) == 1 and "password" in prompts[0][0].lower() else "kbdint"
        name = self.connection.name
        return [self.secrets.get(name, f"{what}:{q}", f"{name} {q}") for q, _ in prompts]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc
        self.closed.set()


def _private_key(connection: Connection, secrets: Secrets) -> asyncssh.SSHKey:
    """The connection's identity, its passphrase asked (never stored) when it has one; errors say which is wrong."""
    path = check_identity(connection.name, str(connection.identity))
    try:
        return asyncssh.read_private_key(path)
    except asyncssh.KeyImportError as error:
        if "passphrase" not in str(error).lower():
            raise UnavailableError(f"target {connection.name}: the key {path} is unreadable ({error})") from error
    except OSError as error:
        raise UnavailableError(f"target {connection.name}: cannot read the key {path} ({error})") from error
    phrase = secrets.get(connection.name, f"passphrase:{path}", f"Passphrase for {path}: ")
    try:
        return asyncssh.read_private_key(path, phrase)
    except (asyncssh.KeyImportError, asyncssh.KeyEncryptionError) as wrong:
        if "bcrypt" in str(wrong):  # not the passphrase: asyncssh cannot decrypt OpenSSH's format without bcrypt
            raise UnavailableError(f"target {connection.name}: the key {path} is encrypted in OpenSSH's format, "
                                   "which needs bcrypt: pip install 'dld_jupyter[remote]' (or pip install bcrypt)"
                                   ) from wrong
        secrets.forget(connection.name, f"passphrase:{path}")
        raise UnavailableError(f"target {connection.name}: wrong passphrase for {path} ({wrong})") from wrong


def _client_keys(connection: Connection, secrets: Secrets) -> dict[str, Any]:
    """asyncssh options for the connection's authentication method."""
    if connection.auth == "key":
        if not connection.identity:
            raise UnavailableError(f"target {connection.name}: auth 'key' needs an identity (a private key file)")
        return {"client_keys": [_private_key(connection, secrets)], "agent_path": None, "password_auth": False,
                "kbdint_auth": False}
    if connection.auth == "agent":
        return {"password_auth": False, "kbdint_auth": False}
    if connection.auth in ("password", "keyboard-interactive"):
        return {"client_keys": None, "agent_path": None, "password_auth": connection.auth == "password"}
    options: dict[str, Any] = {}
    if connection.identity:  # a plain key by its path (asyncssh adds its -cert.pub); an encrypted one decrypted here,
        path = check_identity(connection.name, connection.identity)  # where asyncssh would only say "passphrase
        try:  # must be specified"
            asyncssh.read_private_key(path)
            options["client_keys"] = [path]
        except (asyncssh.KeyImportError, OSError):
            options["client_keys"] = [_private_key(connection, secrets)]
    return options


class SshSession:
    """A connected target; see the module docstring. Methods block the caller, never the SSH loop."""

    def __init__(self, connection: Connection, conn: asyncssh.SSHClientConnection, client: _Client) -> None:
        self.connection, self.conn, self.client = connection, conn, client
        self._sftp: asyncssh.SFTPClient | None = None
        self._sftp_lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return not self.client.closed.is_set()

    def run(self, command: str, stdin: str | None = None, timeout: float = COMMAND_TIMEOUT_S) -> tuple[int, str, str]:
        """(exit status, stdout, stderr) of a shell command; a signal-killed command gives -signal's number."""
        result = call(self.conn.run(command, input=stdin, check=False), timeout)
        code = result.exit_status if result.exit_status is not None else -1
        return code, str(result.stdout or ""), str(result.stderr or "")

    def check(self, command: str, what: str, timeout: float = COMMAND_TIMEOUT_S) -> str:
        code, out, err = self.run(command, timeout=timeout)
        if code != 0:
            tail = (err or out).strip().splitlines()[-5:]
            raise UnavailableError(f"target {self.connection.name}: {what} failed (exit {code}): {' | '.join(tail)}")
        return out

    def sftp(self) -> asyncssh.SFTPClient:
        """The session's SFTP client, opened once (file operations need no shell on the target: no login cost)."""
        with self._sftp_lock:
            if self._sftp is None:
                self._sftp = call(self._open_sftp(), COMMAND_TIMEOUT_S)
            return self._sftp

    async def _open_sftp(self) -> asyncssh.SFTPClient:
        return await self.conn.start_sftp_client()

    def put(self, local: str, remote: str, progress: Callable[[int, int], None] | None = None) -> None:
        handler = None if progress is None else (lambda _s, _d, done, total: progress(done, total))
        call(self.sftp().put(local, remote, progress_handler=handler), COMMAND_TIMEOUT_S)

    def get(self, remote: str, local: str) -> None:
        call(self.sftp().get(remote, local), COMMAND_TIMEOUT_S)

    def stat(self, remote: str) -> asyncssh.SFTPAttrs | None:
        """The attributes of `remote` (links followed), None when nothing is there."""
        try:
            return call(self.sftp().stat(remote), COMMAND_TIMEOUT_S)
        except asyncssh.SFTPNoSuchFile:
            return None

    def exists(self, remote: str) -> bool:
        return bool(call(self.sftp().exists(remote), COMMAND_TIMEOUT_S))

    def makedirs(self, remote: str) -> None:
        call(self.sftp().makedirs(remote, exist_ok=True), COMMAND_TIMEOUT_S)

    def rmtree(self, remote: str) -> None:
        """Remove a folder and what it holds; nothing when it is not there."""
        sftp = self.sftp()
        if call(sftp.exists(remote), COMMAND_TIMEOUT_S):
            call(sftp.rmtree(remote), COMMAND_TIMEOUT_S)

    def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(Exception):
            call(self.conn.wait_closed(), 5.0)


async def _connect(connection: Connection, policy: HostKeyPolicy, secrets: Secrets) -> SshSession:
    client = _Client(connection, policy, secrets)
    options = _client_keys(connection, secrets)
    resolved = host_config(connection.host, connection.port, connection.user)
    known = policy.configure(resolved).known_hosts()
    algs = policy.host_key_algs(resolved.host, resolved.port)
    if algs is not None:  # a key of another type than the known one reaches the changed-key warning
        options["server_host_key_algs"] = algs
    if resolved.jump is not None:  # opened here, so a jump host's key is checked (and accepted) like the target's
        options["tunnel"] = await _jumps(resolved.jump, policy)
    conn, _ = await asyncio.wait_for(
        asyncssh.create_connection(
            lambda: client,
            connection.host,
            port=connection.port or (),
            username=connection.user or (),
            known_hosts=known,
            keepalive_interval=KEEPALIVE_S,  # a target that stops answering (a stopped sshd, a cut network) is
            keepalive_count_max=KEEPALIVE_COUNT,  # found within ~15 s by every command and transfer, not never
            **options,
        ),
        CONNECT_TIMEOUT_S,
    )
    return SshSession(connection, conn, client)


class _JumpClient(asyncssh.SSHClient):
    """A ProxyJump hop: its host key through its own policy; it authenticates with the agent and its config."""

    def __init__(self, policy: HostKeyPolicy) -> None:
        self.policy = policy

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        return self.policy.validate(host, addr, port, key)


async def _jumps(spec: str, policy: HostKeyPolicy) -> asyncssh.SSHClientConnection:
    """The connection through every hop of a ProxyJump ([user@]host[:port], comma-separated), each hop's host key
    checked as the target's is: an unknown one is refused with its fingerprint (the target's policy's `refusal`)
    and accepted with --accept-host-key or the dialog's question, as OpenSSH asks for it."""
    conn: asyncssh.SSHClientConnection | None = None
    for hop in spec.split(","):
        user, _, address = hop.strip().rpartition("@")
        host, _, port = address.partition(":")
        resolved = host_config(host, int(port) if port else None, user or None)
        checks = policy.for_jump(hop.strip()).configure(resolved)
        extra: dict[str, Any] = {}
        algs = checks.host_key_algs(resolved.host, resolved.port)
        if algs is not None:
            extra["server_host_key_algs"] = algs
        try:
            conn, _ = await asyncssh.create_connection(
                functools.partial(_JumpClient, checks), host, port=int(port) if port else (),
                username=user or (), known_hosts=checks.known_hosts(), tunnel=conn or (), **extra)
        except (asyncssh.HostKeyNotVerifiable, asyncssh.DisconnectError):
            if checks.refusal is not None:
                policy.refusal = checks.refusal  # the target's connect() raises it
            raise
        except OSError as error:
            raise UnavailableError(f"the jump host {hop.strip()} (ProxyJump) at {resolved.where} does not answer "
                                   f"({error})") from error
    assert conn is not None
    return conn


def _where(connection: Connection) -> str:
    """Host and port as the ssh config resolves them ("box port 2222", not the alias and 22)."""
    return host_config(connection.host, connection.port, connection.user).where


_SESSIONS: dict[str, SshSession] = {}
_SESSIONS_LOCK = threading.Lock()


def connect(connection: Connection, policy: HostKeyPolicy | None = None, secrets: Secrets | None = None) -> SshSession:
    """The live session of `connection` (a new one when there is none or it was lost); errors say what to do."""
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(connection.name)
        if session is not None and session.alive and session.connection == connection:
            return session
        policy = policy or HostKeyPolicy()
        secrets = secrets or SECRETS
        where = connection.name
        try:
            with timing.phase("ssh_connect"):
                session = call(_connect(connection, policy, secrets), CONNECT_TIMEOUT_S + 5)
        except (asyncssh.HostKeyNotVerifiable, asyncssh.DisconnectError) as error:
            if policy.refusal is not None:
                raise policy.refusal from None
            if isinstance(error, asyncssh.PermissionDenied):
                secrets.forget(connection.name)  # every answer it was given: the next attempt asks again
                raise UnavailableError(
                    f"target {where}: permission denied ({error.reason}); check the user name and the password or "
                    "key (a wrong password is asked again on the next attempt)"
                ) from error
            raise UnavailableError(f"target {where}: the SSH connection failed ({error.reason})") from error
        except ConnectionRefusedError as error:
            raise UnavailableError(
                f"target {where}: connection refused; is an SSH server listening on {_where(connection)}?"
            ) from error
        except (TimeoutError, asyncio.TimeoutError) as error:
            raise UnavailableError(f"target {where}: no answer from {_where(connection)} within "
                                   f"{CONNECT_TIMEOUT_S:.0f} s") from error
        except OSError as error:
            raise UnavailableError(f"target {where}: cannot connect to {_where(connection)} ({error})") from error
        _SESSIONS[connection.name] = session
        return session


def forget(name: str) -> None:
    """Close and drop the kept session of `name` (after removing a target)."""
    with _SESSIONS_LOCK:
        session = _SESSIONS.pop(name, None)
    if session is not None:
        session.close()
