"""Issue 31, finding 5: model-wide transforms wrote models onnxruntime refuses and called them fine. Each result here
is loaded in a real onnxruntime session; each case failed before the fix (the old status said "onnx.checker: OK")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper
import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms.batch_errors import InvalidResult
from dld_jupyter.transforms.fp16 import convert_to_fp16
from dld_jupyter.transforms.postcondition import require_valid, verify
from dld_jupyter.transforms.sanitize import sanitize
from dld_jupyter.transforms.tensor_candidates import list_initializers
from dld_jupyter.transforms.tensor_conversion import convert_tensors
from tests.transforms import typed_models as models

REAL = Path(__file__).parents[1] / "data" / "real"
X23 = {"X": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}


def _function_constant(path: Path) -> onnx.TensorProto:
    """The tensor of the Constant inside the saved model's local function."""
    node = next(n for n in onnx.load(str(path)).functions[0].node if n.op_type == "Constant")
    return node.attribute[0].t


@pytest.mark.parametrize("form", ["value", "value_float"])
def test_fp16_gives_a_local_function_constant_float16(form: str, tmp_path: Path) -> None:
    source = models.save(models.function_constant(form), tmp_path / "f.onnx")
    result = convert_to_fp16(source, tmp_path / "half.onnx")
    assert _function_constant(tmp_path / "half.onnx").data_type == onnx.TensorProto.FLOAT16
    expected = models.run(source, X23)[0]
    assert np.allclose(models.run(tmp_path / "half.onnx", X23)[0], expected, atol=2e-3)
    assert result.verdict is not None and result.verdict.ok and result.check_error is None
    assert result.comparison is not None and result.comparison.error is None
    assert any(line.startswith("verified: onnx.checker (full check)") for line in result.log)


@pytest.mark.parametrize("opset", [17, 18])
def test_fp16_keeps_quantization_scales_float32_below_opset_19(opset: int, tmp_path: Path) -> None:
    source = models.save(models.quantized(opset), tmp_path / "q.onnx")
    convert_to_fp16(source, tmp_path / "half.onnx")
    converted = onnx.load(str(tmp_path / "half.onnx"))
    scale = next(t for t in converted.graph.initializer if t.name == "scale")
    assert scale.data_type == onnx.TensorProto.FLOAT  # the original value, not a float16 rounding of it
    assert float(onnx.numpy_helper.to_array(scale)) == np.float32(0.0123)
    onnx.checker.check_model(converted, full_check=True)  # its declared type says float32 too (issue 36, item 10)
    feeds = {"X": np.array([0.5, -0.2, 1.0], np.float32)}
    assert np.allclose(models.run(tmp_path / "half.onnx", feeds)[0], models.run(source, feeds)[0], atol=2e-3)


def test_a_declaration_that_contradicts_its_initializer_fails_the_verdict_as_the_full_checker_does() -> None:
    """The weightless skeleton kept an initializer's tensor but dropped the file's declaration of its type, so a
    float32 scale declared float16 (what the FP16 conversion wrote for int8 DequantizeLinear) passed the
    post-condition while onnx.checker(full_check=True) refused the file (issue 36, item 10)."""
    model = onnx.load_from_string(models.quantized(17))
    model.graph.value_info.append(onnx.helper.make_tensor_value_info("scale", onnx.TensorProto.FLOAT16, []))
    with pytest.raises(onnx.shape_inference.InferenceError, match="Inferred elem type differs"):
        onnx.checker.check_model(model, full_check=True)
    verdict = verify(model)
    assert [check for check, _ in verdict.problems] == ["onnx.checker (full check)"]
    assert "Inferred elem type differs from existing elem type" in verdict.problems[0][1]


def test_fp16_at_opset_19_may_make_scales_float16(tmp_path: Path) -> None:
    source = models.save(models.quantized(19), tmp_path / "q.onnx")
    convert_to_fp16(source, tmp_path / "half.onnx")
    converted = onnx.load(str(tmp_path / "half.onnx"))
    assert next(t for t in converted.graph.initializer if t.name == "scale").data_type == onnx.TensorProto.FLOAT16
    models.loads(tmp_path / "half.onnx")


def test_fp16_refuses_a_float64_model_and_converts_a_float64_section(tmp_path: Path) -> None:
    only = models.save(models.float64_only(), tmp_path / "double.onnx")
    with pytest.raises(DocumentError, match="computes in float64") as refused:
        convert_to_fp16(only, tmp_path / "out.onnx")
    assert "Convert Tensors" in refused.value.fix and not (tmp_path / "out.onnx").exists()
    section = models.save(models.float64_section(), tmp_path / "mixed.onnx")
    result = convert_to_fp16(section, tmp_path / "mixed_half.onnx")
    feeds = {"X": np.array([0.5, -0.25, 2.0], np.float32)}
    out = models.run(tmp_path / "mixed_half.onnx", feeds)[0]
    assert np.allclose(out, models.run(section, feeds)[0], atol=1e-2)
    assert result.verdict is not None and result.verdict.ok


def test_fp16_of_a_function_called_in_an_if_inside_a_loop(tmp_path: Path) -> None:
    source = models.save(models.function_in_if_in_loop(), tmp_path / "loop.onnx")
    convert_to_fp16(source, tmp_path / "half.onnx")
    feeds = {"N": np.array(3, np.int64), "X": np.array([1.0, 2.0, -3.0], np.float32)}
    assert np.allclose(models.run(tmp_path / "half.onnx", feeds)[0], models.run(source, feeds)[0])


def test_fp16_of_a_real_scripted_gru_loads(tmp_path: Path) -> None:
    # A TorchScript GRU export: its float32 input `mask` is read only inside the Loop body, which the converter
    # never casts; the old status said "onnx.checker: OK" while onnxruntime refused the model.
    result = convert_to_fp16(REAL / "gru_scripted.onnx", tmp_path / "gru_half.onnx")
    models.loads(tmp_path / "gru_half.onnx")
    onnx.checker.check_model(onnx.load(str(tmp_path / "gru_half.onnx")), full_check=True)
    assert result.comparison is not None and result.comparison.error is None
    assert result.comparison.max_abs < 1e-2


def test_fp16_refuses_a_result_it_cannot_make_valid(tmp_path: Path) -> None:
    source = models.save(models.resize_by_constant(), tmp_path / "resize.onnx")
    with pytest.raises(InvalidResult, match="would not be a valid model, so nothing was written") as refused:
        convert_to_fp16(source, tmp_path / "out.onnx", compare=False)
    assert "node name: resize" in str(refused.value) and "onnxruntime CPU session" in str(refused.value)
    assert not (tmp_path / "out.onnx").exists()
    doc = Document.open(source)
    with pytest.raises(InvalidResult):
        convert_to_fp16(doc)
    assert doc.history == [] and not doc.dirty  # in place: nothing changed, nothing to undo


@pytest.mark.parametrize("form", ["value", "value_float"])
def test_sanitize_keeps_a_function_constant_float32(form: str, tmp_path: Path) -> None:
    source = models.save(models.function_constant(form), tmp_path / "f.onnx")
    result = sanitize(source, tmp_path / "s.onnx")
    assert _function_constant(tmp_path / "s.onnx").data_type == onnx.TensorProto.FLOAT  # was DOUBLE for value_float
    assert np.allclose(models.run(tmp_path / "s.onnx", X23)[0], models.run(source, X23)[0])
    assert result.outputs_equal is True and result.verdict is not None and result.verdict.ok


def test_sanitize_local_function_with_an_if_inside_a_loop(tmp_path: Path) -> None:
    source = models.save(models.function_in_if_in_loop(), tmp_path / "loop.onnx")
    result = sanitize(source, tmp_path / "s.onnx")  # was RecursionError in GraphSurgeon's function sort
    feeds = {"N": np.array(2, np.int64), "X": np.array([1.0, 2.0, -3.0], np.float32)}
    assert np.allclose(models.run(tmp_path / "s.onnx", feeds)[0], models.run(source, feeds)[0])
    assert result.outputs_equal is True
    assert [f.name for f in onnx.load(str(tmp_path / "s.onnx")).functions] == ["Scale"]


def test_convert_tensors_refuses_what_a_type_constraint_forbids(tmp_path: Path) -> None:
    doc = Document.open(models.save(models.quantized(17), tmp_path / "q.onnx"))
    scale = next(c.value_id for c in list_initializers(doc) if c.name == "scale")
    result = convert_tensors(doc, "float16", [scale])
    error = result.errors[0].error or ""
    assert "node 'quantize' (QuantizeLinear), input 1 'y_scale' allows tensor(float)" in error
    assert "at opset 17 of ai.onnx, not float16" in error
    assert doc.history == [] and doc.model.graph.initializers["scale"].dtype == onnx.TensorProto.FLOAT
    doc.save_copy(tmp_path / "out.onnx")
    models.loads(tmp_path / "out.onnx")


def test_convert_tensors_post_condition_rolls_back_what_no_schema_catches(tmp_path: Path) -> None:
    # The weight feeds a local function (no schema to consult): its float32 Constant would meet float16 data.
    doc = Document.open(models.save(models.function_reads_weight(), tmp_path / "fw.onnx"))
    weight = next(c.value_id for c in list_initializers(doc) if c.name == "w")
    with pytest.raises(InvalidResult, match="onnxruntime CPU session"):
        convert_tensors(doc, "float16", [weight])
    assert doc.history == [] and not doc.dirty
    assert doc.model.graph.initializers["w"].dtype == onnx.TensorProto.FLOAT


def test_a_problem_the_original_had_is_kept_in_the_verdict_never_ok(tmp_path: Path) -> None:
    broken = onnx.load_from_string(models.resize_by_constant())
    scales = broken.graph.node[0].attribute[0].t
    scales.CopyFrom(onnx.numpy_helper.from_array(np.array([1, 1, 2, 2], np.float16), scales.name))
    verdict = require_valid("Test", broken, lambda: broken)
    assert verdict.preexisting and not verdict.ok
    assert verdict.lines()[0] == "NOT a valid model (the original model already fails it too):"
    assert all("OK" not in line for line in verdict.lines())
    assert verify(onnx.load_from_string(models.resize_by_constant())).ok


def test_external_data_is_verified_from_its_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    model = onnx.load_from_string(models.quantized(17))
    onnx.save(model, folder / "q.onnx", save_as_external_data=True, location="q.data", size_threshold=0)
    monkeypatch.chdir(tmp_path)  # not the model's folder: every tensor must be read from its own
    doc = Document.open(folder / "q.onnx")
    assert [d.message for d in doc.check() if d.severity == "error"] == []  # was "should be stored in q.data"
    result = convert_tensors(doc, "float16", [])
    assert result.verdict is not None and result.verdict.ok, result.verdict
