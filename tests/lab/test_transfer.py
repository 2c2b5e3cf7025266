"""The kernel side of the contents-API transfer (dld_jupyter/lab/transfer.py): chunks assemble into the file, in
order and complete, under the file's own name in a private folder; anything else is refused and leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dld_jupyter.lab.transfer import CHUNK, Receiver, handle, sees


def test_chunks_assemble_into_the_file(tmp_path: Path) -> None:
    data = os.urandom(2 * CHUNK + 123)
    receiver = Receiver("model.onnx", len(data))
    for offset in range(0, len(data), CHUNK):
        assert handle(receiver, {"kind": "chunk", "offset": offset}, [memoryview(data[offset:offset + CHUNK])]) is None
    reply = handle(receiver, {"kind": "done"}, [])
    assert reply is not None and reply["ok"]
    path = Path(reply["path"])
    assert path.name == "model.onnx" and path.read_bytes() == data
    assert oct(path.parent.stat().st_mode & 0o777) == oct(0o700)  # a folder of the kernel's user alone
    assert sees(str(path), len(data)) and not sees(str(path), len(data) + 1) and not sees(str(tmp_path / "x"), 0)


@pytest.mark.parametrize("name", ["../escape.onnx", "/etc/passwd"])
def test_a_name_never_leaves_the_private_folder(name: str) -> None:
    receiver = Receiver(name, 0)
    assert receiver.path.parent.name.startswith("dld-transfer-")
    assert receiver.finish().name == Path(name).name
    receiver.abandon()


def test_out_of_order_oversized_or_short_transfers_are_refused_and_removed() -> None:
    receiver = Receiver("m.onnx", 10)
    with pytest.raises(ValueError, match="arrived after byte 0"):
        receiver.chunk(5, b"abc")
    with pytest.raises(ValueError, match="larger than the 10 bytes"):
        receiver.chunk(0, b"x" * 11)
    receiver.chunk(0, b"x" * 4)
    with pytest.raises(ValueError, match="4 of 10 bytes arrived"):
        receiver.finish()
    receiver.abandon()
    assert not receiver.path.exists() and not receiver.path.parent.exists()
    with pytest.raises(ValueError, match="give the file's name"):
        Receiver("..", 1)
