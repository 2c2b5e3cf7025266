"""Analysis on an SSH target from the JupyterLab UI (issue 37): in a DL Designer tab of the bundled ResNet-8,
Launch Analysis on the toolbar runs it here and the Analysis panel says "Analysis on Local"; Stop, then the panel's
Target chooser (the Profile form's: Local, the saved connections, "+ New connection…") set to a connection saved
for the loopback sshd (tests/remote/conftest.py), and the panel's Launch Analysis runs the analysis worker there
to the end: the status says "Analysis on loopback gpu — Ran to the end" and the Analysis Output shows the same
values as the local run, which equal the kernel's local analysis. The server runs with its own HOME and settings
folder (known_hosts and targets.json are the test's). Screenshots: test-artifacts/screenshots/analysis_target_*.png.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from dld_jupyter.activities.targets.connections import ConnectionStore
from dld_jupyter.activities.targets.ssh import SshTarget
from tests.browser.jupyter_server import JupyterServer, start_server
from tests.browser.notebook_driver import kernel_value, open_from_file_browser, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas
from tests.remote.conftest import Sshd, deployed, known_hosts, ssh_keys, sshd  # noqa: F401 (the loopback sshd)

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
PANEL = f"{TAB} .dld-analysis-panel"
NAME = "loopback gpu"


@pytest.fixture
def saved_target_server(tmp_path: Path, sshd: Sshd, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                        request: pytest.FixtureRequest) -> Iterator[JupyterServer]:
    """A JupyterLab whose HOME knows the sshd's host key and whose settings hold the connection `NAME` (deployed
    already by the session's `deployed` fixture, so the analysis starts without a deployment; asked for once this
    process's cache is the test's, so what a check of the target remembers stays out of the user's)."""
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    target: SshTarget = request.getfixturevalue("deployed")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts_line)
    config = home / "dld-config"
    monkeypatch.setenv("DLD_CONFIG_DIR", str(config))  # the server's too (its env below)
    ConnectionStore().add(sshd.connection(name=NAME, deploy_dir=target.connection.deploy_dir))
    server = start_server(tmp_path / "root", tmp_path / "logs", env={"HOME": str(home), "DLD_CONFIG_DIR": str(config)})
    yield server
    server.delete_sessions()
    server.stop()


def shown_outputs(page: Page) -> list[str]:
    """The Analysis Output's rows as the page shows them (label, score, … per row)."""
    rows = page.locator(f"{PANEL} .dld-ao-table tbody tr")
    return [" | ".join(rows.nth(i).locator("td").all_inner_texts()) for i in range(rows.count())]


def test_analysis_on_a_saved_connection_from_the_panel(saved_target_server: JupyterServer, page: Page) -> None:
    jupyter = saved_target_server
    shutil.copy(MODEL, jupyter.root_dir / MODEL.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, MODEL.name, "Open With DL Designer")
    wait_canvas(page, 20)
    status = page.locator(f"{PANEL} > .widget-html small").first

    page.locator(f"{TAB} .dld-launch-analysis").first.click()  # the toolbar's: here, the chooser's default
    expect(status).to_contain_text("Analysis on Local — Ran to the end", timeout=120_000)
    expect(page.locator(f"{PANEL} .dld-ao-table tbody tr").first).to_be_visible(timeout=60_000)
    local = shown_outputs(page)
    assert local and all(row for row in local), local
    expected = kernel_value(page, jupyter, "_dld_view.analysis.outputs()['logits'].tolist()")

    page.locator(f"{PANEL} .dld-an-launch").click()  # Stop Analysis
    expect(status).to_contain_text("Not analysing", timeout=60_000)
    chooser = page.locator(f"{PANEL} .dld-target-chooser select")
    expect(chooser.locator("option")).to_have_text(["Local", NAME, "+ New connection…"])
    chooser.select_option(NAME)
    deadline = time.monotonic() + 30  # the kernel has the choice before Launch reads it
    while kernel_value(page, jupyter, "_dld_view.analysis_mode.panel.targets.label") != NAME:
        assert time.monotonic() < deadline, "the kernel never got the chosen target"
        page.wait_for_timeout(250)
    page.locator(f"{PANEL} .dld-an-launch").click()  # Launch Analysis, on the target
    expect(status).to_contain_text(f"Analysis on {NAME} — Ran to the end", timeout=300_000)
    expect(page.locator(f"{PANEL} .dld-ao-table tbody tr").first).to_be_visible(timeout=60_000)
    assert shown_outputs(page) == local
    where, remote = kernel_value(page, jupyter, "[type(_dld_view.analysis.activity.target).__name__, "
                                                "_dld_view.analysis.outputs()['logits'].tolist()]")
    assert where == "SshTarget"
    assert np.array_equal(np.asarray(remote, np.float32), np.asarray(expected, np.float32))
    screenshot(page, "analysis_target_remote", PANEL)
    screenshot(page, "analysis_target_tab")
    page.locator(f"{PANEL} .dld-an-launch").click()
    expect(status).to_contain_text("Not analysing", timeout=60_000)
    assert not page.console_errors, page.console_errors  # type: ignore[attr-defined]
