"""Video in step with the debugger in a real JupyterLab (issue 37): a 6-frame clip written with imageio here, chosen
in the Model Inputs window; with a breakpoint set, Play launches the analysis and pauses at it after reading one
frame; Step frame finishes that pass without reading another; with the breakpoint gone, Play runs one pass per
frame to the end of the clip, the page asking for each next frame. Screenshot, looked at:
test-artifacts/screenshots/analysis_video_*.png."""

from __future__ import annotations

import time

import numpy as np
import onnx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import kernel_value, open_notebook, run_all, screenshot, write_notebook
from tests.models import resnet_like

iio = pytest.importorskip("imageio.v3")
pytest.importorskip("av")
PANEL = ".dld-analysis-panel"
FEED = "d.analysis_mode.panel.video.feeds['input']"


def wait_kernel(page: Page, jupyter: JupyterServer, expression: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while kernel_value(page, jupyter, f"bool({expression})") is not True:
        assert time.monotonic() < deadline, f"the kernel never got to: {expression}"
        page.wait_for_timeout(250)


def test_video_plays_in_step_with_the_debugger(jupyter: JupyterServer, page: Page) -> None:
    model = resnet_like(2)
    onnx.save(model, str(jupyter.root_dir / "r.onnx"))
    frames = np.stack([np.full((32, 32, 3), 40 * i, dtype=np.uint8) for i in range(6)])
    iio.imwrite(jupyter.root_dir / "clip.mp4", frames, fps=10, codec="libx264", plugin="pyav")
    conv = next(n.name for n in model.graph.node if n.name.startswith("/layer1/conv1/"))
    cells = [
        "import dld_jupyter as dld\nd = dld.open('r.onnx')\nd",
        "p = d.analysis_mode.show_panel()\np.model_inputs.set_source('input', 'clip.mp4')",
    ]
    write_notebook(jupyter.root_dir / "video.ipynb", cells)
    open_notebook(page, jupyter, "video.ipynb")
    run_all(page, timeout_s=240)
    play = page.locator(f"{PANEL} .dld-mi-play").first
    expect(play).to_be_visible(timeout=120_000)
    assert kernel_value(page, jupyter, f"d.launch_analysis() is not None and d.analysis.add_breakpoint({conv!r})") \
        is None
    page.locator(f"{PANEL} .lm-TabBar-tab", has_text="Model Inputs").first.click()
    play.click()
    wait_kernel(page, jupyter, f"d.analysis.position == {conv!r}")
    expect(page.locator(f"{PANEL} .dld-mi-play").first).to_contain_text("Play")  # the breakpoint paused it
    assert kernel_value(page, jupyter, f"({FEED}.frames_read, {FEED}.passes)") == [1, 0]
    page.locator(f"{PANEL} .dld-mi-step-frame").first.click()
    wait_kernel(page, jupyter, f"{FEED}.passes == 1")
    assert kernel_value(page, jupyter, f"{FEED}.frames_read") == 1  # finishing the pass read no frame
    kernel_value(page, jupyter, f"d.analysis.remove_breakpoint({conv!r})")
    page.locator(f"{PANEL} .dld-mi-play").first.click()
    wait_kernel(page, jupyter, f"{FEED}.ended")
    assert kernel_value(page, jupyter, f"({FEED}.frames_read, {FEED}.passes)") == [6, 6]
    expect(page.locator(f"{PANEL} .dld-mi-frame-no").first).to_have_text("frame 5")
    screenshot(page, "analysis_video_end", PANEL)
