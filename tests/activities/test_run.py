"""A Run answers requests when its kind is a session: the worker stays alive between requests and answers each with
the front doors' envelope over its stdin and protocol channel. Real worker process, real onnxruntime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, RunFailed, start_activity
from dld_jupyter.activities.runtimes.onnxruntime.inputs import random_feeds
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtSessionSpec


def _expected_outputs(model: Path) -> dict[str, np.ndarray]:
    """What onnxruntime computes in this process on the very inputs the session generates (seed 0)."""
    feeds = random_feeds(onnx.load(str(model), load_external_data=False).graph, None, 0)
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def test_a_session_run_answers_requests_until_closed(resnet_path: Path) -> None:
    run = start_activity(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False)
    try:
        first = run.request("ping")
        assert first["ok"] and first["data"] == {"pong": True} and run.status is ActivityStatus.RUNNING
        timed = run.request("run", {"profiled": True})
        assert timed["ok"] and timed["data"] is not None and float(str(timed["data"]["wall_ms"])) > 0
        outputs = run.request("outputs", {"names": []})
        assert outputs["ok"] and outputs["data"] is not None
        for name, expected in _expected_outputs(resnet_path).items():
            got = outputs["data"][name]
            assert isinstance(got, dict) and got["shape"] == list(expected.shape) and got["dtype"] == "float32"
            assert got["mean"] == pytest.approx(float(expected.astype(np.float64).mean()), rel=1e-4, abs=1e-6)
        wrong = run.request("explode")
        assert not wrong["ok"] and "'explode' is not one of ['close', 'outputs', 'ping', 'run']" in str(wrong["error"])
        missing = run.request("outputs", {"names": ["no_such_output"]})
        assert not missing["ok"] and "no_such_output" in str(missing["error"])
        assert run.request("ping")["ok"]  # a failed request leaves the session serving
        numbers = [first["request"], timed["request"], outputs["request"], wrong["request"]]
        assert numbers == sorted(set(numbers))  # each reply carries its own request's number
        assert run.request("close")["ok"]
        result = run.wait(timeout=30)
    finally:
        run.cancel()
    assert result is not None and result.status is ActivityStatus.SUCCEEDED, result
    assert result.artifacts == {} and result.report_path is None  # a session writes nothing
    assert sorted(p.name for p in resnet_path.parent.iterdir()) == ["resnet.onnx"]


def test_closing_the_input_ends_a_session_and_requests_then_fail(resnet_path: Path) -> None:
    run = start_activity(OrtSessionSpec(model=str(resnet_path), threads=1), remember=False)
    assert run.request("ping")["ok"]
    run.close()
    result = run.wait(timeout=30)
    assert result is not None and result.ok
    with pytest.raises(RunFailed, match="ping: the run is not serving requests: the run has ended"):
        run.request("ping", timeout=5)


def test_a_run_that_is_no_session_refuses_requests(resnet_path: Path) -> None:
    run = start_activity(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1), remember=False)
    with pytest.raises(RunFailed, match="ping: the run is not serving requests: the run has ended \\(succeeded"):
        run.request("ping", timeout=60)
    result = run.wait(timeout=30)
    assert result is not None and result.ok and result.artifacts == {"report": result.report_path}


def test_a_session_that_cannot_open_fails_with_the_reason(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    run = start_activity(OrtSessionSpec(model=str(broken)), remember=False)
    with pytest.raises(RunFailed, match=r"the run has ended \(failed: model: .*broken.onnx is not a readable ONNX"):
        run.request("ping", timeout=60)


def test_a_spec_piped_by_hand_runs_in_the_worker(resnet_path: Path, tmp_path: Path) -> None:
    """`python -m dld_jupyter.activities.worker -` still takes a pretty-printed spec ending at end of input (the engine
    sends one line and keeps stdin open for requests)."""
    output = tmp_path / "piped.dld-report.json"
    spec = OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1, output=str(output))
    assert "\n" in spec.to_json()
    done = subprocess.run(
        [sys.executable, "-m", "dld_jupyter.activities.worker", "-"],
        input=spec.to_json(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f'"artifacts": {{"report": "{output}"}}' in done.stdout and output.is_file()
