"""Analysis layers from the canvas (issue 37) on the real MobileNetV3 export: the node menu's "Add Analysis Layer"
(through the analysis overlay's request, as the browser sends it) is refused before launch, then inserts the layer
after the node; the analysed output equals, to the bit, what the Parameter Editor's Insert gives for the same layer
on the same value; the node wears the layer's badge; "Remove Analysis Layer" brings the output back exactly; a Mix
reads the node and a second one; the document and the file are never touched. The palette's Analysis category
(a drop on a node, the sidebar's double-click, the JupyterLab command) gives the same layer too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dld_jupyter.activities.analysis.layers import PALETTE_DOMAIN
from dld_jupyter.lab.kernel_sidebar import SidebarSession
from dld_jupyter.widgets.designer.designer import Designer, open_designer

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture
def designer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Designer]:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    d = open_designer(MODEL)
    yield d
    d.stop_analysis()
    d.close()


def _menu(panel: Any, action: str, node: str, **extra: str) -> None:
    panel.overlay.receive({"kind": "overlay", "overlay": "analysis", "action": action, "id": node, **extra}, [])


def test_canvas_menu_adds_the_same_layer_as_the_parameter_editor(designer: Designer, tmp_path: Path) -> None:
    saved = MODEL.read_bytes()
    doc = designer.document
    convs = [n for n in doc.model.graph if n.op_type == "Conv"]
    conv = convs[5]
    conv_id = doc.node_id(conv)
    panel = designer.analysis_mode.show_panel()
    _menu(panel, "add_layer", conv_id, layer="Noise")  # before launch: refused, saying why, nothing launched
    assert designer.analysis is None and "Launch Analysis first" in panel.error.value
    feeds = tmp_path / "x.npy"
    np.save(feeds, np.random.default_rng(3).standard_normal((1, 3, 96, 96)).astype(np.float32))
    analysis = designer.launch_analysis({"input": str(feeds)})
    assert analysis is not None and panel.error.value == ""
    baseline = analysis.outputs(finish=False)["logits"]

    _menu(panel, "add_layer", conv_id, layer="Noise")
    assert panel.error.value == ""
    (noise,) = [layer.name for layer in analysis.analysis_layers]
    assert analysis.analysis_layers[0].inputs == (conv.outputs[0].name,)  # after the node: reads its output
    assert panel.overlay.payload["layers"] == {conv_id: [{"name": noise, "kind": "Noise"}]}
    from_canvas = analysis.outputs(finish=False)["logits"]
    assert np.abs(from_canvas - baseline).max() > 0.01 * np.abs(baseline).max()  # the noise reaches the logits

    _menu(panel, "remove_layer", conv_id, layer=noise)
    assert analysis.analysis_layers == [] and panel.overlay.payload["layers"] == {}
    assert np.array_equal(analysis.outputs(finish=False)["logits"], baseline)

    editor = panel.layers  # the Parameter Editor's way: the kind and the value typed
    editor.kind.value, editor.first.value = "Noise", str(conv.outputs[0].name)
    assert editor.insert() is not None and panel.error.value == ""
    assert np.array_equal(analysis.outputs(finish=False)["logits"], from_canvas)
    editor.undo()

    reader = next(n for n in doc.model.graph if conv.outputs[0] in n.inputs)  # same shape: its activation
    _menu(panel, "add_layer", conv_id, layer="Mix")  # a Mix needs a second node
    assert "select a second node" in panel.error.value and analysis.analysis_layers == []
    _menu(panel, "add_layer", conv_id, layer="Mix", other=doc.node_id(reader))
    (mix,) = analysis.analysis_layers
    assert mix.inputs == (conv.outputs[0].name, reader.outputs[0].name)
    assert {node: [x["kind"] for x in found] for node, found in panel.overlay.payload["layers"].items()} == {
        conv_id: ["Mix"], doc.node_id(reader): ["Mix"]}
    mixed = analysis.outputs(finish=False)[mix.name]
    editor.kind.value, editor.first.value, editor.second.value = "Mix", mix.inputs[0], mix.inputs[1]
    second = editor.insert()
    assert second is not None and np.array_equal(analysis.outputs(finish=False)[second], mixed)
    a, b = analysis.tensor(mix.inputs[0]), analysis.tensor(mix.inputs[1])
    assert np.allclose(mixed, 0.5 * a + 0.5 * b, atol=1e-6)  # the default factor

    input_id = next(n.id for n in doc.nodes() if n.kind == "input")  # a graph input node: the layer reads the input
    _menu(panel, "add_layer", input_id, layer="Snapshot")
    assert panel.overlay.payload["layers"][input_id] == [{"name": "/analysis/Snapshot1", "kind": "Snapshot"}]
    assert np.array_equal(analysis.snapshots["/analysis/Snapshot1"], np.load(feeds))
    assert not doc.dirty
    designer.stop_analysis()
    assert MODEL.read_bytes() == saved


def test_palette_drop_sidebar_and_command_add_the_same_layer(designer: Designer, tmp_path: Path) -> None:
    """The palette's Analysis category: dropped on a node (the canvas's intent), double-clicked in the sidebar with
    the node selected, and the Add Analysis Layer command, each the Parameter Editor's layer, to the bit."""
    doc = designer.document
    conv = [n for n in doc.model.graph if n.op_type == "Conv"][5]
    conv_id = doc.node_id(conv)
    sent: list[dict[str, Any]] = []
    session = SidebarSession(sent.append)
    session.handle({"kind": "bind", "model_id": designer.model_id})
    analysis_entries = [e for e in sent[0]["palette"] if e["category"] == "Analysis"]
    assert [e["name"] for e in analysis_entries] == ["Mix", "Affine", "Noise", "Snapshot"]
    assert {e["domain"] for e in analysis_entries} == {PALETTE_DOMAIN}
    quick_add = [o["name"] for o in designer.canvas._palette() if o["category"] == "Analysis"]  # Ctrl+Space's list
    assert quick_add == ["Mix", "Affine", "Noise", "Snapshot"]

    def drop(kind: str, node: str, other: str = "") -> dict[str, Any]:
        return designer.canvas.handle_intent({"action": "add_analysis_layer", "request": 1,
                                              "args": {"kind": kind, "node": node, "other": other}})

    refused = drop("Noise", conv_id)  # before launch: the reply (a toast) says why
    assert not refused["ok"] and "Launch Analysis first" in refused["error"] and designer.analysis is None
    feeds = tmp_path / "x.npy"
    np.save(feeds, np.random.default_rng(4).standard_normal((1, 3, 96, 96)).astype(np.float32))
    analysis = designer.launch_analysis({"input": str(feeds)})
    assert analysis is not None
    editor = designer.analysis_mode.show_panel().layers
    editor.kind.value, editor.first.value = "Noise", str(conv.outputs[0].name)
    editor.insert()
    reference = analysis.outputs(finish=False)["logits"]
    editor.undo()
    assert not np.array_equal(analysis.outputs(finish=False)["logits"], reference)  # the default Noise changes it

    empty = drop("Noise", "")
    assert not empty["ok"] and "dropped on no node" in empty["error"] and analysis.analysis_layers == []
    dropped = drop("Noise", conv_id)
    assert dropped["ok"] and dropped["data"] == {"name": "/analysis/Noise1"}
    assert np.array_equal(analysis.outputs(finish=False)["logits"], reference)
    assert designer.analysis_mode.panel.overlay.payload["layers"] == {conv_id: [{"name": "/analysis/Noise1",
                                                                             "kind": "Noise"}]}
    analysis.undo_layer()

    designer.canvas.selection = [conv_id]  # the sidebar's double-click: after the selected node
    session.handle({"kind": "add_node", "op": "Noise", "domain": PALETTE_DOMAIN})
    assert [m for m in sent if m.get("kind") == "error"] == []
    assert [x.inputs for x in analysis.analysis_layers] == [(conv.outputs[0].name,)]
    assert np.array_equal(analysis.outputs(finish=False)["logits"], reference)
    analysis.undo_layer()

    session.handle({"kind": "command", "request": 7, "action": "dld:add-analysis-layer", "args": {"kind": "Noise"}})
    reply = next(m for m in sent if m.get("kind") == "reply" and m.get("request") == 7)
    assert reply["ok"] and np.array_equal(analysis.outputs(finish=False)["logits"], reference)
    designer.canvas.selection = []
    session.handle({"kind": "command", "request": 8, "action": "add_analysis_layer", "args": {"kind": "Noise"}})
    reply = next(m for m in sent if m.get("kind") == "reply" and m.get("request") == 8)
    assert not reply["ok"] and "select the node it follows" in reply["error"]
    session.close()
    assert not doc.dirty
