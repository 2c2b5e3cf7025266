"""The TensorRT version list in a real JupyterLab (issue 41, seed 000 "Selecting a Version"): the Export TensorRT
Engine panel lists each TensorRT found with its version, the chosen one is the binary its command line runs, and a
custom path is checked and added with Add. TensorRT cannot be installed here: the kernel's PATH holds a small
executable printing a real `trtexec --help` banner (tests/data/trt/trtexec-help-banners.txt)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook
from tests.browser.sidebar_driver import open_sidebar
from tests.browser.test_trt_canvas import BERT

BANNERS = Path(__file__).resolve().parents[1] / "data" / "trt" / "trtexec-help-banners.txt"

SETUP = """\
import os, stat, pathlib
banners = pathlib.Path({banners!r}).read_text().splitlines()
def trtexec(folder, banner):
    folder = pathlib.Path(folder); folder.mkdir(parents=True, exist_ok=True)
    binary = folder / 'trtexec'
    binary.write_text(f"#!/bin/sh\\necho '{{banner}}'\\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return binary
on_path = trtexec(os.path.abspath('trt10/bin'), banners[0])
old = trtexec(os.path.abspath('trt8/bin'), banners[1])
os.environ['PATH'] = f"{{on_path.parent}}{{os.pathsep}}{{os.environ['PATH']}}"
os.environ['DLD_CACHE_DIR'] = os.path.abspath('trt-cache')
import dld_jupyter as dld
d = dld.open('bert_v.onnx', grouping='none')
for name in ('input_ids', 'attention_mask'):
    d.document.trt.set_optimization_profile(name, [1, 1], [8, 64], [16, 128])
d
"""


def test_the_export_panel_lists_tensorrt_versions_and_adds_a_custom_path(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(BERT, jupyter.root_dir / "bert_v.onnx")
    write_notebook(jupyter.root_dir / "trt_versions.ipynb", [SETUP.format(banners=str(BANNERS))])
    open_notebook(page, jupyter, "trt_versions.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=60_000)
    open_sidebar(page)
    page.locator(".dld-Sidebar-model").filter(has_text="bert_v").wait_for(timeout=30_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
    page.locator(".lm-Menu-itemLabel", has_text="Export TensorRT Engine…").click()
    panel = page.locator(".dld-export-engine-panel")
    expect(panel).to_be_visible(timeout=30_000)

    choice = panel.locator(".dld-trt-version")
    select = choice.locator("select").first
    on_path = jupyter.root_dir / "trt10" / "bin" / "trtexec"
    found = f"TensorRT 10.6.0 — trtexec {on_path}"
    expect(select.locator("option")).to_have_text(
        ["this Python environment: not installed (pip install tensorrt)", found, "Custom path…"])
    expect(choice.get_by_text("Custom path", exact=True)).to_be_hidden()
    select.select_option(label=found)
    expect(panel.locator(".dld-trt-unavailable")).to_contain_text("trtexec binary is not supported")
    panel.locator("button", has_text="Show command").click()
    command = panel.locator("textarea").first
    expect(command).to_have_value(re.compile("^" + re.escape(str(on_path)) + " --onnx="))

    select.select_option(label="Custom path…")
    path = choice.locator("input[type='text']").first
    expect(path).to_be_visible()
    path.fill(str(jupyter.root_dir / "nowhere"))
    choice.locator("button", has_text="Add").click()
    expect(choice).to_contain_text("holds no tensorrt package")
    old = jupyter.root_dir / "trt8"  # a TensorRT folder with bin/trtexec
    path.fill(str(old))
    choice.locator("button", has_text="Add").click()
    added = f"TensorRT 8.6.1 — trtexec {old / 'bin' / 'trtexec'}"
    expect(choice).to_contain_text(f"added: {added}")
    expect(select.locator("option:checked")).to_have_text(added)
    panel.locator("button", has_text="Show command").click()
    expect(command).to_have_value(re.compile("^" + re.escape(str(old / "bin" / "trtexec")) + " --onnx="))
    choice.scroll_into_view_if_needed()
    screenshot(page, "trt_versions", ".dld-export-engine-panel")
