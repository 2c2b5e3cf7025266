"""The one atomic writer (formats/atomic_write.py): readers and crashes see the old content or the new, never part of
either; a failed write leaves the target as it was and no temporary file; the file keeps the mode of the one it
replaces (the user-tool and JupyterLab-settings writers it replaced left 0600 files behind)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import pytest

from dld_jupyter.formats.atomic_write import atomic_write_bytes, atomic_write_text
from dld_jupyter.usertools import UserTool, save_tools
from dld_jupyter.usertools.lab_settings import save_lab_tools

SIZE = 4 << 20  # large enough that a plain write is seen half done


def test_the_file_holds_the_new_content_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    assert atomic_write_text(target, "new ✓") == target
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_failed_rename_leaves_the_target_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "folder"  # a folder: os.replace of a file over it fails after the data is written
    target.mkdir()
    (target / "kept").write_text("x")
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"new")
    assert (target / "kept").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_a_failed_write_leaves_the_old_content_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "b.bin"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, cast(bytes, "not bytes"))  # fails inside the write, after mkstemp
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin"]


_WRITER = """
import sys
from dld_jupyter.formats.atomic_write import atomic_write_bytes
size = int(sys.argv[2])
blocks = [bytes([65]) * size, bytes([66]) * size]
print("ready", flush=True)
k = 0
while True:
    atomic_write_bytes(sys.argv[1], blocks[k % 2])
    k += 1
"""


def test_readers_and_a_killed_writer_see_old_or_new_never_a_part(tmp_path: Path) -> None:
    target = tmp_path / "c.bin"
    target.write_bytes(b"A" * SIZE)
    whole = {b"A" * SIZE, b"B" * SIZE}
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(target), str(SIZE)], stdout=subprocess.PIPE)
    try:
        assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
        seen = set()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            data = target.read_bytes()
            assert data in whole, f"a reader saw {len(data)} bytes starting {data[:1]!r}"
            seen.add(data[:1])
        os.kill(writer.pid, signal.SIGKILL)  # a crash at any instant
        writer.wait()
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert target.read_bytes() in whole
    assert seen == {b"A", b"B"}  # the writer did replace the file while it was read


@pytest.mark.parametrize("settings", [False, True])
def test_user_tool_lists_keep_the_mode_of_the_file_they_replace(tmp_path: Path, settings: bool) -> None:
    file = tmp_path / ("plugin.jupyterlab-settings" if settings else "user_tools.json")
    file.write_text("{}" if settings else "[]")
    file.chmod(0o644)
    tools = [UserTool("Count nodes", "python")]
    save_lab_tools(tools, file) if settings else save_tools(tools, file)
    assert file.stat().st_mode & 0o777 == 0o644  # mkstemp's private 0600 used to stay on the saved file
    assert sorted(p.name for p in tmp_path.iterdir()) == [file.name]
