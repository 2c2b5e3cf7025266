"""Where dld_jupyter must keep working (README "Support matrix", issue 26 item 9), each row in a real server and a
real browser: the oldest JupyterLab minor we declare (its own venv), jupyter-collaboration installed (its own venv:
it changes the server and the front end's documents), a front end without our labextension (widgets only, as in
VS Code), and a kernel that cannot see the file it opens (a remote kernel: the file reaches it through the server).
Notebook 7 has its rows in test_lab_extension.py and test_default_open.py.

The extra venvs are overlays of the project's .venv (a .pth adds its site-packages after their own), so each
installs only what differs; they are made once under test-artifacts/venvs/ and reused."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.console_errors import expect_console_error
from tests.browser.jupyter_server import JupyterServer, start_server
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
OLDEST_JUPYTERLAB = "4.1"  # the oldest minor in js/package.json and pyproject.toml; README "Support matrix"
MAIN_SHARE = Path(sys.prefix) / "share" / "jupyter"  # our labextension (develop link), ipywidgets', anywidget's
MAIN_CONFIG = Path(sys.prefix) / "etc" / "jupyter"  # our server extension's enablement


def overlay_venv(name: str, requirements: list[str]) -> Path:
    """A venv that sees the project's packages but installs `requirements` over them; made once, reused."""
    folder = ARTIFACTS / "venvs" / name
    python = folder / "bin" / "python"
    stamp = folder / "requirements.txt"
    if python.exists() and stamp.exists() and stamp.read_text() == "\n".join(requirements):
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    main_site = sysconfig.get_path("purelib")  # addsitedir also runs its .pth files (our editable install)
    (Path(site) / "_dld_project_venv.pth").write_text(f"import site; site.addsitedir({main_site!r})\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
                   check=True)
    stamp.write_text("\n".join(requirements))
    return python


def overlay_env() -> dict[str, str]:
    """What an overlay's server must see of the project venv: labextensions, server-extension config."""
    return {"JUPYTER_PATH": str(MAIN_SHARE), "JUPYTER_CONFIG_PATH": str(MAIN_CONFIG)}


@pytest.fixture
def servers() -> Iterator[list[JupyterServer]]:
    started: list[JupyterServer] = []
    yield started
    for server in started:
        server.delete_sessions()
        server.stop()


def lab_version(page: Page) -> str:
    return str(page.evaluate("() => window.jupyterapp.version"))


def open_model_in_tab(page: Page, server: JupyterServer, path: str) -> None:
    open_workspace(page, server)
    page.wait_for_function("() => window.jupyterapp.commands.hasCommand('dld:open-file')", timeout=60_000)
    page.evaluate("(path) => { void window.jupyterapp.commands.execute('dld:open-file', {path}); }", path)


def dld_errors(page: Page) -> list[str]:
    return [e for e in getattr(page, "console_errors", []) if "dld" in e.lower() or "designer" in e.lower()]


def test_oldest_jupyterlab_opens_a_model_in_a_designer_tab(tmp_path: Path, page: Page,
                                                           servers: list[JupyterServer]) -> None:
    python = overlay_venv(f"jupyterlab-{OLDEST_JUPYTERLAB}", [f"jupyterlab=={OLDEST_JUPYTERLAB}.*"])
    # Known, not yet fixed: the oldest JupyterLab's module federation cannot hand our rspack-built extension its
    # @jupyterlab/docregistry (RUNTIME-012). What this test proves (a model opens in a designer tab, the sidebar
    # activates) works regardless; the error is allowed here only, by its message.
    expect_console_error(page, r"The getter for the shared module is not a function")
    root = tmp_path / "root"
    root.mkdir()
    (root / "old_lab.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    server = start_server(root, ARTIFACTS / "jupyter", python=str(python), env=overlay_env())
    servers.append(server)
    open_model_in_tab(page, server, "old_lab.onnx")
    assert lab_version(page).startswith(OLDEST_JUPYTERLAB + "."), lab_version(page)
    wait_canvas(page, 20)
    expect(page.locator("li.lm-TabBar-tab", has_text="old_lab.onnx")).to_have_count(1)
    expect(page.locator("#dld-jupyter-sidebar")).to_have_count(1)  # the sidebar plugin activated too
    screenshot(page, f"support_jupyterlab_{OLDEST_JUPYTERLAB}")
    assert not dld_errors(page), dld_errors(page)


def test_with_jupyter_collaboration_our_documents_stay_plain_and_save(tmp_path: Path, page: Page,
                                                                      servers: list[JupyterServer]) -> None:
    python = overlay_venv("jupyter-collaboration", ["jupyter-collaboration>=4,<5"])
    root = tmp_path / "root"
    root.mkdir()
    model = root / "collab.onnx"
    model.write_bytes(SAMPLE_MODEL.read_bytes())
    server = start_server(root, ARTIFACTS / "jupyter", python=str(python), env=overlay_env())
    servers.append(server)
    extensions = server.api("/lab/api/extensions")
    assert isinstance(extensions, list)
    assert any("docprovider" in str(e.get("name")) for e in extensions), "jupyter-collaboration's front end is on"
    open_model_in_tab(page, server, "collab.onnx")
    wait_canvas(page, 20)
    before = hashlib.sha256(model.read_bytes()).hexdigest()
    run_in_kernel(page, "_dld_view.document.add_node('Relu', name='added_with_collaboration')")
    expect(page.locator("li.lm-TabBar-tab.jp-mod-dirty", has_text="collab.onnx")).to_have_count(1, timeout=30_000)
    page.locator(f"{TAB} .dld-canvas").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    expect(page.locator("li.lm-TabBar-tab.jp-mod-dirty", has_text="collab.onnx")).to_have_count(0, timeout=30_000)
    saved = onnx.load(str(model))
    assert hashlib.sha256(model.read_bytes()).hexdigest() != before
    assert any(node.name == "added_with_collaboration" for node in saved.graph.node)
    # The model file never became a shared (Y.js) document: no room was opened for it.
    rooms = [line for line in server.log_path.read_text(errors="replace").splitlines() if "collab.onnx" in line
             and "room" in line.lower()]
    assert not rooms, rooms
    screenshot(page, "support_jupyter_collaboration")
    assert not dld_errors(page), dld_errors(page)


def test_widgets_work_without_the_labextension(tmp_path: Path, page: Page, servers: list[JupyterServer]) -> None:
    config = tmp_path / "config"
    (config / "labconfig").mkdir(parents=True)
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": {"dld-jupyter": True}}))
    root = tmp_path / "root"
    root.mkdir()
    (root / "widgets_only.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    server = start_server(root, ARTIFACTS / "jupyter", env={"JUPYTER_CONFIG_DIR": str(config)})
    servers.append(server)
    write_notebook(root / "widgets_only.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('widgets_only.onnx', height='420px')\nd",
    ])
    open_notebook(page, server, "widgets_only.ipynb")
    assert not page.evaluate("() => window.jupyterapp.commands.hasCommand('dld:save')"), "the labextension is off"
    run_all(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.dld-canvas *')].some(e => e._cyreg && e._cyreg.cy.nodes().length > 20)",
        timeout=90_000,
    )
    page.wait_for_selector(".dld-dock .dld-ed-params", timeout=60_000)
    page.locator(".dld-designer button", has_text="Profile").first.click()
    page.wait_for_selector(".dld-dock .dld-profile-panel", timeout=60_000)
    expect(page.locator("#dld-jupyter-sidebar")).to_have_count(0)
    screenshot(page, "support_widgets_only")
    assert not dld_errors(page), dld_errors(page)


def big_model(path: Path) -> None:
    """A valid model of ~10 MB (three 4 MiB chunks): one MatMul by a 1600 × 1600 float weight."""
    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((1600, 1600), np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "far",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1600])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1600])], [weight],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))


def test_a_kernel_that_cannot_see_the_file_gets_it_through_the_server(tmp_path: Path, page: Page,
                                                                      servers: list[JupyterServer]) -> None:
    root, far, share = tmp_path / "root", tmp_path / "kernel-host", tmp_path / "share"
    root.mkdir()
    far.mkdir()
    model = root / "far model.onnx"
    big_model(model)
    # A kernel that works in another folder, as a remote kernel's disk holds none of the server's files.
    launch = (f"import os, sys; os.chdir({str(far)!r}); sys.argv[0] = 'ipykernel'; "
              "from ipykernel.kernelapp import launch_new_instance; launch_new_instance()")
    spec = share / "kernels" / "remote"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-c", launch, "-f", "{connection_file}"],
        "display_name": "Remote (another disk)", "language": "python",
    }))
    server = start_server(root, ARTIFACTS / "jupyter", args=("--MappingKernelManager.default_kernel_name=remote",),
                          env={"JUPYTER_PATH": str(share)})
    servers.append(server)
    copies_before = set(Path(tempfile.gettempdir()).glob("dld-transfer-*"))
    open_model_in_tab(page, server, "far model.onnx")
    wait_canvas(page, 2)
    screenshot(page, "support_remote_kernel")
    expect(page.locator(f"{TAB}", has_text="cannot show")).to_have_count(0)
    copies = [d / "far model.onnx" for d in set(Path(tempfile.gettempdir()).glob("dld-transfer-*")) - copies_before]
    assert len(copies) == 1, copies
    assert copies[0].read_bytes() == model.read_bytes(), "the kernel's copy is the server's file, byte for byte"
    assert dld_errors(page) == [], dld_errors(page)
