"""The registry of open designers: what the sidebar and the report links find, and what they must not wait for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dld_jupyter.frontdoor.designers import DesignerRegistry, registry
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests.frontdoor.fakes import FakeDesigner, FakeLoad


def test_register_look_up_and_unregister(tmp_path: Path) -> None:
    designers = DesignerRegistry()
    one, two = FakeDesigner("m1", tmp_path / "a.onnx"), FakeDesigner("m2", None)
    designers.register(one)
    designers.register(two)
    assert list(designers) == [one, two] and len(designers) == 2
    assert designers.by_model_id("m2") is two and designers.by_model_id("m3") is None
    assert designers.by_path(str(tmp_path / "." / "a.onnx")) is one  # resolved paths compare
    assert designers.by_document(two.document) is two
    designers.unregister(one)
    assert designers.by_model_id("m1") is None and designers.by_path(tmp_path / "a.onnx") is None


def test_a_loading_designer_is_found_by_its_path_without_waiting(tmp_path: Path) -> None:
    designers = DesignerRegistry()
    big = FakeDesigner("m1", None, load=FakeLoad(tmp_path / "big.onnx"))
    designers.register(big)
    assert designers.by_path(tmp_path / "big.onnx") is big
    assert designers.by_document(big.canvas.document_if_loaded) is None  # a loading one has no document yet
    big.canvas.pending_load.failed = True  # type: ignore[union-attr]
    assert designers.by_path(tmp_path / "big.onnx") is None


def test_opening_needs_an_opener(tmp_path: Path) -> None:
    designers = DesignerRegistry()
    with pytest.raises(LookupError, match="not loaded"):
        designers.open("x.onnx")
    designers.set_opener(lambda path: FakeDesigner("m9", Path(path)))
    assert designers.open(str(tmp_path / "x.onnx")).model_id == "m9"


def test_a_designer_registers_itself_until_it_is_closed(tmp_path: Path) -> None:
    path = tmp_path / "resnet8.onnx"
    shutil.copy(SAMPLE_MODEL, path)
    designer = open_designer(path)
    assert isinstance(designer, Designer)
    assert registry.by_model_id(designer.model_id) is designer
    assert registry.by_path(path) is designer and registry.by_document(designer.document) is designer
    model_id = designer.model_id
    designer.close()
    assert registry.by_model_id(model_id) is None and registry.by_path(path) is None


def test_the_widgets_package_installs_the_opener(tmp_path: Path) -> None:
    path = tmp_path / "resnet8.onnx"
    shutil.copy(SAMPLE_MODEL, path)
    opened = registry.open(str(path))
    assert isinstance(opened, Designer) and registry.by_path(path) is opened
    opened.close()
