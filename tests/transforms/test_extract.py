"""Extract: a valid standalone model with the right inputs/outputs, atomic save, default names, refusals."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from dld_jupyter import transforms
from dld_jupyter.document import Document, DocumentError


def test_extract_writes_a_valid_model_and_leaves_the_document(resnet: Path) -> None:
    doc = Document.open(resnet)
    ops = [n.id for n in doc.nodes() if n.kind == "op"][:3]
    steps = len(doc.history)
    path = transforms.get("extract").apply(doc, node_ids=ops)
    assert path == resnet.with_name("resnet_x_extract.onnx").resolve()
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    assert len(model.graph.node) == 3 and model.graph.input and model.graph.output
    assert len(doc.history) == steps and not doc.dirty  # a new file, nothing to undo
    second = transforms.get("extract").apply(doc, node_ids=ops)
    assert second.name == "resnet_x_extract2.onnx"
    assert not list(resnet.parent.glob(".*.tmp"))  # the atomic save leaves no temporary file


def test_extract_saves_through_the_document_layer(resnet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dld_jupyter.document.files import io

    saved: list[Path] = []
    real = io.save
    monkeypatch.setattr(io, "save", lambda model, path, meta: (saved.append(Path(path)), real(model, path, meta)))
    doc = Document.open(resnet)
    target = resnet.parent / "part.onnx"
    transforms.get("extract").apply(doc, node_ids=[n.id for n in doc.nodes() if n.kind == "op"][:2], path=str(target))
    assert saved == [target.resolve()] and target.is_file()


def test_refusals(resnet: Path) -> None:
    doc = Document.open(resnet)
    extract = transforms.get("extract")
    with pytest.raises(DocumentError, match="no operator is selected"):
        extract.apply(doc, node_ids=[])
    inputs = [n.id for n in doc.nodes() if n.kind != "op"]
    with pytest.raises(DocumentError, match="no operator is selected"):
        extract.apply(doc, node_ids=inputs)
    assert extract.unmet(doc, node_ids=[]) == [transforms.Requirement.SELECTION]
