"""The small parts of the document: names, ids, event netting, positions metadata, IR versions."""

from __future__ import annotations

import pathlib

import onnx
import onnx_ir as ir
from onnx import TensorProto, helper

from dld_jupyter.document import Document, EdgesAdded, EdgesRemoved, NodesAdded, NodesChanged, NodesRemoved
from dld_jupyter.document.files.versions import ORT_MAX_IR_VERSION, ir_version_for_opset, target_ir_version
from dld_jupyter.document.layout.metadata import POSITIONS_KEY, decode_positions, encode_positions
from dld_jupyter.document.model.events import Changes
from dld_jupyter.document.model.ids import IdMap
from dld_jupyter.document.model.names import NameIndex, is_c90_identifier, to_identifier


def test_c90_identifiers() -> None:
    assert all(is_c90_identifier(n) for n in ("a", "_x", "Conv_0", "layer3_attn"))
    assert not any(is_c90_identifier(n) for n in ("", "3a", "a-b", "a.b", "/enc/x", "return", "int", "é"))
    assert to_identifier("Conv") == "Conv" and to_identifier("3x") == "_3x" and to_identifier("a/b") == "a_b"


def test_name_index_generates_and_tracks() -> None:
    graph = ir.Graph([], [], nodes=[ir.Node("", "Conv", (), name="Conv_0", num_outputs=1)])
    graph.node(0).outputs[0].name = "y"
    names = NameIndex(graph)
    assert names.unique_node_name("Conv") == "Conv_1" and names.unique_node_name("Relu") == "Relu_0"
    assert names.unique_value_name("y") == "y_0" and names.unique_value_name("z") == "z"
    names.node_renamed("Conv_0", "other")
    assert names.unique_node_name("Conv") == "Conv_0" and names.node_count("other") == 1


def test_ids_are_stable_and_never_reused() -> None:
    ids = IdMap()
    a, b = ir.Node("", "Relu", ()), ir.Node("", "Relu", ())
    assert ids.node_id(a) == "n0" and ids.node_id(b) == "n1" and ids.node_id(a) == "n0"
    assert ids.node("n1") is b
    del b
    assert ids.node_id(ir.Node("", "Relu", ())) == "n2"


def test_changes_net_out_within_a_step() -> None:
    changes = Changes()
    changes.node("n1", False, True)
    changes.node("n1", True, False)  # added then removed: nothing to tell
    changes.node("n2", True, False)
    changes.node("n2", False, True)  # removed then back: a change at most
    changes.edge("e1", True, False)
    changes.edge("e1", False, True)  # same id, new value
    changes.changed["n2"] = None
    changes.changed["n1"] = None
    assert changes.events() == [EdgesRemoved(["e1"]), NodesChanged(["n2"]), EdgesAdded(["e1"])]
    other = Changes()
    other.node("n3", False, True)
    other.node("n4", True, False)
    assert other.events() == [NodesRemoved(["n4"]), NodesAdded(["n3"])]


def test_positions_keyed_by_unique_names_or_index(tmp_path: pathlib.Path) -> None:
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["a"], name="dup"),
            helper.make_node("Relu", ["a"], ["b"], name="dup"),
            helper.make_node("Relu", ["b"], ["y"], name="solo"),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    onnx.save(helper.make_model(graph), tmp_path / "m.onnx")
    doc = Document.open(tmp_path / "m.onnx")
    doc.move_nodes({n.id: (float(i), -float(i)) for i, n in enumerate(doc.nodes())})
    text = encode_positions(doc.model.graph, IdMap(), {})
    assert text is None
    doc.save()
    stored = onnx.load(tmp_path / "m.onnx").metadata_props
    assert [p.key for p in stored] == [POSITIONS_KEY]
    assert '"#0"' in stored[0].value and '"solo"' in stored[0].value and '"i:x"' in stored[0].value
    again = Document.open(tmp_path / "m.onnx")
    assert [n.position for n in again.nodes()] == [(float(i), -float(i)) for i in range(5)]
    model = again.model
    model.metadata_props[POSITIONS_KEY] = "not json"
    assert decode_positions(model, IdMap()) == {}


def test_ir_versions_for_onnxruntime() -> None:
    assert ir_version_for_opset(21) == 10 and ir_version_for_opset(1) == 3
    assert target_ir_version(14, {"": 21}) == ORT_MAX_IR_VERSION
    assert target_ir_version(14, {"": 28}) == 14  # opset 28 needs IR 14: kept
    assert target_ir_version(8, {"": 17}) == 8
