"""A user tool run on unsaved edits leaves no copy of the model behind (issue 26, item 6): the tool reads a copy
in a private temporary folder, removed when the run ends, whether the tool succeeds, fails or is cancelled (a
44 MB copy of ResNet-18 stayed after every run before)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from dld_jupyter.usertools import UserTool, save_tools
from dld_jupyter.widgets.designer.designer import open_designer

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture(autouse=True)
def lab_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DLD_CONFIG_DIR", raising=False)
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "lab"))


@pytest.mark.parametrize("exit_code", [0, 3])
def test_the_copy_of_unsaved_edits_is_removed_after_the_run(tmp_path: Path, exit_code: int) -> None:
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", tmp_path / "m.onnx")
    designer = open_designer(tmp_path / "m.onnx", grouping="none")
    script = tmp_path / "read.py"
    script.write_text(f"import os, sys\nprint('size', os.path.getsize(sys.argv[1]))\nsys.exit({exit_code})\n")
    save_tools([UserTool("Read", sys.executable, [str(script), "$Model"])])
    designer.document.add_node("Relu")  # unsaved edits: the tool reads a saved copy
    before = set(Path(tempfile.gettempdir()).glob("dld_tool_model_*"))
    run = designer.tools_panel("run_user_tool", tool="Read")
    outcome = run.wait(60)
    assert outcome is not None and outcome.exit_code == exit_code and "size " in run.stream.value
    copy = Path(next(line for line in run.stream.value.splitlines() if "a saved copy" in line).split(", ")[1].split(
        " (the document")[0])
    assert copy.name == "m.onnx" and not copy.exists() and not copy.parent.exists()
    assert set(Path(tempfile.gettempdir()).glob("dld_tool_model_*")) - before == set()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".onnx") == ["m.onnx"]
    assert designer.document.dirty  # the document itself was not saved
