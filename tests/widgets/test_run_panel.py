"""The one run panel and the artifact policy (issue 25): the Export panel's "open the metadata as an engine graph
after export" opens the layer information through frontdoor/artifacts.py (it was read by nothing before), an
unticked box opens nothing, the target chooser offers Local (a list the remote targets extend), and the artifact
policy acts on reports, layer information and models the same way for every front door. TensorRT cannot run here:
the export replays recorded real outputs (tests/activities/trt_standin.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dld_jupyter as dld
import dld_jupyter.widgets  # installs the viewers the artifact policy shows with
from dld_jupyter.activities.targets.local import LocalTarget
from dld_jupyter.frontdoor.artifacts import ARTIFACTS
from dld_jupyter.widgets.engine.engine_designer import EngineDesigner
from dld_jupyter.widgets.runs import targets
from tests.activities.test_trt_pipeline import STANDIN, _sample_model
from tests.activities.trt_standin import ENGINE_MAGIC

TRT = Path(__file__).resolve().parents[1] / "data" / "trt"


def test_export_opens_the_layer_information_as_an_engine_graph_when_ticked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DLD_TENSORRT_RUNTIME", STANDIN)
    panel = dld.open(str(_sample_model(tmp_path))).export_engine_panel()
    assert panel.open_metadata.value is True and panel.export_button.disabled is False
    assert panel.target.options == ("Local", "+ New connection…") and isinstance(panel.chosen_target(), LocalTarget)
    panel.metadata.value = str(tmp_path / "resnet50.trt.json")
    panel.form.tactics["fp16"].value = True
    assert panel.run() is not None
    result = panel.wait(180)
    assert result is not None and result.ok, result and result.error
    assert Path(panel.engine.value).read_bytes() == ENGINE_MAGIC
    graphs = [child for child in panel.artifacts_area.children if isinstance(child, EngineDesigner)]
    assert len(graphs) == 1 and graphs[0].canvas.title == "resnet50.trt.json"
    assert panel.phase.value.startswith("done in") and "layer information" in panel.phase.value

    panel.open_metadata.value = False  # unticked: the layer information is written, not opened
    assert panel.run() is not None
    result = panel.wait(180)
    assert result is not None and result.ok and result.artifacts["layer_info"] == panel.metadata.value
    assert not any(isinstance(child, EngineDesigner) for child in panel.artifacts_area.children)


def test_target_choices_are_a_list_the_remote_targets_extend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(targets, "TARGETS", dict(targets.TARGETS))
    with pytest.raises(ValueError, match="already offered"):
        targets.add_target("Local", LocalTarget)
    targets.add_target("Elsewhere", LocalTarget)
    assert targets.target_labels() == ["Local", "Elsewhere"]
    with pytest.raises(ValueError, match=r"not offered; choose one of \['Local', 'Elsewhere'\]"):
        targets.make_target("Mars")


class _Tab:
    """A designer as a JupyterLab tab hands it to the artifact policy: it opens reports in a tab and shows heat."""

    def __init__(self) -> None:
        self.tabs: list[str] = []
        self.heat: list[str] = []

    def open_report_tab(self, path: str) -> bool:
        self.tabs.append(path)
        return True

    def show_heat(self, path: str) -> None:
        self.heat.append(path)


def test_artifact_policy_report_layer_info_and_model(tmp_path: Path) -> None:
    tab = _Tab()
    report = str(tmp_path / "m.dld-report.json")
    (opened,) = ARTIFACTS.act({"report": report}, tab)
    assert opened.shown is None and opened.note == "opened in its own tab" and opened.error is None
    assert tab.tabs == [report] and tab.heat == [report]  # the heat goes on the designer the run came from

    layer_info = str(TRT / "tf-resnet50-rtx3090-fp16.engine.graph.json")
    model = str(Path(dld.__file__).parent / "models" / "resnet8_cifar.onnx")
    engine, graph, designer = ARTIFACTS.act({"model": model, "engine": "/x.engine", "layer_info": layer_info})
    assert (engine.name, engine.note, engine.shown) == ("engine", "written", None)
    assert isinstance(graph.shown, EngineDesigner) and graph.note == "opened as an engine graph"
    assert designer.note == "opened in a new designer"
    assert Path(str(designer.shown.document.path)).name == Path(model).name
    designer.shown.close()  # left open, later tests' report links found it in the registry instead of their own

    (broken,) = ARTIFACTS.act({"layer_info": str(tmp_path / "missing.trt.json")})
    assert broken.shown is None and broken.error is not None and "missing.trt.json could not be opened" in broken.error
    with pytest.raises(ValueError, match="are not artifact names"):
        ARTIFACTS.act({"graph": "x"})
    assert ARTIFACTS.act({"layer_info": layer_info}, skip=("layer_info",)) == []


def test_a_heat_that_fails_is_said_not_raised(tmp_path: Path) -> None:
    class Broken(_Tab):
        def show_heat(self, path: str) -> Any:
            raise RuntimeError("no canvas")

    (opened,) = ARTIFACTS.act({"report": str(tmp_path / "r.json")}, Broken())
    assert opened.error == "The heat could not be shown on the canvas: no canvas"
