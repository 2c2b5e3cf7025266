"""Initializer generation per dtype, dtype conversion warnings, sparse and external validation, initializer edits."""

from __future__ import annotations

import functools
import pathlib

import numpy as np
import onnx_ir as ir
import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits import initializer_commands as ic
from dld_jupyter.document.edits.tensor_layouts import dense_to_sparse, sparse_to_dense, validate_external
from dld_jupyter.document.edits.tensors import (
    conversion_targets,
    convert,
    convertible,
    element_types,
    generate,
    generators_for,
    parse_dtype,
)

DT = ir.DataType


@pytest.mark.parametrize(
    ("dtype", "allowed"),
    [
        (DT.FLOAT, ["normal", "zeros"]),
        (DT.FLOAT16, ["normal", "zeros"]),
        (DT.BFLOAT16, ["normal", "zeros"]),
        (DT.DOUBLE, ["normal", "zeros"]),
        (DT.FLOAT8E4M3FN, ["zeros"]),
        (DT.INT8, ["zeros", "uniform_positive", "uniform_negative"]),
        (DT.INT64, ["zeros", "uniform_positive", "uniform_negative"]),
        (DT.UINT8, ["zeros", "uniform_positive"]),
        (DT.UINT64, ["zeros", "uniform_positive"]),
        (DT.INT4, ["zeros"]),
        (DT.BOOL, ["zeros"]),
        (DT.FLOAT8E8M0, []),
        (DT.STRING, ["zeros"]),
    ],
)
def test_generators_allowed_per_dtype(dtype: ir.DataType, allowed: list[str]) -> None:
    assert generators_for(dtype) == allowed


@pytest.mark.parametrize("dtype", element_types())
def test_every_allowed_generator_produces_the_type(dtype: ir.DataType) -> None:
    for method in generators_for(dtype):
        array = generate(dtype, [3, 4], method, seed=1)
        assert array.shape == (3, 4)
        if dtype != DT.STRING:
            assert array.dtype == np.dtype(dtype.numpy())
        if method == "uniform_positive":
            assert (array.astype(np.float64) > 0).all()
        if method == "uniform_negative":
            assert (array.astype(np.float64) < 0).all()
        if method == "zeros" and dtype != DT.STRING:
            assert not (array if array.dtype.kind == "c" else array.astype(np.float64)).any()


def test_refused_generators_and_shapes() -> None:
    with pytest.raises(DocumentError, match="not available"):
        generate(DT.UINT8, [2], "uniform_negative")
    with pytest.raises(DocumentError, match="not available"):
        generate(DT.BOOL, [2], "normal")
    with pytest.raises(DocumentError, match="non-negative"):
        generate(DT.FLOAT, [2, -1], "zeros")
    with pytest.raises(DocumentError, match="1 GiB"):
        generate(DT.FLOAT, [1 << 20, 1 << 20], "zeros")
    with pytest.raises(DocumentError, match="not an ONNX"):
        parse_dtype("float33")
    assert parse_dtype("float32") == DT.FLOAT and parse_dtype("float16") == DT.FLOAT16


def test_conversion_refusals() -> None:
    assert not convertible(DT.BOOL) and not convertible(DT.STRING)
    assert conversion_targets(DT.BOOL) == [] and DT.STRING not in conversion_targets(DT.FLOAT)
    with pytest.raises(DocumentError, match="cannot be converted"):
        convert(np.array([True]), DT.BOOL, DT.FLOAT)


def test_float_to_float16_warns_about_precision_and_overflow() -> None:
    out, warnings = convert(np.array([1.0, 0.1, 1e6, np.nan], np.float32), DT.FLOAT, DT.FLOAT16)
    assert out.dtype == np.float16 and np.isinf(out[2])
    assert any("overflowed" in w for w in warnings) and any("lost precision" in w for w in warnings)
    exact, none = convert(np.array([1.0, 0.5, -2.0], np.float32), DT.FLOAT, DT.FLOAT16)
    assert none == [] and exact.tolist() == [1.0, 0.5, -2.0]


def test_float_to_int_truncates_and_clips() -> None:
    out, warnings = convert(np.array([1.7, -2.5, 300.0, np.nan, -1e30], np.float32), DT.FLOAT, DT.INT8)
    assert out.tolist() == [1, -2, 127, 0, -128]
    text = " ".join(warnings)
    assert "truncated" in text and "clipped" in text and "NaN" in text


def test_int_conversions_saturate() -> None:
    out, warnings = convert(np.array([-5, 10, 70000], np.int64), DT.INT64, DT.UINT16)
    assert out.tolist() == [0, 10, 65535] and "clipped" in warnings[0]
    big, lost = convert(np.array([2**40 + 1], np.int64), DT.INT64, DT.FLOAT)
    assert big.dtype == np.float32 and "precision" in lost[0]
    flags, other = convert(np.array([0, 1, 2]), DT.INT64, DT.BOOL)
    assert flags.tolist() == [False, True, True] and "became true" in other[0]
    u64, fine = convert(np.array([2**64 - 1], np.uint64), DT.UINT64, DT.INT64)
    assert u64.tolist() == [2**63 - 1] and "clipped" in fine[0]


def test_sparse_linear_and_coordinates() -> None:
    dense = sparse_to_dense([1.0, 2.0], [1, 5], [2, 3])
    assert dense.tolist() == [[0, 1, 0], [0, 0, 2]]
    assert sparse_to_dense([1.0, 2.0], [[0, 1], [1, 2]], [2, 3]).tolist() == dense.tolist()
    values, indices, shape = dense_to_sparse(dense)
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [1, 5] and shape == [2, 3]


@pytest.mark.parametrize(
    ("values", "indices", "shape", "fragment"),
    [
        ([1.0, 2.0], [1, 6], [2, 3], "outside"),
        ([1.0, 2.0], [5, 1], [2, 3], "sorted"),
        ([1.0, 2.0], [1, 1], [2, 3], "sorted"),
        ([1.0, 2.0], [1], [2, 3], "do not fit"),
        ([[1.0]], [0], [2], "one-dimensional"),
        ([1.0], [0.5], [2], "integers"),
        ([1.0], [[0, 3]], [2, 3], "outside"),
        ([1.0], [0], [2, -3], "non-negative"),
    ],
)
def test_sparse_errors(values: object, indices: object, shape: object, fragment: str) -> None:
    with pytest.raises(DocumentError, match=fragment):
        sparse_to_dense(values, indices, shape)


def test_external_validation(tmp_path: pathlib.Path) -> None:
    (tmp_path / "w.bin").write_bytes(np.arange(8, dtype=np.float32).tobytes())
    (tmp_path / "sub").mkdir()
    (tmp_path.parent / "outside.bin").write_bytes(b"x" * 64)
    (tmp_path / "link.bin").symlink_to(tmp_path.parent / "outside.bin")
    ref = validate_external(tmp_path, "w.bin", 8, None, DT.FLOAT, [2, 3])
    assert (ref.offset, ref.length) == (8, 24)
    for location, fragment in [
        ("/etc/passwd", "absolute"),
        ("C:\\w.bin", "absolute"),
        ("../outside.bin", "leaves"),
        ("sub/../../outside.bin", "leaves"),
        ("link.bin", "links outside"),
        ("missing.bin", "does not exist"),
        ("", "empty"),
    ]:
        with pytest.raises(DocumentError, match=fragment):
            validate_external(tmp_path, location, 0, None, DT.FLOAT, [2])
    with pytest.raises(DocumentError, match="past the end"):
        validate_external(tmp_path, "w.bin", 16, None, DT.FLOAT, [5])
    with pytest.raises(DocumentError, match="do not hold"):
        validate_external(tmp_path, "w.bin", 0, 12, DT.FLOAT, [2])
    with pytest.raises(DocumentError, match="offset"):
        validate_external(tmp_path, "w.bin", -1, None, DT.FLOAT, [2])
    with pytest.raises(DocumentError, match="only in memory"):
        validate_external(None, "w.bin", 0, None, DT.FLOAT, [2])


def _doc() -> Document:
    doc = Document.new(opset=21)
    doc.create_initializer("w", np.array([1.0, 0.1], np.float32))
    return doc


def _value_id(doc: Document, name: str) -> str:
    return doc.value_id(doc.model.graph.initializers[name])


def test_convert_initializer_is_one_undo_step() -> None:
    doc = _doc()
    vid = _value_id(doc, "w")
    warnings = doc.edit("Convert", functools.partial(ic.convert_initializer, value_id=vid, dtype="float16"))
    tensor = doc.model.graph.initializers["w"].const_value
    assert tensor is not None and tensor.dtype == DT.FLOAT16 and "precision" in warnings[0]
    assert doc.model.graph.initializers["w"].dtype == DT.FLOAT16
    doc.undo()
    assert doc.model.graph.initializers["w"].dtype == DT.FLOAT


def test_refused_initializer_edits_change_nothing(tmp_path: pathlib.Path) -> None:
    doc = _doc()
    steps = len(doc.history)
    with pytest.raises(DocumentError):
        doc.edit("Create", functools.partial(ic.create_typed, name="w", dtype="float", array=[1]))
    with pytest.raises(DocumentError):
        doc.edit("Create", functools.partial(ic.create_typed, name="b", dtype="uint8", array=[1.5, 2]))
    with pytest.raises(DocumentError):
        doc.edit(
            "Sparse",
            functools.partial(ic.create_sparse, name="s", dtype="float", values=[1.0], indices=[9], dense_shape=[2]),
        )
    with pytest.raises(DocumentError, match="only in memory"):
        doc.edit("Ext", functools.partial(ic.create_external, name="e", dtype="float", shape=[2], location="x.bin"))
    assert len(doc.history) == steps and list(doc.model.graph.initializers) == ["w"]


def test_external_and_sparse_initializers(tmp_path: pathlib.Path) -> None:
    doc = _doc()
    (tmp_path / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    vid = doc.edit(
        "Ext",
        functools.partial(
            ic.create_external, name="e", dtype="float", shape=[2], location="w.bin", offset=8, model_dir=tmp_path
        ),
    )
    tensor = doc.model.graph.initializers["e"].const_value
    assert isinstance(tensor, ir.ExternalTensor) and tensor.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(DocumentError, match="external data cannot be converted"):
        doc.edit("Convert", functools.partial(ic.convert_initializer, value_id=vid, dtype="float16"))
    doc.edit("Ext", functools.partial(ic.set_external, value_id=vid, location="w.bin", model_dir=tmp_path))
    assert doc.model.graph.initializers["e"].const_value.numpy().tolist() == [0.0, 1.0]  # type: ignore[union-attr]
    sid = doc.edit(
        "Sparse",
        functools.partial(
            ic.create_sparse, name="s", dtype="float", values=[5.0], indices=[[1, 0]], dense_shape=[2, 2]
        ),
    )
    assert doc.model.graph.initializers["s"].const_value.numpy().tolist() == [[0, 0], [5, 0]]  # type: ignore[union-attr]
    doc.edit("Sparse", functools.partial(ic.set_sparse, value_id=sid, values=[7.0], indices=[3], dense_shape=[2, 2]))
    assert doc.model.graph.initializers["s"].const_value.numpy().tolist() == [[0, 0], [0, 7]]  # type: ignore[union-attr]


def test_string_initializers() -> None:
    doc = _doc()
    doc.edit("Create", functools.partial(ic.create_typed, name="t", dtype="string", array=np.array(["a", "b'c"])))
    tensor = doc.model.graph.initializers["t"].const_value
    assert tensor is not None and tensor.dtype == DT.STRING
