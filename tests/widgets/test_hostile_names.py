"""Names and paths are text in every widget (issue 31, finding 1): real models saved under file and folder names
that are HTML payloads, opened and driven through every widget that shows a name or a path; no HTML widget's
markup holds an element or an event handler from a name, and each name is shown, as text.

Before the escaping helper, the designer's status line, the Profile panel's title and report path and the Export
Engine panel's engine path put these names into ipywidgets' HTML (innerHTML) as they were: opening
`<img src=x onerror=alert(1)>.onnx` ran its script.
"""

from __future__ import annotations

import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import ipywidgets as w
import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities.result import ActivityResult, ActivityStatus, Progress
from dld_jupyter.document import DocumentError
from dld_jupyter.lab import document_tabs
from dld_jupyter.models import SAMPLE_MODEL
from dld_jupyter.usertools import UserTool, save_tools

DATA = Path(__file__).resolve().parents[1] / "data"
FOLDER = "<img src=x onerror=alert(1)>"  # a folder name
STEM = '"><svg onload=alert(2)>&lt;b&gt;'  # a file name (no "/": a file name cannot hold one)
INNER = '"><script>alert(3)</script>'  # a graph, node or tool name, where "/" is allowed
BRANCHING = "<b onmouseover=alert(6)>If"
ACTIVE = {"img", "script", "svg", "iframe", "object", "embed", "math", "link", "meta", "base", "form"}


class _Markup(HTMLParser):
    """The elements and the text a browser would make of an HTML widget's value."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def markup_of(root: Any) -> list[str]:
    """Every piece of markup shown under `root`: HTML / HTMLMath values and descriptions that allow HTML, found by
    walking every synced widget-valued trait (children, titles' boxes, dock bodies...)."""
    found: list[str] = []
    seen: set[int] = set()

    def walk(widget: Any) -> None:
        if not isinstance(widget, w.Widget) or id(widget) in seen:
            return
        seen.add(id(widget))
        if isinstance(widget, (w.HTML, w.HTMLMath)):
            found.append(widget.value)
        if getattr(widget, "description_allow_html", False):
            found.append(widget.description)
        for name in widget.trait_names(sync=lambda v: v):
            value = getattr(widget, name, None)
            for item in value if isinstance(value, (list, tuple)) else [value]:
                walk(item)

    walk(root)
    return found


def assert_names_are_text(root: Any, *names: object) -> str:
    """No payload element or `on…` attribute in any markup under `root`, and each name shown as text."""
    shown: list[str] = []
    for value in markup_of(root):
        parsed = _Markup()
        parsed.feed(value)
        parsed.close()
        for tag, attrs in parsed.tags:
            assert tag not in ACTIVE, f"<{tag}> reached an HTML widget: {value!r}"
            handlers = [a for a, _v in attrs if a.startswith("on")]
            assert not handlers, f"event handler {handlers} on <{tag}> in an HTML widget: {value!r}"
        shown.append("".join(parsed.text))
    text = "\n".join(shown)
    for name in names:
        assert str(name) in text, f"{name!r} is not shown as text; shown: {text!r}"
    return text


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    hostile = tmp_path / FOLDER
    hostile.mkdir()
    return hostile


@pytest.fixture(autouse=True)
def lab_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DLD_CONFIG_DIR", raising=False)
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "lab"))  # user tools stored here, not in $HOME


class _Finished:
    """A finished export as the engine hands it to the panel: TensorRT cannot run here, so its success is given."""

    def __init__(self, result: ActivityResult) -> None:
        self.result = result
        self.done = True

    def wait(self, timeout: float | None = None) -> ActivityResult:
        return self.result


def test_designer_status_profile_and_export_panels_show_hostile_paths_as_text(folder: Path) -> None:
    model = folder / f"{STEM}.onnx"
    shutil.copy(SAMPLE_MODEL, model)
    d = dld.open(str(model))
    assert_names_are_text(d, f"{STEM} — {model} —")  # the status line: name, path

    panel = d.profile_panel(run=True, iterations=3, warmup=1)
    result = panel.wait(180)
    assert result is not None and result.ok, result and result.error
    assert Path(str(result.report_path)).parent == folder
    assert_names_are_text(d, f"Profile with ONNX Runtime {model}", f"s: {result.report_path}")
    panel.backend.value = "TensorRT"
    assert_names_are_text(d, f"Profile with TensorRT {model}")
    panel._show_error(f"The heat could not be shown on the canvas: {result.report_path}")
    assert_names_are_text(d, f"canvas: {result.report_path}")

    export = d.export_engine_panel()
    export.metadata.value = str(folder / f"{INNER.replace('/', '_')}.trt.json")
    assert export.engine.value.startswith(str(folder)) and export.run() is None  # no TensorRT here: refused
    export._on_progress(Progress(0.5, f"building {INNER}"))
    assert_names_are_text(d, f"building {INNER} 50%")
    export._wait(_Finished(ActivityResult(ActivityStatus.SUCCEEDED, duration_s=1.0)), export.spec(str(model)))
    assert_names_are_text(d, f"s: {export.engine.value} — layer information: {export.metadata.value}")


def test_tools_dialogs_and_a_user_tool_run_show_hostile_names_as_text(folder: Path) -> None:
    model = folder / f"{STEM}.onnx"
    shutil.copy(SAMPLE_MODEL, model)
    d = dld.open(str(model))
    for kind in ("convert_fp16", "sanitize"):
        assert_names_are_text(d.tools_panel(kind), STEM)
    assert_names_are_text(d.tools_panel("convert_tensors"))
    script = folder / "copy.py"
    script.write_text("import shutil, sys\nprint('<img src=x onerror=alert(4)>')\n"
                      "shutil.copy(sys.argv[1], sys.argv[2])\n")
    tool = UserTool(INNER, sys.executable, [str(script), "$Model", "$Output"], True, True)  # asks for $Output
    save_tools([tool])
    d.tools_panel("global_modifications")  # the saved tool is a button: its name is a description (text)
    manager = d.tools_panel("custom_tools")
    assert manager.listing.value == INNER
    manager.edit(manager.selected())
    assert_names_are_text(manager, f"Application: {sys.executable}", f"'{script}' '$Model'", f"Edit {INNER}")
    run = d.tools_panel("run_user_tool", tool=INNER, output=str(folder / f"{STEM}_out.onnx"))
    run.run()
    outcome = run.wait(60)
    assert outcome is not None and outcome.ok and outcome.output is not None and outcome.output.parent == folder
    assert run.opened is not None
    assert_names_are_text(run, f"User tool: {INNER}", f"{script} $Model $Output", f"Model output: {outcome.output}",
                          f"Opened the output {outcome.output}", f"{outcome.output.stem} — {outcome.output} —")


def _hostile_gru(folder: Path) -> Path:
    """The scripted GRU with its Loop named INNER, the Loop body's graph FOLDER and the If in it BRANCHING, saved in
    the hostile folder under a hostile name."""
    proto = onnx.load(DATA / "real" / "gru_scripted.onnx")
    loop = next(n for n in proto.graph.node if n.op_type == "Loop")
    loop.name = INNER
    body = next(a for a in loop.attribute if a.name == "body").g
    body.name = FOLDER
    next(n for n in body.node if n.op_type == "If").name = BRANCHING
    path = folder / f"{STEM}.onnx"
    onnx.save(proto, path)
    return path


def test_child_designers_and_subgraph_panels_show_hostile_names_as_text(folder: Path) -> None:
    d = dld.open(str(_hostile_gru(folder)))
    body = d.open_subgraph(INNER, "body")
    assert INNER in body.document.title and STEM in body.document.title
    assert_names_are_text(d, f"{STEM} ▸ {INNER} ▸ body", f"part of {STEM}")  # the breadcrumb, the child's status
    assert_names_are_text(d.banner, f"of node '{INNER}' is open")  # the parent's read-only banner
    inner = next(n for n in body.document.nodes() if n.subgraphs)
    branch = body.open_subgraph(inner.id, inner.subgraphs[0])
    with pytest.raises(DocumentError):  # a child of the body is still open: refused, and said in the widget
        body.confirm()
    assert_names_are_text(body.ask, f"of node '{BRANCHING}' is open")
    branch.close()
    first = next(n for n in body.document.nodes() if n.kind == "op")
    body.document.rename_node(first.id, "edited")
    body.request_close()
    assert_names_are_text(body.ask, f"{body.document.title} has unconfirmed edits. Confirm them into {STEM}")
    {b.description: b for b in body.ask.children[0].children[1].children}["Discard"].click()

    dialog = d.child_panel("extract_model_subgraph")
    assert_names_are_text(dialog, f"Extract Model Subgraph {STEM}")
    dialog.path.value = str(folder / f"{STEM}_body.onnx")
    written = dialog.extract()
    assert_names_are_text(dialog, f"Extracted to {written}")
    dialog.path.value = str(folder / "missing folder" / "x.onnx")
    dialog._guard(dialog.extract)
    assert_names_are_text(dialog, FOLDER)  # the refusal names the path


def test_function_panels_show_hostile_names_as_text(folder: Path) -> None:
    proto = onnx.load(DATA / "real" / "shufflenet_functions_small.onnx")
    function = proto.functions[0]
    callers = [n for g in [proto.graph, *proto.functions] for n in g.node
               if (n.domain, n.op_type) == (function.domain, function.name)]
    function.name = INNER  # the function renamed, with every call of it
    for node in callers:
        node.op_type = INNER
    model = folder / f"{STEM}.onnx"
    onnx.save(proto, model)
    d = dld.open(str(model))
    window = d.child_panel("local_functions")
    assert_names_are_text(window, f"Model Local Functions {STEM}")
    name, domain, _overload = next(key for _label, key in window.list.options if key[0] == INNER)
    window.select(name, domain)
    written = window.extract(str(folder / f"{STEM}_fn.onnx"))
    assert_names_are_text(window, f"Extracted {domain}::{INNER} to {written}.")
    child = window.open_selected()
    settings = child.child_panel("function_settings")
    assert_names_are_text(settings, f"Local Function Settings function {domain}::{INNER}")


def test_engine_graph_report_and_a_tab_that_cannot_show_its_file(folder: Path) -> None:
    engine = folder / f"{STEM}.trt.json"
    shutil.copy(DATA / "trt" / "tf-resnet50-rtx3090-fp16.engine.graph.json", engine)
    view = dld.open_engine(str(engine))
    assert_names_are_text(view, f"{engine.name} — TensorRT engine graph")
    bad = folder / f"{STEM}.onnx"
    bad.write_bytes(b"<script>alert(5)</script> is not a model")
    shown = document_tabs.show(f"hostile {id(bad)}", lambda: dld.open(str(bad)))
    assert_names_are_text(shown, "DL Designer cannot show this file.", STEM)
