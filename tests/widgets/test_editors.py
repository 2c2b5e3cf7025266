"""Editor panels, kernel side: messages in → Document commands → state; refused edits change nothing."""

from __future__ import annotations

import pathlib
import time

import numpy as np
import onnx_ir as ir
import pytest
import traitlets
from hypothesis import given, settings
from hypothesis import strategies as st

from dld_jupyter.document import Document
from dld_jupyter.document.edits.literals import LiteralError
from dld_jupyter.widgets.editors import EditorPanels
from dld_jupyter.widgets.editors.attribute_text import from_text


class FakeCanvas(traitlets.HasTraits):
    selection = traitlets.List(traitlets.Unicode())

    def __init__(self) -> None:
        super().__init__()
        self.focused: list[list[str]] = []

    def focus(self, node_ids: list[str]) -> None:
        self.focused.append(list(node_ids))
        self.selection = list(node_ids)


@pytest.fixture
def doc() -> Document:
    d = Document.new(opset=21)
    d.add_node("Conv", name="conv1")
    d.add_node("Conv", name="conv2")
    d.add_node("Relu", name="relu")
    return d


def ids(doc: Document) -> dict[str, str]:
    return {n.name: n.id for n in doc.nodes()}


def panels(doc: Document, canvas: object = None) -> EditorPanels:
    return EditorPanels(doc, canvas, auto_check=False)


def test_nothing_selected_shows_editable_model_information(doc: Document) -> None:
    p = panels(doc)
    assert p.params["mode"] == "model" and p.params["model"]["opsets"] == [{"domain": "", "version": 21}]
    assert p.handle({"kind": "set_model", "field": "producer_name", "text": "me", "key": "model:producer_name"})
    assert doc.model.producer_name == "me" and p.params["model"]["producer_name"] == "me"
    assert p.handle({"kind": "set_model", "field": "model_version", "text": "3", "key": "model:model_version"})
    assert not p.handle({"kind": "set_model", "field": "model_version", "text": "x", "key": "model:model_version"})
    assert "integer" in p.errors["model:model_version"]["message"]
    assert p.handle({"kind": "set_meta", "meta_key": "author", "value": "a", "key": "meta:new"})
    assert p.params["model"]["metadata"] == [{"key": "author", "value": "a"}]
    assert p.handle({"kind": "set_model", "field": "ir_version", "text": "9", "key": "model:ir_version"})
    assert doc.model.ir_version == 9 and p.params["model"]["ir_version"] == 9
    assert not p.handle({"kind": "set_model", "field": "ir_version", "text": "99", "key": "model:ir_version"})
    assert doc.model.ir_version == 9 and "3.." in p.errors["model:ir_version"]["message"]
    doc.undo()
    assert doc.model.ir_version != 9
    assert not p.handle({"kind": "set_opset", "domain": "", "text": "-2", "key": "opset:"})
    assert doc.model.opset_imports[""] == 21


def test_conv_strides_pads_revert_and_defaults_section(doc: Document) -> None:
    p = panels(doc)
    conv = ids(doc)["conv1"]
    p.selection = [conv]
    assert {r["name"] for r in p.params["defaults"]} >= {"strides", "pads", "group", "auto_pad"}
    assert p.handle({"kind": "set_attr", "name": "strides", "text": "[2, 2]", "key": "attr:strides"})
    assert p.handle({"kind": "set_attr", "name": "pads", "text": "[1, 1, 1, 1]", "key": "attr:pads"})
    assert doc.node(conv).attributes == {"strides": [2, 2], "pads": [1, 1, 1, 1]}
    assert [r["name"] for r in p.params["attributes"]] == ["pads", "strides"]
    assert "strides" not in {r["name"] for r in p.params["defaults"]}
    assert p.handle({"kind": "reset_attr", "name": "strides", "key": "attr:strides"})
    assert doc.node(conv).attributes == {"pads": [1, 1, 1, 1]}
    assert "strides" in {r["name"] for r in p.params["defaults"]}
    group = next(r for r in p.params["defaults"] if r["name"] == "group")
    assert group["default_text"] == "1"


@pytest.mark.parametrize(
    ("name", "text", "fragment", "caret"),
    [
        ("pads", "[1, 1, x, 1]", "unexpected 'x'", 7),
        ("pads", "[1, 2.5]", "list of int", 4),
        ("pads", "[[1], [2, 3]]", "ragged", 6),
        ("strides", "2", "holds a list", 0),
        ("group", "1.5", "one integer", 0),
        ("auto_pad", "", "", -1),
    ],
)
def test_bad_values_show_inline_errors_and_change_nothing(
    doc: Document, name: str, text: str, fragment: str, caret: int
) -> None:
    p = panels(doc)
    conv = ids(doc)["conv1"]
    p.selection = [conv]
    steps = len(doc.history)
    ok = p.handle({"kind": "set_attr", "name": name, "text": text, "key": f"attr:{name}"})
    if not fragment:  # an empty string is a valid STRING attribute value
        assert ok
        return
    assert not ok and len(doc.history) == steps and doc.node(conv).attributes == {}
    error = p.errors[f"attr:{name}"]
    assert fragment in error["message"] and error["caret"] == caret


def test_error_clears_after_a_good_value(doc: Document) -> None:
    p = panels(doc)
    p.selection = [ids(doc)["conv1"]]
    p.handle({"kind": "set_attr", "name": "pads", "text": "[1,", "key": "attr:pads"})
    assert "attr:pads" in p.errors
    p.handle({"kind": "set_attr", "name": "pads", "text": "[1, 1, 1, 1]", "key": "attr:pads"})
    assert "attr:pads" not in p.errors


def test_browser_intents_are_envelope_requests_answered_by_replies(doc: Document) -> None:
    p = panels(doc)
    p.selection = [ids(doc)["conv1"]]
    sent: list[dict[str, object]] = []
    p.send = sent.append  # type: ignore[method-assign]

    def request(number: int, action: str, **args: object) -> None:
        p._on_msg(p, {"kind": "request", "request": number, "action": action, "args": args}, [])

    request(1, "set_attr", name="pads", text="[1,", key="attr:pads")
    assert sent[-1]["kind"] == "reply" and sent[-1]["request"] == 1 and sent[-1]["ok"] is False
    assert sent[-1]["error"] == p.errors["attr:pads"]["message"]  # the reply and the inline error say the same
    request(2, "set_attr", name="pads", text="[1, 1, 1, 1]", key="attr:pads")
    assert sent[-1] == {"kind": "reply", "request": 2, "ok": True, "error": None, "data": None}
    assert "attr:pads" not in p.errors


def test_batch_edit_is_one_undo_step_and_shows_shared_attributes_only(doc: Document) -> None:
    p = panels(doc)
    n = ids(doc)
    p.selection = [n["conv1"], n["conv2"]]
    assert p.params["name"] is None and "2 nodes" in p.params["title"]
    steps = len(doc.history)
    assert p.handle({"kind": "set_attr", "name": "strides", "text": "[3, 3]", "key": "attr:strides"})
    assert len(doc.history) == steps + 1
    assert doc.node(n["conv1"]).attributes["strides"] == [3, 3] == doc.node(n["conv2"]).attributes["strides"]
    doc.undo()
    assert doc.node(n["conv1"]).attributes == {} and doc.node(n["conv2"]).attributes == {}
    p.selection = [n["conv1"], n["relu"]]
    assert p.params["attributes"] == [] and p.params["defaults"] == []


def test_mixed_values_and_batch_refusal_changes_no_node(doc: Document) -> None:
    p = panels(doc)
    n = ids(doc)
    doc.set_attribute(n["conv1"], "group", 2)
    p.selection = [n["conv1"], n["conv2"]]
    group = next(r for r in p.params["attributes"] if r["name"] == "group")
    assert group["mixed"] and group["text"] == ""
    steps = len(doc.history)
    assert not p.handle({"kind": "set_attr", "name": "group", "text": "x", "key": "attr:group"})
    assert len(doc.history) == steps


def test_rename(doc: Document) -> None:
    p = panels(doc)
    n = ids(doc)
    p.selection = [n["conv1"]]
    assert p.handle({"kind": "rename", "text": "first_conv", "key": "name"})
    assert doc.node(n["conv1"]).name == "first_conv"
    for bad in ("conv2", "1abc", "a b"):
        assert not p.handle({"kind": "rename", "text": bad, "key": "name"})
        assert p.errors["name"]["message"] and doc.node(n["conv1"]).name == "first_conv"


def test_op_documentation_is_in_the_view(doc: Document) -> None:
    p = panels(doc)
    p.selection = [ids(doc)["conv1"]]
    assert "convolution" in p.params["doc"].lower() and p.params["since_version"] == 11


def test_selection_follows_the_canvas(doc: Document) -> None:
    canvas = FakeCanvas()
    p = panels(doc, canvas)
    canvas.selection = [ids(doc)["relu"]]
    assert p.selection == [ids(doc)["relu"]] and p.params["title"] == "Relu"
    p.close()
    canvas.selection = [ids(doc)["conv1"]]
    assert p.selection == [ids(doc)["relu"]]


def _create(p: EditorPanels, **fields: object) -> bool:
    return p.handle({"kind": "init_create", "key": "create", **fields})


def test_create_initializers_every_way(doc: Document, tmp_path: pathlib.Path) -> None:
    p = panels(doc)
    assert _create(p, name="lit", dtype="float", mode="literal", text="[[1, 2], [3, 4]]")
    np.save(tmp_path / "w.npy", np.ones((2, 3), np.float32))
    assert _create(p, name="npy", dtype="float", mode="npy", path=str(tmp_path / "w.npy"))
    assert _create(p, name="gen", dtype="int8", mode="generate", shape="[5]", method="uniform_negative")
    assert _create(p, name="sp", dtype="float", mode="sparse", values="[5.0]", indices="[3]", dense_shape="[2, 2]")
    assert _create(p, name="txt", dtype="string", mode="literal", text="['a', 'It\\'s']")
    rows = {r["name"]: r for r in p.init_items}
    assert rows["lit"]["dtype"] == "float" and rows["lit"]["shape"] == [2, 2]
    assert rows["npy"]["shape"] == [2, 3] and rows["gen"]["dtype"] == "int8" and rows["txt"]["dtype"] == "string"
    gen = doc.model.graph.initializers["gen"].const_value
    assert gen is not None and (gen.numpy() < 0).all()
    sparse = doc.model.graph.initializers["sp"].const_value
    assert sparse is not None and sparse.numpy().tolist() == [[0, 0], [0, 5]]


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"name": "lit", "mode": "literal", "text": "[1, 2"}, "not closed"),
        ({"name": "lit", "mode": "literal", "text": "[1]"}, "already"),
        (
            {"name": "u", "dtype": "uint8", "mode": "generate", "shape": "[2]", "method": "uniform_negative"},
            "not available",
        ),
        ({"name": "b", "dtype": "bool", "mode": "generate", "shape": "[2]", "method": "normal"}, "not available"),
        ({"name": "n", "dtype": "float16", "mode": "npy", "path": "missing.npy"}, "no file 'missing.npy'"),
        ({"name": "e", "mode": "external", "location": "w.bin", "shape": "[2]"}, "only in memory"),
        ({"name": "s", "mode": "sparse", "values": "[1.0]", "indices": "[7]", "dense_shape": "[2]"}, "outside"),
    ],
)
def test_refused_creations_change_nothing(doc: Document, fields: dict[str, object], fragment: str) -> None:
    p = panels(doc)
    _create(p, name="lit", dtype="float", mode="literal", text="[1]")
    steps = len(doc.history)
    assert not _create(p, **{"dtype": "float", **fields})
    assert len(doc.history) == steps and list(doc.model.graph.initializers) == ["lit"]
    assert fragment in p.errors["create"]["message"]


def test_npy_of_another_type_is_refused(doc: Document, tmp_path: pathlib.Path) -> None:
    p = panels(doc)
    np.save(tmp_path / "w.npy", np.ones(3, np.float64))
    assert not _create(p, name="w", dtype="float", mode="npy", path=str(tmp_path / "w.npy"))
    assert "float64" in p.errors["create"]["message"]


def test_external_initializer_beside_a_saved_model(doc: Document, tmp_path: pathlib.Path) -> None:
    doc.save(tmp_path / "m.onnx")
    (tmp_path / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    p = panels(doc)
    assert not _create(p, name="e", dtype="float", mode="external", location="../w.bin", shape="[4]")
    assert _create(p, name="e", dtype="float", mode="external", location="w.bin", shape="[2]", offset="8")
    row = next(r for r in p.init_items if r["name"] == "e")
    assert row["external"] and row["location"] == "w.bin"
    p.open_tensor(row["id"])
    assert p.tensor["external"] == {"location": "w.bin", "offset": 8, "length": 8} and p.tensor["targets"] == []
    assert not p.handle({"kind": "tensor_convert", "dtype": "float16", "key": "convert"})
    assert p.handle({"kind": "tensor_external", "location": "w.bin", "offset": "0", "length": "", "key": "external"})
    assert p.tensor["external"]["offset"] == 0


def test_connect_switch_disconnect_delete(doc: Document) -> None:
    p = panels(doc)
    conv = ids(doc)["conv1"]
    _create(p, name="W1", dtype="float", mode="generate", shape="[4, 3, 3, 3]", method="normal")
    _create(p, name="W2", dtype="float", mode="generate", shape="[4, 3, 3, 3]", method="zeros")
    w1, w2 = (r["id"] for r in p.init_items)
    p.selection = [conv]
    assert [t["state"] for t in p.inits["node"]["terminals"]] == ["free", "free", "free"]
    assert p.handle({"kind": "init_connect", "value_id": w1, "node": conv, "index": 1, "key": "init:1"})
    bound = [t for t in p.inits["node"]["terminals"] if t["state"] == "initializer"]
    assert bound[0]["value_name"] == "W1" and p.inits["previews"][w1].startswith("[")
    assert p.handle({"kind": "init_connect", "value_id": w2, "node": conv, "index": 1, "key": "init:1"})
    assert doc.node(conv).inputs[1].value_name == "W2"
    assert p.handle({"kind": "init_disconnect", "node": conv, "index": 1, "key": "init:1"})
    assert doc.node(conv).inputs[1].state == "free"
    p.handle({"kind": "init_connect", "value_id": w1, "node": conv, "index": 1, "key": "init:1"})
    assert p.handle({"kind": "init_delete", "value_id": w1, "key": "list"})
    assert doc.node(conv).inputs[1].state == "free" and [r["name"] for r in p.init_items] == ["W2"]
    doc.undo()
    assert doc.node(conv).inputs[1].value_name == "W1"


def test_tensor_editor_values_shape_npy_and_convert(doc: Document, tmp_path: pathlib.Path) -> None:
    p = panels(doc)
    _create(p, name="t", dtype="float", mode="literal", text="[1.0, 0.1]")
    vid = p.init_items[0]["id"]
    p.handle({"kind": "open_tensor", "value_id": vid})
    assert p.tab == "tensor" and p.tensor["name"] == "t" and p.tensor["editable"]
    assert p.handle({"kind": "tensor_set", "text": "[[1, 2, 3], [4, 5, 6]]", "key": "tensor"})
    assert p.tensor["shape"] == [2, 3] and p.tensor["dtype"] == "float"
    assert not p.handle({"kind": "tensor_set", "text": "[[1, 2], [3]]", "key": "tensor"})
    assert p.tensor["shape"] == [2, 3] and p.errors["tensor"]["caret"] >= 0
    assert p.handle({"kind": "tensor_export", "path": str(tmp_path / "out.npy"), "key": "tensor"})
    assert np.load(tmp_path / "out.npy").tolist() == [[1, 2, 3], [4, 5, 6]]
    assert p.handle({"kind": "tensor_set", "text": "[0.1, 70000]", "key": "tensor"})
    assert p.handle({"kind": "tensor_convert", "dtype": "float16", "key": "convert"})
    assert p.tensor["dtype"] == "float16" and "overflowed" in p.notice["text"] and "precision" in p.notice["text"]
    doc.undo()
    assert p.tensor["dtype"] == "float"
    np.save(tmp_path / "big.npy", np.zeros((101, 100), np.float32))
    assert p.handle({"kind": "tensor_load", "path": str(tmp_path / "big.npy"), "key": "tensor"})
    assert p.tensor["size"] == 10100 and not p.tensor["editable"] and p.tensor["text"] == ""
    assert not p.handle({"kind": "tensor_set", "text": "[1]", "key": "tensor"})
    assert p.handle(
        {"kind": "tensor_sparse", "values": "[2.0]", "indices": "[1]", "dense_shape": "[3]", "key": "sparse"}
    )
    assert p.tensor["text"] == "[0.0, 2.0, 0.0]" and p.tensor["sparse"]["indices"] == "[1]"


def test_bool_and_string_tensors_offer_no_conversion(doc: Document) -> None:
    p = panels(doc)
    _create(p, name="b", dtype="bool", mode="literal", text="[true, false]")
    p.open_tensor(p.init_items[0]["id"])
    assert p.tensor["targets"] == []
    assert not p.handle({"kind": "tensor_convert", "dtype": "float", "key": "convert"})
    assert doc.model.graph.initializers["b"].dtype == ir.DataType.BOOL


def test_tensor_attribute_in_the_tensor_editor(doc: Document) -> None:
    node = doc.add_node("ConstantOfShape", name="cos")
    p = panels(doc)
    p.selection = [node]
    assert p.handle({"kind": "set_attr", "name": "value", "text": "[1.5]", "key": "attr:value"})
    p.handle({"kind": "open_tensor", "node_id": node, "attribute": "value"})
    assert p.tensor["name"] == "cos.value" and p.tensor["text"] == "[1.5]"
    assert p.handle({"kind": "tensor_convert", "dtype": "float16", "key": "convert"})
    value = doc.node(node).attributes["value"]
    assert isinstance(value, np.ndarray) and value.dtype == np.float16


def test_type_check_list_and_focus(doc: Document) -> None:
    canvas = FakeCanvas()
    p = panels(doc, canvas)
    p.check()
    items = p.checks["items"]
    conv = ids(doc)["conv1"]
    assert any(i["severity"] == "error" and i["node_id"] == conv for i in items)
    assert p.handle({"kind": "focus", "node_id": conv})
    assert canvas.focused == [[conv]] and p.selection == [conv]


def test_background_check_runs_after_edits_and_drops_stale_results(doc: Document) -> None:
    p = EditorPanels(doc, auto_check=True)
    p.runner.debounce_s = 0.01
    relu = ids(doc)["relu"]
    x = doc.add_graph_input(relu, 0, name="x", dtype="float", shape=[1])
    deadline = time.time() + 20
    while (p.runner.running or p.checks["stale"] or not p.checks["checked"]) and time.time() < deadline:
        time.sleep(0.05)
    assert p.checks["checked"] and not p.checks["running"]
    assert not any(i["node_id"] == relu and i["severity"] == "error" for i in p.checks["items"])
    doc.remove_nodes([x])
    deadline = time.time() + 20
    while not any(i["node_id"] == relu and i["severity"] == "error" for i in p.checks["items"]):
        if time.time() > deadline:
            break
        time.sleep(0.05)
    assert any(i["node_id"] == relu and i["severity"] == "error" for i in p.checks["items"])
    p.handle({"kind": "check"})
    p.handle({"kind": "cancel_check"})
    assert not p.checks["running"]
    p.close()


def test_unknown_arguments_are_rejected(doc: Document) -> None:
    with pytest.raises(TypeError, match="unknown"):
        EditorPanels(doc, colour="red")


def test_automatic_checks_are_off_above_the_size_threshold(doc: Document, monkeypatch: pytest.MonkeyPatch) -> None:
    from dld_jupyter.document.checks import checks

    monkeypatch.setattr(checks, "AUTO_CHECK_MAX_NODES", 2)
    p = EditorPanels(doc, auto_check=True)
    p.runner.debounce_s = 0.01
    doc.add_node("Relu", name="more")
    time.sleep(0.3)
    assert not p.checks["automatic"] and not p.checks["checked"] and not p.runner.running
    p.check()  # "Check model" still runs
    assert p.checks["checked"] and p.checks["items"]
    p.close()


def test_lint_reports_into_the_list(doc: Document) -> None:
    p = panels(doc)
    p.handle({"kind": "lint"})
    assert p.checks["lint_running"] or p.runner.lint_items
    deadline = time.time() + 120
    while p.runner.lint_running and time.time() < deadline:
        time.sleep(0.1)
    assert not p.runner.lint_running
    assert any(i["source"] == "polygraphy" for i in p.checks["items"])


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("[],'\\ -+.e0123456789truefalsnix")), max_size=20),
    st.sampled_from(["INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR", "GRAPH"]),
)
def test_attribute_text_raises_only_literal_errors(text: str, type_name: str) -> None:
    try:
        from_text(text, type_name)
    except LiteralError as exc:
        assert 0 <= exc.position <= len(text)


def test_list_attribute_in_the_tensor_editor(doc: Document) -> None:
    p = panels(doc)
    conv = ids(doc)["conv1"]
    p.selection = [conv]
    p.handle({"kind": "set_attr", "name": "pads", "text": "[1, 1, 1, 1]", "key": "attr:pads"})
    p.handle({"kind": "open_tensor", "node_id": conv, "attribute": "pads"})
    assert p.tensor["text"] == "[1, 1, 1, 1]" and p.tensor["targets"] == []
    assert p.handle({"kind": "tensor_set", "text": "[0, 0, 2, 2]", "key": "tensor"})
    assert doc.node(conv).attributes["pads"] == [0, 0, 2, 2]
    assert not p.handle({"kind": "tensor_set", "text": "[[0, 0], [2, 2]]", "key": "tensor"})
    assert doc.node(conv).attributes["pads"] == [0, 0, 2, 2]


def test_element_type_attributes_offer_a_type_menu(doc: Document) -> None:
    cast = doc.add_node("Cast", name="cast")
    p = panels(doc)
    p.selection = [cast]
    to = next(r for r in p.params["attributes"] if r["name"] == "to")
    assert to["required"] and ["10", "float16"] in to["choices"]
    assert p.handle({"kind": "set_attr", "name": "to", "text": "10", "key": "attr:to"})
    assert doc.node(cast).attributes["to"] == 10
    saturate = next(r for r in p.params["defaults"] if r["name"] == "saturate")
    assert saturate["choices"] is None
