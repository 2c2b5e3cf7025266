"""The operation registry: one table every front door dispatches through, with ids the Lab commands use."""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path

import pytest

from dld_jupyter.document import DocumentError
from dld_jupyter.frontdoor.operations import (
    Operation,
    OperationRegistry,
    OperationUnavailable,
    UnknownOperation,
    operations,
)
from tests.frontdoor.fakes import FakeDesigner, FakeLoad

import_module("dld_jupyter.frontdoor.comparisons")  # registers dld:compare-with and dld:check-against-original
import_module("dld_jupyter.frontdoor.overlay_operations")  # dld:clear-overlays
import_module("dld_jupyter.frontdoor.analysis_operations")  # dld:launch-analysis, stop, Add/Remove Breakpoint

LAB_COMMANDS = Path(__file__).resolve().parents[2] / "js" / "src" / "lab" / "commands.ts"


def test_every_lab_designer_command_is_a_registered_operation() -> None:
    """The Lab command ids (js/src/lab/commands.ts) and message names (messages.ts) are the registry's."""
    text = LAB_COMMANDS.read_text()
    pairs = re.findall(r"\[CommandIds\.\w+, \"(\w+)\"", text)
    assert pairs, "commands.ts changed shape"
    for name in [*pairs, "save_as", "export_image"]:
        op = operations.get(name)
        assert f'"{op.id}"' in text and operations.get(op.id) is op


def test_names_ids_and_labels() -> None:
    names = [op.name for op in operations]
    assert names[:10] == ["save", "save_as", "undo", "redo", "arrange", "check", "profile", "export_image",
                          "show_grid", "show_constants"]
    assert all(op.id.startswith("dld:") and op.label and op.caption for op in operations)
    assert "save" in operations and "dld:save-as" in operations and "format_disk" not in operations


def test_unknown_operations_are_refused_with_the_known_ones() -> None:
    known = r"unknown command 'format_disk'; known: add_analysis_layer, add_breakpoint, apply_layout, arrange, check"
    with pytest.raises(UnknownOperation, match=known):
        operations.get("format_disk")


def test_a_registry_refuses_a_second_operation_of_the_same_id() -> None:
    registry = OperationRegistry()
    op = Operation("dld:x", "x", "X", "Do x", lambda _t: True, lambda _t: None)
    registry.add(op)
    with pytest.raises(ValueError, match="registered already"):
        registry.add(Operation("dld:x", "y", "Y", "Do y", lambda _t: True, lambda _t: None))


def test_enabled_says_why_not(tmp_path: Path) -> None:
    unsaved = FakeDesigner("m1", None)
    assert operations.get("save").enabled(unsaved) == "the model has no file yet: use Save As"
    assert operations.get("undo").enabled(unsaved) == "nothing to undo"
    assert operations.get("profile").enabled(unsaved) == "profiling needs a designer (dld.open)"
    assert operations.get("export_image").is_enabled(unsaved) is False
    assert operations.get("save_as").is_enabled(unsaved) and operations.get("show_grid").is_enabled(unsaved)
    unsaved.document.add_node("Relu")
    assert operations.get("undo").is_enabled(unsaved) and not operations.get("redo").is_enabled(unsaved)
    loading = FakeDesigner("m2", None, load=FakeLoad(tmp_path / "big.onnx"))
    assert operations.get("check").enabled(loading) == "the model is still loading"  # without waiting for it
    saved = FakeDesigner("m3", tmp_path / "m.onnx")
    assert operations.get("save").is_enabled(saved)


def test_run_acts_on_the_target(tmp_path: Path) -> None:
    target = FakeDesigner("m1", tmp_path / "m.onnx")
    operations.run("dld:save", target)
    operations.run("save_as", target, path="copy.onnx")
    assert target.canvas.saved == [None, "copy.onnx"]
    with pytest.raises(OperationUnavailable, match="give the path"):
        operations.run("save_as", target)
    node = target.document.add_node("Relu")
    assert operations.run("undo", target) and node not in {n.id for n in target.document.nodes()}
    assert operations.run("redo", target)
    with pytest.raises(DocumentError):
        operations.run("redo", target)  # the document's own error says there is nothing to redo
    operations.run("arrange", target)
    operations.run("check", target)
    assert target.canvas.arranged == 1 and target.checked == 1
    assert operations.run("show_grid", target) is True and target.canvas.show_grid
    assert operations.run("show_constants", target) is True
    with pytest.raises(OperationUnavailable, match="needs a designer"):
        operations.run("profile", target)
    with pytest.raises(OperationUnavailable, match="needs a designer"):
        operations.run("export_image", target, path="x.png")
