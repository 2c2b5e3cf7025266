"""A document held by a live analysis (`Document.hold`) refuses every edit, undo and child write-back with the
holder's reason and fix, tells its views (ReadOnlyChanged), and is editable again once released."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.events import ReadOnlyChanged

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


class _Holder:
    lock_reason = "The model is being analysed: Stop Analysis to edit it"
    lock_fix = "Stop the analysis."


def test_hold_refuses_edits_of_the_document_and_its_children() -> None:
    doc = Document.open(REAL / "gru_scripted.onnx")
    loop = next(n.id for n in doc.nodes() if n.op_type == "Loop")
    doc.rename_node(loop, "loop")
    events: list[object] = []
    doc.subscribe(events.extend)
    holder = _Holder()
    doc.hold(holder)
    assert doc.read_only == holder.lock_reason and [type(e) for e in events] == [ReadOnlyChanged]
    with pytest.raises(DocumentError, match=r"being analysed.*Fix: Stop the analysis"):
        doc.rename_node(loop, "other")
    with pytest.raises(DocumentError, match="being analysed"):
        doc.undo()
    body = doc.subgraphs.open(loop, "body")  # opened while held: held too
    with pytest.raises(DocumentError, match="being analysed"):
        body.rename_node(next(n.id for n in body.nodes()), "x")
    doc.hold(holder, release=True)
    body.rename_node(next(n.id for n in body.nodes()), "x")
    body.confirm()
    body.close()
    assert doc.read_only is None and doc.node(loop).name == "loop"
    doc.undo()
