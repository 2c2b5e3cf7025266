"""Local-function instances expand in place: the body is drawn inside the instance's box, read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from dld_jupyter.document import Document
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from tests.widgets.test_canvas import Recorder, intent


def model_with_functions() -> onnx.ModelProto:
    """x -> Block(x) -> Block(.) -> Relu -> y; Block(a) = Add(Mul(a, a), a)."""
    body = [helper.make_node("Mul", ["a", "a"], ["sq"], name="square"),
            helper.make_node("Add", ["sq", "a"], ["b"], name="plus")]
    block = helper.make_function("local", "Block", ["a"], ["b"], body, [helper.make_opsetid("", 21)])
    nodes = [helper.make_node("Block", ["x"], ["h1"], name="block1", domain="local"),
             helper.make_node("Block", ["h1"], ["h2"], name="block2", domain="local"),
             helper.make_node("Relu", ["h2"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    return helper.make_model(graph, functions=[block], ir_version=10,
                             opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("local", 1)])


def open_canvas(tmp_path: Path) -> tuple[GraphCanvas, Recorder, dict[str, str]]:
    path = tmp_path / "functions.onnx"
    onnx.save(model_with_functions(), path)
    ort.InferenceSession(str(path))  # a valid model: onnxruntime inlines the functions and runs it
    canvas = GraphCanvas(Document.open(path))
    rec = Recorder(canvas)
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    ids = {n.name: n.id for n in canvas.document.nodes()}
    return canvas, rec, ids


def test_an_instance_expands_to_its_body_and_collapses_back(tmp_path: Path) -> None:
    canvas, rec, ids = open_canvas(tmp_path)
    snapshot = rec.last("snapshot")[0]["graph"]["nodes"]
    block1 = next(n for n in snapshot if n["id"] == ids["block1"])
    assert block1["composite"] and "Block" in block1["function"] and block1["kind"] == "op"
    before = canvas.document.history

    assert intent(canvas, "expand", group=ids["block1"])["ok"]
    ops = {o["op"]: o for o in rec.last("patch")[0]["ops"]}
    box = next(n for n in ops["add_nodes"]["nodes"] if n["id"] == ids["block1"])  # re-created as a compound box
    assert box["kind"] == "group" and "f(x) Block" in box["name"] and box["child_count"] == 2
    inside = {n["id"]: n for n in ops["add_nodes"]["nodes"] if n["parent"] == ids["block1"]}
    base = f"f:{ids['block1']}/"
    assert {n["op_type"] for n in inside.values() if n["kind"] == "op"} == {"Mul", "Add"}
    assert {n["kind"] for n in inside.values()} == {"op", "input", "output"}
    added = {e["id"] for e in ops["add_edges"]["edges"]}
    assert {f"{base}i0:0->{base}n0:0", f"{base}i0:0->{base}n0:1", f"{base}n0:0->{base}n1:0",
            f"{base}i0:0->{base}n1:1", f"{base}n1:0->{base}o0:0"} <= added
    # The outer links stay: into and out of the box.
    assert any(e["target"] == ids["block1"] for e in canvas.view.sent_edges.values())
    assert any(e["source"] == ids["block1"] for e in canvas.view.sent_edges.values())
    # The body sits around the instance's position.
    centre = canvas.view.sent_pos[ids["block1"]]
    xs = [canvas.view.sent_pos[n][0] for n in inside]
    assert min(xs) <= centre[0] <= max(xs)
    assert canvas.document.history == before  # viewing a body is not an edit

    assert intent(canvas, "collapse", group=ids["block1"])["ok"]
    assert not any(n.startswith("f:") for n in canvas.view.sent_nodes)
    assert canvas.view.sent_nodes[ids["block1"]]["kind"] == "op"


def test_body_nodes_are_read_only_and_documented(tmp_path: Path) -> None:
    canvas, _rec, ids = open_canvas(tmp_path)
    intent(canvas, "expand", group=ids["block2"])
    sent = canvas.view.sent_nodes
    body_op = next(n for n in sent if n.startswith("f:") and sent[n]["op_type"] == "Mul")
    before = _serialized(canvas)
    for action, args in (("rename", {"node": body_op, "name": "x2"}), ("delete", {"nodes": [body_op]}),
                         ("set_attr", {"node": body_op, "name": "a", "value": 1})):
        reply = intent(canvas, action, **args)
        assert not reply["ok"] and "read-only" in reply["error"] and "local function" in reply["error"], reply
    assert _serialized(canvas) == before  # nothing changed
    link = next(e for e in canvas.view.sent_edges if e.startswith("f:"))
    assert "read-only" in intent(canvas, "delete", nodes=[], edges=[link])["error"]
    documented = intent(canvas, "doc", node=body_op)
    assert documented["ok"] and documented["data"]["title"].startswith("Mul")


def test_editing_an_expanded_instance_redraws_its_box(tmp_path: Path) -> None:
    canvas, rec, ids = open_canvas(tmp_path)
    intent(canvas, "expand", group=ids["block1"])
    assert intent(canvas, "rename", node=ids["block1"], name="first_block")["ok"]
    assert "first_block" in canvas.view.sent_nodes[ids["block1"]]["name"]
    assert canvas.view.sent_nodes[ids["block1"]]["kind"] == "group"  # still expanded
    assert intent(canvas, "delete", nodes=[ids["block1"]])["ok"]
    assert not any(n.startswith("f:") for n in canvas.view.sent_nodes)  # its body went with it
    assert intent(canvas, "undo")["ok"]
    ops: Any = rec.last("patch")[0]["ops"]
    assert any(o["op"] == "add_nodes" for o in ops)


def _serialized(canvas: GraphCanvas) -> bytes:
    import onnx_ir as ir

    return ir.serde.serialize_model(canvas.document.model).SerializeToString()
