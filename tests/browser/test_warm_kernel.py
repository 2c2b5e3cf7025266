"""The warm spare kernel (js/src/lab/warm_kernel.ts, setting warmKernel, issue 42): a designer tab opened by a
double-click no longer waits for a kernel to start and for dld_jupyter to be imported (the most of its 2.4 s
against Netron's 1.3 s). JupyterLab keeps one spare kernel warm; a double-clicked model opens on it, in its own
folder as a kernel started for it would be, a new spare follows, and nothing piles up: closing the tab shuts its
kernel down, a reload leaves exactly one spare, and with the setting off no spare is ever started. A tab on the
spare shares its kernel with the reports it opens, still goes stale when its kernel stops, and Reopen gives it a
kernel again.

On a server of its own (the other browser tests run with the spare off by default: tests/browser/jupyter_server.py).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from dld_jupyter.report_format.io import save_report
from dld_jupyter.reports.open import open_report
from tests.browser.conftest import REPO
from tests.browser.console_errors import expect_console_error
from tests.browser.jupyter_server import JupyterServer, start_server
from tests.browser.tab_driver import (
    TAB,
    current_tab_kernel,
    current_tab_value,
    double_click,
    kernel_ids,
    open_workspace,
)

SPARE_PATH = ".dld-jupyter-spare-kernel"  # warm_kernel.ts
SETTINGS = "/lab/api/settings/dld-jupyter:plugin"
MODEL = REPO / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"
TRT = REPO / "tests" / "data" / "trt"


@pytest.fixture(scope="module")
def warm_jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    root = tmp_path_factory.mktemp("warm-root")
    server = start_server(root, REPO / "test-artifacts" / "jupyter-warm", warm_kernel=True)
    yield server
    server.stop()


def spare_state(page: Page, state: str, timeout_ms: int = 120_000) -> None:
    page.wait_for_function(f"() => document.body.dataset.dldSpareKernel === '{state}'", timeout=timeout_ms)


def spare_kernels(server: JupyterServer) -> list[str]:
    """The kernels of the sessions at the spare's path."""
    sessions = server.api("/api/sessions")
    assert isinstance(sessions, list)
    return [str(s["kernel"]["id"]) for s in sessions if s["path"] == SPARE_PATH]


def wait_for(what: str, check: Any, timeout_s: float = 60) -> Any:
    """Poll `check()` until it returns something true; fail saying `what` with its last value."""
    deadline = time.monotonic() + timeout_s
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(0.25)
        value = check()
    assert value, f"{what}: never true within {timeout_s:.0f} s"
    return value


def only_the_spare(server: JupyterServer) -> str | None:
    """The spare's kernel when it is the one kernel running and the one session at the spare's path."""
    spares = spare_kernels(server)
    return spares[0] if len(spares) == 1 and kernel_ids(server) == {spares[0]} else None


def wait_tab(page: Page, name: str) -> str:
    """Wait until the current tab is the designer of `name` with its canvas drawn; its kernel id."""
    page.wait_for_function(
        """(name) => { const w = window.jupyterapp.shell.currentWidget;
            return !!w && w.title.label === name && !!w.sessionContext?.session?.kernel &&
                [...w.node.querySelectorAll('.dld-canvas *')]
                    .some(e => e._cyreg && e._cyreg.cy.nodes().length >= 20); }""",
        arg=name, timeout=90_000)
    return current_tab_kernel(page)


def close_current(page: Page, left: int = 0) -> None:
    """Close the current tab (its kernel shut down) and wait until `left` designer tabs are left."""
    page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
    expect(page.locator(TAB)).to_have_count(left, timeout=60_000)


def test_a_double_clicked_model_opens_on_the_warm_spare_and_leaves_one_spare(
    warm_jupyter: JupyterServer, page: Page
) -> None:
    server = warm_jupyter
    (server.root_dir / "models").mkdir(exist_ok=True)
    shutil.copy(MODEL, server.root_dir / "models" / "warm.onnx")
    server.delete_sessions()
    workspace = open_workspace(page, server)
    spare_state(page, "ready")
    [spare] = spare_kernels(server)
    assert kernel_ids(server) == {spare}, "one spare kernel, nothing else"

    double_click(page, "models")
    double_click(page, "warm.onnx")
    assert wait_tab(page, "warm.onnx") == spare, "the tab opened on the warm spare"
    assert current_tab_value(page, "__import__('dld_jupyter.lab.spare_kernel').lab.spare_kernel._root") is not None, \
        "the spare was warmed before the tab took it"
    # in the model's folder, as a kernel started for the tab would be (the tab gives it paths relative to it)
    assert Path(current_tab_value(page, "__import__('os').getcwd()")) == server.root_dir / "models"
    sessions = server.api("/api/sessions")
    assert isinstance(sessions, list)
    assert [s["path"] for s in sessions if s["kernel"]["id"] == spare] == ["models/warm.onnx"]

    # the shared kernel: a report the designer opens (as after a profile) joins it, found from its new folder
    report = open_report(TRT / "tf-resnet50-rtx3090-fp16.engine.profile.json")
    save_report(report, server.root_dir / "models" / "warm.dld-report.json")
    page.evaluate("""() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.requestExecute(
        {code: "_dld_view.open_report_tab('warm.dld-report.json')", silent: true, store_history: false}).done""")
    expect(page.locator(f"{TAB} .dld-report").first).to_be_visible(timeout=90_000)
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.title.label === 'warm.dld-report.json'")
    assert current_tab_kernel(page) == spare, "the report tab shares the designer's kernel"
    close_current(page, 1)  # the report's tab; the designer and its kernel stay

    # a new spare follows the tab, and only one
    spare_state(page, "ready")
    [second] = wait_for("a new spare besides the tab's kernel", lambda: spare_kernels(server))
    assert second != spare
    assert kernel_ids(server) == {spare, second}

    # the tab's kernel stops: the tab goes stale as on a kernel of its own, and Reopen takes the next spare
    expect_console_error(page, r"Canceled future for (debug_request|create_subshell_request) message")
    server.api(f"/api/kernels/{spare}", method="DELETE")
    expect(page.locator(f"{TAB} .dld-StaleBanner")).to_be_visible(timeout=60_000)
    page.locator(f"{TAB} .dld-StaleBanner button", has_text="Reopen").click()
    expect(page.locator(f"{TAB} .dld-StaleBanner")).to_have_count(0, timeout=60_000)  # the stale tab closed
    assert wait_tab(page, "warm.onnx") == second, "Reopen opened on the next spare"
    spare_state(page, "ready")

    # closing the tab shuts its kernel down; the spare stays
    close_current(page)
    third = wait_for("the spare as the one kernel left", lambda: only_the_spare(server))
    assert third not in (spare, second)

    # a reload: the page's spare is shut down as it goes, the new page warms one; never two. (Once the workspace
    # knows the tab is closed: JupyterLab would restore it, on a kernel of its own, as a console of its last layout.)
    wait_for("the closed tab gone from the workspace",
             lambda: "warm.onnx" not in str(server.api(f"/lab/api/workspaces/{workspace}")))
    page.reload()
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=90_000)
    spare_state(page, "ready")
    wait_for("one spare after the reload, and nothing else", lambda: only_the_spare(server))
    assert len(spare_kernels(server)) == 1


def test_with_the_setting_off_no_spare_is_started(warm_jupyter: JupyterServer, page: Page) -> None:
    server = warm_jupyter
    for name in ("cold1.onnx", "cold2.onnx"):
        shutil.copy(MODEL, server.root_dir / name)
    server.delete_sessions()
    server.api(SETTINGS, method="PUT", body={"raw": json.dumps({"warmKernel": False})})
    try:
        open_workspace(page, server)
        spare_state(page, "off")  # the settings were read
        opened = []
        for name in ("cold1.onnx", "cold2.onnx"):
            double_click(page, name)
            opened.append(wait_tab(page, name))
            assert not spare_kernels(server), "no spare kernel with the setting off"
        assert kernel_ids(server) == set(opened) and len(set(opened)) == 2, "each tab started a kernel of its own"
        # closing shuts each tab's kernel down on purpose (JupyterLab's debugger logs its cut request)
        expect_console_error(page, r"Canceled future for (debug_request|create_subshell_request) message")
        close_current(page, 1)
        page.locator("li.lm-TabBar-tab", has_text="cold1.onnx").click()
        close_current(page)
        wait_for("no kernel left", lambda: not kernel_ids(server))
        assert page.evaluate("() => document.body.dataset.dldSpareKernel") == "off"
    finally:
        server.api(SETTINGS, method="PUT", body={"raw": "{}"})
