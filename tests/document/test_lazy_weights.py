"""Embedded weights are read lazily (document/files/lazy_weights.py): opening does not copy them, values read back
right, and saving writes them byte for byte, also over the file they are mapped from, unless edited."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
import onnx_ir as ir
import pytest

from dld_jupyter.document import Document
from dld_jupyter.document.files import lazy_weights

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def raw(path: Path) -> dict[str, bytes]:
    return {t.name: t.raw_data for t in onnx.load(str(path)).graph.initializer}


@pytest.fixture
def lazy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(lazy_weights, "LAZY_MIN_FILE", 0)  # the fixture is small: map it anyway
    path = tmp_path / "mobilenet.onnx"
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", path)
    return path


def test_big_initializers_are_lazy_and_read_back_right(lazy: Path) -> None:
    doc = Document.open(lazy)
    original = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(str(lazy)).graph.initializer}
    values = doc.model.graph.initializers
    lazy_ones = [n for n, v in values.items() if isinstance(v.const_value, ir.LazyTensor)]
    assert len(lazy_ones) > 20
    for name in lazy_ones:
        np.testing.assert_array_equal(values[name].const_value.numpy(), original[name])


def test_saving_keeps_weights_byte_identical_even_in_place(lazy: Path, tmp_path: Path) -> None:
    before = raw(lazy)
    doc = Document.open(lazy)
    doc.save(tmp_path / "copy.onnx")
    assert raw(tmp_path / "copy.onnx") == before
    doc.save()  # over the mapped file: the mapping still reads the old bytes
    assert raw(lazy) == before
    assert raw(tmp_path / "copy.onnx") == before


def test_an_edited_weight_is_saved_edited(lazy: Path, tmp_path: Path) -> None:
    doc = Document.open(lazy)
    name, value = next((n, v) for n, v in doc.model.graph.initializers.items()
                       if isinstance(v.const_value, ir.LazyTensor))
    doc.set_initializer_value(doc.value_id(value), np.zeros(value.const_value.shape.numpy(), np.float32))
    doc.save(tmp_path / "edited.onnx")
    before, after = raw(lazy), raw(tmp_path / "edited.onnx")
    assert not np.frombuffer(after[name], np.float32).any()
    assert {n: b for n, b in after.items() if n != name} == {n: b for n, b in before.items() if n != name}


def test_strip_weights_keeps_everything_else() -> None:
    data = (REAL / "bert_tiny.onnx").read_bytes()
    stripped, spans = lazy_weights.strip_weights(data)
    assert spans and len(stripped) < len(data) - sum(length for _, length in spans.values()) + 64 * len(spans)
    proto = onnx.ModelProto.FromString(stripped)
    full = onnx.ModelProto.FromString(data)
    assert [n.name for n in proto.graph.node] == [n.name for n in full.graph.node]
    for tensor in full.graph.initializer:
        if tensor.name in spans:
            offset, length = spans[tensor.name]
            assert data[offset:offset + length] == tensor.raw_data
