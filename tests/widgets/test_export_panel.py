"""The Export TensorRT Engine panel without TensorRT: every seed option is in the form, Show command prints the
dry run's trtexec line with the model's profiles and precisions, Export is disabled with the backend's reason,
and wrong settings are explained in the panel."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from dld_jupyter.activities.runtimes import runtime_named
from dld_jupyter.activities.runtimes.tensorrt.settings import TrtSettings
from dld_jupyter.frontdoor.operations import EXPORT_ENGINE
from dld_jupyter.widgets.designer.designer import open_designer
from dld_jupyter.widgets.designer.export_panel import ExportEnginePanel

BERT = Path(__file__).resolve().parents[2] / "tests" / "data" / "real" / "bert_tiny.onnx"


def designer(tmp_path: Path) -> object:
    """BERT-tiny with profiles and a precision; a copy, since a dirty model is exported from a copy beside it."""
    model = tmp_path / "bert.onnx"
    shutil.copy(BERT, model)
    d = open_designer(model, grouping="none")
    for name in ("input_ids", "attention_mask"):
        d.document.trt.set_optimization_profile(name, [1, 1], [8, 64], [16, 128])
    layer = next(d.document.node_id(n) for n in d.document.model.graph if n.op_type == "MatMul")
    d.document.trt.set_layer_precision([layer], "fp16")
    return d


def test_every_setting_is_in_the_form_and_the_command_carries_the_model(tmp_path: Path) -> None:
    d = designer(tmp_path)
    panel = EXPORT_ENGINE(d)
    assert isinstance(panel, ExportEnginePanel) and d.profiling.children == (panel,)
    assert set(panel.form.fields) == {f.name for f in dataclasses.fields(TrtSettings)}
    panel.form.tactics["typing"].value = "Obey precision constraints"
    panel.form.tactics["fp16"].value = True
    data = panel.show_command()
    assert data is not None and panel.error.value == ""
    command = panel.command.value
    assert "--minShapes=input_ids:1x1,attention_mask:1x1" in command.replace("'", "")
    assert "--fp16" in command and "--precisionConstraints=obey" in command and "--layerPrecisions=" in command


def test_unavailable_reason_disables_export_and_errors_show_in_the_panel(tmp_path: Path) -> None:
    panel = ExportEnginePanel(designer(tmp_path))
    reason = runtime_named("tensorrt").available()
    assert reason is not None  # TensorRT cannot be installed in this workplace
    assert panel.export_button.disabled and reason in panel.unavailable.value.replace("&#x27;", "'")
    assert panel.run() is None and "unavailable:" in panel.error.value
    panel.form.tactics["int8"].value = True
    panel.form.tactics["fp8"].value = True  # exclusive: ticking FP8 clears INT8
    assert not panel.form.tactics["int8"].value
    panel.form.version.dropdown.value = "custom"  # "Custom path…" with no path given
    assert panel.show_command() is None and "settings.tensorrt_path" in panel.error.value


def test_profile_panel_backend_choice_shows_tensorrt_pages_and_why_it_cannot_run(tmp_path: Path) -> None:
    from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings
    from dld_jupyter.frontdoor.operations import PROFILE

    d = designer(tmp_path)
    panel = PROFILE(d)
    assert panel.trt.box.layout.display == "none" and "ONNX Runtime" in panel.title.value
    panel.backend.value = "TensorRT"
    assert panel.grid.layout.display == "none" and panel.trt.box.layout.display == ""
    assert set(panel.trt.profiler.fields) == {f.name for f in dataclasses.fields(ProfilerSettings)}
    assert set(panel.trt.settings.fields) == {f.name for f in dataclasses.fields(TrtSettings)}
    assert "unavailable:" in panel.trt.box.children[1].value
    assert panel.run() is None and "unavailable:" in panel.error.value
    spec = panel.spec("model.onnx")
    assert spec.KIND == "tensorrt-profile" and spec.profiler.iterations == ProfilerSettings().iterations
