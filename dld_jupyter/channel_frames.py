"""Where a widget's channel socket lives and how its frames are cut, shared by the kernel side
(``widgets.channel_socket``) and the server's relay (``lab.channel_relay``). It imports nothing from Jupyter when
loaded (jupyter_core only when a path is asked for), so both sides can load it.

A frame is a 4-byte little-endian length, then that many bytes; the relay never looks inside.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

FRAME_HEADER = struct.Struct("<I")


def socket_dir() -> Path:
    """Jupyter's runtime directory (owner-only), where the server also keeps kernel connection files; or
    DLD_CHANNEL_DIR, set in the server's environment (kernels inherit it) when that path is too long for a socket."""
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(os.environ.get("DLD_CHANNEL_DIR") or jupyter_runtime_dir())


def socket_path(token: str) -> Path:
    return socket_dir() / f"dld-{token}.sock"
