"""Start Activity in a real JupyterLab: from the launcher's DL Designer section, a model FILE that no designer shows is
profiled with ONNX Runtime on the CPU and its report opens beside the dialog with its layers; a bad path is said in
the dialog. From the file browser's context menu on an .onnx, the dialog opens on that model, and Browse… picks
another one in JupyterLab's file dialog."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from dld_jupyter.models import SAMPLE_MODEL
from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_from_file_browser, screenshot
from tests.browser.tab_driver import TAB, open_workspace, wait_workspace_has

DIALOG = f"{TAB} .dld-start-activity"
MODEL_FIELD = f"{DIALOG} .dld-start-model input"


def _type_model(page: Page, path: str) -> None:
    """Type a path as a user would (checked as it is typed)."""
    field = page.locator(MODEL_FIELD)
    field.fill("")
    field.press_sequentially(path)


def test_launcher_profiles_a_model_file_that_is_not_open(jupyter: JupyterServer, page: Page) -> None:
    (jupyter.root_dir / "launched.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    open_workspace(page, jupyter)
    title = page.locator(".jp-Launcher-sectionTitle", has_text="DL Designer")
    section = page.locator(".jp-Launcher-section", has=title)
    card = section.locator(".jp-LauncherCard", has_text="Start Activity")
    expect(section.locator(".jp-LauncherCard", has_text="New ONNX Model")).to_be_visible()
    screenshot(page, "start_activity_launcher")
    card.click()
    dialog = page.locator(DIALOG)
    expect(dialog).to_be_visible(timeout=90_000)
    expect(page.locator("li.lm-TabBar-tab.lm-mod-current", has_text="Start Activity")).to_have_count(1)
    expect(dialog.locator(".dld-start-error")).to_contain_text("Choose the ONNX model")

    _type_model(page, "no/such/model.onnx")
    expect(dialog.locator(".dld-start-error")).to_contain_text("no/such/model.onnx: no such file", timeout=15_000)
    expect(dialog.locator(".dld-profile-panel")).to_have_count(0)
    screenshot(page, "start_activity_bad_path")

    _type_model(page, "launched.onnx")
    form = dialog.locator(".dld-profile-panel")
    expect(form).to_be_visible(timeout=15_000)
    expect(dialog.locator(".dld-start-error")).to_have_count(0)
    expect(form.locator("select").first).to_be_visible()  # the target chooser: Local and the saved connections
    screenshot(page, "start_activity_profile_form")
    form.locator("button", has_text="Profile").first.click()

    report = page.locator(f"{TAB}:has(.dld-r-link)")
    expect(report).to_be_visible(timeout=240_000)
    expect(page.locator("li.lm-TabBar-tab", has_text="launched.dld-report.json")).to_have_count(1)
    expect(report.locator(".dld-r-link").first).to_be_visible()
    assert report.locator(".dld-r-link").count() >= 5, "the report lists the model's layers"
    expect(page.locator(".dld-canvas")).to_have_count(0)  # profiled as a file: no designer was built
    expect(form).to_contain_text("opened in its own tab", timeout=30_000)
    assert (jupyter.root_dir / "launched.dld-report.json").is_file()
    screenshot(page, "start_activity_report")

    # The run is the Runs list's, as any run of the tab's kernel (seed 001's Inference Run Logger).
    page.evaluate("() => window.jupyterapp.shell.activateById('dld-jupyter-sidebar')")
    sidebar = page.locator("#dld-jupyter-sidebar")
    sidebar.locator(".dld-Sidebar-tab", has_text="Runs").click()
    row = sidebar.locator(".dld-Runs-row").filter(has=page.locator(".dld-Runs-kind", has_text="profile"))
    expect(row).to_have_count(1, timeout=30_000)
    expect(row).to_contain_text("launched.onnx")
    screenshot(page, "start_activity_runs_list")


def test_context_menu_opens_it_on_the_model_and_browse_picks_another(jupyter: JupyterServer, page: Page) -> None:
    """… and a page reload brings the dialog back as it was, on its live kernel."""
    (jupyter.root_dir / "menu_a.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    (jupyter.root_dir / "picked").mkdir(exist_ok=True)
    (jupyter.root_dir / "picked" / "menu_b.onnx").write_bytes(SAMPLE_MODEL.read_bytes())
    workspace = open_workspace(page, jupyter)
    open_from_file_browser(page, "menu_a.onnx", "Start Activity…")
    dialog = page.locator(DIALOG)
    expect(dialog.locator(".dld-profile-panel")).to_be_visible(timeout=90_000)
    expect(page.locator(MODEL_FIELD)).to_have_value("menu_a.onnx")

    dialog.locator(".widget-toggle-button", has_text="Export TensorRT Engine").click()
    expect(dialog.locator(".dld-export-engine-panel")).to_be_visible(timeout=15_000)
    expect(dialog.locator(".dld-export-engine-panel input").first).to_have_value("menu_a.engine")

    dialog.locator("button", has_text="Browse…").click()
    picker = page.locator(".jp-Dialog")
    expect(picker).to_contain_text("Start Activity: choose the ONNX model")
    picker.locator(".jp-DirListing-item", has_text="picked").dblclick()
    picker.locator(".jp-DirListing-item", has_text="menu_b.onnx").click()
    screenshot(page, "start_activity_browse")
    picker.locator("button", has_text="Select").click()
    expect(page.locator(MODEL_FIELD)).to_have_value("picked/menu_b.onnx", timeout=15_000)
    expect(dialog.locator(".dld-export-engine-panel input").first).to_have_value("picked/menu_b.engine")
    screenshot(page, "start_activity_export_form")

    wait_workspace_has(jupyter, workspace, "dld-jupyter:tab:Start Activity")
    open_workspace(page, jupyter, workspace, reset=False)
    expect(page.locator(MODEL_FIELD)).to_have_value("picked/menu_b.onnx", timeout=90_000)
    expect(dialog.locator(".dld-export-engine-panel")).to_be_visible()
    expect(dialog.locator("button", has_text="Browse…")).to_be_visible()  # the new page's link offers it again
