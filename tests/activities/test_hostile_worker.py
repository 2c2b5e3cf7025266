"""The engine trusts nothing a worker says (issue 36, items 1 and 6): a real process in the worker's place
(`hostile_worker.py`) sends malformed messages, names artifacts it was not asked to write, or writes a report that
is too big or not a report. Each run ends (never hangs), says what was wrong, and leaves the previous report as it
was, with no partial file behind."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, run_activity, start_activity
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets import LocalTarget
from dld_jupyter.report_format.io import load_report

HOSTILE = str(Path(__file__).with_name("hostile_worker.py"))


class HostileTarget(LocalTarget):
    """This machine, with `hostile_worker.py MODE REPORT` where the worker would run."""

    def __init__(self, mode: str, report: str = "") -> None:
        self.mode, self.report = mode, report

    def launch(self, staged: ActivitySpec) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, HOSTILE, self.mode, self.report],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert process.stdin is not None
        process.stdin.write(json.dumps(staged.to_dict()) + "\n")
        process.stdin.flush()
        return process


@pytest.fixture
def measured(resnet_path: Path, tmp_path: Path) -> Path:
    """A real report of the model (what a well-behaved worker writes)."""
    path = tmp_path / "measured.json"
    result = run_activity(
        OrtProfileSpec(model=str(resnet_path), iterations=2, warmup=0, threads=1, output=str(path)), remember=False
    )
    assert result.ok, result.error
    return path


def _run(model: Path, output: Path, target: LocalTarget, within: float = 30.0) -> ActivityResult:
    run = start_activity(OrtProfileSpec(model=str(model), output=str(output)), target=target, remember=False)
    result = run.wait(within)
    if result is None:
        run.cancel()
        run.wait(10)
        pytest.fail(f"the run did not end within {within:.0f} s")
    return result


def test_malformed_messages_are_logged_and_the_output_drained(
    resnet_path: Path, measured: Path, tmp_path: Path
) -> None:
    started = time.monotonic()
    result = _run(resnet_path, tmp_path / "out.json", HostileTarget("malformed", str(measured)))
    assert result.ok, result.error
    assert time.monotonic() - started < 30
    warnings = [line.message for line in result.logs if line.level == "warning"]
    assert sum("malformed 'progress' message" in w and "not a number from 0 to 1" in w for w in warnings) == 3
    assert any("malformed 'log' message" in w for w in warnings)
    assert any("malformed 'reply' message" in w for w in warnings)
    assert any("unknown message type 'something else'" in w for w in warnings)
    assert sum(line.level == "stdout" for line in result.logs) == 2000  # every line read: 200 KB after the bad ones
    assert load_report(tmp_path / "out.json").layers


@pytest.mark.parametrize(
    "artifacts",
    [
        {"report": "/etc/shadow"},
        {"report": "../../tmp/x.json"},
        {"report": "{report}", "surprise": "/etc/passwd"},
        {"engine": "{report}/../../etc/hostname"},
    ],
)
def test_artifacts_not_staged_are_refused(
    artifacts: dict[str, str], resnet_path: Path, measured: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.json"
    output.write_bytes(measured.read_bytes())
    before = output.read_bytes()
    result = _run(resnet_path, output, HostileTarget("done:" + json.dumps(artifacts), str(measured)))
    assert result.status is ActivityStatus.FAILED and result.artifacts == {}
    assert "the target named an artifact it was not asked to write" in (result.error or ""), result.error
    assert output.read_bytes() == before
    assert not list(tmp_path.glob(".*partial")) and not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    ("mode", "message"),
    [("big-report", "MiB is more than a report can be"), ("random-report", "is not a valid report")],
)
def test_a_bad_report_never_replaces_the_previous_one(
    mode: str, message: str, resnet_path: Path, measured: Path, tmp_path: Path
) -> None:
    output = tmp_path / "out.json"
    output.write_bytes(measured.read_bytes())
    before = output.read_bytes()
    result = _run(resnet_path, output, HostileTarget(mode))
    assert result.status is ActivityStatus.FAILED and result.error_kind == "failed"
    assert message in (result.error or ""), result.error
    assert output.read_bytes() == before
    assert not list(tmp_path.glob(".*partial"))
