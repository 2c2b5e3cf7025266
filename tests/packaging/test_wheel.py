"""The wheel is what users install on a hub: it must carry the built front end and need no Node.js.

Builds the wheel from this checkout (the front end is already built by the setup script), checks its contents,
installs it into an empty virtualenv whose PATH holds nothing but that venv (so no node/npm), and asks
`jupyter labextension list` whether the prebuilt extension is enabled and OK.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXPECTED = [
    "share/jupyter/labextensions/dld-jupyter/package.json",
    "share/jupyter/labextensions/dld-jupyter/install.json",
    "share/jupyter/labextensions/dld-jupyter/schemas/dld-jupyter/plugin.json",
    "dld_jupyter/static/canvas.js",
    "dld_jupyter/static/canvas.css",
    "dld_jupyter/static/report.js",
    "dld_jupyter/models/resnet8_cifar.onnx",
    "dld_jupyter/report_format/schema/dld-report.schema.json",
    "dld_jupyter/static/THIRD-PARTY-NOTICES.txt",  # the bundles' minified copies lost their notices
    "dld_jupyter/py.typed",
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        check=True,
        cwd=REPO,
    )
    (path,) = out.glob("dld_jupyter-*.whl")
    return path


def test_wheel_carries_the_built_front_end(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    data = [name.split(".data/data/", 1)[-1] if ".data/data/" in name else name for name in names]
    missing = [item for item in EXPECTED if item not in data]
    assert not missing, f"missing from {wheel.name}: {missing}"
    assert any(re.search(r"labextensions/dld-jupyter/static/remoteEntry\.[0-9a-f]+\.js$", n) for n in names)
    assert not any("node_modules" in n or n.endswith(".ts") for n in names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "the Apache-2.0 LICENSE file"
    notices = zipfile.ZipFile(wheel).read("dld_jupyter/static/THIRD-PARTY-NOTICES.txt").decode()
    assert "cytoscape" in notices and "Permission is hereby granted" in notices  # cytoscape.js's MIT notice


@pytest.mark.slow
def test_wheel_installs_without_node_and_the_extension_is_ok(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "JUPYTER_PATH")}
    env["PATH"] = str(bin_dir)  # nothing else: no node, no npm
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel), "jupyterlab>=4.6,<4.7"], check=True, env=env, cwd=tmp_path)
    def venv_run(*args: str) -> str:
        """Run the fresh venv's python with `args`; stdout and stderr, colour codes removed."""
        done = subprocess.run([str(bin_dir / "python"), *args], check=True, env=env, cwd=tmp_path,
                              capture_output=True, text=True)
        return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)

    text = venv_run("-m", "jupyter", "labextension", "list")
    line = next((row for row in text.splitlines() if "dld-jupyter" in row and "enabled" in row), "")
    assert "enabled" in line and "OK" in line, text
    assert str(env_dir) in text  # installed into the venv's share/jupyter, not linked to the checkout
    probe = venv_run("-c", "import dld_jupyter, dld_jupyter.widgets.canvas.canvas as c; print(c.__file__)")
    assert str(env_dir) in probe
    # The server extension (kernel websockets with TCP_NODELAY) is enabled by the wheel's jupyter-config file.
    text = venv_run("-m", "jupyter", "server", "extension", "list")
    assert re.search(r"dld_jupyter\s+enabled", text) and re.search(r"dld_jupyter \S+ OK", text), text
