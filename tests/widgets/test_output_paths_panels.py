"""The Profile and Export Engine panels refuse outputs that would destroy the model (issue 31, finding 4): the
reason is shown in the panel, nothing starts and nothing is written. A dirty designer profiles and exports a copy
of its unsaved edits, so the document's own file is protected too, not only the copy that runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel
from dld_jupyter.widgets.designer.profile_panel import ProfilePanel

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def dirty_designer(tmp_path: Path) -> tuple[object, Path]:
    model = tmp_path / "m.onnx"
    shutil.copy(MODEL, model)
    d = open_designer(model, grouping="none")
    d.document.set_metadata("note", "edited")  # dirty: the run uses a copy of the edits
    assert d.document.dirty
    return d, model


def test_profile_panel_shows_why_the_report_cannot_replace_the_model(tmp_path: Path) -> None:
    d, model = dirty_designer(tmp_path)
    before = model.read_bytes()
    panel = ProfilePanel(d, iterations=1, warmup=0)
    for output, words in ((model, "is the input model"), (tmp_path, "is a folder"), ("/dev/full", "not a regular")):
        panel.fields["output"].value = str(output)
        assert panel.run() is None and panel.handle is None
        assert "Cannot start" in panel.error.value and words in panel.error.value
    assert model.read_bytes() == before


def test_export_panel_shows_why_outputs_cannot_replace_the_model_or_each_other(tmp_path: Path) -> None:
    d, model = dirty_designer(tmp_path)
    before = model.read_bytes()
    panel = ExportEnginePanel(d)
    panel.engine.value = str(model)
    assert panel.show_command() is None and "the engine" in panel.error.value
    assert "is the input model" in panel.error.value and panel.command.value == ""
    panel.engine.value = str(tmp_path / "m.engine")
    panel.metadata.value = str(tmp_path / "m.engine")
    assert panel.show_command() is None and "the engine and the metadata are the same file" in panel.error.value
    panel.reason = None  # as on a host with TensorRT: Export itself checks before it starts anything
    panel.metadata.value = str(model)
    assert panel.run() is None and panel.handle is None
    assert "Cannot start" in panel.error.value and "the metadata" in panel.error.value
    assert model.read_bytes() == before and not (tmp_path / "m.engine").exists()
