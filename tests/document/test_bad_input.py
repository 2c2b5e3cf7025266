"""Bad files give a DocumentError saying what and how to fix; refused edits change nothing."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable

import numpy as np
import onnx
import onnx_ir as ir
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document import Document, DocumentError
from tests import models
from tests.document.support import snapshot, tiny_model


def write(path: pathlib.Path, proto: onnx.ModelProto) -> pathlib.Path:
    path.write_bytes(proto.SerializeToString())
    return path


def refused(path: pathlib.Path, match: str) -> DocumentError:
    with pytest.raises(DocumentError, match=match) as info:
        Document.open(path)
    assert info.value.fix, "every refusal says how to fix it"
    return info.value


def test_missing_empty_truncated_and_foreign_files(tmp_path: pathlib.Path) -> None:
    refused(tmp_path / "nope.onnx", "does not exist")
    refused(tmp_path, "is a folder")
    (tmp_path / "empty.onnx").write_bytes(b"")
    refused(tmp_path / "empty.onnx", "empty")
    data = models.resnet_like().SerializeToString()
    (tmp_path / "cut.onnx").write_bytes(data[: len(data) // 2])
    refused(tmp_path / "cut.onnx", "truncated or corrupt|not an ONNX model")
    (tmp_path / "notes.onnx").write_text("these are my notes, not a model\n" * 10)
    refused(tmp_path / "notes.onnx", "truncated or corrupt|not an ONNX model")
    (tmp_path / "png.onnx").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    refused(tmp_path / "png.onnx", "truncated or corrupt|not an ONNX model")


def test_versions_newer_than_supported(tmp_path: pathlib.Path) -> None:
    proto = tiny_model()
    proto.ir_version = 99
    refused(write(tmp_path / "ir.onnx", proto), "IR version 99")
    proto = tiny_model()
    proto.opset_import[0].version = 99
    refused(write(tmp_path / "opset.onnx", proto), "opset ai.onnx 99")


def _external_model(location: str) -> onnx.ModelProto:
    proto = tiny_model()
    tensor = proto.graph.initializer[0]
    tensor.ClearField("float_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"), ("length", "16")):
        tensor.external_data.add(key=key, value=value)
    return proto


@pytest.mark.parametrize("location", ["../secret.bin", "sub/../../secret.bin", "/etc/passwd", "C:\\x.bin"])
def test_external_data_outside_the_folder_is_refused(tmp_path: pathlib.Path, location: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "secret.bin").write_bytes(b"\0" * 64)
    error = refused(write(folder / "m.onnx", _external_model(location)), "outside|absolute")
    assert "relative" in error.fix


def test_external_symlink_escaping_the_folder_is_refused(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "secret.bin").write_bytes(b"\0" * 64)
    os.symlink(tmp_path / "secret.bin", folder / "w.bin")
    refused(write(folder / "m.onnx", _external_model("w.bin")), "outside")


def test_missing_or_short_external_file(tmp_path: pathlib.Path) -> None:
    refused(write(tmp_path / "m.onnx", _external_model("w.bin")), "missing")
    (tmp_path / "w.bin").write_bytes(b"\0" * 8)
    refused(tmp_path / "m.onnx", "shorter")


def test_external_data_is_lazy_and_kept_consistent(tmp_path: pathlib.Path) -> None:
    values = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    (tmp_path / "w.bin").write_bytes(values.tobytes())
    doc = Document.open(write(tmp_path / "m.onnx", _external_model("w.bin")))
    tensor = doc.model.graph.initializers["b"].const_value
    assert isinstance(tensor, ir.ExternalTensor)
    doc.add_node("Relu")
    doc.save()  # same folder: the reference stays, the data file is untouched
    reopened = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    assert reopened.graph.initializer[0].data_location == TensorProto.EXTERNAL
    other = tmp_path / "elsewhere"
    other.mkdir()
    doc.save(other / "copy.onnx")  # another folder: the data travels with the model
    data_files = [p.name for p in other.iterdir() if p.name != "copy.onnx"]
    assert len(data_files) <= 1 and all(name.startswith("copy.onnx.") for name in data_files)
    copy = Document.open(other / "copy.onnx")
    assert copy.model.graph.initializers["b"].const_value.numpy().tolist() == values.tolist()


def test_values_defined_twice_and_cycles(tmp_path: pathlib.Path) -> None:
    proto = tiny_model()
    proto.graph.node[1].output[0] = "r"
    refused(write(tmp_path / "ssa.onnx", proto), "defined twice")
    graph = helper.make_graph(
        [
            helper.make_node("Add", ["x", "b2"], ["a1"], name="first"),
            helper.make_node("Relu", ["a1"], ["b2"], name="second"),
        ],
        "cycle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("b2", TensorProto.FLOAT, [1])],
    )
    refused(write(tmp_path / "cycle.onnx", helper.make_model(graph)), "cycle")


def test_unsorted_graph_duplicate_empty_names_and_unknown_ops_open(tmp_path: pathlib.Path) -> None:
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["r"], ["y"], name="same"),
            helper.make_node("Mystery", ["x"], ["r"], name="same", domain="com.example"),
            helper.make_node("Neg", ["y"], ["z"]),
        ],
        "odd",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    doc = Document.open(write(tmp_path / "odd.onnx", proto))
    names = [n.name for n in doc.nodes() if n.kind == "op"]
    assert names == ["same", "same", "node"]  # repeated names kept as they are, the empty one named on opening
    mystery = next(n for n in doc.nodes() if n.op_type == "Mystery")
    assert [t.name for t in mystery.inputs] == ["input_0"]
    assert doc.check()  # the type check list reports what is wrong; opening did not fail


def test_node_attributes_with_external_tensors_are_checked(tmp_path: pathlib.Path) -> None:
    tensor = numpy_helper.from_array(np.zeros(4, np.float32), "c")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    tensor.external_data.add(key="location", value="../c.bin")
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["y"], value=tensor)],
        "g",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    refused(write(tmp_path / "c.onnx", helper.make_model(graph)), "outside")


REFUSED_EDITS: list[tuple[str, Callable[[Document], object]]] = [
    ("unknown node id", lambda d: d.remove_nodes(["n999999"])),
    ("unknown op", lambda d: d.add_node("Conv2D")),
    ("bad terminal", lambda d: d.connect("n0", 0, "n1", 7)),
    ("second link", lambda d: d.connect("n0", 0, "n1", 0)),
    ("cycle", lambda d: d.connect("n3", 0, "n1", 0)),
    ("connect to output", lambda d: d.connect("n0", 0, next(n.id for n in d.nodes() if n.kind == "output"), 0)),
    ("disconnect free", lambda d: d.disconnect("n0", 5)),
    ("rename clash", lambda d: d.rename_node("n1", d.model.graph.node(0).name or "")),
    ("rename invalid", lambda d: d.rename_node("n1", "a b")),
    ("value clash", lambda d: d.rename_value(d.value_id(d.model.graph.node(1).outputs[0]), "input_ids")),
    ("attr type", lambda d: d.set_attribute("n0", "epsilon", "small")),
    ("attr unknown", lambda d: d.set_attribute("n0", "gamma", 1)),
    ("reset unset", lambda d: d.reset_attribute("n1", "alpha")),
    ("initializer name", lambda d: d.create_initializer("embed.weight", np.zeros(1))),
    ("not initializer", lambda d: d.delete_initializer(d.value_id(d.model.graph.node(1).outputs[0]))),
    ("bad position", lambda d: d.move_nodes({"n0": ("a", 1)})),
    ("bad metadata", lambda d: d.set_metadata("k", 3)),  # type: ignore[arg-type]
    ("unknown info", lambda d: d.set_model_info(author="x")),
    ("graph input on linked", lambda d: d.add_graph_input("n1", 0)),
    ("output twice", lambda d: d.add_graph_output(next(n.id for n in d.nodes() if n.kind == "output"), 0)),
]


@pytest.mark.parametrize("label,edit", REFUSED_EDITS, ids=[label for label, _ in REFUSED_EDITS])
def test_refused_edit_leaves_model_unchanged(label: str, edit: Callable[[Document], object]) -> None:
    doc = Document(ir.serde.deserialize_model(models.transformer_like(layers=1)))
    doc.nodes()  # hand out ids n0.. in graph order
    before = snapshot(doc.model)
    batches: list[object] = []
    doc.subscribe(batches.append)
    with pytest.raises(DocumentError) as info:
        edit(doc)
    assert info.value.what and info.value.why
    assert snapshot(doc.model) == before
    assert batches == [] and doc.history == [] and not doc.dirty


def test_two_gigabytes_of_external_weights_open_without_reading(tmp_path: pathlib.Path) -> None:
    count = 2**29  # float32: 2 GiB, a sparse file that takes no disk space
    with open(tmp_path / "big.bin", "wb") as handle:
        handle.truncate(count * 4)
    proto = _external_model("big.bin")
    tensor = proto.graph.initializer[0]
    tensor.dims[:] = [count]
    tensor.external_data[2].value = str(count * 4)
    write(tmp_path / "big.onnx", proto)
    doc = Document.open(tmp_path / "big.onnx")
    weight = doc.model.graph.initializers["b"].const_value
    assert isinstance(weight, ir.ExternalTensor) and tuple(weight.shape) == (count,)
    doc.set_metadata("note", "saved without touching the weights")
    doc.save()
    assert (tmp_path / "big.bin").stat().st_blocks == 0  # never written, never read into the model file
    assert (tmp_path / "big.onnx").stat().st_size < 10_000


def test_failed_save_keeps_the_old_file(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "m.onnx", tiny_model())
    original = path.read_bytes()
    doc = Document.open(path)
    doc.add_node("Relu")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(DocumentError, match="disk full"):
        doc.save()
    assert path.read_bytes() == original and doc.dirty
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]  # no temporary file left
    with pytest.raises(DocumentError, match="does not exist"):
        doc.save(tmp_path / "missing" / "m.onnx")
