"""DLD_CHANNEL_DIR is used for the canvas's sockets only when it is this user's alone (mode 0700): with a real folder
and a real socket on a running loop. Otherwise the comm carries everything and the reason is logged once."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.channel_frames import channel_dir_problem
from dld_jupyter.widgets.canvas import channel_socket
from dld_jupyter.widgets.canvas.channel_socket import ChannelSocket


def _open_socket() -> tuple[str | None, bool]:
    """(token, socket file existed) of a ChannelSocket made on a running loop, as in the kernel."""

    async def make() -> tuple[str | None, bool]:
        channel = ChannelSocket(lambda peer, content, buffers: None)
        token = channel.token
        existed = bool(token) and any(Path(os.environ["DLD_CHANNEL_DIR"]).glob(f"dld-{token}.sock"))
        channel.close()
        return token, existed

    return asyncio.run(make())


@pytest.fixture
def channel_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="dc"))  # short: a socket path has ~100 characters at most (pytest's are long)
    folder = base / "c"
    monkeypatch.setenv("DLD_CHANNEL_DIR", str(folder))
    monkeypatch.setattr(channel_socket, "_TOLD", set())
    yield folder
    shutil.rmtree(base, ignore_errors=True)


def test_a_private_folder_is_used(channel_dir: Path) -> None:
    channel_dir.mkdir(mode=0o700)
    channel_dir.chmod(0o700)
    assert channel_dir_problem() is None
    token, existed = _open_socket()
    assert token and existed


def test_a_missing_folder_is_created_private(channel_dir: Path) -> None:
    token, existed = _open_socket()
    assert token and existed and channel_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o701, 0o1777, 0o750])
def test_a_shared_folder_is_refused_once_with_the_fix(
    channel_dir: Path, caplog: pytest.LogCaptureFixture, mode: int
) -> None:
    channel_dir.mkdir()
    channel_dir.chmod(mode)
    problem = channel_dir_problem()
    assert problem is not None and f"chmod 700 {channel_dir}" in problem
    with caplog.at_level(logging.WARNING, logger=channel_socket.__name__):
        assert _open_socket() == (None, False)
        assert _open_socket() == (None, False)  # a second canvas: still the comm, not said again
    told = [r for r in caplog.records if "no fast channel" in r.getMessage()]
    assert len(told) == 1 and "chmod 700" in told[0].getMessage()
    assert not list(channel_dir.iterdir())


def test_a_file_instead_of_a_folder_is_refused(channel_dir: Path) -> None:
    channel_dir.write_text("")
    problem = channel_dir_problem()
    assert problem is not None
    assert _open_socket() == (None, False)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to give the folder away")
def test_a_folder_of_another_user_is_refused(channel_dir: Path) -> None:
    channel_dir.mkdir(mode=0o700)
    os.chown(channel_dir, 65534, 65534)
    problem = channel_dir_problem()
    assert problem is not None and "owned by user 65534" in problem
    assert _open_socket() == (None, False)


def test_unset_means_jupyters_runtime_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DLD_CHANNEL_DIR", raising=False)
    assert channel_dir_problem() is None
