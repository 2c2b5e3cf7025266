"""Analysis on an SSH target (issue 37), against the real OpenSSH server on loopback (fixtures in conftest): the
analysis worker runs in the target's deployment, the debugger stops at a breakpoint by ONNX name there, and the
values that come back (a tensor at the stop, the outputs, after new inputs too) equal a local analysis's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.frontdoor.analysis import analyse
from tests.models import resnet_like


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def test_analysis_on_the_target_equals_local(deployed: SshTarget, tmp_path: Path) -> None:
    model = resnet_like(2)
    path = tmp_path / "resnet.onnx"
    onnx.save(model, str(path))
    image = np.random.default_rng(5).standard_normal((1, 3, 32, 32)).astype(np.float32)
    conv = next(n.name for n in model.graph.node if n.name.startswith("/layer1/conv2/"))
    seen = {}
    for where, target in (("local", None), ("remote", deployed)):
        with analyse(path, inputs={"input": image}, target=target or "local") as a:
            a.add_breakpoint(conv)
            stop = a.run()
            assert stop is not None and stop.name == conv
            seen[where] = [a.tensor(conv), a.outputs()["logits"]]
            a.set_inputs({"input": image[:, ::-1].copy()})  # the NPZ travels in the request to the target
            seen[where].append(a.outputs()["logits"])
            if target is not None:
                assert a.activity.target is not None and "ssh" in type(a.activity.target).__name__.lower()
    for local, remote in zip(seen["local"], seen["remote"], strict=True):
        assert np.array_equal(local, remote)
    assert not np.array_equal(seen["local"][1], seen["local"][2])
