"""Crash-safe writing of an .onnx file and its external data: a kill at any instant leaves the old or the new model.

A model without external data is one file, written by the one atomic writer (formats/atomic_write.py).

Why this shape: a model saved with external data is two files, and no file system renames two files at once. So the
external data never overwrites anything: it is written under a fresh *generation* name (``<name>.<16 hex>.data``)
that no existing model refers to, fsynced and moved into the target folder; only then is the new .onnx, which names
that generation, renamed over the old one (the single atomic switch). Before the switch the folder holds the old
.onnx and its intact data; after it the new .onnx and its data. The superseded data file is removed after the
switch, and leftovers of interrupted saves (private temp files and folders, data generations nothing refers to) are
removed by the next save of the same name.

Temporary files come from ``tempfile`` (created with O_EXCL and mode 0600, never through a planted symlink) in the
target folder, so the final rename stays on one file system; the saved file gets the permissions a plain ``open``
would have given it (those of the file it replaces, else 0666 minus the umask).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable

import onnx
import onnx_ir as ir

from dld_jupyter.document.files.proto_tensors import all_tensors
from dld_jupyter.document.files.self_contained import external_tensors
from dld_jupyter.formats.atomic_write import final_mode, fsync_dir, umask

EXTERNAL_THRESHOLD = 1024  # tensors up to this many bytes stay inside the .onnx


def _generation_re(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name) + r"\.[0-9a-f]{16}\.data")


def _temp_re(name: str) -> re.Pattern[str]:
    """Our temporary names for ``name``: tempfile's (``.name.XXXXXXXX.tmp``) and the old ``.name.PID.tmp``."""
    return re.compile(r"\." + re.escape(name) + r"\.[A-Za-z0-9_]+\.tmp")


def _fsync_file(path: pathlib.Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fresh_generation(file: pathlib.Path) -> str:
    while True:
        name = f"{file.name}.{secrets.token_hex(8)}.data"
        if not (file.parent / name).exists():
            return name


def write_with_external(model: ir.Model, file: pathlib.Path) -> None:
    """Save ``model`` to ``file`` with its large tensors in a new data generation beside it, then switch atomically.

    The in-memory model keeps referring to the files it was read from (onnx-ir restores them after saving).
    """
    folder = file.parent
    data_name = _fresh_generation(file)
    private = pathlib.Path(tempfile.mkdtemp(dir=folder, prefix=f".{file.name}.", suffix=".tmp"))
    try:
        staged = private / file.name
        ir.save(model, staged, external_data=data_name, size_threshold_bytes=EXTERNAL_THRESHOLD)
        staged_data = private / data_name
        if staged_data.exists():
            _fsync_file(staged_data)
            os.chmod(staged_data, 0o666 & ~umask())
            os.rename(staged_data, folder / data_name)  # a fresh name: no model refers to it yet
            fsync_dir(folder)
        _fsync_file(staged)
        os.chmod(staged, final_mode(file))
        os.replace(staged, file)  # the switch: from here on the folder holds the new model
        fsync_dir(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            (folder / data_name).unlink()
        raise
    finally:
        shutil.rmtree(private, ignore_errors=True)


def external_locations(path: pathlib.Path) -> set[str]:
    """The external data files an .onnx file refers to (empty when it is unreadable or has none)."""
    try:
        proto = onnx.load(str(path), load_external_data=False)
    except Exception:  # an unreadable old file refers to nothing we can keep alive
        return set()
    found = set()
    for tensor in all_tensors(proto):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            info = {entry.key: entry.value for entry in tensor.external_data}
            if info.get("location"):
                found.add(os.path.normpath(info["location"]))
    return found


def in_memory_files(model: ir.Model) -> set[pathlib.Path]:
    """The data files the open model still reads lazily: never removed under it."""
    return {(pathlib.Path(t.base_dir) / t.location).resolve() for t in external_tensors(model)}


def superseded_legacy(file: pathlib.Path) -> bool:
    """Whether the current ``file`` uses the pre-generation data name ``<name>.data`` (removed once replaced)."""
    legacy = file.with_name(f"{file.name}.data")
    return legacy.is_file() and file.is_file() and legacy.name in external_locations(file)


def clean_leftovers(file: pathlib.Path, keep_in_memory: Iterable[pathlib.Path], legacy: bool) -> None:
    """After a successful save of ``file``: remove temp leftovers and data files that nothing refers to any more.

    Removed: our temp files/folders for this name, data generations of this name the new file does not use, and
    ``<name>.data`` when the previous file used it (``legacy``) and the new one does not. Files the open model
    still reads are kept. Failures are ignored: leftovers are harmless and the next save tries again.
    """
    folder = file.parent
    used = {folder / location for location in external_locations(file)}
    keep = {path.resolve() for path in used} | set(keep_in_memory)
    generation, temp = _generation_re(file.name), _temp_re(file.name)
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            path = folder / entry.name
            if temp.fullmatch(entry.name):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            stale = generation.fullmatch(entry.name) or (legacy and entry.name == f"{file.name}.data")
            if stale and entry.is_file(follow_symlinks=False) and path.resolve() not in keep:
                with contextlib.suppress(OSError):
                    path.unlink()
