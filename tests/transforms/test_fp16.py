"""Convert to FP16 on real exports: one undo step, the status figures, and output differences checked independently."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms.compare import random_inputs
from dld_jupyter.transforms.fp16 import convert_to_fp16
from dld_jupyter.transforms.progress import Cancelled, CancelToken

REAL = Path(__file__).parents[1] / "data" / "real"


def _outputs(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


@pytest.mark.parametrize("name", ["bert_tiny", "gpt2_tiny", "mobilenet_v3_small_w05"])
def test_file_conversion_reports_what_an_independent_run_measures(name: str, tmp_path: Path) -> None:
    source = REAL / f"{name}.onnx"
    out = tmp_path / f"{name} fp16.onnx"
    result = convert_to_fp16(source, out)
    assert result.output == out.resolve() and out.is_file()
    converted = onnx.load(str(out))
    onnx.checker.check_model(converted, full_check=True)
    assert result.check_error is None and result.fp16_weight_share >= 0.9
    assert result.tensors_converted > 0 and result.casts_inserted >= 0
    assert result.comparison is not None and result.comparison.error is None
    feeds = random_inputs(onnx.load(str(source)), result.comparison.seed)
    reference, candidate = _outputs(source, feeds), _outputs(out, feeds)
    for diff in result.comparison.outputs:
        a, b = reference[diff.name].astype(np.float64), candidate[diff.name].astype(np.float64)
        assert diff.max_abs == pytest.approx(float(np.max(np.abs(a - b))), rel=1e-9, abs=1e-12)
        rel = np.abs(a - b) / np.maximum(np.abs(a), np.finfo(np.float32).tiny)
        assert diff.max_rel == pytest.approx(float(rel.max()), rel=1e-9)
        assert diff.nonfinite == 0 and np.isfinite(b).all()
    assert result.log[0].startswith(f"{result.tensors_converted:,} tensors converted")
    assert result.to_dict()["checker_ok"] is True


def test_bert_status_counts_out_of_range_values_and_its_split_output() -> None:
    # BERT's attention mask holds float32's lowest value: beyond float16, clamped to -1e4 by the converter.
    result = convert_to_fp16(Document.open(REAL / "bert_tiny.onnx"))
    assert result.beyond_fp16 >= 1 and result.largest_abs > 65504 and result.clamped >= result.beyond_fp16
    assert any("given an Identity first: last_hidden_state" in line for line in result.log)
    assert any("truncated" in line for line in result.log)  # the converter's own warnings reach the log


def test_designer_conversion_is_one_undo_step() -> None:
    doc = Document.open(REAL / "bert_tiny.onnx")
    before = {n.name: n.op_type for n in doc.nodes()}
    dtypes = {name: v.dtype for name, v in doc.model.graph.initializers.items()}
    events: list[object] = []
    doc.subscribe(events.extend)
    result = transforms.get("convert_fp16").apply(doc)
    assert doc.history == ["Convert model to FP16"] and doc.dirty
    assert result.output is None and events
    halves = [v for v in doc.model.graph.initializers.values() if v.dtype == onnx.TensorProto.FLOAT16]
    assert len(halves) >= result.tensors_converted - 20  # Constant tensors are counted too
    doc.undo()
    assert {n.name: n.op_type for n in doc.nodes()} == before
    assert {name: v.dtype for name, v in doc.model.graph.initializers.items()} == dtypes and not doc.dirty
    doc.redo()
    assert all(v.dtype != onnx.TensorProto.FLOAT for v in doc.model.graph.initializers.values())


def test_positions_follow_the_nodes_by_name(tmp_path: Path) -> None:
    doc = Document.open(REAL / "mobilenet_v3_small_w05.onnx")
    first = next(n for n in doc.nodes() if n.kind == "op")
    doc.move_nodes({first.id: (12.0, 34.0)})
    transforms.get("convert_fp16").apply(doc, compare=False)
    moved = next(n for n in doc.nodes() if n.name == first.name)
    assert moved.position == (12.0, 34.0)
    doc.save(tmp_path / "saved.onnx")
    assert Document.open(tmp_path / "saved.onnx").model.graph.initializers  # the swapped model saves and reopens


def test_refusals_and_cancel(tmp_path: Path) -> None:
    half = tmp_path / "half.onnx"
    convert_to_fp16(REAL / "mobilenet_v3_small_w05.onnx", half, compare=False)
    with pytest.raises(DocumentError, match="already in float16"):
        convert_to_fp16(half, tmp_path / "again.onnx", compare=False)
    with pytest.raises(DocumentError, match="no output file"):
        convert_to_fp16(REAL / "bert_tiny.onnx")
    doc = Document.open(REAL / "bert_tiny.onnx")
    token = CancelToken()
    seen: list[tuple[float | None, str]] = []

    def progress(fraction: float | None, message: str) -> None:
        seen.append((fraction, message))
        if fraction is not None and fraction >= 0.5:
            token.cancel()

    with pytest.raises(Cancelled):
        transforms.get("convert_fp16").apply(doc, progress=progress, cancel=token)
    assert doc.history == [] and seen and seen[0][0] == 0.05


def test_external_data_is_read_for_the_converter(tmp_path: Path) -> None:
    model = onnx.load(str(REAL / "mobilenet_v3_small_w05.onnx"))
    path = tmp_path / "ext.onnx"
    onnx.save(model, str(path), save_as_external_data=True, location="ext.data", size_threshold=0)
    doc = Document.open(path)
    result = transforms.get("convert_fp16").apply(doc)
    assert result.fp16_weight_share >= 0.9 and result.comparison is not None and result.comparison.error is None
    assert all(v.dtype != onnx.TensorProto.FLOAT for v in doc.model.graph.initializers.values())
