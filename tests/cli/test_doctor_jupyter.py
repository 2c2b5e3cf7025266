"""`dld doctor`'s Jupyter side (cli/doctor_jupyter.py) on this real installation: JupyterLab against the support
matrix, the labextension (enabled, or disabled by JupyterLab's page config), the widget manager, the server extension
(enabled, or disabled in Jupyter Server's config, through JUPYTER_CONFIG_PATH as a user's would be); and on a host
without Jupyter (its packages unimportable in a fresh interpreter) one line, exit 0, no traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dld_jupyter.cli.doctor_jupyter import TESTED, lab_line
from dld_jupyter.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _doctor(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["doctor", "--no-targets"]) == 0
    return capsys.readouterr().out


def test_this_installation_is_supported_enabled_and_loaded(capsys: pytest.CaptureFixture[str]) -> None:
    out = _doctor(capsys)
    assert re.search(r"^JupyterLab 4\.\d+\.\d+: supported \(tested 4\.1 – 4\.6\)$", out, re.M), out
    assert re.search(r"^labextension dld-jupyter [\d.]+: enabled \(", out, re.M), out
    assert re.search(r"^widget manager: @jupyter-widgets/jupyterlab-manager \d", out, re.M), out
    assert re.search(r"^server extension dld_jupyter: enabled$", out, re.M), out


def test_disabled_extensions_are_said_with_the_command_that_enables_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "labconfig").mkdir()
    (tmp_path / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {"dld-jupyter": True}}))
    (tmp_path / "jupyter_server_config.d").mkdir()
    (tmp_path / "jupyter_server_config.d" / "off.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"dld_jupyter": False}}}))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path))  # the highest-priority config folder
    out = _doctor(capsys)
    assert "labextension dld-jupyter" in out and "disabled (jupyter labextension enable dld-jupyter)" in out
    assert "server extension dld_jupyter: disabled (jupyter server extension enable dld_jupyter)" in out


def test_versions_against_the_support_matrix() -> None:
    assert "supported" in lab_line("4.6.6") and "supported" in lab_line("4.1.0")
    assert "too old" in lab_line("4.0.11") and "newer than tested" in lab_line("4.7.0")
    assert "not installed" in lab_line(None)


def test_the_matrix_is_the_readmes_and_the_lab_extras() -> None:
    low, high = (f"{major}.{minor}" for major, minor in TESTED)
    assert f"JupyterLab {low} – {high}" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert f'"jupyterlab>={low},<{TESTED[1][0]}.{TESTED[1][1] + 1}"' in (ROOT / "pyproject.toml").read_text()


BLOCKED = ("jupyter_core", "jupyterlab", "jupyter_server", "notebook", "ipywidgets", "anywidget", "ipykernel",
           "IPython", "traitlets", "comm", "nbformat")


def test_without_jupyter_one_line_and_exit_0() -> None:
    code = ("import sys\n"
            f"for name in {BLOCKED!r}:\n    sys.modules[name] = None  # an engine host: none of them installed\n"
            "from dld_jupyter.cli.main import main\nsys.exit(main(['doctor', '--no-targets']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "JupyterLab: not installed (the engine, the CLI" in done.stdout
    assert "Traceback" not in done.stderr and "labextension" not in done.stdout
