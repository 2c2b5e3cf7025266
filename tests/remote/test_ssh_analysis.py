"""Analysis on an SSH target (issue 37), against the real OpenSSH server on loopback (fixtures in conftest): the
analysis worker runs in the target's deployment, the debugger stops at a breakpoint by ONNX name there, and the
values that come back (a tensor at the stop, the outputs, after new inputs too) equal a local analysis's, on the
real MobileNetV3 export; the designer's panel launched on the target shows the same Channel Inspector values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.activities.targets.connections import ConnectionStore
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.frontdoor.analysis import analyse
from dld_jupyter.widgets.designer.designer import open_designer
from tests.remote.conftest import Sshd

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
            panel = d.analysis_mode.panel
            conv = next(d.document.node_id(n) for n in d.document.model.graph if n.op_type == "Conv")
            request = {"kind": "overlay", "overlay": "analysis", "action": "add_breakpoint", "id": conv}
            panel.overlay.receive(request, [])
            assert analysis.position_id == conv and panel.error.value == ""
            shown.append((bytes(panel.inspector.data), dict(panel.inspector.meta)))
        finally:
            d.stop_analysis()
            d.close()
    assert shown[0] == shown[1] and shown[0][0]


def test_the_panel_target_chooser_runs_the_analysis_on_a_saved_connection(
    deployed: SshTarget, sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Analysis panel's Target chooser (the run panels' own) lists the saved connection; chosen, the launch runs
    there and the status says so; chosen while analysing locally, the analysis moves there with its breakpoint; the
    values equal the local ones. "+ New connection…" opens Manage Remote Connections in the designer's dock."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts_line)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(home / "config"))
    ConnectionStore().add(sshd.connection(name="loopback", deploy_dir=deployed.connection.deploy_dir))
    d = open_designer(MODEL)
    try:
        panel = d.analysis_mode.show_panel()
        assert panel.targets.dropdown.options == ("Local", "loopback", "+ New connection…")
        local = d.launch_analysis({"input": "zeros"})
        assert local is not None and local.target is None and "Analysis on Local — " in panel.status.value
        conv = next(n.name for n in d.document.model.graph if n.op_type == "Conv")
        local.add_breakpoint(conv)
        logits = local.outputs()["logits"]
        panel.targets.dropdown.value = "loopback"  # while analysing: it moves there
        remote = d.analysis
        assert remote is not None and remote is not local and not local.live
        assert type(remote.activity.target).__name__ == "SshTarget" and remote.target.name == "loopback"
        assert remote.breakpoints == [conv] and "Analysis on loopback — " in panel.status.value
        assert np.array_equal(remote.outputs()["logits"], logits)
        d.stop_analysis()
        panel.targets.dropdown.value = "+ New connection…"
        assert panel.targets.dropdown.value == "loopback" and type(panel.targets.connections).__name__ == \
            "ConnectionsPanel"
        assert d.launch_analysis(target="local").target is None and panel.targets.label == "Local"
    finally:
        d.stop_analysis()
        d.close()
