"""The engine: worker isolation, cancel, kill, errors, exactly one report file."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import time
from pathlib import Path

import numpy as np
from onnx import numpy_helper

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, Progress, run_activity, start_activity
from dld_jupyter.activities.cache import SettingsStore
from dld_jupyter.activities.targets import LocalTarget

LONG = 1_000_000  # passes: far more than any test waits for


def _wait_for_phase(handle: object, phase: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        progress = handle.progress  # type: ignore[attr-defined]
        if progress is not None and progress.phase == phase:
            return
        assert not handle.done, handle.result  # type: ignore[attr-defined]
        time.sleep(0.02)
    raise AssertionError(f"phase {phase!r} never reached")


def _only_model_left(folder: Path, model: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == [model.name]


def test_progress_logs_and_exactly_one_report(resnet_path: Path) -> None:
    seen: list[Progress] = []
    result = run_activity(
        OrtProfileSpec(model=str(resnet_path), iterations=5, warmup=1, threads=1), on_progress=seen.append
    )
    assert result.status is ActivityStatus.SUCCEEDED and result.exit_code == 0
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert {"loading", "measuring", "profiling"} <= {p.phase for p in seen}
    assert any("inputs:" in line.message for line in result.logs)
    assert sorted(p.name for p in resnet_path.parent.iterdir()) == ["resnet.dld-report.json", "resnet.onnx"]
    remembered = SettingsStore().recall(resnet_path, "onnxruntime-profile")
    assert remembered is not None and remembered["iterations"] == 5


def test_missing_model_and_bad_model_are_bad_input(tmp_path: Path) -> None:
    result = run_activity(OrtProfileSpec(model=str(tmp_path / "none.onnx")))
    assert result.status is ActivityStatus.FAILED and result.error_kind == "bad_input"
    assert "does not exist" in (result.error or "")
    garbage = tmp_path / "bad.onnx"
    garbage.write_bytes(b"this is not a protobuf \x00\xff" * 10)
    result = run_activity(OrtProfileSpec(model=str(garbage), iterations=1, warmup=0))
    assert result.error_kind == "bad_input" and result.exit_code == 2
    assert "not a readable ONNX model" in (result.error or "")
    _only_model_left(tmp_path, garbage)


def test_missing_input_file_is_bad_input(resnet_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "other.pb").write_bytes(numpy_helper.from_array(np.zeros(1, np.float32)).SerializeToString())
    result = run_activity(OrtProfileSpec(model=str(resnet_path), input_folder=str(folder), iterations=1))
    assert result.error_kind == "bad_input"
    assert "lacks" in (result.error or "") and ".pb" in (result.error or "")


def test_unavailable_provider_lists_what_is_available(resnet_path: Path) -> None:
    result = run_activity(OrtProfileSpec(model=str(resnet_path), provider="cuda", iterations=1))
    if result.ok:  # a GPU host with onnxruntime-gpu
        return
    assert result.error_kind == "unavailable" and result.exit_code == 3
    assert "CPUExecutionProvider" in (result.error or "")


def test_cancel_a_long_run(resnet_path: Path) -> None:
    handle = start_activity(OrtProfileSpec(model=str(resnet_path), iterations=LONG, warmup=0, threads=1))
    _wait_for_phase(handle, "measuring")
    handle.cancel()
    result = handle.wait(timeout=30)
    assert result is not None and handle.done
    assert result.status is ActivityStatus.CANCELLED and result.report_path is None
    _only_model_left(resnet_path.parent, resnet_path)


def test_killing_the_worker_is_reported_and_the_caller_survives(resnet_path: Path) -> None:
    handle = start_activity(OrtProfileSpec(model=str(resnet_path), iterations=LONG, warmup=0, threads=1))
    _wait_for_phase(handle, "measuring")
    assert handle.pid is not None and handle.pid != os.getpid()
    os.kill(handle.pid, signal.SIGKILL)
    result = handle.wait(timeout=30)
    assert result is not None
    assert result.status is ActivityStatus.FAILED and result.error_kind == "crashed"
    assert "SIGKILL" in (result.error or "") and result.exit_code == -signal.SIGKILL
    _only_model_left(resnet_path.parent, resnet_path)
    # The caller is fine and can run again.
    assert run_activity(OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1)).ok


def test_a_broken_callback_does_not_break_the_run(resnet_path: Path) -> None:
    def explode(_: object) -> None:
        raise RuntimeError("callback bug")

    result = run_activity(
        OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1), on_progress=explode, on_log=explode
    )
    assert result.ok


class CopyingTarget(LocalTarget):
    """A stand-in for a remote target: stages the model into a deployment folder, as the SSH target will."""

    def __init__(self, deploy: Path) -> None:
        self.deploy = deploy

    def stage(self, spec: OrtProfileSpec) -> OrtProfileSpec:
        copy = self.deploy / Path(spec.model).name
        shutil.copy(spec.model, copy)
        return dataclasses.replace(spec, model=str(copy), output=str(self.deploy / "report.json"))

    def cleanup(self, staged: OrtProfileSpec) -> None:
        shutil.rmtree(self.deploy, ignore_errors=True)


def test_targets_plug_in_through_the_protocol(resnet_path: Path, tmp_path: Path) -> None:
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    result = run_activity(
        OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1), target=CopyingTarget(deploy)
    )
    assert result.ok and result.report_path and Path(result.report_path).is_file()
    assert not deploy.exists()
