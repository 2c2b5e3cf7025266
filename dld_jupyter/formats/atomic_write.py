"""The one atomic file writer: a reader, or a crash at any instant, sees the old content or the new, never half.

Five hand-written copies of it (a model, reports and their exports, user tools, JupyterLab settings, the activity
cache) differed in what they got right: only some kept the permissions of the file replaced, fsynced the folder
after the rename, or removed the temporary file when interrupted. This is the one they share. It lives among the
formats (standard library only) because every layer writes files, the activity worker on a GPU host included.

The temporary file comes from ``tempfile.mkstemp`` in the target's folder: created with O_EXCL and mode 0600 under
a random name, so a symlink planted where a predictable name would be is never followed, and the final rename stays
on one file system. It is written, given the mode a plain ``open`` would have given the target (that of the file it
replaces, else 0666 minus the umask), fsynced, renamed over the target, and the folder is fsynced so the rename
survives a power cut. Whatever goes wrong, the temporary file is removed and the target is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"  # temporary names are ".<target name>.<random>.tmp" (document/atomic_save cleans leftovers)


def umask() -> int:
    """The process umask, read without changing it (os.umask would race with other threads)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def final_mode(target: Path) -> int:
    """The mode a plain ``open`` would give ``target``: that of the file it replaces, else 0666 minus the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~umask()


def fsync_dir(folder: Path) -> None:
    """Make renames in ``folder`` durable (a no-op where directories cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically (the folder must exist); returns the path written."""
    file = Path(path)
    fd, name = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.", suffix=TEMP_SUFFIX)
    temporary = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), final_mode(file))
            os.fsync(handle.fileno())
        os.replace(temporary, file)  # atomic on POSIX and Windows: readers see the old file or the new one
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
    fsync_dir(file.parent)
    return file


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` with ``text`` in UTF-8 atomically (the folder must exist); returns the path written.

    Text that UTF-8 cannot hold (a lone surrogate) raises UnicodeEncodeError before anything is written.
    """
    return atomic_write_bytes(path, text.encode("utf-8"))
