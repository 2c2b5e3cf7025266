"""A TensorRT engine's layer information opens from JupyterLab's file browser (Open With) as a read-only engine
graph in a designer tab, and from a notebook cell with dld.open_engine (issue 18, "Engine graphs"): layers drawn
with their type, precision and tactic, tensors with shape and format, the I/O diamonds hit by the real mouse, the
selected layer's record in the side panel, and every edit gesture refused in the widget."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import (
    open_from_file_browser,
    open_notebook,
    run_all,
    screenshot,
    write_notebook,
)
from tests.browser.tab_driver import TAB, current_tab_kernel, open_workspace, wait_canvas, wait_workspace_has

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "trt" / "tf-resnet50-rtx3090-fp16.engine.graph.json"
NODES = 88  # 86 layers, the engine input and output
CY = f"() => [...document.querySelectorAll('{TAB} .dld-canvas *')].find(e => e._cyreg)"


def tab_eval(page: Page, body: str, arg: Any = None) -> Any:
    """Run `body` with `cy` and `dld` (the canvas context) of the designer tab's canvas bound."""
    return page.evaluate(
        f"([arg]) => {{ const stage = ({CY})(); const cy = stage._cyreg.cy; const dld = stage._dld; {body} }}", [arg]
    )


def page_point(page: Page, node_id: str) -> dict[str, float]:
    return dict(
        tab_eval(
            page,
            """const p = cy.getElementById(arg).renderedPosition(); const r = stage.getBoundingClientRect();
               return {x: r.left + p.x, y: r.top + p.y};""",
            node_id,
        )
    )


def show(page: Page, node_id: str, zoom: float = 1.2) -> dict[str, float]:
    tab_eval(page, f"cy.zoom({zoom}); cy.center(cy.getElementById(arg));", node_id)
    page.wait_for_timeout(250)
    return page_point(page, node_id)


def replies(page: Page) -> int:
    return int(tab_eval(page, "return dld.channel.replyCount;"))


def wait_reply(page: Page, before: int) -> None:
    page.wait_for_function(f"() => ({CY})()._dld.channel.replyCount > {before}", timeout=20_000)


def test_open_with_shows_a_read_only_engine_graph(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / SAMPLE.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, SAMPLE.name, "Open With DL Designer (Engine Graph)")
    wait_canvas(page, NODES)
    tab = page.locator(TAB).first
    expect(tab.locator(".dld-readonly")).to_have_text("TensorRT engine graph (read-only)")
    expect(tab.locator(".dld-engine-designer")).to_contain_text("86 layers (FP16 83, FP32 3)")
    page.wait_for_function(f"() => document.querySelector('{TAB}')?.dataset.dirty === 'false'", timeout=60_000)
    title = page.locator("li.lm-TabBar-tab", has_text=SAMPLE.name)
    expect(title).to_have_count(1)
    assert "jp-mod-dirty" not in (title.get_attribute("class") or "")  # nothing to save, never dirty

    # What cytoscape draws: every layer as a glyph titled with its type, its precision and tactic below, the
    # precision badge; links labelled with shape and format; the engine's input and output as diamonds.
    drawn = tab_eval(
        page,
        """const out = {nodes: cy.nodes().length, edges: cy.edges().length, labels: {}, kinds: {}, badges: {}};
           cy.nodes().forEach(n => { out.labels[n.id()] = n.data('label'); out.kinds[n.id()] = n.data('kind');
                                     out.badges[n.id()] = dld.store.nodes.get(n.id()).precision; });
           out.edge = cy.edges().filter(e => e.source().id() === 'in:input_1')[0].data('label');
           out.shape = cy.getElementById('in:input_1').style('shape');
           return out;""",
    )
    assert drawn["nodes"] == NODES and drawn["edges"] == 103
    assert drawn["labels"]["L2"].split("\n")[:2] == ["CaskConvolution", "FP16 · trt_turing_cutlass_image_ne…"]
    assert drawn["labels"]["L2"].split("\n")[2] == "Conv__435, Relu"  # the ONNX nodes it fuses
    layers = [i for i, kind in drawn["kinds"].items() if kind == "op"]
    assert len(layers) == 86 and all(drawn["labels"][i].split("\n")[1][:4] in ("FP16", "FP32") for i in layers)
    assert sorted({drawn["badges"][i] for i in layers}) == ["FP16", "FP32"]
    assert drawn["edge"] == "32×224×224×3 FP32 linear" and drawn["shape"] == "diamond"
    screenshot(page, "engine_graph_opened")

    # The real mouse: a click on a layer shows its record in the side panel.
    at = show(page, "L2")
    page.mouse.move(at["x"], at["y"])  # hovering names the layer in full
    page.wait_for_function(f"() => ({CY})().title.startsWith('Conv__435 + resnet50/conv1_relu/Relu\\nCask')")
    panel = tab.locator(".dld-engine-panel")
    expect(panel).to_contain_text("Conv__435")  # hovering shows the record already
    page.mouse.click(at["x"], at["y"])
    expect(panel).to_contain_text("Conv__435")
    expect(panel).to_contain_text("resnet50/conv1_relu/Relu")
    expect(panel).to_contain_text("trt_turing_cutlass_image_network_first_layer")
    expect(panel).to_contain_text("Channel major FP16 format where channel % 4 == 0")
    screenshot(page, "engine_graph_layer_record")

    # An edit gesture: Delete on the selected layer is refused in the widget; nothing changes.
    before = replies(page)
    page.keyboard.press("Delete")
    wait_reply(page, before)
    toast = tab.locator(".dld-toast-error").last
    expect(toast).to_contain_text("read-only")
    expect(toast).to_contain_text("Export Engine")
    assert tab_eval(page, "return cy.nodes().length;") == NODES
    screenshot(page, "engine_graph_delete_refused")
    toast.click()  # dismissed (it could lie over the layer dragged next)
    expect(toast).to_have_count(0)

    # A drag is refused too, and the layer goes back where it was.
    start = tab_eval(page, "const p = cy.getElementById('L2').position(); return [p.x, p.y];")
    at = page_point(page, "L2")
    before = replies(page)
    page.mouse.move(at["x"], at["y"])
    page.mouse.down()
    page.mouse.move(at["x"] + 90, at["y"] + 60, steps=8)
    page.mouse.up()
    wait_reply(page, before)
    page.wait_for_function(
        f"([x, y]) => {{ const p = ({CY})()._cyreg.cy.getElementById('L2').position();"
        " return Math.abs(p.x - x) < 0.5 && Math.abs(p.y - y) < 0.5; }",
        arg=start,
        timeout=10_000,
    )

    # The engine input's diamond is hit at its centre (cytoscape's own test missed it there): right-click selects it
    # and the read-only menu opens for it, with no edit in it.
    at = show(page, "in:input_1", 1.5)
    page.mouse.click(at["x"], at["y"], button="right")
    menu = page.locator(".dld-menu")  # menus open in the page body, above every panel
    expect(menu).to_contain_text("Read-only")
    assert tab_eval(page, "return cy.nodes(':selected').map(n => n.id());") == ["in:input_1"]
    assert "Delete" not in menu.inner_text() and "Set TensorRT" not in menu.inner_text()
    expect(panel).to_contain_text("Engine input")
    screenshot(page, "engine_graph_input_menu")

    # The tab given the whole main area (the launcher closed): canvas and record side by side, wider.
    page.locator("li.lm-TabBar-tab", has_text="Launcher").locator(".lm-TabBar-tabCloseIcon").click()
    at = show(page, "L6", 0.9)
    page.mouse.click(at["x"], at["y"])
    expect(panel).to_contain_text("resnet50/conv2_block1_1_conv/Conv2D")
    while tab.locator(".dld-toast").count():  # the refusals shown above, dismissed by a click
        tab.locator(".dld-toast").first.click()
    screenshot(page, "engine_graph_full_width")


def test_open_engine_in_a_notebook_cell(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "resnet50.trt.json")
    write_notebook(
        jupyter.root_dir / "engine_graph.ipynb",
        ["import dld_jupyter as dld\nengine = dld.open_engine('resnet50.trt.json')\nengine"],
    )
    open_notebook(page, jupyter, "engine_graph.ipynb")
    run_all(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Notebook .dld-canvas *')].some(e => e._cyreg &&"
        f" e._cyreg.cy.nodes().length === {NODES})",
        timeout=90_000,
    )
    cell = page.locator(".jp-Notebook .dld-engine-designer").first
    expect(cell).to_contain_text("resnet50.trt.json")
    expect(cell.locator(".dld-readonly")).to_be_visible()
    screenshot(page, "engine_graph_notebook", ".dld-engine-designer")


def test_file_menu_opens_an_engine_graph(jupyter: JupyterServer, page: Page) -> None:
    shutil.copy(SAMPLE, jupyter.root_dir / "menu_engine.trt.json")
    workspace = open_workspace(page, jupyter)
    listed = page.locator(".jp-DirListing-item[data-file-type='dld-engine']", has_text="menu_engine.trt.json")
    expect(listed).to_have_count(1)  # .trt.json is a file type of its own (its context menu offers the opener)
    page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
    page.locator(".lm-Menu-itemLabel", has_text="Open TensorRT Engine Graph…").click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Open TensorRT Engine Graph")
    dialog.locator(".jp-DirListing-item", has_text="menu_engine.trt.json").click()
    dialog.locator("button", has_text="Select").click()
    wait_canvas(page, NODES)
    expect(page.locator("li.lm-TabBar-tab", has_text="menu_engine.trt.json")).to_have_count(1)
    expect(page.locator(TAB).first.locator(".dld-readonly")).to_be_visible()

    # A page reload brings the tab back on its live kernel (the record kind "engine" reopens dld.open_engine).
    kernel = current_tab_kernel(page)
    wait_workspace_has(jupyter, workspace, "dld-jupyter:tab:menu_engine.trt.json")
    open_workspace(page, jupyter, workspace, reset=False)
    wait_canvas(page, NODES)
    assert current_tab_kernel(page) == kernel
    expect(page.locator(TAB).first.locator(".dld-readonly")).to_be_visible()


def test_a_json_that_is_no_engine_says_why_in_the_tab(jupyter: JupyterServer, page: Page) -> None:
    profile = SAMPLE.with_name("tf-resnet50-rtx3090-fp16.engine.profile.json")  # trtexec's profile, not layer info
    shutil.copy(profile, jupyter.root_dir / profile.name)
    open_workspace(page, jupyter)
    open_from_file_browser(page, profile.name, "Open With DL Designer (Engine Graph)")
    error = page.locator(f"{TAB} .dld-tab-error").first
    expect(error).to_be_visible(timeout=90_000)
    expect(error).to_contain_text('expected an object with a "Layers" list')
    expect(error).to_contain_text("--exportLayerInfo")
    expect(error).to_contain_text("open it in the report viewer")
    assert page.locator(f"{TAB} .jp-OutputArea-output", has_text="Traceback").count() == 0
    screenshot(page, "engine_graph_not_layer_info", TAB)
