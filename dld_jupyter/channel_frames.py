"""Where a widget's channel socket lives and how its frames are cut, shared by the kernel side
(``widgets.channel_socket``) and the server's relay (``lab.channel_relay``). It imports nothing from Jupyter when
loaded (jupyter_core only when a path is asked for), so both sides can load it.

A frame is a 4-byte little-endian length, then that many bytes; the relay never looks inside.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

FRAME_HEADER = struct.Struct("<I")


def socket_dir() -> Path:
    """Jupyter's runtime directory (owner-only), where the server also keeps kernel connection files; or
    DLD_CHANNEL_DIR, set in the server's environment (kernels inherit it) when that path is too long for a socket."""
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(os.environ.get("DLD_CHANNEL_DIR") or jupyter_runtime_dir())


def channel_dir_problem() -> str | None:
    """Why DLD_CHANNEL_DIR must not hold channel sockets (None when it may, or when it is not set).

    A socket there is the kernel's fast channel: whoever can replace it in that folder (another user with write
    access) could stand in for the kernel or read the edits. So the folder must be ours alone: owned by this user,
    no permission bits for group or others. A folder that does not exist yet is created with mode 0700.
    Jupyter's own runtime folder, the default, is made owner-only by Jupyter and is not checked here.
    """
    value = os.environ.get("DLD_CHANNEL_DIR")
    if not value or not hasattr(os, "getuid"):  # not set, or no POSIX owners and modes (Windows)
        return None
    folder = Path(value)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError as error:
        return f"DLD_CHANNEL_DIR={value} cannot be used ({error.strerror or error})."
    if not stat.S_ISDIR(info.st_mode):
        return f"DLD_CHANNEL_DIR={value} is not a folder. Fix: point it at a folder of your own with mode 0700."
    if info.st_uid != os.getuid():
        return (
            f"DLD_CHANNEL_DIR={value} is owned by user {info.st_uid}, not by you ({os.getuid()}). "
            "Fix: point it at a folder of your own (mkdir -m 700 DIR)."
        )
    if info.st_mode & 0o077:
        return (
            f"DLD_CHANNEL_DIR={value} has mode {info.st_mode & 0o777:04o}: other users may replace its sockets. "
            f"Fix: chmod 700 {value}"
        )
    return None


def socket_path(token: str) -> Path:
    return socket_dir() / f"dld-{token}.sock"
