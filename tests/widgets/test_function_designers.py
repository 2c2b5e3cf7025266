"""Local-function documents in the notebook Designer (issue 19) on the real ShuffleNetV2 exported with functions:
the Model Local Functions window lists, filters, creates, deletes, extracts and opens functions; Local Function
Settings adds and removes parameters (an undefined one takes no default); the parameter editor binds and removes a
reference; Confirm Local Function Edits lands in the model as one undo step; the canvas's context-menu intents make
a function of a selection and inline it back; functions are in the canvas's quick-add palette."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.document import DocumentError
from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.function_settings import parse_default

SHUFFLENET = Path(__file__).resolve().parents[1] / "data" / "real" / "shufflenet_functions_small.onnx"


def intent(designer: object, action: str, **args: object) -> dict[str, object]:
    return designer.canvas.handle_intent({"request": 1, "action": action, "args": args})  # type: ignore[attr-defined]


def test_functions_window(tmp_path: Path) -> None:
    d = open_designer(SHUFFLENET)
    window = d.child_panel("local_functions")
    assert len(window.list.options) == 2
    window.filter.value = "residual.1"
    assert [key for _, key in window.list.options] == [("InvertedResidual.1", "torchvision.models.shufflenetv2", "")]
    window.filter.value = ""
    window.create("Block", "my.blocks")
    assert window.list.value == ("Block", "my.blocks", "")
    assert any(f.name == "Block" for f in d.document.functions.list())
    assert any(op["name"] == "Block" and op["category"] == "local function" for op in d.canvas._palette())
    window._ask_create()
    window._guard(lambda: window.create("Block", "my.blocks"))  # taken: refused, shown in the window
    assert "already has a function" in window.message.value
    window.select("Block", "my.blocks")
    window.delete("Block", "my.blocks")
    assert not any(f.name == "Block" for f in d.document.functions.list())
    window.select("InvertedResidual.1", "torchvision.models.shufflenetv2")
    written = window.extract(str(tmp_path / "block.onnx"))
    onnx.checker.check_model(onnx.load(written))
    child = window.open_selected()
    assert d.family.active is child and child.document.kind == "function"
    assert child.editors.disabled_tabs.keys() == {"initializers"}


def test_settings_reference_and_confirm() -> None:
    d = open_designer(SHUFFLENET)
    f = d.document.functions.list()[0]
    child = d.open_function(f.name, f.domain)
    settings = child.child_panel("function_settings")
    settings.add("gather_axis", "int", "0")
    settings.add("free", "undefined", "")
    with pytest.raises(DocumentError):
        parse_default("1", "undefined")
    with pytest.raises(DocumentError):
        parse_default("", "float")
    names = [p.name for p in child.document.parameters()]
    assert {"gather_axis", "free"} <= set(names)
    settings.remove("free")
    assert "free" not in [p.name for p in child.document.parameters()]
    gather = next(n.id for n in child.document.nodes() if n.op_type == "Gather")
    child.canvas.selection = [gather]
    row = next(r for r in child.editors.params["attributes"] if r["name"] == "axis")
    assert ["gather_axis", True] in row["ref_choices"] and row["ref"] is None
    assert child.editors.params["in_function"] is True
    assert child.editors.handle({"kind": "set_ref", "attribute": "axis", "parameter": "gather_axis"})
    row = next(r for r in child.editors.params["attributes"] if r["name"] == "axis")
    assert row["ref"] == "gather_axis"
    assert not child.editors.handle({"kind": "set_ref", "attribute": "axis", "parameter": "nope"})
    assert "attr:axis" in child.editors.errors
    child.confirm()
    key = (f.domain, f.name, f.overload)
    definition = d.document.model.functions[key]
    assert "gather_axis" in definition.attributes
    assert next(n for n in definition if n.op_type == "Gather").attributes["axis"].ref_attr_name == "gather_axis"
    assert d.document.history[-1] == "Confirm Local Function Edits"
    assert child.editors.handle({"kind": "clear_ref", "attribute": "axis"})
    child.close()
    d.document.undo()
    assert "gather_axis" not in d.document.model.functions[key].attributes


def _run(path: Path) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    return session.run(None, {session.get_inputs()[0].name: x})


def test_create_function_from_selection_and_inline_from_the_canvas(tmp_path: Path) -> None:
    d = open_designer(SHUFFLENET)
    before = _run(SHUFFLENET)
    ops = [n.id for n in d.document.nodes() if n.kind == "op" and n.function is None][:3]
    reply = intent(d, "create_function_from_selection", nodes=ops, name="Stem", domain="my.blocks")
    assert reply["ok"], reply["error"]
    instance = str(reply["data"]["node"])  # type: ignore[index]
    assert d.document.node(instance).function == "my.blocks::Stem"
    refused = intent(d, "create_function_from_selection", nodes=[], name="X", domain="my.blocks")
    assert not refused["ok"] and "no node is selected" in str(refused["error"])
    d.save(tmp_path / "with_stem.onnx")
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(before, _run(tmp_path / "with_stem.onnx"), strict=True))
    reply = intent(d, "inline_function", node=instance)
    assert reply["ok"], reply["error"]
    assert d.document.ir_node(instance) is None
    d.save(tmp_path / "inlined.onnx")
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(before, _run(tmp_path / "inlined.onnx"), strict=True))
    opened = intent(d, "open_function", node=next(n.id for n in d.document.nodes() if n.function))
    assert opened["ok"] and str(opened["data"]["title"]).startswith("function ")  # type: ignore[index]


def test_an_instance_passes_values_for_the_parameters() -> None:
    d = open_designer(SHUFFLENET)
    instance = next(n.id for n in d.document.nodes() if n.function and n.function.endswith("InvertedResidual.1"))
    d.canvas.selection = [instance]
    view = d.editors.params["function"]
    assert view["instance_of"].endswith("InvertedResidual.1")
    assert {p["name"] for p in view["parameters"]} >= {"inferred::Conv_group"}
    # An undefined parameter keeps the type of the value the instance passes (a tensor stays a tensor).
    assert d.editors.handle({"kind": "set_attr", "name": "inferred::Constant_value", "text": "[1, 48, 8, 8]"})
    assert d.document.ir_node(instance).attributes["inferred::Constant_value"].type.name == "TENSOR"
    assert d.editors.handle({"kind": "set_attr", "name": "inferred::Conv_group", "text": "24"})
    assert d.document.ir_node(instance).attributes["inferred::Conv_group"].type.name == "INT"
    assert not d.editors.handle({"kind": "set_attr", "name": "inferred::Conv_group", "text": "[1,"})


def test_a_parameter_reference_outside_a_function_says_where_it_is_made() -> None:
    d = open_designer(SHUFFLENET)
    d.canvas.selection = [next(n.id for n in d.document.nodes() if n.op_type not in ("Input", "Output"))]
    assert d.editors.params["in_function"] is False
    for kind in ("set_ref", "clear_ref"):
        assert not d.editors.handle({"kind": kind, "attribute": "axis", "parameter": "gather_axis"})
        assert "local function's body" in str(d.editors.errors["attr:axis"])
