"""Analysis on an SSH target (issue 37), against the real OpenSSH server on loopback (fixtures in conftest): the
analysis worker runs in the target's deployment, the debugger stops at a breakpoint by ONNX name there, and the
values that come back (a tensor at the stop, the outputs, after new inputs too) equal a local analysis's, on the
real MobileNetV3 export; the designer's panel launched on the target shows the same Channel Inspector values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.frontdoor.analysis import analyse
from dld_jupyter.widgets.designer.designer import open_designer

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def test_analysis_on_the_target_equals_local(deployed: SshTarget) -> None:
    model = onnx.load(str(MODEL), load_external_data=False)
    image = np.random.default_rng(5).standard_normal((1, 3, 96, 96)).astype(np.float32)
    conv = [n.name for n in model.graph.node if n.op_type == "Conv"][3]
    seen = {}
    for where, target in (("local", "local"), ("remote", deployed)):
        with analyse(MODEL, inputs={"input": image}, target=target) as a:
            a.add_breakpoint(conv)
            stop = a.run()
            assert stop is not None and stop.name == conv
            seen[where] = [a.tensor(conv), a.outputs()["logits"]]
            a.set_inputs({"input": image[:, :, ::-1].copy()})  # the NPZ travels in the request to the target
            seen[where].append(a.outputs()["logits"])
            assert (a.target is None) == (where == "local")
            assert type(a.activity.target).__name__ == ("LocalTarget" if where == "local" else "SshTarget")
    for local, remote in zip(seen["local"], seen["remote"], strict=True):
        assert np.array_equal(local, remote)
    assert not np.array_equal(seen["local"][1], seen["local"][2])


def test_designer_panel_on_the_target_inspects_the_same_values(deployed: SshTarget) -> None:
    shown = []
    for target in (None, deployed):
        d = open_designer(MODEL)
        try:
            analysis = d.launch_analysis({"input": "zeros"}, target=target)
            assert analysis is not None and analysis.target is target
            panel = d._analysis_panel
            conv = next(d.document.node_id(n) for n in d.document.model.graph if n.op_type == "Conv")
            request = {"kind": "overlay", "overlay": "analysis", "action": "add_breakpoint", "id": conv}
            panel.overlay.receive(request, [])
            assert analysis.position_id == conv and panel.error.value == ""
            shown.append((bytes(panel.inspector.data), dict(panel.inspector.meta)))
        finally:
            d.stop_analysis()
            d.close()
    assert shown[0] == shown[1] and shown[0][0]
