"""The graph canvas in a real JupyterLab: open, quick add, connect, rename, set attribute, delete a link, undo, redo,
save, reopen; extract a selection; export PNG and SVG. Screenshots go to test-artifacts/screenshots/canvas_*.png."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from playwright.sync_api import Page, expect

from tests.browser.jupyter_server import JupyterServer
from tests.browser.notebook_driver import open_notebook, run_all, run_in_kernel, screenshot, write_notebook
from tests.models import resnet_like

STAGE = "() => document.querySelector('.dld-stage')"


def cy_eval(page: Page, body: str, arg: Any = None) -> Any:
    """Run `body` with `cy` (cytoscape) and `dld` (the canvas context) bound, in the page."""
    return page.evaluate(
        f"([arg]) => {{ const stage = ({STAGE})(); const cy = stage._cyreg.cy; const dld = stage._dld; {body} }}",
        [arg],
    )


def wait_version(page: Page, before: int, timeout_s: float = 20) -> int:
    """Wait until the canvas applied a patch newer than `before`."""
    page.wait_for_function(
        "(v) => Number(document.querySelector('.dld-canvas').dataset.version || 0) > v", arg=before,
        timeout=timeout_s * 1000,
    )
    return version(page)


def replies(page: Page) -> int:
    return int(cy_eval(page, "return dld.channel.replyCount;"))


def press_and_wait(page: Page, key: str) -> None:
    """Press a shortcut that sends one intent; wait for the kernel's reply (patches come before it)."""
    before = replies(page)
    page.keyboard.press(key)
    wait_replies(page, before)


def wait_replies(page: Page, before: int) -> None:
    page.wait_for_function(
        "(n) => document.querySelector('.dld-stage')._dld.channel.replyCount > n", arg=before, timeout=20_000
    )


def version(page: Page) -> int:
    return int(page.evaluate("() => Number(document.querySelector('.dld-canvas').dataset.version || 0)"))


def intent(page: Page, action: str, args: dict[str, Any]) -> dict[str, Any]:
    """Send an intent the way the editor panels do (through the canvas channel) and return the kernel's reply."""
    return dict(page.evaluate(
        f"async ([a, args]) => {{ const stage = ({STAGE})(); return await stage._dld.channel.intent(a, args); }}",
        [action, args],
    ))


def rendered(page: Page, node_id: str) -> dict[str, float]:
    """Page coordinates of a node's center (for real mouse clicks)."""
    return dict(cy_eval(page, """
        const p = cy.getElementById(arg).renderedPosition(); const r = stage.getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y, w: cy.getElementById(arg).renderedWidth(),
                h: cy.getElementById(arg).renderedHeight()};""", node_id))


def open_model(page: Page, jupyter: JupyterServer, notebook: str, model: str, extra: str = "") -> None:
    write_notebook(jupyter.root_dir / notebook, [
        f"import dld_jupyter.widgets.designer.designer as D\nd = D.open_designer({model!r}{extra})\nd",
    ])
    open_notebook(page, jupyter, notebook)
    run_all(page)
    try:
        page.wait_for_selector(".dld-canvas[data-ready='1']", timeout=60_000)
    except Exception:
        screenshot(page, f"canvas_failed_{notebook}")
        raise AssertionError(f"canvas did not render; console: {getattr(page, 'console_errors', [])}") from None


def expand_by_double_click(page: Page, group: str) -> None:
    """Double-click a collapsed group with the real mouse and wait until it is drawn expanded."""
    pos = rendered(page, group)
    before = replies(page)
    page.mouse.dblclick(pos["x"], pos["y"])
    wait_replies(page, before)
    assert cy_eval(page, "return cy.getElementById(arg).isParent();", group)


def node_by(page: Page, field: str, value: str) -> str:
    return str(cy_eval(page, """const [f, v] = arg; for (const [id, n] of dld.store.nodes) if (n[f] === v) return id;
        return null;""", [field, value]))


def test_edit_undo_redo_save_reopen(jupyter: JupyterServer, page: Page) -> None:
    model_path = jupyter.root_dir / "resnet.onnx"
    onnx.save(resnet_like(), model_path)
    open_model(page, jupyter, "canvas_edit.ipynb", "resnet.onnx")
    count = cy_eval(page, "return cy.nodes().length;")
    assert count > 50
    screenshot(page, "canvas_opened")

    # Quick add: Ctrl+Space under the pointer, type, Enter.
    box = page.locator(".dld-stage").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + box["height"] * 0.3)
    page.mouse.click(box["x"] + box["width"] * 0.8, box["y"] + box["height"] * 0.3)
    before = set(cy_eval(page, "return cy.nodes().map(n => n.id());"))
    page.wait_for_timeout(300)
    active = page.evaluate("() => document.activeElement && document.activeElement.className")
    page.keyboard.press("Control+Space")
    page.wait_for_timeout(500)
    assert page.locator(".dld-quickadd-input").count(), f"quick add did not open; focus on {active!r}"
    page.keyboard.type("Conv")
    screenshot(page, "canvas_quickadd")
    before_replies = replies(page)
    page.keyboard.press("Enter")
    wait_replies(page, before_replies)
    added = set(cy_eval(page, "return cy.nodes().map(n => n.id());")) - before
    assert len(added) == 1, "quick add did not add one node"
    conv = added.pop()
    assert cy_eval(page, "return dld.store.nodes.get(arg).op_type;", conv) == "Conv"

    # Connect by dragging from a free output terminal (Relu of the stem) to the Conv's X input, with the mouse.
    relu = node_by(page, "op_type", "Relu")
    cy_eval(page, """const a = cy.getElementById(arg[0]); cy.zoom(1); cy.center(a);
        cy.getElementById(arg[1]).position({x: a.position().x + 260, y: a.position().y + 120});""", [relu, conv])
    page.wait_for_timeout(200)
    src = rendered(page, relu)
    dst = rendered(page, conv)
    n_out = cy_eval(page, "return dld.store.nodes.get(arg).outputs.length;", relu)
    n_in = cy_eval(page, "return dld.store.nodes.get(arg).inputs.length;", conv)
    sx, sy = src["x"] - src["w"] / 2 + src["w"] * 0.5 / n_out, src["y"] + src["h"] / 2
    dx, dy = dst["x"] - dst["w"] / 2 + dst["w"] * 0.5 / n_in, dst["y"] - dst["h"] / 2
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move((sx + dx) / 2, (sy + dy) / 2, steps=5)
    screenshot(page, "canvas_connecting")
    page.mouse.move(dx, dy, steps=5)
    before = replies(page)
    page.mouse.up()
    wait_replies(page, before)
    edge = f"{relu}:0->{conv}:0"
    assert cy_eval(page, "return cy.getElementById(arg).nonempty();", edge), "drag did not link the terminals"

    # Rename and set an attribute the way the parameter editor does.
    assert intent(page, "rename", {"node": conv, "name": "my_conv"})["ok"]
    assert intent(page, "set_attr", {"node": conv, "name": "group", "value": 1})["ok"]
    refused = intent(page, "rename", {"node": conv, "name": "1 bad name"})
    assert not refused["ok"] and page.locator(".dld-toast-error").count() >= 1
    screenshot(page, "canvas_error_toast")

    # Delete a link with a click and the Delete key.
    victim = cy_eval(
        page, "return cy.edges().filter(e => !e.source().id().startsWith('i') && e.target().id() !== arg)[3].id();",
        conv)
    cy_eval(page, "cy.elements().unselect(); cy.getElementById(arg).select();", victim)
    page.locator(".dld-canvas").focus()
    press_and_wait(page, "Delete")
    assert cy_eval(page, "return cy.getElementById(arg).empty();", victim)
    screenshot(page, "canvas_edited")

    # Undo everything (Ctrl+Z), then redo (Ctrl+Y).
    for _ in range(5):
        press_and_wait(page, "Control+z")
    assert cy_eval(page, "return cy.getElementById(arg).empty();", conv), "undo did not remove the Conv"
    assert cy_eval(page, "return cy.getElementById(arg).nonempty();", victim)
    for _ in range(5):
        press_and_wait(page, "Control+y")
    assert cy_eval(page, "return cy.getElementById(arg).empty();", victim)
    assert cy_eval(page, "return dld.store.nodes.get(arg).name;", conv) == "my_conv"

    # Drag a node with the mouse: the position goes to the document.
    target = rendered(page, conv)
    page.mouse.move(target["x"], target["y"])
    page.mouse.down()
    page.mouse.move(target["x"] + 80, target["y"] + 40, steps=6)
    page.mouse.up()
    page.wait_for_timeout(500)
    moved = cy_eval(page, "return cy.getElementById(arg).position();", conv)

    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.mouse.click(box["x"] + 15, box["y"] + 15)  # a click on the canvas focuses it again
    press_and_wait(page, "Control+s")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "my_conv" not in _names(model_path):
        time.sleep(0.3)
    assert "my_conv" in _names(model_path)
    screenshot(page, "canvas_saved")

    # Reopen in a fresh kernel: edits and positions persist.
    open_model(page, jupyter, "canvas_reopen.ipynb", "resnet.onnx")
    conv2 = node_by(page, "name", "my_conv")
    assert conv2 != "None"
    again = cy_eval(page, "return cy.getElementById(arg).position();", conv2)
    assert abs(again["x"] - moved["x"]) < 1 and abs(again["y"] - moved["y"]) < 1
    assert cy_eval(page, "return cy.getElementById(arg).empty();", victim.replace(conv, conv2))
    screenshot(page, "canvas_reopened")


def _names(path: Path) -> set[str]:
    return {n.name for n in onnx.load(str(path), load_external_data=False).graph.node}


def test_extract_and_export(jupyter: JupyterServer, page: Page) -> None:
    onnx.save(resnet_like(), jupyter.root_dir / "resnet_x.onnx")
    open_model(page, jupyter, "canvas_extract.ipynb", "resnet_x.onnx", ", show_grid=True")
    # Select the first residual block's convs (box of several consecutive ops) and extract them.
    ids = cy_eval(page, """const ops = cy.nodes().filter(n => dld.store.nodes.get(n.id()).kind === 'op');
        return ops.slice(0, 4).map(n => n.id());""")
    cy_eval(page, "cy.elements().unselect(); arg.forEach(id => cy.getElementById(id).select());", ids)
    reply = intent(page, "extract", {"nodes": ids})
    assert reply["ok"], reply
    out = Path(str(reply["data"]["path"]))
    extracted = onnx.load(str(out))
    onnx.checker.check_model(extracted)
    assert len(extracted.graph.node) == 4
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    feeds = {}
    for i in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        feeds[i.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    session.run(None, feeds)

    # Context menu on the background, then export through the kernel API (PNG and SVG).
    box = page.locator(".dld-stage").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 30, box["y"] + 30, button="right")
    page.wait_for_selector(".dld-menu")
    screenshot(page, "canvas_context_menu")
    page.keyboard.press("Escape")
    page.mouse.click(box["x"] + 30, box["y"] + 30)
    _export_cell(page, jupyter)
    for name in ("canvas_export.png", "canvas_export.svg", "canvas_export_grid.svg"):
        path = jupyter.root_dir / name
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not path.exists():
            time.sleep(0.3)
        assert path.exists() and path.stat().st_size > 1000, name
    svg = (jupyter.root_dir / "canvas_export.svg").read_text()
    assert svg.startswith("<svg") and svg.count('class="dld-node"') >= 50
    assert 'id="grid"' not in svg  # issue 41: a grid colour draws the grid in that colour
    gridded = (jupyter.root_dir / "canvas_export_grid.svg").read_text()
    assert '<pattern id="grid"' in gridded and 'stroke="#ff7f0e" stroke-width="0.6"' in gridded
    (Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots" / "canvas_export.png").write_bytes(
        (jupyter.root_dir / "canvas_export.png").read_bytes())
    # The Lab command asks for the path, then the grid colour (issue 41)
    page.evaluate("() => { void window.jupyterapp.commands.execute('dld:export-image'); }")
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").fill("canvas_from_menu.svg")
    dialog.locator("button.jp-mod-accept").click()
    expect(page.locator(".jp-Dialog")).to_contain_text("Grid in the image")
    page.locator(".jp-Dialog input").fill("#2ca02c")
    page.locator(".jp-Dialog button.jp-mod-accept").click()
    menu_svg = jupyter.root_dir / "canvas_from_menu.svg"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not menu_svg.exists():
        time.sleep(0.3)
    assert 'stroke="#2ca02c" stroke-width="0.6"' in menu_svg.read_text()


def _export_cell(page: Page, jupyter: JupyterServer) -> None:
    """Run `d.export(...)` in the notebook's kernel (a new cell at the end)."""
    run_in_kernel(page, "d.export('canvas_export.png', grid=True)\nd.export('canvas_export.svg')\n"
                        "d.export('canvas_export_grid.svg', grid='#ff7f0e')")


def test_large_model_opens_collapsed_expands_and_focuses(jupyter: JupyterServer, page: Page) -> None:
    from tests.models import transformer_like

    onnx.save(transformer_like(layers=195), jupyter.root_dir / "llama7k.onnx")
    open_model(page, jupyter, "canvas_large.ipynb", "llama7k.onnx")
    groups = cy_eval(page, "return cy.nodes('.group').map(n => n.id());")
    assert 5 <= len(groups) <= 60 and cy_eval(page, "return cy.nodes().length;") < 80
    screenshot(page, "canvas_large_collapsed")
    # Double-click a group: the kernel answers with a patch that expands it in place.
    first = groups[0]
    expand_by_double_click(page, first)
    cy_eval(page, "cy.fit(cy.getElementById(arg), 20);", first)
    screenshot(page, "canvas_large_expanded")
    # Focus a node deep inside a collapsed group (what the layer explorer and report links do).
    run_in_kernel(page, "d.focus(next(n.name for n in d.document.nodes()"
                        " if n.name.startswith('/layers.150/attn/Softmax')))")
    page.wait_for_function(
        "() => { const cy = document.querySelector('.dld-stage')._cyreg.cy;"
        " return cy.nodes(':selected').some(n => (n.data('label') || '').includes('Softmax')); }", timeout=20_000)
    page.wait_for_timeout(400)
    screenshot(page, "canvas_large_focused")


def test_terminals_constants_schemes_and_grid(jupyter: JupyterServer, page: Page) -> None:
    """Mini-constant terminal, variadic placeholder, colour-blind scheme, grid: looked at in the screenshots."""
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Constant", [], ["c"], name="const", value=helper.make_tensor("v", TensorProto.FLOAT,
                                                                                      [1, 4], [1, 2, 3, 4])),
        helper.make_node("Concat", ["r", "c"], ["y"], name="concat", axis=0),
        helper.make_node("Gemm", ["y", "w"], ["z"], name="gemm"),
    ]
    graph = helper.make_graph(
        nodes, "terminals", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("w", TensorProto.FLOAT, [4, 3], [0.1] * 12)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), jupyter.root_dir / "t.onnx")
    open_model(page, jupyter, "canvas_terminals.ipynb", "t.onnx", ", show_grid=True")
    ids = cy_eval(page, "return cy.nodes().map(n => n.id());")
    assert len(ids) == 5, "the Constant is hidden by default (x, relu, concat, gemm, z)"
    concat = node_by(page, "op_type", "Concat")
    states = cy_eval(page, "return dld.store.nodes.get(arg).inputs.map(t => t.state);", concat)
    assert states == ["linked", "constant", "placeholder"]
    cy_eval(page, "cy.zoom(1.6); cy.center(cy.getElementById(arg));", concat)
    page.wait_for_timeout(300)
    screenshot(page, "canvas_terminals_default")
    # Double-click the mini constant: that Constant node is shown, linked normally.
    n = rendered(page, concat)
    before = replies(page)
    page.mouse.dblclick(n["x"] - n["w"] / 2 + n["w"] * 1.5 / 3, n["y"] - n["h"] / 2)
    wait_replies(page, before)
    assert cy_eval(page, "return cy.nodes().length;") == 6
    run_in_kernel(page, "d.canvas.color_scheme = 'okabe-ito'")
    page.wait_for_timeout(500)
    cy_eval(page, "cy.fit(undefined, 40);")
    page.wait_for_timeout(300)
    screenshot(page, "canvas_terminals_okabe_ito")
