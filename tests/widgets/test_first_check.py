"""A model just opened is checked before its first view when the check runs in the kernel's thread (type_check.py,
CheckRunner.opened): the canvas's first snapshot carries the links' inferred shapes, and no check is left to relabel
every link while the browser draws that view (issue 42). A model checked in a child process waits for the debounce."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.document import Document
from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.editors import type_check

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def test_a_small_model_opens_checked_and_its_first_view_shows_the_inferred_shapes() -> None:
    designer = open_designer(MODEL)
    try:
        runner = designer.editors.runner
        # Checked already, and nothing left to run: no debounced check that would relabel the drawn links.
        assert designer.editors.checks["checked"] and not runner.busy
        sent: list[dict[str, Any]] = []
        designer.canvas.send = lambda message, buffers=None: sent.append(dict(message))  # type: ignore[method-assign]
        designer.canvas._on_msg(designer.canvas, {"kind": "hello"}, [])
        snapshot = next(m for m in sent if m["kind"] == "snapshot")
        labels = {e["id"]: e["label"] for e in snapshot["graph"]["edges"]}
        shapes = {e.id for e in designer.document.edges() if e.shape is not None}
        assert shapes and all(labels[edge] for edge in shapes if edge in labels), labels
        assert not any(m["kind"] == "patch" for m in sent)
    finally:
        designer.close()


def test_a_model_checked_in_a_child_process_is_checked_after_the_debounce(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(type_check, "PROCESS_MIN_NODES", 10)  # the export's 164 nodes count as a big model
    designer = open_designer(MODEL)
    try:
        runner = designer.editors.runner
        assert not designer.editors.checks["checked"] and runner.busy  # the debounce runs; the open did not wait
    finally:
        designer.close()



def test_a_check_that_cannot_start_at_open_leaves_the_model_open_for_the_background_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the open's check provokes must not stop the open: the debounced background check runs and reports it."""
    real = Document.check_input
    calls: list[Document] = []

    def first_fails(doc: Document) -> Any:
        calls.append(doc)
        if len(calls) == 1:
            raise RuntimeError("a standalone copy could not be made")
        return real(doc)

    monkeypatch.setattr(Document, "check_input", first_fails)
    designer = open_designer(MODEL)  # raised before
    try:
        assert calls and not designer.editors.checks["checked"] and designer.editors.runner.busy
    finally:
        designer.close()
