"""GraphCanvas kernel side, without a browser: the message handler is called directly and sent messages recorded."""

from __future__ import annotations

import array
from pathlib import Path
from typing import Any

import onnx
import pytest

from dld_jupyter.document import Document
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.designer.designer import Designer, new_designer, open_designer
from tests.models import generated_graph, resnet_like


class Recorder:
    def __init__(self, canvas: GraphCanvas) -> None:
        self.messages: list[tuple[dict[str, Any], list[bytes]]] = []
        self.sent: list[dict[str, Any]] = []  # what went over the comm, as sent
        canvas.send = self._record  # type: ignore[method-assign]

    def _record(self, message: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        """Patches carried by a reply are listed as patches (with their own buffer) before the reply."""
        self.sent.append(message)
        buffers = list(buffers or [])
        for i, patch in enumerate(message.get("patches", []) if message["kind"] == "reply" else []):
            self.messages.append((patch, buffers[i : i + 1]))
        self.messages.append((message, buffers))

    def last(self, kind: str) -> tuple[dict[str, Any], list[bytes]]:
        return next(m for m in reversed(self.messages) if m[0]["kind"] == kind)

    def patches(self) -> list[dict[str, Any]]:
        return [m for m, _ in self.messages if m["kind"] == "patch"]


@pytest.fixture
def resnet(tmp_path: Path) -> Path:
    path = tmp_path / "resnet.onnx"
    onnx.save(resnet_like(), path)
    return path


def make(path: Path, **kwargs: Any) -> tuple[GraphCanvas, Recorder]:
    canvas = GraphCanvas(Document.open(path), **kwargs)
    rec = Recorder(canvas)
    canvas._on_msg(canvas, {"kind": "hello"}, [])
    return canvas, rec


def intent(canvas: GraphCanvas, action: str, buffers: list[bytes] | None = None, **args: Any) -> dict[str, Any]:
    return canvas.handle_intent({"kind": "intent", "request": 7, "action": action, "args": args}, buffers)


def floats(data: bytes) -> list[float]:
    out = array.array("f")
    out.frombytes(data)
    return list(out)


def test_snapshot_has_every_node_edge_and_positions(resnet: Path) -> None:
    canvas, rec = make(resnet)
    snap, buffers = rec.last("snapshot")
    doc = canvas.document
    nodes = snap["graph"]["nodes"]
    assert {n["id"] for n in nodes} == {n.id for n in doc.nodes()}
    assert {e["id"] for e in snap["graph"]["edges"]} == {e.id for e in doc.edges()}
    assert len(floats(buffers[0])) == 2 * len(nodes)
    kinds = {n["kind"] for n in nodes}
    assert kinds == {"op", "input", "output"}
    conv = next(n for n in nodes if n["op_type"] == "Conv")
    assert conv["category"] == "Convolution" and [t["state"] for t in conv["inputs"]][:2] == ["linked", "initializer"]
    assert rec.last("ops")[0]["ops"], "the quick-add list comes with the snapshot"


def test_edit_sends_a_patch_not_the_graph(resnet: Path) -> None:
    canvas, rec = make(resnet)
    reply = intent(canvas, "add_node", op_type="Relu", x=5.0, y=6.0)
    assert reply["ok"]
    node = reply["data"]["node"]
    patch, buffers = rec.last("patch")
    assert [o["op"] for o in patch["ops"]] == ["add_nodes"]
    assert patch["ops"][0]["nodes"][0]["id"] == node
    assert floats(buffers[0]) == [5.0, 6.0]
    src = next(n.id for n in canvas.document.nodes() if n.op_type == "Relu" and n.id != node)
    assert intent(canvas, "connect", src=src, src_index=0, dst=node, dst_index=0)["ok"]
    ops = {o["op"]: o for o in rec.last("patch")[0]["ops"]}
    assert ops["add_edges"]["edges"][0]["id"] == f"{src}:0->{node}:0"
    assert ops["update_nodes"]["nodes"][0]["inputs"][0]["state"] == "linked"
    assert not any(m["kind"] == "snapshot" for m, _ in rec.messages[1:])
    # The patch an intent causes travels inside its reply: one message per edit, not a patch then a reply.
    before = len(rec.sent)
    assert intent(canvas, "rename", node=node, name="renamed_relu")["ok"]
    assert [m["kind"] for m in rec.sent[before:]] == ["reply"]
    assert rec.sent[-1]["patches"][0]["ops"][0]["op"] == "update_nodes"


def test_refused_intent_replies_error_and_changes_nothing(resnet: Path) -> None:
    canvas, rec = make(resnet)
    before = onnx.load(str(resnet))
    history = len(canvas.document.history)
    sent = len(rec.messages)
    reply = intent(canvas, "rename", node="n3", name="1 not valid")
    assert not reply["ok"] and "identifier" in reply["error"]
    reply = intent(canvas, "connect", src="n0", src_index=0, dst="nope", dst_index=0)
    assert not reply["ok"]
    reply = intent(canvas, "add_node", op_type=3)
    assert not reply["ok"] and "op_type" in reply["error"]
    assert not intent(canvas, "no_such_action")["ok"]
    assert len(canvas.document.history) == history and not canvas.document.dirty
    assert [m["kind"] for m, _ in rec.messages[sent:]] == ["reply"] * 4
    assert len(before.graph.node) == len(list(canvas.document.model.graph))


def test_move_delete_undo_redo(resnet: Path) -> None:
    canvas, rec = make(resnet)
    doc = canvas.document
    relu = next(n.id for n in doc.nodes() if n.op_type == "Relu")
    buf = array.array("f", [100.0, 200.0]).tobytes()
    assert intent(canvas, "move", [buf], ids=[relu])["ok"]
    assert doc.node(relu).position == (100.0, 200.0)
    edge = next(e.id for e in doc.edges() if e.dst == relu)
    assert intent(canvas, "delete", edges=[edge])["ok"]
    assert edge in rec.last("patch")[0]["ops"][0]["ids"]
    assert intent(canvas, "delete", nodes=[relu])["ok"]
    assert intent(canvas, "undo")["ok"] and intent(canvas, "undo")["ok"]
    assert any(o["op"] == "add_edges" and o["edges"][0]["id"] == edge for o in rec.last("patch")[0]["ops"])
    assert relu in {n.id for n in doc.nodes()}
    assert intent(canvas, "redo")["ok"] and intent(canvas, "redo")["ok"]
    assert relu not in {n.id for n in doc.nodes()} and relu not in canvas.view.sent_nodes


def test_copy_paste_and_extract(resnet: Path) -> None:
    canvas, _rec = make(resnet)
    doc = canvas.document
    ops = [n.id for n in doc.nodes() if n.kind == "op"][:3]
    assert intent(canvas, "copy", nodes=ops)["data"] == {"copied": 3}
    pasted = intent(canvas, "paste", x=0.0, y=0.0)["data"]["nodes"]
    assert len(pasted) == 3
    assert all(doc.node(n).op_type == doc.node(o).op_type for n, o in zip(pasted, ops, strict=True))
    reply = intent(canvas, "extract", nodes=ops)
    assert reply["ok"], reply
    out = onnx.load(reply["data"]["path"])
    onnx.checker.check_model(out)
    assert len(out.graph.node) == 3
    assert not intent(canvas, "extract", nodes=[])["ok"]


def test_doc_and_check(resnet: Path) -> None:
    canvas, rec = make(resnet)
    conv = next(n.id for n in canvas.document.nodes() if n.op_type == "Conv")
    reply = intent(canvas, "doc", node=conv)
    assert reply["ok"] and "convolution" in reply["data"]["doc"].lower()
    found = (reply["data"]["name"], reply["data"]["domain"], reply["data"]["since_version"])
    assert found == ("Conv", "ai.onnx", 11), "the browser opens at Conv as the model's opset has it (changed in 11, 22)"
    assert intent(canvas, "check")["ok"]
    labels = [e["label"] for o in rec.last("patch")[0]["ops"] if o["op"] == "update_edges" for e in o["edges"]]
    assert labels and all(labels)


def test_big_model_opens_collapsed_and_expands_with_a_patch(tmp_path: Path) -> None:
    path = tmp_path / "g.onnx"
    onnx.save(generated_graph(3000), path)
    canvas, rec = make(path)
    snap = rec.last("snapshot")[0]["graph"]
    assert len(snap["nodes"]) < 60, "a 3,000-node model must open collapsed"
    groups = [n for n in snap["nodes"] if n["kind"] == "group"]
    assert groups and sum(g["child_count"] for g in groups) == 3000
    reply = intent(canvas, "expand", group=groups[0]["id"])
    assert reply["ok"]
    ops = {o["op"] for o in rec.last("patch")[0]["ops"]}
    assert {"add_nodes", "add_edges"} <= ops
    # Focus on a node deep inside: its groups expand and a focus message follows.
    deep = next(n.id for n in canvas.document.nodes() if n.name.startswith("/block90/"))
    canvas.focus([deep])
    assert rec.last("focus")[0]["ids"] == [deep]
    assert deep in canvas.view.sent_nodes
    assert not intent(canvas, "expand", group="g:nope")["ok"]


def test_constants_hidden_by_default_and_toggled(tmp_path: Path) -> None:
    doc = Document.new(opset=17)
    c = doc.add_node("Constant")
    doc.set_attribute(c, "value_float", 1.0)
    a = doc.add_node("Abs")
    doc.connect(c, 0, a, 0)
    path = tmp_path / "const.onnx"
    doc.save(path)
    canvas, rec = make(path)
    snap = rec.last("snapshot")[0]["graph"]
    ids = {n["id"] for n in snap["nodes"]}
    assert c not in ids
    abs_node = next(n for n in snap["nodes"] if n["id"] == a)
    assert abs_node["inputs"][0]["state"] == "constant"
    assert intent(canvas, "toggle_constant", node=a, index=0)["ok"]
    assert c in canvas.view.sent_nodes
    canvas.show_constants = False  # no change; toggling the trait on shows all
    canvas.show_constants = True
    assert c in canvas.view.sent_nodes


def test_js_errors_reach_the_designer_output(resnet: Path) -> None:
    d = open_designer(resnet)
    d.canvas._on_msg(d.canvas, {"kind": "js_error", "message": "boom"}, [])
    assert d.canvas.js_errors and "boom" in d.canvas.js_errors[0] and "GraphCanvas" in d.canvas.js_errors[0]
    assert isinstance(d, Designer) and d.document.path == resnet


def test_unknown_keyword_arguments_are_rejected(resnet: Path) -> None:
    with pytest.raises(TypeError, match="unknown argument"):
        open_designer(resnet, colour_scheme="x")
    with pytest.raises(TypeError, match="unknown argument"):
        new_designer(opset=17, bogus=1)
    with pytest.raises(ValueError, match="grouping"):
        GraphCanvas(Document.open(resnet), grouping="sometimes")


def test_designer_api(resnet: Path, tmp_path: Path) -> None:
    d = open_designer(resnet)
    Recorder(d.canvas)
    name = next(n.name for n in d.document.nodes() if n.op_type == "Conv")
    ids = d.select([name])
    assert d.canvas.selection == ids
    d.document.rename_node(ids[0], "renamed")
    assert "— 1 step" in d.status.value
    assert d.undo()
    assert "— 0 steps (1 to redo)" in d.status.value  # the count follows Undo (it said 1 step after it)
    assert d.redo()
    assert "— 1 step" in d.status.value and "to redo" not in d.status.value
    d.save(tmp_path / "out.onnx")
    assert "renamed" in {n.name for n in onnx.load(str(tmp_path / "out.onnx")).graph.node}
    d.new(opset=17)
    assert d.document.path is None


def test_graph_io_from_free_terminals_and_arrange(resnet: Path) -> None:
    canvas, rec = make(resnet)
    doc = canvas.document
    node = intent(canvas, "add_node", op_type="Relu", x=0.0, y=0.0)["data"]["node"]
    new_in = intent(canvas, "add_graph_input", node=node, index=0)
    assert new_in["ok"], new_in
    added = [o for o in rec.last("patch")[0]["ops"] if o["op"] == "add_nodes"]
    assert added and added[0]["nodes"][0]["kind"] == "input"
    new_out = intent(canvas, "add_graph_output", node=node, index=0)
    assert new_out["ok"] and doc.node(new_out["data"]["node"]).kind == "output"
    assert not intent(canvas, "add_graph_input", node=node, index=0)["ok"], "that input is linked now"
    assert intent(canvas, "arrange")["ok"]
    moves = [o for o in rec.last("patch")[0]["ops"] if o["op"] == "move"]
    assert moves and len(moves[0]["ids"]) >= len(doc.nodes()) - 1


def test_an_image_export_is_written_atomically_and_never_through_a_planted_symlink(resnet: Path) -> None:
    """The export used to go through `<target>.tmp`: a symlink planted at that name made it overwrite another file."""
    canvas, rec = make(resnet)
    victim = resnet.with_name("victim.txt")
    victim.write_text("keep me")
    target = resnet.with_name("canvas.svg")
    target.with_name("canvas.svg.tmp").symlink_to(victim)
    canvas.export(target)
    request = rec.sent[-1]
    assert request["kind"] == "export_request" and request["format"] == "svg"
    canvas._on_msg(canvas, {"kind": "export_result", "request": request["request"], "format": "svg",
                            "data": "<svg/>"}, [])
    assert target.read_text() == "<svg/>" and victim.read_text() == "keep me"
    assert not [p for p in resnet.parent.iterdir() if p.name.startswith(".canvas.svg.")]  # no temp file left


def test_an_export_asked_while_no_view_listens_is_answered_by_the_next_view(resnet: Path) -> None:
    """A view re-created (a tab re-laid out, a page reload) missed the request: the next hello gets it again, and
    the first answer is the one written."""
    canvas, rec = make(resnet)
    target = resnet.with_name("late.svg")
    canvas.export(target)
    first = rec.sent[-1]
    canvas._on_msg(canvas, {"kind": "hello", "view": "v2"}, [])
    again = [m for m in rec.sent if m.get("kind") == "export_request"]
    assert again[-1] == first and len(again) == 2  # asked again of the view that connected
    answer = {"kind": "export_result", "request": first["request"], "format": "svg"}
    canvas._on_msg(canvas, {**answer, "data": "<svg>first</svg>"}, [])
    canvas._on_msg(canvas, {**answer, "data": "<svg>second</svg>"}, [])  # a second view's answer: ignored
    assert target.read_text() == "<svg>first</svg>"
    canvas._on_msg(canvas, {"kind": "hello", "view": "v3"}, [])
    assert len([m for m in rec.sent if m.get("kind") == "export_request"]) == 2  # nothing left to ask


def test_an_export_grid_colour_travels_to_the_browser_and_is_checked(resnet: Path) -> None:
    """Issue 41 (seed "Exporting the Canvas"): the grid of an exported image in a colour of the user's choice."""
    canvas, rec = make(resnet)
    canvas.export(resnet.with_name("g.svg"), grid="#ff7f0e")
    request = [m for m in rec.sent if m.get("kind") == "export_request"][-1]
    assert request["grid"] is True and request["grid_colour"] == "#ff7f0e"
    canvas.export(resnet.with_name("plain.svg"), grid=True)
    assert [m for m in rec.sent if m.get("kind") == "export_request"][-1]["grid_colour"] == ""
    with pytest.raises(ValueError, match="give a hex colour"):
        canvas.export(resnet.with_name("bad.svg"), grid='red" onload="x')
