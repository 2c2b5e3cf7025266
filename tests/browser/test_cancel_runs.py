"""One job model (issue 25): a profile, an engine export, a batch transform and a user tool show progress and cancel
the same way in a real JupyterLab: each shows the run panel's progress widget (`.dld-run-progress`), its Cancel
(`.dld-run-cancel`) ends the run, the widget says "cancelled", and the kernel's live runs registry lists all four
runs as cancelled. TensorRT cannot be installed here: the export replays recorded real outputs
(tests/activities/trt_standin.py), in the worker process like a real one.
Screenshot: test-artifacts/screenshots/cancel_runs.png.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.activities.test_trt_pipeline import STANDIN, _sample_model
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests" / "data" / "real"
SLEEPER = "import time\nprint('working', flush=True)\ntime.sleep(120)\n"


def cancel(page: Page, widget: Locator) -> None:
    """Wait until the run shows progress with Cancel enabled, click Cancel, and wait for "cancelled"."""
    button = widget.locator(".dld-run-progress .dld-run-cancel")
    expect(button).to_be_enabled(timeout=120_000)
    button.click()
    expect(widget.locator(".dld-run-progress")).to_contain_text("cancelled", timeout=120_000)


def test_profile_export_transform_and_user_tool_cancel_the_same_way(jupyter: JupyterServer, page: Page) -> None:
    root: Path = jupyter.root_dir
    # The detector, not MobileNet: its FP16 conversion and output comparison take seconds, where MobileNet's ended
    # (0.2 s) between Cancel becoming enabled and the click reaching it on a fast machine.
    shutil.copy(REAL / "ssdlite_tiny.onnx", root / "cancel_model.onnx")
    engine_model = _sample_model(root)  # the recorded engine's ONNX sources, with profiles and a precision
    (root / "sleeper.py").write_text(SLEEPER)
    tool = {"name": "Sleeper", "application": sys.executable, "arguments": [str(root / "sleeper.py"), "$Model"],
            "promptForOutput": False, "openOutput": False}
    jupyter.api("/lab/api/settings/dld-jupyter:plugin", method="PUT", body={"raw": json.dumps({"userTools": [tool]})})
    write_notebook(root / "cancel_runs.ipynb", [
        f"import os, sys\nsys.path.insert(0, {str(REPO)!r})\n"
        f"os.environ['PYTHONPATH'] = {str(REPO)!r}\nos.environ['DLD_TENSORRT_RUNTIME'] = {STANDIN!r}\n"
        "import dld_jupyter as dld\nd = dld.open('cancel_model.onnx', height='300px')\nd",
        f"e = dld.open({engine_model.name!r}, height='300px')\ne",
    ])
    open_notebook(page, jupyter, "cancel_runs.ipynb")
    run_all(page)
    page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=90_000)

    # A long profile (a million passes), cancelled while it measures.
    run_in_kernel(page, "p = d.profile_panel(iterations=10**6, warmup=0, threads=1)")
    profile = page.locator(".dld-profile-panel").first
    profile.locator(".dld-run-progress button.mod-primary").click()
    expect(profile.locator(".dld-run-progress")).to_contain_text("%", timeout=120_000)
    cancel(page, profile)

    # An engine export, cancelled while its worker builds.
    run_in_kernel(page, "x = e.export_engine_panel()")
    export = page.locator(".dld-export-engine-panel").first
    export.locator(".dld-run-progress button.mod-primary").click()
    cancel(page, export)

    # A batch transform: Convert to FP16 with its output comparison, cancelled between its steps.
    run_in_kernel(page, f"t = d.tools_panel('convert_fp16', output={str(root / 'fp16.onnx')!r})")
    dialog = page.locator(".dld-designer .dld-tool-dialog").first
    dialog.locator(".dld-tool-finish").click()
    cancel(page, dialog)

    # A user tool that sleeps: Cancel ends its process.
    run_in_kernel(page, "u = d.tools_panel('run_user_tool', tool='Sleeper')")
    tool_dialog = page.locator(".dld-designer .dld-tool-run-dialog").first
    expect(tool_dialog.locator(".dld-tool-stream textarea")).to_have_value(re.compile("working"), timeout=60_000)
    cancel(page, tool_dialog)
    expect(tool_dialog.locator(".dld-tool-state")).to_contain_text("Cancelled")
    screenshot(page, "cancel_runs")

    run_in_kernel(page, "import json\nfrom dld_jupyter.frontdoor.runs import track\n"
                        "json.dump([[type(r.spec).__name__ if r.spec else r.what, r.status.value]"
                        " for r in track().list()], open('runs.json', 'w'))")
    runs = json.loads((root / "runs.json").read_text())
    assert runs == [["OrtProfileSpec", "cancelled"], ["TrtBuildSpec", "cancelled"],
                    ["Convert Model to FP16", "cancelled"], ["Sleeper", "cancelled"]], runs
