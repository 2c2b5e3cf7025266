"""Saving with external data into another folder survives kill -9 at any point: the old model or the new, no mix.

A forked child saves a model whose weights are all 1.0 (or all 2.0) over one whose weights are the other value and
is SIGKILLed either from inside, at its k-th file-system step (fsync, rename, replace, unlink, rmdir, mkstemp), or
from outside after a random delay. After every kill the target folder must hold a model that opens and whose
weights are uniformly the old or the new value. Leftovers are cleaned by the next successful save.
"""

from __future__ import annotations

import os
import pathlib
import random
import signal
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document import Document

KILLS = 50
TENSORS = 4
SIZE = 2048  # float32: 8 KiB each, above the 1 KiB external threshold


def _source(folder: pathlib.Path, value: float) -> pathlib.Path:
    """A model whose initializers are external files in ``folder``, every element ``value``."""
    folder.mkdir()
    names = [f"w{i}" for i in range(TENSORS)]
    nodes = [helper.make_node("Add", ["x" if i == 0 else f"s{i - 1}", name], [f"s{i}"]) for i, name in enumerate(names)]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [SIZE])],
        [helper.make_tensor_value_info(f"s{TENSORS - 1}", TensorProto.FLOAT, [SIZE])],
        [numpy_helper.from_array(np.full(SIZE, value, np.float32), name) for name in names],
    )
    # a tag small enough to stay inside the .onnx: an old .onnx reading new data shows two values
    graph.initializer.append(numpy_helper.from_array(np.full(1, value, np.float32), "tag"))
    graph.node.append(helper.make_node("Identity", ["tag"], ["tag_out"]))
    graph.output.append(helper.make_tensor_value_info("tag_out", TensorProto.FLOAT, [1]))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = folder / "m.onnx"
    onnx.save(model, path, save_as_external_data=True, location="w.bin", size_threshold=1024)
    return path


def _weights(path: pathlib.Path) -> set[float]:
    """Every distinct weight value of the model at ``path`` (it must open: that is part of the check)."""
    doc = Document.open(path)
    values: set[float] = set()
    for value in doc.model.graph.initializers.values():
        assert value.const_value is not None
        values.update(np.unique(value.const_value.numpy()).tolist())
    return values


STEPS = ("fsync", "rename", "replace", "unlink", "rmdir", "chmod")


def _arm(kill_at: int) -> None:
    """In the child: SIGKILL ourselves at the ``kill_at``-th file-system step of the save."""
    count = [0]

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        def step(*args: Any, **kwargs: Any) -> Any:
            count[0] += 1
            if count[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)

        return step

    for name in STEPS:
        setattr(os, name, wrap(getattr(os, name)))
    tempfile.mkstemp = wrap(tempfile.mkstemp)  # type: ignore[assignment]


def _save_in_child(source: pathlib.Path, target: pathlib.Path, kill_at: int, delay: float) -> int:
    """Fork a child that saves ``source`` to ``target``; kill it at step ``kill_at`` or after ``delay`` s."""
    doc = Document.open(source)  # opened in the parent: the child only saves
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns into pytest
        try:
            if kill_at:
                _arm(kill_at)
            doc.save(target)
            os._exit(0)
        except BaseException:
            os._exit(3)
    if delay:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return status


def test_kill_during_external_save_never_leaves_a_mixed_model(tmp_path: pathlib.Path) -> None:
    sources = {1.0: _source(tmp_path / "one", 1.0), 2.0: _source(tmp_path / "two", 2.0)}
    target_dir = tmp_path / "target"
    target_dir.mkdir()
    target = target_dir / "m.onnx"
    Document.open(sources[1.0]).save(target)
    current = 1.0
    rng = random.Random(17)
    kills = mixed = switched = 0
    for attempt in range(KILLS * 3):
        if kills >= KILLS:
            break
        new = 2.0 if current == 1.0 else 1.0
        inside = attempt % 3 != 2
        status = _save_in_child(
            sources[new], target, kill_at=1 + attempt % 12 if inside else 0, delay=0 if inside else rng.uniform(0, 0.02)
        )
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            kills += 1
        else:
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        found = _weights(target)
        if found not in ({current}, {new}):
            mixed += 1
        elif found == {new}:
            switched += 1
            current = new
    assert kills >= KILLS and mixed == 0, (kills, mixed)
    assert switched > 0  # some kills came after the switch (or saves finished): both outcomes were seen
    final = 2.0 if current == 1.0 else 1.0
    Document.open(sources[final]).save(target)  # a clean save removes every leftover
    assert _weights(target) == {final}
    left = sorted(p.name for p in target_dir.iterdir())
    assert len(left) == 2 and left[0] == "m.onnx" and left[1].startswith("m.onnx."), left


def test_saved_file_has_normal_permissions_and_no_temp_left(tmp_path: pathlib.Path) -> None:
    source = _source(tmp_path / "src", 1.0)
    target = tmp_path / "out.onnx"
    Document.open(source).save(target)
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # not tempfile's private 0600
    assert all(not p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_legacy_data_file_is_replaced_by_a_generation(tmp_path: pathlib.Path) -> None:
    """A model saved by the old code (``m.onnx.data``) re-saved from elsewhere drops the superseded file."""
    source = _source(tmp_path / "src", 2.0)
    old = _source(tmp_path / "target", 1.0)
    (old.parent / "w.bin").rename(old.parent / "m.onnx.data")
    proto = onnx.load(old, load_external_data=False)
    for tensor in proto.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = "m.onnx.data"
    old.write_bytes(proto.SerializeToString())
    assert _weights(old) == {1.0}
    Document.open(source).save(old)
    assert _weights(old) == {2.0}
    assert not (old.parent / "m.onnx.data").exists()


@pytest.mark.parametrize("leftover", [".m.onnx.abc123_x.tmp", ".m.onnx.4242.tmp", "m.onnx.0123456789abcdef.data"])
def test_leftovers_of_interrupted_saves_are_removed(tmp_path: pathlib.Path, leftover: str) -> None:
    source = _source(tmp_path / "src", 1.0)
    target_dir = tmp_path / "t"
    target_dir.mkdir()
    (target_dir / leftover).write_bytes(b"\0" * 64)
    (target_dir / "keep.bin").write_bytes(b"mine")
    Document.open(source).save(target_dir / "m.onnx")
    names = {p.name for p in target_dir.iterdir()}
    assert leftover not in names and "keep.bin" in names
