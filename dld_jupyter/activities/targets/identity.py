"""A private key file is checked before anything reads it, as OpenSSH checks it.

Why: `--identity /dev/zero` blocked for 20 s while the key reader read zeros, and a key readable by other users
was used where `ssh` refuses it ("UNPROTECTED PRIVATE KEY FILE!": anyone who could read it could log in as you).
A key must be a regular file, and readable by its owner only (OpenSSH: no group or other permission bit, unless
the key belongs to another user, such as root's keys read through sudo).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dld_jupyter.activities.errors import UnavailableError


def identity_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the private key at `path` must not be used, in OpenSSH's words where it has them; None when it may."""
    shown = os.fspath(path)
    try:
        status = os.stat(path)
    except OSError as error:
        return f"cannot read the key {shown} ({error.strerror})"
    if not stat.S_ISREG(status.st_mode):
        return f"the key {shown} is not a regular file (a device, a folder or a pipe); give the private key file"
    if status.st_uid == os.getuid() and status.st_mode & 0o077:
        mode = stat.S_IMODE(status.st_mode)
        return (f"UNPROTECTED PRIVATE KEY FILE! Permissions {mode:04o} for '{shown}' are too open. It is required "
                "that your private key files are NOT accessible by others. This private key will be ignored. "
                f"Fix: chmod 600 '{shown}'")
    return None


def check_identity(name: str, identity: str) -> str:
    """The expanded path of the key `identity` of target `name`; UnavailableError (exit 3) when it must not be
    used."""
    path = str(Path(identity).expanduser())
    problem = identity_problem(path)
    if problem is not None:
        raise UnavailableError(f"target {name}: {problem}")
    return path
