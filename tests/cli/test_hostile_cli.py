"""A generated corpus of hostile models for `dld check` and `dld profile`: clear message, right exit code, no writes.

Unopenable files (corrupt, non-numeric external offsets, NUL in a location, non-UTF-8 names, absurd input
dimensions) are bad input: exit 2. Files onnx.checker(full_check=True) rejects give an error diagnostic: exit 1,
and the corpus asserts the checker really rejects each one (agreement, not just a refusal of our own).
"""

from __future__ import annotations

import pathlib
import random
from collections.abc import Callable

import numpy as np
import onnx
import onnx.checker
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.cli.main import main as dld_main
from tests.document.support import tiny_model

Build = Callable[[pathlib.Path], bytes]  # writes side files into the folder, returns the model bytes


def _external(**info: str) -> Build:
    def build(folder: pathlib.Path) -> bytes:
        (folder / "w.bin").write_bytes(b"\0" * 64)
        proto = tiny_model()
        tensor = proto.graph.initializer[0]
        tensor.ClearField("float_data")
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in {"location": "w.bin", **info}.items():
            tensor.external_data.add(key=key, value=value)
        return proto.SerializeToString()

    return build


def _bad_text(marker: bytes, setter: Callable[[onnx.ModelProto], None]) -> Build:
    """Set a text field to ``marker`` (valid ASCII), then swap it for invalid UTF-8 of the same length."""

    def build(folder: pathlib.Path) -> bytes:
        proto = tiny_model()
        setter(proto)
        data = proto.SerializeToString()
        assert marker in data
        return data.replace(marker, b"\xff\xfe" + marker[2:])

    return build


def _bytes(data: bytes) -> Build:
    return lambda folder: data


def _open_cases() -> list[tuple[str, Build, str]]:
    cases: list[tuple[str, Build, str]] = []
    for key in ("offset", "length"):
        for bad in ("abc", "-1", "1e3", "0x10", " 12", "١٢", "1.5", "9" * 30, "+4", "4 ", "NaN", "∞"):
            cases.append((f"{key}={bad!r}", _external(**{key: bad}), key))
    for location in ("w\0.bin", "\0", "w.bin\0../../etc/passwd", "/etc/passwd", "../w.bin", "C:w.bin", "a/../../w"):
        cases.append((f"location={location!r}", _external(location=location), "location|outside|absolute|NUL"))
    setters: dict[str, tuple[bytes, Callable[[onnx.ModelProto], None]]] = {
        "node name": (b"QQname", lambda p: setattr(p.graph.node[0], "name", "QQname")),
        "graph name": (b"QQgraph", lambda p: setattr(p.graph, "name", "QQgraph")),
        "doc string": (b"QQdoc", lambda p: setattr(p.graph.node[1], "doc_string", "QQdoc")),
        "metadata key": (b"QQkey", lambda p: p.metadata_props.add(key="QQkey", value="v")),
        "metadata value": (b"QQvalue", lambda p: p.metadata_props.add(key="k", value="QQvalue")),
        "producer": (b"QQproducer", lambda p: setattr(p, "producer_name", "QQproducer")),
        "model doc": (b"QQmodeldoc", lambda p: setattr(p, "doc_string", "QQmodeldoc")),
        "attribute name": (b"QQattr", lambda p: p.graph.node[0].attribute.add(name="QQattr", type=2, i=1)),
        "value_info name": (b"QQinfo", lambda p: p.graph.value_info.add(name="QQinfo")),
    }
    for label, (marker, setter) in setters.items():
        cases.append((f"non-UTF-8 {label}", _bad_text(marker, setter), "UTF-8"))
    data = tiny_model().SerializeToString()
    for cut in range(1, len(data), max(1, len(data) // 25)):
        cases.append((f"truncated at {cut}", _bytes(data[:cut]), "Open"))
    rng = random.Random(17)
    for index in range(25):
        garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        cases.append((f"garbage {index}", _bytes(garbage), "Open"))
    return cases


def _checker_cases() -> list[tuple[str, Callable[[], onnx.ModelProto]]]:
    def dup_initializer(value: float) -> Callable[[], onnx.ModelProto]:
        def build() -> onnx.ModelProto:
            proto = tiny_model()
            proto.graph.initializer.append(helper.make_tensor("b", TensorProto.FLOAT, [4], [value] * 4))
            return proto

        return build

    def sparse(index: list[int], dims: list[int]) -> Callable[[], onnx.ModelProto]:
        def build() -> onnx.ModelProto:
            proto = tiny_model()
            values = helper.make_tensor("s", TensorProto.FLOAT, [len(index)], [1.0] * len(index))
            indices = helper.make_tensor("s_i", TensorProto.INT64, [len(index)], index)
            proto.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, dims))
            return proto

        return build

    def value_info(dtype: int, dims: list[int]) -> Callable[[], onnx.ModelProto]:
        def build() -> onnx.ModelProto:
            proto = tiny_model()
            proto.graph.value_info.append(helper.make_tensor_value_info("r", dtype, dims))
            return proto

        return build

    def dup_function(count: int) -> onnx.ModelProto:
        proto = tiny_model()
        body = [helper.make_node("Relu", ["a"], ["b"])]
        function = helper.make_function("local", "F", ["a"], ["b"], body, [helper.make_opsetid("", 17)])
        proto.functions.extend([function] * count)
        proto.opset_import.append(helper.make_opsetid("local", 1))
        return proto

    cases: list[tuple[str, Callable[[], onnx.ModelProto]]] = []
    cases += [(f"duplicate initializer {v}", dup_initializer(v)) for v in (0.0, 1.0, -3.5)]
    # Sparse initializers are made dense when a model opens (and sparse again on save): bad indices refuse the open
    cases += [(f"sparse index {i}", sparse(i, [4])) for i in ([99], [4], [-1], [2, 1], [1, 1], [0, 100])]
    cases += [(f"value_info {TensorProto.DataType.Name(t)}", value_info(t, [1, 4]))
              for t in (TensorProto.INT64, TensorProto.INT32, TensorProto.DOUBLE, TensorProto.BOOL)]  # fmt: skip
    cases += [("value_info rank", value_info(TensorProto.FLOAT, [1, 4, 1])), ("value_info dim", value_info(1, [2, 4]))]
    cases += [(f"{n} equal functions", lambda n=n: dup_function(n)) for n in (2, 3)]  # type: ignore[misc]
    return cases


OPEN_CASES = _open_cases()
CHECKER_CASES = _checker_cases()
PROFILE_DIMS = [-1, -2, -7, -(2**31), -(2**62), 2**62, 2**40, 2**33, 3 * 2**31, 2**63 - 1]


def test_corpus_size() -> None:
    assert len(OPEN_CASES) + len(CHECKER_CASES) + len(PROFILE_DIMS) + 3 >= 100


def _check(path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    before = {p.name: p.read_bytes() for p in path.parent.iterdir() if p.is_file()}
    code = dld_main(["check", str(path)])
    captured = capsys.readouterr()
    after = {p.name: p.read_bytes() for p in path.parent.iterdir() if p.is_file()}
    assert after == before, "dld check wrote or changed files"
    text = captured.out + captured.err
    assert "Traceback" not in text and "internal error" not in text, text
    return code, text


@pytest.mark.parametrize("label,build,word", OPEN_CASES, ids=[c[0] for c in OPEN_CASES])
def test_unopenable_model_is_bad_input(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], label: str, build: Build, word: str
) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(build(tmp_path))
    code, text = _check(path, capsys)
    assert code == 2, text
    assert any(part in text for part in word.split("|")) and "Fix:" in text, text


@pytest.mark.parametrize("label,build", CHECKER_CASES, ids=[c[0] for c in CHECKER_CASES])
def test_dld_check_agrees_with_the_full_checker(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], label: str, build: Callable[[], onnx.ModelProto]
) -> None:
    proto = build()
    with pytest.raises(Exception):  # noqa: B017 - ValidationError or InferenceError: the checker rejects it
        onnx.checker.check_model(proto, full_check=True)
    path = tmp_path / "m.onnx"
    path.write_bytes(proto.SerializeToString())
    code, text = _check(path, capsys)
    if label.startswith("sparse index"):  # refused when the model opens (densified there): bad input, with the fix
        assert code == 2 and "Sparse initializer" in text and "Fix:" in text, text
    else:
        assert code == 1 and "✖ error" in text, text


def test_clean_models_stay_clean(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests import models

    for build in (tiny_model, models.resnet_like, models.transformer_like):
        proto = build()
        onnx.checker.check_model(proto, full_check=True)
        path = tmp_path / "m.onnx"
        path.write_bytes(proto.SerializeToString())
        code, text = _check(path, capsys)
        assert code == 0, text


def test_conflict_is_bound_to_its_node(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    proto = tiny_model()
    proto.graph.value_info.append(helper.make_tensor_value_info("r", TensorProto.INT64, [1, 4]))
    path = tmp_path / "m.onnx"
    path.write_bytes(proto.SerializeToString())
    code, text = _check(path, capsys)
    assert code == 1 and ("error [relu]" in text or "error [add]" in text), text


def _dim_model(path: pathlib.Path, dim: int) -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dim, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.zeros(1, np.float32), "unused")],
    )
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


@pytest.mark.parametrize("dim", PROFILE_DIMS)
def test_profile_refuses_absurd_input_dimensions(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, dim: int
) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "m.onnx"
    _dim_model(path, dim)
    code = dld_main(["profile", str(path), "-n", "1", "--warmup", "0"])
    text = "".join(capsys.readouterr())
    assert code == 2 and "'x'" in text and ("negative" in text or "bytes" in text), text
    assert "Traceback" not in text and sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


@pytest.mark.parametrize("extra", [["--batch-size", "0"], ["--batch-size", "-3"], ["--batch-size", str(2**40)]])
def test_profile_refuses_bad_batch_sizes(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, extra: list[str]
) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4096])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    path = tmp_path / "m.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    code = dld_main(["profile", str(path), "-n", "1", "--warmup", "0", *extra])
    text = "".join(capsys.readouterr())
    assert code == 2 and "batch" in text.lower(), text
    assert "Traceback" not in text
