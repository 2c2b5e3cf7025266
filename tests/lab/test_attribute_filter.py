"""The layer explorer's filter by any attribute (issue 41, seed 000 "advanced filters"), on the real MobileNetV3."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.document import Document
from dld_jupyter.document.model.attribute_filter import matching_layers, parse

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(scope="module")
def doc() -> Document:
    return Document.open(REAL)


def _attrs(doc: Document, ids: list[str], name: str) -> list[object]:
    return [doc.ir_node(i).attributes[name].value for i in ids]  # type: ignore[union-attr]


def test_terms_select_by_presence_value_inequality_and_text(doc: Document) -> None:
    convs = [n for n in doc.model.graph if n.op_type == "Conv"]
    assert len(matching_layers(doc, "group")) == sum("group" in n.attributes for n in doc.model.graph)
    depthwise = matching_layers(doc, "kernel_shape=[3, 3], group!=1")
    assert depthwise and all(list(v) == [3, 3] for v in _attrs(doc, depthwise, "kernel_shape"))  # type: ignore[call-overload]
    assert all(v != 1 for v in _attrs(doc, depthwise, "group"))
    strided = matching_layers(doc, "strides~2")
    assert strided and all(2 in list(v) for v in _attrs(doc, strided, "strides"))  # type: ignore[operator]
    assert len(matching_layers(doc, "group=1")) + len(matching_layers(doc, "group!=1")) == len(list(doc.model.graph))
    assert len(convs) >= len(matching_layers(doc, "group"))


def test_a_bad_term_says_which_and_how() -> None:
    with pytest.raises(ValueError, match=r"'=3' is not a term; use name, name=value"):
        parse("group=1, =3")


def test_the_sidebar_answers_an_attribute_filter_with_ids() -> None:
    from dld_jupyter.lab.kernel_sidebar import SidebarSession
    from dld_jupyter.widgets.designer.designer import open_designer

    designer = open_designer(REAL)
    doc = designer.document
    sent: list[dict[str, object]] = []
    session = SidebarSession(sent.append)
    session.handle({"kind": "bind", "model_id": designer.model_id})
    session.handle({"kind": "attr_filter", "request": 3, "expression": "kernel_shape=[3, 3]"})
    reply = sent[-1]
    assert reply["kind"] == "reply" and reply["ok"] and reply["request"] == 3
    assert reply["data"] == {"ids": matching_layers(doc, "kernel_shape=[3, 3]")}
    session.handle({"kind": "attr_filter", "request": 4, "expression": "[oops"})
    assert sent[-1]["ok"] is False and "is not a term" in str(sent[-1]["error"])
