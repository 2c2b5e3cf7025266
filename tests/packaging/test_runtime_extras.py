"""Exactly one ONNX Runtime build per install (issue 27, packaging): pip's own resolver, asked with `--dry-run
--report`, installs neither build for a bare `pip install .`, only `onnxruntime` for `[cpu]` and only
`onnxruntime-gpu` (with NVML) for `[gpu]`. Both builds write the same folder, so a runtime in the base
requirements would make `[gpu]` install both, the CPU build's files winning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def resolved(requirement: str, tmp_path: Path) -> set[str]:
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed"]
    command += ["--no-build-isolation", "--disable-pip-version-check", "--report", str(report), requirement]
    env = {**os.environ, "SKIP_JUPYTER_BUILDER": "1"}  # metadata only: no front-end build
    subprocess.run(command, check=True, cwd=REPO, env=env, capture_output=True, timeout=300)
    return {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}


@pytest.mark.parametrize(
    ("extra", "wanted"),
    [("", set()), ("[cpu]", {"onnxruntime"}), ("[gpu]", {"onnxruntime-gpu", "nvidia-ml-py"})],
)
def test_one_runtime_build_per_extra(extra: str, wanted: set[str], tmp_path: Path) -> None:
    names = resolved(f".{extra}", tmp_path)
    assert "dld_jupyter" in names or "dld-jupyter" in names
    runtimes = {name for name in names if name.startswith("onnxruntime") or name == "nvidia-ml-py"}
    assert runtimes == wanted
