"""The Export TensorRT Engine and Profile (TensorRT backend) panels in a real JupyterLab, where TensorRT cannot be
installed (issue 18 Done-when): every seed option is shown, Show command prints the dry run's trtexec line with the
model's optimization profiles, and both say why they cannot run, with Export / Profile refused."""

from __future__ import annotations

import shutil

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, screenshot, write_notebook
from tests.browser.sidebar_driver import open_sidebar
from tests.browser.test_trt_canvas import BERT

COMMON = ["TensorRT version", "Save engine metadata (detailed)", "Device index",
          "Custom plugins"]
TACTICS = ["Typing mode", "Allow TF32 tactics", "Allow FP16 tactics", "Allow BF16 tactics", "Allow INT8 tactics",
           "Allow FP8 tactics", "Examine weights for sparsity", "Allow cuDNN and cuBLAS tactics",
           "Native instance norm"]
OPTIMIZER = ["Builder optimization level", "Maximum worker streams", "Inferred batch size",
             "Hardware compatible engine (Ampere+)", "Workspace pool limit (MiB)", "INT8 calibration cache",
             "Weights refitting", "Version compatible engine"]
PROFILER = ["Measurement passes", "Sampling rate (ms)", "Lock clocks to base", "Hide non-compute operations",
            "Use prebuilt engine"]


def expect_labels(panel: object, labels: list[str]) -> None:
    for label in labels:
        expect(panel.get_by_text(label, exact=True).first).to_be_visible()  # type: ignore[attr-defined]


def test_export_and_profile_dialogs_show_every_option_and_why_they_cannot_run(
    jupyter: JupyterServer, page: Page
) -> None:
    shutil.copy(BERT, jupyter.root_dir / "bert_x.onnx")
    write_notebook(jupyter.root_dir / "trt_dialogs.ipynb", [
        "import dld_jupyter as dld\nd = dld.open('bert_x.onnx', grouping='none')\n"
        "for name in ('input_ids', 'attention_mask'):\n"
        "    d.document.trt.set_optimization_profile(name, [1, 1], [8, 64], [16, 128])\nd",
    ])
    open_notebook(page, jupyter, "trt_dialogs.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=60_000)

    # File → Export TensorRT Engine… (the lab command reaches the designer bound to the sidebar).
    open_sidebar(page)
    page.locator(".dld-Sidebar-model").filter(has_text="bert_x").wait_for(timeout=30_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
    page.locator(".lm-Menu-itemLabel", has_text="Export TensorRT Engine…").click()
    panel = page.locator(".dld-export-engine-panel")
    expect(panel).to_be_visible(timeout=30_000)
    expect_labels(panel, ["Engine output", "Metadata output", "Open the metadata as an engine graph after export",
                          *COMMON, *TACTICS, *OPTIMIZER])
    expect(panel.locator(".dld-trt-unavailable")).to_contain_text("unavailable: TensorRT is not installed")
    expect(panel.locator(".dld-trt-unavailable")).to_contain_text("pip install tensorrt")
    expect(panel.locator("button.mod-primary")).to_have_text("Export")
    expect(panel.locator("button.mod-primary")).to_be_disabled()
    panel.get_by_text("Allow FP16 tactics", exact=True).click()
    panel.locator("button", has_text="Show command").click()
    command = panel.locator("textarea").first
    expect(command).to_have_value(__import__("re").compile(r"trtexec --onnx=.*--minShapes=input_ids:1x1"))
    assert "--fp16" in command.input_value()
    panel.scroll_into_view_if_needed()
    screenshot(page, "trt_export_panel", ".dld-export-engine-panel")

    # The Profile panel: backend choice; TensorRT shows the same pages plus Profiler Settings, and why not.
    page.locator(".dld-designer button", has_text="Profile").first.click()
    profile = page.locator(".dld-profile-panel")
    expect(profile).to_contain_text("Profile with ONNX Runtime", timeout=30_000)
    profile.locator("button", has_text="TensorRT").click()
    expect(profile).to_contain_text("Profile with TensorRT")
    expect_labels(profile.locator(".dld-trt-profile-settings"), [*COMMON, *TACTICS, *OPTIMIZER, *PROFILER])
    expect(profile.locator(".dld-trt-unavailable")).to_contain_text("unavailable: TensorRT is not installed")
    expect(profile.locator("button.mod-primary")).to_be_disabled()
    profile.locator("button", has_text="ONNX Runtime").click()  # back: nothing else broke
    expect(profile.locator("button.mod-primary")).to_be_enabled()
    profile.locator("button", has_text="TensorRT").click()
    # Issue 26, item 7: the report file stays in view in TensorRT mode, and Show command gives the trtexec line in
    # a text area that can be selected (copied).
    expect(profile.get_by_text("Report file", exact=True)).to_be_visible()
    profile.locator("button", has_text="Show command").click()
    profile_command = profile.locator("textarea.dld-trt-command, .dld-trt-command textarea").first
    expect(profile_command).to_have_value(__import__("re").compile(r"^trtexec --onnx=.*--exportProfile="))
    expect(profile_command).to_be_enabled()
    profile.scroll_into_view_if_needed()
    screenshot(page, "trt_profile_panel", ".dld-profile-panel")
