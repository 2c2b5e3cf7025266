"""What the last check of a target found, remembered between processes (`<cache dir>/targets/`).

Why: every CLI call is a new process, and each one ran the full target check (a remote python3 probe and a second
command) before its run, part of the 1.6-2.7 s a remote profile cost over a local one (issue 40). A deployment is
named by its content (package and environment hashes), so what a check found stays true as long as those folders
are complete there: a later process asks exactly that, in one command, and checks again in full when it is not.
Nothing secret is kept: paths, versions and the host's platform.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import shlex
from pathlib import Path

from dld_jupyter.activities.cache import cache_dir, write_json_atomic
from dld_jupyter.activities.targets.connections import Connection
from dld_jupyter.activities.targets.deploy import TargetInfo, package_hash, requirements
from dld_jupyter.activities.targets.ssh_session import SshSession


def _path(connection: Connection) -> Path:
    where = json.dumps([connection.name, connection.host, connection.port, connection.user, connection.deploy_dir])
    return cache_dir() / "targets" / f"{hashlib.sha256(where.encode()).hexdigest()[:16]}.json"


def remember(connection: Connection, info: TargetInfo) -> None:
    """Keep `info` of a deployed target for later processes (a cache: a failed write only costs the next check)."""
    if not info.deployed:
        return
    with contextlib.suppress(OSError):
        write_json_atomic(_path(connection), {"package": package_hash(), "info": dataclasses.asdict(info)})


def forget(connection: Connection) -> None:
    _path(connection).unlink(missing_ok=True)


def recall(session: SshSession, connection: Connection) -> TargetInfo | None:
    """The remembered check of `connection`, when it is for this package and runtime and its deployment is still
    complete on the target (one remote command); else None (then the caller checks in full)."""
    try:
        memo = json.loads(_path(connection).read_text())
        fields = memo["info"]
        info = TargetInfo(**{**fields, "python": tuple(fields["python"]),
                             "requirements": tuple(fields["requirements"])})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if memo.get("package") != package_hash() or info.requirements != requirements(info.nvidia):
        return None  # another version of this package or of the runtime it pins: another deployment
    q = shlex.quote
    code, _, _ = session.run(f"test -f {q(info.folder)}/.complete && test -f {q(info.environment)}/.complete")
    return info if code == 0 else None
