"""A profile from a designer with unsaved edits leaves nothing but its report (issue 26, item 6): the run reads a
temporary copy of the edits, removed when the run ends; a full `<model>.profiled.onnx` stayed beside every report
before (46 MB for ResNet-18). The report's links then open the document's own file."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook
from dld_jupyter.widgets.report.report_viewer import show_report

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def test_a_profile_of_unsaved_edits_leaves_only_its_report(tmp_path: Path) -> None:
    shutil.copy(MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    first = designer.document.nodes()[0]
    designer.document.move_nodes({first.id: (10.0, 10.0)})  # an unsaved edit: the run reads a copy
    panel = profile_in_notebook(designer, run=True, iterations=2, warmup=0)
    result = panel.wait(120)
    assert result is not None and result.ok, result and result.error
    copy = Path(panel.viewer.report.summary.model_path)
    assert copy.name == "m.onnx" and copy.parent.name.startswith("dld-profiled-")
    assert not copy.parent.exists()  # removed when the run ended
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.dld-report.json", "m.onnx"]
    designer.close()
    viewer = show_report(result.report_path)  # no live designer: the links open the document's own file
    layer = next(i for i, la in enumerate(viewer.report.layers) if la.onnx_nodes)
    opened = viewer.open_layer(layer)
    assert Path(opened.document.path) == tmp_path / "m.onnx"
    opened.close()


def test_a_refused_profile_removes_its_copy(tmp_path: Path) -> None:
    shutil.copy(MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    designer.document.move_nodes({designer.document.nodes()[0].id: (10.0, 10.0)})
    temp = Path(tempfile.gettempdir())
    before = set(temp.glob("dld-profiled-*"))
    panel = profile_in_notebook(designer, run=False, output=str(tmp_path / "m.onnx"))  # would replace the model
    assert panel.run() is None and "Cannot start" in panel.error.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]
    assert set(temp.glob("dld-profiled-*")) - before == set()  # its copy was made, then removed
    designer.close()


def test_a_designer_is_referred_to_by_its_document_and_is_the_runs_origin(tmp_path: Path) -> None:
    """`ModelRef.of(designer)` (issue 35): the designer's document, its file, and the designer itself as the run's
    origin (the run panel hands it to the artifact policy for heat and links); a path or a document has none."""
    from dld_jupyter.activities.model_ref import ModelRef, document_of
    from dld_jupyter.frontdoor.run_source import run_source

    shutil.copy(MODEL, tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx")
    ref = ModelRef.of(designer)
    assert ref.origin is designer and ref.document is designer.document and document_of(designer) is ref.document
    assert ref.saved and ref.path == ref.user_file == str(tmp_path / "m.onnx")
    assert run_source(designer) is designer and run_source(designer.document) is None and run_source("m.onnx") is None
    panel = profile_in_notebook(designer)
    assert panel.origin is designer and profile_in_notebook(str(tmp_path / "m.onnx")).origin is None
    designer.close()


def test_a_model_never_saved_keeps_its_report_in_the_working_folder(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The Profile panel put a never-saved model's report beside the temporary copy it ran, which the run's end
    removed with the report; it now goes where `ModelRef` says the model lives (`<name>.dld-report.json` in the
    working folder)."""
    from dld_jupyter.activities.model_ref import ModelRef
    from dld_jupyter.document import Document
    from dld_jupyter.document.files import io

    monkeypatch.chdir(tmp_path)
    document = Document(io.load(MODEL))  # no file of its own (a model built or received in the kernel)
    expected = Path(ModelRef.of(document).default_report)
    panel = profile_in_notebook(document, run=True, iterations=2, warmup=0)
    result = panel.wait(120)
    assert result is not None and result.ok, result and result.error
    assert Path(result.report_path or "") == expected and expected.parent == tmp_path and expected.is_file()
