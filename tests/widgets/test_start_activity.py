"""The Start Activity dialog: a model FILE profiled, exported or swept through the activity's own form (the Profile
panel, the Export TensorRT Engine panel, the Sweep form) without a designer; bad paths said in the dialog; model and
activity locked while a run is under way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import dld_jupyter as dld
import dld_jupyter.widgets  # installs the report viewer the artifact policy shows
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.frontdoor.run_source import TabbedRuns
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel
from dld_jupyter.widgets.designer.profile_panel import ProfilePanel
from dld_jupyter.widgets.report.report_viewer import ReportViewer
from dld_jupyter.widgets.runs.start_activity import StartActivity
from dld_jupyter.widgets.sweep.sweep_form import SweepPanel


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The bundled ResNet-8 as a file of the kernel's working folder, typed as a user would (relative)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLE_MODEL, tmp_path / "resnet8.onnx")
    return "resnet8.onnx"


def test_profile_a_model_file_without_a_designer(model: str, tmp_path: Path) -> None:
    opened = len(registry)
    dialog = dld.start_activity(model, iterations=5, warmup=1, threads=1)
    assert isinstance(dialog, TabbedRuns) and isinstance(dialog.form, ProfilePanel)
    assert dialog.problem.value == "" and dialog.browse_button.layout.display == "none"  # a notebook: no file dialog
    assert dialog.run() is not None
    result = dialog.form.wait(240)
    assert result is not None and result.ok, result and result.error
    assert len(registry) == opened  # no designer was built
    report = tmp_path / "resnet8.dld-report.json"
    assert result.report_path is not None and Path(result.report_path).resolve() == report.resolve()
    viewer = dialog.form.viewer  # no tab to open it in: below the form, as the Profile panel shows it
    assert isinstance(viewer, ReportViewer) and viewer.report.summary.passes == 5
    assert sum(layer.type == "Conv" for layer in viewer.report.layers) >= 7  # ResNet-8's convolutions, timed


def test_in_a_tab_the_report_opens_in_a_tab_beside_it(model: str, tmp_path: Path) -> None:
    """What a JupyterLab tab sets (lab/document_tabs.py): the report path goes to the tab, nothing shows below."""
    asked: list[str] = []
    dialog = dld.start_activity(model, iterations=3, warmup=1, threads=1)
    dialog.open_report_tab = lambda path: asked.append(path) is None
    dialog.run()
    assert dialog.form is not None
    result = dialog.form.wait(240)
    assert result is not None and result.ok, result and result.error
    assert [Path(p).resolve() for p in asked] == [(tmp_path / "resnet8.dld-report.json").resolve()]
    assert dialog.form.artifacts_area.children == ()
    assert "opened in its own tab" in dialog.form.phase.value


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "Choose the ONNX model"),
        ("nowhere/missing.onnx", "nowhere/missing.onnx: no such file (paths are relative to"),
        (".", ". is a folder; choose the .onnx model file inside it"),
        ("notes.txt", "notes.txt is not an ONNX model (.onnx)"),
    ],
)
def test_a_bad_path_is_said_in_the_dialog_and_nothing_runs(model: str, tmp_path: Path, typed: str, said: str) -> None:
    (tmp_path / "notes.txt").write_text("not a model")
    dialog = StartActivity(typed)
    assert said in dialog.problem.value and "dld-start-error" in dialog.problem.value
    assert dialog.form is None and dialog.form_slot.children == ()
    assert dialog.run() is None and said in dialog.problem.value
    dialog.path.value = model  # fixed: the form appears and the message goes
    assert isinstance(dialog.form, ProfilePanel) and dialog.problem.value == ""


def test_a_path_is_text_not_markup(model: str) -> None:
    dialog = StartActivity("<img src=x onerror=alert(1)>.onnx")
    assert "<img" not in dialog.problem.value and "&lt;img src=x" in dialog.problem.value


def test_each_activity_is_its_own_form_on_the_model(model: str, tmp_path: Path) -> None:
    dialog = StartActivity(model, "export")
    assert isinstance(dialog.form, ExportEnginePanel)
    assert Path(dialog.form.engine.value).resolve() == (tmp_path / "resnet8.engine").resolve()  # beside the model
    dialog.activity.value = "sweep"
    assert isinstance(dialog.form, SweepPanel) and dialog.form.models.value == model
    dialog.activity.value = "profile"
    assert isinstance(dialog.form, ProfilePanel) and model in dialog.form.title.value
    with pytest.raises(ValueError, match="activity 'analyse' is not one of"):
        StartActivity(model, "analyse")
    with pytest.raises(TypeError, match="did you mean 'iterations'"):
        StartActivity(model, iteration=3)


def test_model_and_activity_stay_while_a_run_is_under_way(model: str, tmp_path: Path) -> None:
    dialog = StartActivity(model, iterations=100_000, warmup=0, threads=1)
    form = dialog.form
    assert form is not None and dialog.run() is not None
    assert dialog.path.disabled and dialog.activity.disabled and dialog.browse_button.disabled
    dialog.activity.value = "sweep"
    dialog.path.value = "other.onnx"
    assert dialog.form is form and dialog.activity.value == "profile" and dialog.path.value == model
    assert "A run is under way" in dialog.problem.value
    form.cancel()
    form.wait(60)
    assert not (dialog.path.disabled or dialog.activity.disabled)
    dialog.activity.value = "sweep"
    assert isinstance(dialog.form, SweepPanel)


def test_browse_is_offered_by_a_tab_and_sets_the_model(model: str) -> None:
    dialog = StartActivity()
    asked: list[bool] = []
    dialog.allow_browse(lambda: asked.append(True))
    assert dialog.browse_button.layout.display == ""
    dialog.browse_button.click()
    dialog.set_model(model)  # what the file dialog sends back
    assert asked == [True] and isinstance(dialog.form, ProfilePanel)
    dialog.allow_browse(None)
    assert dialog.browse_button.layout.display == "none"


def test_every_form_offers_the_saved_remote_targets(
    model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The target of the seed's dialog ("define a remote connection to profile on a … remote machine"): each form's
    chooser lists Local, the saved SSH connections and "+ New connection…", which opens Remote Connections here."""
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    dld.targets.add("gpu-box.example", user="me", name="gpu-box")
    dialog = StartActivity(model)
    for activity in ("profile", "export", "sweep"):
        dialog.activity.value = activity
        assert dialog.form is not None and list(dialog.form.target.options) == ["Local", "gpu-box", "+ New connection…"]
    dialog.form.target.value = "+ New connection…"
    assert dialog.form.connections is not None and dialog.form.connections in dialog.form.target_slot.children
