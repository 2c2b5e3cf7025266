"""Copy then paste: same ops and attributes, internal links and initializers kept, one undo step, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.transforms.clipboard import copy_selection


def test_paste_is_one_undo_step_with_links_and_initializers(resnet: Path) -> None:
    doc = Document.open(resnet)
    ops = [n.id for n in doc.nodes() if n.kind == "op"][:3]
    edges_before, steps_before = len(doc.edges()), len(doc.history)
    assert copy_selection(doc, ops) == 3
    pasted = transforms.get("paste").apply(doc, at=(100.0, 50.0))
    assert len(pasted) == 3 and len(doc.history) == steps_before + 1 and doc.history[-1] == "Paste 3 nodes"
    for new, old in zip(pasted, ops, strict=True):
        assert doc.node(new).op_type == doc.node(old).op_type
        assert doc.node(new).attributes == doc.node(old).attributes
    conv_new, conv_old = doc.node(pasted[0]), doc.node(ops[0])
    assert [t.value_id for t in conv_new.inputs if t.state == "initializer"] == [
        t.value_id for t in conv_old.inputs if t.state == "initializer"
    ]
    assert len(doc.edges()) > edges_before
    doc.undo()
    assert {n.id for n in doc.nodes()}.isdisjoint(pasted) and len(doc.edges()) == edges_before


def test_paste_into_another_document_leaves_initializers_behind(resnet: Path) -> None:
    source, target = Document.open(resnet), Document.open(resnet)
    copy_selection(source, [n.id for n in source.nodes() if n.kind == "op"][:1])
    (new,) = transforms.get("paste").apply(target)
    assert all(t.state != "initializer" for t in target.node(new).inputs)


def test_refusals(resnet: Path) -> None:
    doc = Document.open(resnet)
    with pytest.raises(DocumentError, match="clipboard is empty"):
        transforms.get("paste").apply(doc)
    with pytest.raises(DocumentError, match="no operator is selected"):
        copy_selection(doc, [])
    assert transforms.get("paste").unmet(doc) == [transforms.Requirement.CLIPBOARD]
