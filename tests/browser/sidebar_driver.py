"""The DL Designer sidebar in a browser test: show it, and wait for its layer list with a failure that says which side
failed. "Locator expected to contain text '29 of 29 layers'" alone never told whether the sidebar followed another
tab, never reached the kernel (no dld_jupyter, a registration or comm open unanswered) or asked and got no answer
(js/src/lab/connection.ts writes where its binding stands into the panel's data-connection)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

PANEL = "#dld-jupyter-sidebar"

STATE = """() => {
    const panel = document.querySelector('#dld-jupyter-sidebar');
    const current = window.jupyterapp.shell.currentWidget;
    const kernel = current && current.sessionContext && current.sessionContext.session
        && current.sessionContext.session.kernel;
    return {
        follows: panel ? panel.dataset.follows : '(no sidebar)',
        current: current ? current.id : null,
        connection: panel ? panel.dataset.connection : null,
        status: panel ? panel.querySelector('.dld-Sidebar-status').textContent : null,
        error: panel ? panel.querySelector('.dld-Sidebar-error').textContent : null,
        kernel: kernel ? kernel.status + '/' + kernel.connectionStatus : null,
        visible: !!panel && panel.offsetParent !== null,
    };
}"""


def open_sidebar(page: Page) -> None:
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    expect(page.locator(PANEL)).to_be_visible()


def sidebar_state(page: Page) -> str:
    """Where the sidebar stands, for a failure message: the tab it follows against the current one, its binding,
    the text it shows and the current tab's kernel."""
    state = page.evaluate(STATE)
    return ", ".join(f"{key}={value!r}" for key, value in state.items())


def expect_layers(page: Page, text: str, timeout_ms: float) -> None:
    """Wait until the layer explorer's count shows `text`; on timeout, fail saying which side failed."""
    try:
        expect(page.locator(f"{PANEL} .dld-Explorer-count")).to_contain_text(text, timeout=timeout_ms)
    except AssertionError as error:
        raise AssertionError(f"the sidebar never showed {text!r}: {sidebar_state(page)}\n{error}") from None
