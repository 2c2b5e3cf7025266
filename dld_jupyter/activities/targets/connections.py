"""Saved SSH connections (the seed's "Remote Connections" dialog) and the secrets asked for them.

A connection is host, port, user, how to authenticate, the deployment directory on the target and a name
(default `user@host:port`). They are kept in one JSON file of the user's settings (`$DLD_CONFIG_DIR/targets.json`,
default `~/.config/dld_jupyter/targets.json`), shared by the CLI and the kernel. Passwords and key passphrases are
never written anywhere: `Secrets` asks for them once per process (kernel session, CLI run) through a callback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import json
import os
import threading
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.activities.spec_fields import check_fields
from dld_jupyter.formats.atomic_write import atomic_write_text
from dld_jupyter.formats.file_lock import locked

AUTH_METHODS = ("auto", "password", "key", "agent", "keyboard-interactive")
DEFAULT_DEPLOY_DIR = ".cache/dld_jupyter/deploy"  # relative to the remote home


@dataclass(frozen=True)
class Connection:
    """One remote target; `host` may be an alias of ~/.ssh/config (its HostName, User, Port, IdentityFile,
    ProxyJump and ProxyCommand apply; what is given here wins)."""

    host: str
    port: int | None = None  # None: ~/.ssh/config's Port, else 22
    user: str | None = None  # None: ~/.ssh/config's User, else the local user name
    auth: str = "auto"  # one of AUTH_METHODS; "auto": agent and keys (config's IdentityFile), then password
    identity: str | None = None  # private key path (auth "key")
    deploy_dir: str = DEFAULT_DEPLOY_DIR  # relative paths are relative to the remote home
    name: str = ""  # default user@host:port

    def __post_init__(self) -> None:
        check_fields(self, "target")  # a registry edited by hand: `"port": "22"`, `"host": 5` said by field
        if not self.host or any(c.isspace() for c in self.host):
            raise SpecError(f"target host: {self.host!r} is not a host name; give a host name, address or alias")
        if self.port is not None and not 0 < int(self.port) < 65536:
            raise SpecError(f"target port: {self.port} is not a TCP port (1-65535)")
        if self.auth not in AUTH_METHODS:
            raise SpecError(f"target auth: {self.auth!r} is not one of {', '.join(AUTH_METHODS)}")
        if not self.name:
            object.__setattr__(self, "name", self.default_name())

    def default_name(self) -> str:
        return self.where()

    def where(self) -> str:
        """user@host:port, the port as the ssh config resolves it for the host (not 22 when it says 2222)."""
        from dld_jupyter.activities.targets.ssh_config import host_config

        user = f"{self.user}@" if self.user else ""
        return f"{user}{self.host}:{self.port or host_config(self.host, None, self.user).port}"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Connection:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SpecError(f"target: unknown field(s) {unknown}; known fields are {sorted(known)}")
        return cls(**data)


def parse_target_url(text: str) -> Connection:
    """`ssh://user@host:port` (user and port optional) as an unsaved Connection."""
    parsed = urllib.parse.urlsplit(text)
    if parsed.scheme != "ssh" or not parsed.hostname or parsed.path not in ("", "/"):
        raise SpecError(f"target: {text!r} is neither a saved target nor ssh://[user@]host[:port]")
    try:
        port = parsed.port
    except ValueError as error:
        raise SpecError(f"target: {text!r} has a bad port ({error})") from error
    return Connection(host=parsed.hostname, port=port, user=parsed.username)


def config_dir() -> Path:
    configured = os.environ.get("DLD_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".config" / "dld_jupyter"


class ConnectionStore:
    """The saved connections, by name, in `targets.json`. A change (add, remove) reads, changes and saves under
    the registry's file lock, the save atomic (formats/atomic_write, a temporary name of its own): eight
    concurrent `dld targets add` kept seven before. A registry that cannot be read is refused, never replaced by
    the next add (an entry that was not an object used to be skipped, and lost at the next save). No secret is
    ever written."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else config_dir() / "targets.json"

    def load(self) -> dict[str, Connection]:
        from dld_jupyter.report_format.errors import ReportError
        from dld_jupyter.report_format.json_input import parse_json

        fix = "fix or remove it (nothing was changed)"
        try:
            data = parse_json(self.path.read_text(encoding="utf-8"), str(self.path), "targets registry")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, ReportError) as error:
            raise SpecError(f"targets: {self.path} is unreadable ({error}); {fix}") from error
        entries = data.get("targets") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise SpecError(f'targets: {self.path} is not {{"targets": [...]}}; {fix}')
        connections: dict[str, Connection] = {}
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise SpecError(f"targets: entry {index} of {self.path} is not an object; {fix}")
            try:
                connection = Connection.from_dict(entry)
            except SpecError as error:
                raise SpecError(f"targets: entry {index} of {self.path}: {error}; {fix}") from error
            connections[connection.name] = connection
        return connections

    def save(self, connections: dict[str, Connection]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = {"targets": [c.to_dict() for c in sorted(connections.values(), key=lambda c: c.name)]}
        atomic_write_text(self.path, json.dumps(body, indent=2) + "\n")

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return locked(self.path.with_name(f".{self.path.name}.lock"))

    def add(self, connection: Connection, replace: bool = False) -> Connection:
        with self._locked():
            connections = self.load()
            if connection.name in connections and not replace and connections[connection.name] != connection:
                raise SpecError(f"target {connection.name!r} exists already; remove it first or choose another name")
            connections[connection.name] = connection
            self.save(connections)
        return connection

    def remove(self, name: str) -> None:
        with self._locked():
            connections = self.load()
            if name not in connections:
                raise SpecError(f"target {name!r} is not saved; saved targets: {sorted(connections) or 'none'}")
            del connections[name]
            self.save(connections)

    def resolve(self, name_or_url: str) -> Connection:
        """A saved connection by name, else an `ssh://` URL."""
        connections = self.load()
        if name_or_url in connections:
            return connections[name_or_url]
        if name_or_url.startswith("ssh://"):
            return parse_target_url(name_or_url)
        raise SpecError(
            f"target {name_or_url!r} is not saved (saved: {', '.join(sorted(connections)) or 'none'}); "
            "add it with `dld targets add` or give ssh://user@host:port"
        )


Prompt = Callable[[str], str]  # shows the question, returns the answer (a password is not echoed)


def terminal_prompt(question: str) -> str:
    return getpass.getpass(question)


class Secrets:
    """Passwords and passphrases asked once per process for each (target, what) and kept in memory only."""

    def __init__(self, prompt: Prompt | None = None) -> None:
        self.prompt: Prompt = prompt or terminal_prompt
        self._known: dict[tuple[str, str], str] = {}
        self._given: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, target: str, what: str, question: str) -> str:
        with self._lock:
            key = (target, what)
            if key not in self._known and target in self._given:
                self._known[key] = self._given[target]
            if key not in self._known:
                try:
                    self._known[key] = self.prompt(question)
                except Exception as error:  # e.g. a kernel asked from a run's thread: no input there
                    raise UnavailableError(
                        f"target {target}: {question.strip()} cannot be asked here ({type(error).__name__}: "
                        f"{error}); run dld.targets.login({target!r}) in a cell first (asked once per kernel), "
                        "or use a key or the SSH agent"
                    ) from error
            return self._known[key]

    def give(self, target: str, answer: str) -> None:
        """An answer typed in a dialog (the connection panel's password or passphrase field), kept in memory for
        the target's next question of any kind; a refused one is dropped by `forget` like an asked one."""
        with self._lock:
            self._given[target] = answer

    def forget(self, target: str, what: str | None = None) -> None:
        """Drop a secret the target refused (None: all of the target's), so the next attempt asks again."""
        with self._lock:
            for key in [key for key in self._known if key[0] == target and what in (None, key[1])]:
                del self._known[key]
            self._given.pop(target, None)


SECRETS = Secrets()  # the process's secrets: a kernel session asks once
