"""TensorRT attributes in the model: optimization profiles, inferred batch and layer precisions — validated,
undoable (one step each, many nodes in one), saved in the file and read back after reopening."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.formats.trt_metadata import (
    LAYER_PRECISIONS,
    PROFILES_KEY,
    TRT_PRECISION_KEY,
    OptimizationProfile,
    decode_profiles,
)
from tests import models


def _doc(tmp_path: Path, model: onnx.ModelProto, name: str = "m") -> Document:
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return Document.open(path)


@pytest.fixture
def bert(tmp_path: Path) -> Document:
    return _doc(tmp_path, models.transformer_like(1), "bert")  # input_ids: ['batch', 'seq']


@pytest.fixture
def resnet(tmp_path: Path) -> Document:
    return _doc(tmp_path, models.resnet_like(1), "resnet")  # input: ['N', 3, 32, 32]


def test_profile_set_read_undo_redo(bert: Document) -> None:
    profile = bert.trt.set_optimization_profile("input_ids", [1, 8], [4, 64], [8, 128])
    assert profile == OptimizationProfile((1, 8), (4, 64), (8, 128))
    assert bert.trt.optimization_profiles() == {"input_ids": profile}
    assert bert.history[-1] == "Set optimization profile of input_ids" and bert.dirty
    bert.undo()
    assert bert.trt.optimization_profiles() == {}
    bert.redo()
    assert bert.trt.optimization_profiles() == {"input_ids": profile}
    bert.trt.clear_optimization_profile("input_ids")
    assert bert.trt.optimization_profiles() == {} and PROFILES_KEY not in bert.model.metadata_props


@pytest.mark.parametrize(
    ("name", "shapes", "why"),
    [
        ("nope", ([1, 1], [1, 1], [1, 1]), "not an input of the top-level graph"),
        ("input_ids", ([1], [1], [1]), "has rank 1, input 'input_ids' has rank 2"),
        ("input_ids", ([2, 8], [1, 8], [4, 8]), "min 2 <= opt 1 <= max 4 does not hold"),
        ("input_ids", ([0, 8], [1, 8], [4, 8]), "Sizes of dynamic axes are 1 or more"),
        ("input_ids", ([1, 8], [1.5, 8], [4, 8]), "non-integer size"),
        ("input_ids", ("1x8", [1, 8], [4, 8]), "not a list of sizes"),
    ],
)
def test_profile_refusals_say_why(bert: Document, name: str, shapes: tuple[object, ...], why: str) -> None:
    with pytest.raises(DocumentError, match="Fix:") as info:
        bert.trt.set_optimization_profile(name, *shapes)
    assert why in str(info.value)
    assert bert.trt.optimization_profiles() == {} and not bert.dirty


def test_static_dims_must_match_and_static_inputs_need_none(resnet: Document, tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"axis 1 of input 'input' is static \(3\) but the opt shape gives 4"):
        resnet.trt.set_optimization_profile("input", [1, 3, 32, 32], [1, 4, 32, 32], [8, 3, 32, 32])
    resnet.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [8, 3, 32, 32])
    static = _doc(tmp_path, models.generated_graph(20), "static")
    name = static.model.graph.inputs[0].name
    assert name is not None
    with pytest.raises(DocumentError, match="static shape"):
        static.trt.set_optimization_profile(name, [1], [1], [1])


def test_inferred_batch_only_for_a_single_leading_wildcard(resnet: Document, bert: Document) -> None:
    resnet.trt.set_inferred_batch_size(8)
    assert resnet.trt.inferred_batch_size() == 8
    resnet.undo()
    assert resnet.trt.inferred_batch_size() is None
    with pytest.raises(DocumentError, match="single leading wildcard"):
        bert.trt.set_inferred_batch_size(4)  # ['batch', 'seq']: two wildcards
    with pytest.raises(DocumentError, match="whole number"):
        resnet.trt.set_inferred_batch_size(0)


def test_precision_on_many_nodes_is_one_undo_step(resnet: Document) -> None:
    ids = [view.id for view in resnet.nodes() if view.id.startswith("n")][:3]
    assert resnet.trt.set_layer_precision(ids, "FP16") == 3
    assert [resnet.trt.layer_precision(i) for i in ids] == ["fp16"] * 3
    steps = resnet.history_index
    assert resnet.trt.set_layer_precision(ids, None) == 3  # No Constraint
    assert [resnet.trt.layer_precision(i) for i in ids] == [None] * 3
    resnet.undo()
    assert [resnet.trt.layer_precision(i) for i in ids] == ["fp16"] * 3
    resnet.undo()
    assert [resnet.trt.layer_precision(i) for i in ids] == [None] * 3 and resnet.history_index == steps - 1


@pytest.mark.parametrize("precision", LAYER_PRECISIONS)
def test_every_seed_precision_is_accepted(resnet: Document, precision: str) -> None:
    node_id = resnet.nodes()[1].id
    resnet.trt.set_layer_precision([node_id], precision)
    assert resnet.trt.layer_precision(node_id) == precision


def test_precision_refusals(resnet: Document, tmp_path: Path) -> None:
    node_id = resnet.nodes()[1].id
    with pytest.raises(DocumentError, match="not a TensorRT layer precision"):
        resnet.trt.set_layer_precision([node_id], "fp64")
    with pytest.raises(DocumentError, match="not an operator"):
        resnet.trt.set_layer_precision(["i0"], "fp16")
    model = models.resnet_like(1)
    model.graph.node[2].name = model.graph.node[1].name  # files may repeat names (opening keeps them)
    doc = _doc(tmp_path, model, "repeated")
    first, repeated = doc.node_id(doc.model.graph.node(1)), doc.node_id(doc.model.graph.node(2))
    with pytest.raises(DocumentError, match="unique name"):
        doc.trt.set_layer_precision([first, repeated], "fp16")
    assert doc.trt.layer_precision(first) is None  # refused as a whole
    doc.trt.set_layer_precision([repeated], None)  # releasing needs no name
    model.graph.node[2].name = ""  # an unnamed node is named on opening, so it can hold a precision
    doc = _doc(tmp_path, model, "unnamed")
    unnamed = doc.node_id(doc.model.graph.node(2))
    doc.trt.set_layer_precision([unnamed], "fp16")
    assert doc.trt.layer_precision(unnamed) == "fp16" and doc.model.graph.node(2).name == "node"


def test_attributes_travel_with_the_file(resnet: Document, tmp_path: Path) -> None:
    node_id = next(view.id for view in resnet.nodes() if view.id.startswith("n"))
    resnet.trt.set_optimization_profile("input", [1, 3, 32, 32], [4, 3, 32, 32], [8, 3, 32, 32])
    resnet.trt.set_inferred_batch_size(2)
    resnet.trt.set_layer_precision([node_id], "int8")
    path = tmp_path / "saved.onnx"
    resnet.save(path)
    proto = onnx.load(str(path))
    assert decode_profiles({p.key: p.value for p in proto.metadata_props}[PROFILES_KEY])["input"].opt == (4, 3, 32, 32)
    node_props = {p.key: p.value for p in proto.graph.node[0].metadata_props}
    assert node_props[TRT_PRECISION_KEY] == "int8"
    again = Document.open(path)
    assert again.trt.optimization_profiles()["input"].max == (8, 3, 32, 32)
    assert again.trt.inferred_batch_size() == 2
    assert again.trt.layer_precision(node_id) == "int8"


def test_layer_rows_read_the_document(resnet: Document) -> None:
    from dld_jupyter.lab.layer_rows import layer_columns

    node_id = resnet.nodes()[1].id
    resnet.trt.set_layer_precision([node_id], "bf16")
    columns = layer_columns(resnet, [node_id])
    assert columns["precisions"] == ["bf16"]
