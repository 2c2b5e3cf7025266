"""Remote Connections in a real JupyterLab (issue 27): from a DL Designer tab, the "Remote Connections…" command
opens the panel in the designer's dock; a new connection to the loopback sshd (tests/remote/conftest.py) is
tested, its unknown host key shown by SHA256 fingerprint and accepted; the Profile panel's target chooser then
offers it and the designer's model is profiled there, the report tab opening; a local profile after it keeps both
reports, each tab saying where its run ran (issue 42). The server runs with its own HOME
and settings folder, so known_hosts and targets.json are the test's. Screenshots:
test-artifacts/screenshots/remote_connections_*.png.
"""

from __future__ import annotations

import getpass
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer, start_server
from tests.browser.notebook_driver import open_from_file_browser, run_in_kernel, screenshot
from tests.browser.tab_driver import TAB, open_workspace, profile_from_tab, wait_canvas
from tests.remote.conftest import Sshd, ssh_keys, sshd  # noqa: F401 (the loopback sshd fixtures)

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
PANEL = f"{TAB} .dld-dock .dld-connections-panel"


@pytest.fixture
def own_home_server(tmp_path: Path) -> Iterator[JupyterServer]:
    home = tmp_path / "home"
    home.mkdir()
    server = start_server(tmp_path / "root", tmp_path / "logs",
                          env={"HOME": str(home), "DLD_CONFIG_DIR": str(home / "dld-config")})
    yield server
    server.delete_sessions()
    server.stop()


def field(label: str) -> str:
    return f"{PANEL} .widget-inline-hbox:has(label:text-is('{label}')) input"


def test_add_accept_and_profile_on_a_new_connection(own_home_server: JupyterServer, sshd: Sshd, page: Page) -> None:  # noqa: F811
    jupyter = own_home_server
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, MODEL.name, "Open With DL Designer")
    wait_canvas(page, 20)
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:manage-connections')", timeout=60_000)
    page.evaluate("() => window.jupyterapp.commands.execute('dld:manage-connections')")
    page.wait_for_selector(PANEL, timeout=30_000)

    page.fill(field("Host"), "127.0.0.1")
    page.fill(field("Port"), str(sshd.port))
    page.fill(field("User"), getpass.getuser())
    page.fill(field("Key file"), str(sshd.client_key))
    page.fill(field("Deploy dir"), str(sshd.folder.parent / "deploy"))
    page.fill(field("Name"), "loopback gpu")
    page.locator(f"{PANEL} button", has_text="Test connection").click()
    fingerprint = page.locator(f"{PANEL} .dld-host-fingerprint")
    expect(fingerprint).to_have_text(sshd.fingerprint, timeout=60_000)
    screenshot(page, "remote_connections_fingerprint", PANEL)
    assert not (Path(jupyter.root_dir).parent / "home" / ".ssh" / "known_hosts").exists()
    page.locator(f"{PANEL} button", has_text="Accept").click()
    expect(page.locator(PANEL)).to_contain_text("saved as loopback gpu", timeout=60_000)
    expect(page.locator(f"{PANEL} .dld-connection-row")).to_contain_text(f"127.0.0.1:{sshd.port}")
    known = Path(jupyter.root_dir).parent / "home" / ".ssh" / "known_hosts"
    # One line for this host and key, hashed when the system ssh_config says HashKnownHosts yes (Debian's does):
    # ssh-keygen -F finds it either way.
    found = subprocess.run(["ssh-keygen", "-F", f"[127.0.0.1]:{sshd.port}", "-f", str(known)], capture_output=True,
                           text=True)
    assert found.returncode == 0 and sshd.known_hosts_line.split()[2] in found.stdout
    assert len(known.read_text().splitlines()) == 1
    screenshot(page, "remote_connections_saved", PANEL)

    page.locator(f"{TAB} button", has_text="Profile").first.click()
    page.wait_for_selector(f"{TAB} .dld-dock .dld-profile-panel", timeout=30_000)
    chooser = page.locator(f"{TAB} .dld-profile-panel .widget-dropdown:has(label:text-is('Target')) select")
    expect(chooser.locator("option")).to_have_text(["Local", "loopback gpu", "+ New connection…"])
    chooser.select_option("loopback gpu")
    profile_from_tab(page, timeout_ms=400_000)  # the first run deploys on the target
    screenshot(page, "remote_connections_report")

    # Issue 42: a local profile of the same model after the remote one keeps both reports (the default name was
    # taken by the remote report, which a local run silently replaced), and each report tab says where it ran.
    root = Path(jupyter.root_dir)
    remote = root / "mobilenet_v3_small_w05.dld-report.json"
    assert json.loads(remote.read_text())["system"]["target"] == "loopback gpu"
    kept = remote.read_bytes()
    page.locator(".lm-TabBar-tab", has_text=MODEL.name).first.click()
    page.wait_for_function("(label) => window.jupyterapp.shell.currentWidget.title.label === label",
                           arg=MODEL.name, timeout=30_000)
    chooser.select_option("Local")
    run_in_kernel(page, "_f = _dld_view.profiling.children[0].fields\n"
                        "_f['iterations'].value, _f['warmup'].value, _f['threads'].value = 5, 1, 1")
    page.locator(f"{TAB} .dld-profile-panel button", has_text="Profile").first.click()
    local = root / "mobilenet_v3_small_w05-2.dld-report.json"
    local_tab = page.locator(".lm-TabBar-tab", has_text=local.name)
    expect(local_tab).to_have_count(1, timeout=240_000)
    assert remote.read_bytes() == kept and "target" not in json.loads(local.read_text())["system"]
    header = page.locator(".dld-report .dld-r-summary-grid:visible", has_text="Median inference time")
    expect(header).to_contain_text("Targetlocal (host ", timeout=60_000)
    screenshot(page, "remote_connections_local_report")
    page.locator(".lm-TabBar-tab", has_text=remote.name).first.click()
    expect(header).to_contain_text("Targetloopback gpu (remote, host ", timeout=60_000)
    screenshot(page, "remote_connections_remote_report")
    assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]
