"""Fixtures for browser tests: one real JupyterLab per session, a fresh Chromium page per test."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.console_errors import check, collect
from tests.browser.jupyter_server import JupyterServer, start_server

CHROMIUM = os.environ.get("DLD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
REPO = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call":
        item.stash[FAILED] = report.failed


FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (apt-get install chromium)")
    root = tmp_path_factory.mktemp("lab-root")
    server = start_server(root, REPO / "test-artifacts" / "jupyter")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    page = context.new_page()
    console_errors = collect(page)
    yield page
    failed = request.node.stash.get(FAILED, False)
    if failed:  # what the page showed when the test failed
        from tests.browser.notebook_driver import screenshot

        screenshot(page, f"FAILED-{request.node.name}")
        print("browser console errors:", *console_errors[-20:], sep="\n  ")
    # What the test left, taken before the page closes: closing drops kernel connections with requests in flight,
    # which JupyterLab logs ("Canceled future ...") on the way out, unseen by anyone.
    left = None if failed else check(page, request.node.nodeid, REPO / "test-artifacts")
    context.close()
    if "jupyter" in request.fixturenames:  # stop this test's kernels: later tests get the cores and memory
        request.getfixturevalue("jupyter").delete_sessions()
    if left:
        pytest.fail(left, pytrace=False)
