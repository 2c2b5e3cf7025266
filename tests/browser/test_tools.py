"""Tools in a real JupyterLab (issue 20): the Lab's Tools menu and the Designer's Tools button open the Global Model
Modifications; Convert to FP16 to a file (busy indicator, then the status with the comparison table and the
expanded log); Sanitize in place; Convert Tensors (filters, select all, OK) reverted by ONE Ctrl+Z; and a user
tool saved in the JupyterLab settings (a Python script copying $Model to $Output with a transformation) run from
Tools → User Tools, its output streamed and its output model opened.
Screenshots: test-artifacts/screenshots/tools_*.png.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import onnx
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
TOOLS = ".dld-designer .dld-tool-dialog"
TRANSFORM = """import sys, onnx
model = onnx.load(sys.argv[1])
print("read", sys.argv[1], "nodes", len(model.graph.node))
model.graph.name = "renamed_by_tool"
onnx.helper.set_model_props(model, {"tool": "rename"})
onnx.save(model, sys.argv[2])
print("wrote", sys.argv[2], file=sys.stderr)
"""


def menu(page: Page, *labels: str) -> None:
    """Open the Lab's main menu `labels[0]` and click through the rest (submenus hovered)."""
    page.locator(".lm-MenuBar-itemLabel", has_text=labels[0]).click()
    for label in labels[1:-1]:
        page.locator(".lm-Menu-itemLabel", has_text=label).hover()
        page.wait_for_timeout(400)
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel", has_text=labels[-1]).click()


def test_tools_dialogs(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", root / "tools_model.onnx")
    (root / "rename tool.py").write_text(TRANSFORM)
    tool = {"name": "Rename graph", "application": sys.executable,
            "arguments": [str(root / "rename tool.py"), "$Model", "$Output"], "promptForOutput": False,
            "openOutput": True}
    jupyter.api("/lab/api/settings/dld-jupyter:plugin", method="PUT",
                body={"raw": json.dumps({"userTools": [tool]})})
    write_notebook(root / "tools.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('tools_model.onnx', height='360px')\nd",
    ])
    open_notebook(page, jupyter, "tools.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=90_000)
    page.wait_for_function("() => window.jupyterapp.commands.isEnabled('dld:convert-fp16')", timeout=60_000)

    # Tools (Lab main menu) → Global Model Modifications.
    page.locator(".lm-MenuBar-itemLabel", has_text="Tools").click()
    page.locator(".lm-Menu-itemLabel", has_text="User Tools").hover()
    expect(page.locator(".lm-Menu-itemLabel", has_text="Rename graph")).to_be_visible()
    screenshot(page, "tools_lab_menu")
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    menu(page, "Tools", "Global Model Modifications…")
    page.wait_for_selector(f"{TOOLS}.dld-tools-menu")
    screenshot(page, "tools_global_modifications", f"{TOOLS}.dld-tools-menu")

    # Convert Model to FP16 to a new file: busy indicator, then the status with comparison and log.
    page.locator(f"{TOOLS} .dld-tools-convert-fp16").click()
    dialog = page.locator(TOOLS).first
    dialog.locator(".dld-tool-output input").fill(str(root / "tools_model_fp16.onnx"))
    screenshot(page, "tools_fp16_dialog", TOOLS)
    dialog.locator(".dld-tool-finish").click()
    page.wait_for_selector(f"{TOOLS} .dld-tool-status", timeout=180_000)
    dialog.get_by_text(re.compile(r"^Log \(")).click()
    expect(dialog.locator(".dld-tool-log textarea")).to_be_visible()
    expect(dialog.locator(".dld-tool-summary")).to_contain_text("Tensors converted")
    expect(dialog.locator(".dld-tool-compare")).to_contain_text("Max abs diff")
    screenshot(page, "tools_fp16_status", TOOLS)
    onnx.checker.check_model(onnx.load(root / "tools_model_fp16.onnx"))

    # Sanitize in place, from the command palette's command.
    page.evaluate("() => window.jupyterapp.commands.execute('dld:sanitize')")
    page.wait_for_selector(f"{TOOLS} .dld-sanitize-fold")
    dialog = page.locator(TOOLS).first
    dialog.locator(".dld-tool-destination label", has_text="Apply to this model").click()
    dialog.locator(".dld-sanitize-threshold input").fill("1048576")
    screenshot(page, "tools_sanitize_dialog", TOOLS)
    dialog.locator(".dld-tool-finish").click()
    page.wait_for_selector(f"{TOOLS} .dld-tool-status", timeout=180_000)
    expect(dialog.locator(".dld-tool-summary")).to_contain_text("before")
    screenshot(page, "tools_sanitize_status", TOOLS)
    page.locator(".dld-designer button[title^='Undo']").click()  # sanitize is one step: back to the file's model

    # Convert Tensors: filter the initializers, select all, float16, OK. Conv weights in float16 beside float32
    # activations break Conv's type constraint (issue 31, finding 5): the status lists each refusal, naming the node
    # and the type it shares, and the model keeps its float tensors (no undo step recorded).
    page.locator(".dld-designer button", has_text="Tools").first.click()
    page.locator(f"{TOOLS} .dld-tools-convert-tensors").click()
    dialog = page.locator(f"{TOOLS}.dld-tensors-dialog")
    dialog.locator(".dld-tensors-inits-filter input").fill("features\\.1\\.")
    dialog.locator(".dld-tensors-inits-filter input").press("Enter")
    page.wait_for_timeout(800)
    dialog.locator(".dld-tensors-inits-all").click()
    dialog.locator(".dld-tensors-target select").select_option("float16")
    dialog.locator(".dld-tensors-ok").click()
    page.wait_for_selector(f"{TOOLS} .dld-tool-status", timeout=60_000)
    expect(dialog.locator(".dld-tool-summary")).to_contain_text("errors")
    expect(dialog.locator(".dld-tool-summary")).to_contain_text(re.compile(r"\(Conv\), input \d '\w+' shares type T"))
    expect(dialog.locator(".dld-tool-summary")).to_contain_text("OK (full check and onnxruntime load)")
    screenshot(page, "tools_convert_tensors", TOOLS)
    dtypes = "import json; json.dump(sorted({v.const_value.dtype.name for k, v in d.document.model.graph.initializers.items() if k.startswith('features.1.')}), open('{}', 'w'))"  # noqa: E501
    run_in_kernel(page, dtypes.replace("{}", "after_convert.json"))
    assert json.loads((root / "after_convert.json").read_text()) == ["FLOAT"]

    # Tools → User Tools → Rename graph: streamed output, then its output model opens.
    menu(page, "Tools", "User Tools", "Rename graph")
    page.wait_for_selector(f"{TOOLS}.dld-tool-run-dialog .dld-tool-state", timeout=120_000)
    run = page.locator(f"{TOOLS}.dld-tool-run-dialog")
    expect(run.locator(".dld-tool-state")).to_contain_text("Finished")
    expect(run.locator(".dld-tool-stream textarea")).to_have_value(
        re.compile(r"read .*tools_model\.onnx nodes \d+[\s\S]*\[stderr\] wrote"))
    page.wait_for_selector(f"{TOOLS}.dld-tool-run-dialog .dld-canvas[data-ready='1']", timeout=90_000)
    run.locator(".dld-tool-state").scroll_into_view_if_needed()
    screenshot(page, "tools_user_tool_run")
    run_in_kernel(page, "import json; r = d.tools.children[0]; json.dump([r.opened.document.model.graph.name,"
                        " str(r.run_result.output)], open('tool_run.json', 'w'))")
    name, output = json.loads((root / "tool_run.json").read_text())
    assert name == "renamed_by_tool" and Path(output).is_file()
