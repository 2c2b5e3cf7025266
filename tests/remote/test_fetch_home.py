"""Every artifact of a remote run comes home (issue 35, "one door out"), on the real loopback sshd: a profile and a
TensorRT engine export (the stand-in runtime of tests/activities/trt_standin.py on the target) return only local
files, and the remote report names the local model it was made from and the target, so its layers link to the
local model's nodes and its heat shows with no designer open before."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
from dld_jupyter.activities.scheduler import run_activity
from dld_jupyter.activities.targets.deploy import TargetInfo
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.report_format.engine_graph import load_engine_graph
from dld_jupyter.report_format.io import load_report
from tests.activities.test_trt_pipeline import STANDIN, _sample_model
from tests.activities.trt_standin import ENGINE_MAGIC
from tests.remote.test_ssh_target import BUNDLED

ROOT = Path(__file__).resolve().parents[2]


class StandInTarget(SshTarget):
    """The loopback target whose worker builds with the TensorRT stand-in: the deployed package first on its path,
    this checkout's tests after it, and this environment's interpreter (which has what the stand-in imports)."""

    def worker_command(self, info: TargetInfo) -> str:
        q = shlex.quote
        env = (
            f"PYTHONPATH={q(info.folder + '/lib')}:{q(str(ROOT))} PYTHONUNBUFFERED=1 DLD_TARGET={q(self.name)} "
            f"DLD_TENSORRT_RUNTIME={q(STANDIN)}"
        )
        launcher = "dld_jupyter.activities.targets.remote_launcher"
        return f"cd {q(info.folder)} && {env} exec {q(sys.executable)} -m {launcher}"


def _local_files(artifacts: dict[str, str], folder: Path) -> None:
    assert artifacts
    for name, path in artifacts.items():
        assert Path(path).is_file() and Path(path).parent == folder, (name, path)


def test_remote_profile_report_links_to_the_local_model(deployed: SshTarget, tmp_path: Path) -> None:
    assert deployed.info is not None
    model = tmp_path / "mine.onnx"
    shutil.copyfile(BUNDLED, model)
    spec = OrtProfileSpec(model=str(model), iterations=3, warmup=1, output=str(tmp_path / "mine.dld-report.json"))
    result = run_activity(spec, target=deployed, remember=False)
    assert result.ok, result.error
    _local_files(result.artifacts, tmp_path)
    report = load_report(result.artifacts["report"])
    assert report.summary.model_path == str(model)  # not the target's cached copy
    assert report.summary.settings["model"] == str(model)
    assert report.system["target"] == deployed.name and report.system["host"] == deployed.info.host
    from dld_jupyter.widgets.report.report_viewer import ReportViewer

    assert registry.by_path(str(model)) is None  # no designer open on it
    viewer = ReportViewer([report])
    viewer._links._show = lambda designer: None
    layer = next(layer for layer in report.layers if layer.onnx_nodes)
    designer = viewer.open_nodes(layer.onnx_nodes)  # the layer's link opens the local model
    try:
        assert registry.by_path(str(model)) is designer and designer.canvas.selection
        heat = designer.show_heat(result.artifacts["report"])
        assert heat.node_value(layer.onnx_nodes[0], "time") is not None
    finally:
        designer.close()


def test_remote_engine_export_brings_engine_and_layer_information_home(deployed: SshTarget, tmp_path: Path) -> None:
    model = _sample_model(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    engine, layer_info = out / "net.engine", out / "net.trt.json"
    target = StandInTarget(deployed.connection, deployed.policy, deployed.secrets)
    result = run_activity(
        TrtBuildSpec(model=str(model), engine=str(engine), metadata=str(layer_info)), target=target, remember=False
    )
    assert result.ok, (result.error, [line.message for line in result.logs][-5:])
    assert result.artifacts == {"engine": str(engine), "layer_info": str(layer_info)}
    _local_files(result.artifacts, out)
    assert engine.read_bytes() == ENGINE_MAGIC
    assert len(load_engine_graph(layer_info).layers) == 86
    assert sorted(p.name for p in out.iterdir()) == ["net.engine", "net.trt.json"]  # no partial file left


def test_remote_divergence_brings_its_table_and_node_data_home(deployed: SshTarget, tmp_path: Path) -> None:
    """The divergence kind on the target: both models and the inputs NPZ are staged there, the table and the Model
    Explorer node data come home beside where they were asked for, and the table equals a local run's."""
    import json

    import numpy as np
    import onnx

    from dld_jupyter.model_compare.divergence import Divergence, diverge
    from dld_jupyter.model_compare.divergence_kind import OrtDivergeSpec
    from tests import models
    from tests.model_compare.test_structural_diff import with_weight

    model = models.transformer_like(layers=1)
    candidate = with_weight(model, "/layers.0/mlp/up.weight", 0.5)
    onnx.save(model, str(tmp_path / "ref.onnx"))
    onnx.save(candidate, str(tmp_path / "cand.onnx"))
    feeds = {"input_ids": np.random.default_rng(0).integers(0, 128, (1, 16))}
    np.savez(tmp_path / "inputs.npz", **feeds)
    spec = OrtDivergeSpec(model=str(tmp_path / "ref.onnx"), candidate=str(tmp_path / "cand.onnx"),
                          inputs=str(tmp_path / "inputs.npz"), table=str(tmp_path / "table.json"),
                          node_data=str(tmp_path / "nd.json"), window=8)
    result = run_activity(spec, target=deployed, remember=False)
    assert result.ok, result.error
    assert result.artifacts == {"divergence": str(tmp_path / "table.json"), "node_data": str(tmp_path / "nd.json")}
    _local_files(result.artifacts, tmp_path)
    there = Divergence.from_dict(json.loads((tmp_path / "table.json").read_text()))
    here = diverge(model, candidate, inputs=feeds, window=8)
    # the same table; cosine and SQNR (float64 sums) to the last bits the target's numpy may order otherwise
    assert [(r.node, r.tensor, r.over, r.metrics.max_abs) for r in there.rows] == [
        (r.node, r.tensor, r.over, r.metrics.max_abs) for r in here.rows]
    for metric in ("cosine", "sqnr"):
        assert [r.metrics.value(metric) for r in there.rows] == pytest.approx(
            [r.metrics.value(metric) for r in here.rows], rel=1e-9)
    assert there.first is not None and here.first is not None and there.first.node == here.first.node
    assert json.loads((tmp_path / "nd.json").read_text())["results"]
