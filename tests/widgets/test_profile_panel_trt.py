"""The Profile panel's TensorRT form (issue 26, item 7): the report-file field stays in view and is the TensorRT
run's output (it was hidden with the ONNX Runtime fields), and "Show command" shows the trtexec command line the run
stands for, in a text area that can be selected and copied; no TensorRT is needed for either."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.profile_panel import profile_in_notebook

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _dirty_designer(tmp_path: Path) -> Any:
    """The GPT-2 export in a designer with an unsaved edit (a run reads a temporary copy of it)."""
    shutil.copy(REAL / "gpt2_tiny.onnx", tmp_path / "gpt2.onnx")
    designer = open_designer(tmp_path / "gpt2.onnx")
    designer.document.move_nodes({designer.document.nodes()[0].id: (5.0, 5.0)})
    return designer


def _copies() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("dld-profiled-*"))


def test_report_field_and_show_command_in_tensorrt_mode(tmp_path: Path) -> None:
    model = tmp_path / "gpt2.onnx"
    shutil.copy(REAL / "gpt2_tiny.onnx", model)
    panel = profile_in_notebook(str(model))
    assert panel.show_button.layout.display == "none"  # an ONNX Runtime profile has no trtexec command
    panel.backend.value = "TensorRT"
    report = panel.fields["output"]
    assert report in panel.form_slot.children and report.layout.display != "none"
    assert panel.grid.layout.display == "none" and report not in panel.grid.children
    report.value = str(tmp_path / "runs" / "gpt2-trt.dld-report.json")
    assert panel.make_spec().output == report.value  # the field is the TensorRT run's report
    assert panel.show_button.layout.display != "none"
    data = panel.show_command()
    assert data is not None and panel.error.value == ""
    text = panel.command.value
    assert text.startswith("trtexec ") and f"--onnx={model}" in text
    assert f"--exportProfile={tmp_path / 'runs' / 'gpt2-trt'}.profile.json" in text
    assert panel.command.layout.display != "none" and not panel.command.disabled  # selectable, copyable
    panel.backend.value = "ONNX Runtime"
    assert panel.command.layout.display == "none" and panel.show_button.layout.display == "none"


def test_show_command_of_unsaved_edits_says_so_and_leaves_no_copy(tmp_path: Path) -> None:
    designer = _dirty_designer(tmp_path)
    before = _copies()
    panel = profile_in_notebook(designer)
    panel.backend.value = "TensorRT"
    assert panel.show_command() is not None
    assert "# the designer has unsaved edits: a run profiles a temporary copy of them" in panel.command.value
    assert f"{tmp_path / 'gpt2'}.profile.json" in panel.command.value  # beside the document, not the copy
    assert _copies() - before == set()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gpt2.onnx"]
    designer.close()


def test_export_show_command_of_unsaved_edits_leaves_no_copy(tmp_path: Path) -> None:
    from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel

    designer = _dirty_designer(tmp_path)
    before = _copies()
    panel = ExportEnginePanel(designer)
    assert panel.show_command() is not None and panel.command.value.startswith("trtexec ")
    assert not panel.command.disabled
    assert _copies() - before == set()
    designer.close()
