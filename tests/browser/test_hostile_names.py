"""A model whose file and folder names are HTML payloads, opened in a real JupyterLab: in a notebook (`dld.open`,
the Profile panel with a real run and its report, the Export Engine panel) and in designer tabs from the file
browser (the model, a file that is no model, an engine graph). No dialog opens, no element of a payload exists in
the page, and the names are shown as text (issue 31, finding 1).

Before the escaping helper, opening the model ran the payload's `alert` two to three times: the designer's status
line, the Profile panel's title and report path and the Export panel's engine path went into innerHTML as they
were.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from playwright.sync_api import Dialog, Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook
from tests.browser.tab_driver import TAB, open_workspace, wait_canvas

TRT = Path(__file__).resolve().parents[1] / "data" / "trt"
FOLDER = "<img src=x onerror=alert(1)>"
STEM = '"><img src=x class=dld-pwned onerror=alert(2)>&lt;b&gt;'  # "/" cannot be in a file name
INJECTED = "img[src='x'], .dld-pwned, svg[onload], [onerror]"  # what a payload would add to the page


def watch_dialogs(page: Page) -> list[str]:
    """Every alert/confirm/prompt the page opens (dismissed at once, so the test goes on)."""
    opened: list[str] = []

    def record(dialog: Dialog) -> None:
        opened.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", record)
    return opened


def assert_nothing_injected(page: Page, opened: list[str]) -> None:
    page.wait_for_timeout(1500)  # an <img src=x> fails to load a moment later: its onerror would have run by now
    assert opened == [], f"a name ran script: {opened}"
    found = page.evaluate(f"() => [...document.querySelectorAll({json.dumps(INJECTED)})].map(e => e.outerHTML)")
    assert found == [], f"elements from a name reached the page: {found}"


def hostile_model(root: Path) -> Path:
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    model = folder / f"{STEM}.onnx"
    shutil.copy(SAMPLE_MODEL, model)
    return model


def test_a_notebook_shows_hostile_names_as_text(jupyter: JupyterServer, page: Page) -> None:
    model = hostile_model(jupyter.root_dir)
    opened = watch_dialogs(page)
    path = f"{FOLDER}/{model.name}"
    write_notebook(jupyter.root_dir / "hostile_names.ipynb", [
        f"import dld_jupyter as dld\nd = dld.open({path!r})\nd",
        "panel = d.profile_panel(run=True, iterations=3, warmup=1)\nassert panel.wait(180).ok",
    ])
    open_notebook(page, jupyter, "hostile_names.ipynb")
    run_all(page, timeout_s=300)
    designer = page.locator(".dld-designer").first
    expect(designer.locator(".dld-canvas")).to_be_visible(timeout=60_000)
    expect(page.locator(".dld-report").first).to_be_visible(timeout=90_000)
    assert_nothing_injected(page, opened)
    expect(designer).to_contain_text(f"{STEM} — {path} — ", timeout=30_000)  # the status line
    expect(page.locator(".dld-profile-panel").first).to_contain_text(f"Profile with ONNX Runtime {path}")
    expect(page.locator(".dld-profile-panel").first).to_contain_text(f"{STEM}.dld-report.json")
    expect(page.locator(".dld-report").first).to_contain_text(f"Network{STEM}Backend")  # the summary
    screenshot(page, "hostile_names_notebook")

    run_in_kernel(page, "x = d.export_engine_panel()")
    expect(page.locator(".dld-export-engine-panel").first).to_be_visible(timeout=30_000)
    run_in_kernel(page, "from dld_jupyter.activities.result import Progress\n"
                        "x._on_progress(Progress(0.5, 'writing ' + x.engine.value))")
    expect(page.locator(".dld-export-engine-panel").first).to_contain_text(f"writing {FOLDER}/{STEM}.engine")
    assert_nothing_injected(page, opened)


def test_designer_tabs_show_hostile_names_as_text(jupyter: JupyterServer, page: Page) -> None:
    model = hostile_model(jupyter.root_dir)
    (model.parent / f"{STEM} broken.onnx").write_bytes(b"<img src=x onerror=alert(3)> is not a model")
    shutil.copy(TRT / "tf-resnet50-rtx3090-fp16.engine.graph.json", model.parent / f"{STEM}.trt.json")
    opened = watch_dialogs(page)
    open_workspace(page, jupyter)
    page.evaluate("(p) => window.jupyterapp.commands.execute('filebrowser:go-to-path', {path: p})", FOLDER + "/")
    listing = page.locator(".jp-DirListing-item")

    listing.filter(has_text=model.name).first.dblclick()
    wait_canvas(page, 20)
    assert_nothing_injected(page, opened)
    tab = page.locator(TAB).first
    expect(tab).to_contain_text(f"{STEM} — ", timeout=30_000)  # the status line (the kernel sees a relative path)
    expect(page.locator("li.lm-TabBar-tab", has_text=model.name)).to_have_count(1)
    screenshot(page, "hostile_names_tab")

    listing.filter(has_text=f"{STEM} broken.onnx").first.dblclick()
    error = page.locator(".dld-tab-error").first
    expect(error).to_contain_text("DL Designer cannot show this file.", timeout=90_000)
    expect(error).to_contain_text(STEM)

    listing.filter(has_text=f"{STEM}.trt.json").first.dblclick()
    expect(page.locator(".dld-engine-designer").first).to_contain_text(f"{STEM}.trt.json", timeout=90_000)
    assert_nothing_injected(page, opened)
    screenshot(page, "hostile_names_engine_tab")
