"""Reading a model one initializer at a time (`model_file`): embedded or external weights end up in one aligned
weights file that ONNX Runtime runs from, a skeleton drops them, and a truncated file is refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.onnxruntime.model_file import ALIGN, read_model

REAL = Path(__file__).resolve().parents[2] / "data" / "real"


def _arrays(model: onnx.ModelProto, folder: Path) -> dict[str, np.ndarray]:
    return {t.name: onnx.numpy_helper.to_array(t, str(folder)) for t in model.graph.initializer}


@pytest.mark.parametrize("external", [False, True])
def test_weights_move_to_one_aligned_file(tmp_path: Path, external: bool) -> None:
    source = REAL / "mobilenet_v3_small_w05.onnx"
    original = onnx.load(str(source))
    if external:  # a model saved with external data of its own
        source = tmp_path / "src" / "model.onnx"
        source.parent.mkdir()
        copy = onnx.ModelProto()
        copy.CopyFrom(original)  # saving with external data changes the proto it saves
        onnx.save(copy, str(source), save_as_external_data=True, location="own.data", size_threshold=0)
    out = tmp_path / "out"
    out.mkdir()
    with (out / "weights.bin").open("wb") as weights:
        moved = read_model(source, weights)
    assert [n.name for n in moved.graph.node] == [n.name for n in original.graph.node]
    expected = _arrays(original, tmp_path)
    got = _arrays(moved, out)
    assert got.keys() == expected.keys() and all(np.array_equal(got[k], v) for k, v in expected.items())
    offsets = [int(e.value) for t in moved.graph.initializer for e in t.external_data if e.key == "offset"]
    assert offsets and all(o % ALIGN == 0 for o in offsets)
    skeleton = read_model(source)
    assert skeleton.graph.ByteSize() < original.graph.ByteSize() / 20  # names, types and shapes only
    assert {t.name: list(t.dims) for t in skeleton.graph.initializer} == {
        t.name: list(t.dims) for t in original.graph.initializer
    }


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    cut = tmp_path / "cut.onnx"
    cut.write_bytes((REAL / "bert_tiny.onnx").read_bytes()[:-1000])
    with pytest.raises(SpecError, match=r"cut\.onnx.*(truncated|past the end|not a readable)"):
        read_model(cut)
