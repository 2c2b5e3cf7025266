"""EngineDesigner: a TensorRT engine's layer information, read-only, on the model canvas (`dld.open_engine`).

Title line (engine, layer count, precision mix, inputs and outputs), a toolbar without edit tools (arrange,
image export, colour scheme, grid), the canvas, and a side panel with the selected layer's full record: its
type, precision, tactic, the ONNX nodes it fuses, its input and output tensors with shapes and formats, and
every other field TensorRT wrote. There is no save: nothing in it can change.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import ipywidgets as w

from dld_jupyter.formats.html_text import text
from dld_jupyter.report_format.engine_graph import EngineGraph, load_engine_graph
from dld_jupyter.widgets.canvas.canvas_base import SCHEMES
from dld_jupyter.widgets.closing import close_shown
from dld_jupyter.widgets.engine.engine_canvas import EngineCanvas
from dld_jupyter.widgets.engine.engine_view import engine_view
from dld_jupyter.widgets.widget_base import DldVBox, check_keywords

_OPTIONS = ("color_scheme", "show_grid", "height")
_STYLE = (  # long layer and tactic names wrap anywhere; the field names never do
    "<style>.dld-engine-text{overflow-wrap:anywhere;line-height:1.45}.dld-engine-text ul{margin:2px 0 6px}"
    ".dld-engine-record th{white-space:nowrap;text-align:left;vertical-align:top;padding-right:8px}</style>"
)
_PANEL_HINT = "<i>Select a layer to see its record: precision, tactic, formats and the ONNX nodes it fuses.</i>"


def _tensors(items: list[dict[str, Any]]) -> str:
    rows = "".join(
        f"<li><code>{text(t['name'])}</code> {text('×'.join(str(d) for d in t['dims']))}"
        f"<br><small>{text(t['format'])}</small></li>"
        for t in items
    )
    return f"<ul class='dld-engine-tensors'>{rows}</ul>" if rows else "—"


def record_html(record: dict[str, Any] | None) -> str:
    """The side panel's text for one node's record (engine_view.EngineView.record); long names wrap."""
    return f"{_STYLE}<div class='dld-engine-text'>{_record_html(record)}</div>"


def _record_html(record: dict[str, Any] | None) -> str:
    if record is None:
        return _PANEL_HINT
    if record["kind"] != "layer":
        dims = "×".join(str(d) for d in record["dims"])
        return (
            f"<b>Engine {record['kind']}</b> <code>{text(record['name'])}</code><br>{text(dims)} "
            f"{text(record['precision'])}<br><small>{text(record['format'])}</small>"
        )
    nodes = "".join(f"<li><code>{text(n)}</code></li>" for n in record["onnx_nodes"]) or "<li>—</li>"
    extra = "".join(
        f"<tr><th>{text(str(k))}</th><td>{text(json.dumps(v) if not isinstance(v, str) else v)}</td></tr>"
        for k, v in record["parameters"].items()
    )
    overhead = " <small>(overhead: reformat/copy)</small>" if record["overhead"] else ""
    name, precision = text(record["name"]), text(record["precision"])
    return (
        f"<b>{text(record['type'])}</b>{overhead}<br><code class='dld-engine-name'>{name}</code>"
        f"<table class='dld-engine-record'><tr><th>Precision</th><td>{precision}</td></tr>"
        f"<tr><th>Tactic</th><td><code>{text(record['tactic'] or '—')}</code></td></tr></table>"
        f"<b>Fuses ONNX nodes</b><ul>{nodes}</ul><b>Inputs</b>{_tensors(record['inputs'])}"
        f"<b>Outputs</b>{_tensors(record['outputs'])}"
        + (f"<b>Other fields</b><table class='dld-engine-record'>{extra}</table>" if extra else "")
    )


def summary(graph: EngineGraph) -> str:
    counts: dict[str, int] = {}
    for layer in graph.layers:
        counts[layer.precision] = counts.get(layer.precision, 0) + 1
    mix = ", ".join(f"{p} {n}" for p, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{len(graph.layers)} layers ({mix}) · inputs {', '.join(graph.inputs)} · outputs {', '.join(graph.outputs)}"


class EngineDesigner(DldVBox, css="dld-engine-designer"):
    """The engine graph: header, toolbar (no edit tools), canvas beside the layer record panel, messages."""

    def __init__(self, graph: EngineGraph, **options: Any) -> None:
        check_keywords("open_engine", options, _OPTIONS)
        self.graph = graph
        self.view = engine_view(graph)
        name = pathlib.Path(graph.source).name or "engine"
        self.canvas = EngineCanvas(self.view, name, **options)
        # Side by side where the tab is wide enough; in a narrow tab (a split view) the panel wraps below the canvas.
        replaced, self.canvas.layout = self.canvas.layout, w.Layout(flex="3 1 260px", min_width="0")
        replaced.close()  # shown by nothing now: it would stay in the kernel
        self.panel = w.HTML(
            record_html(None),
            layout=w.Layout(
                flex="1 1 200px", max_width="420px", max_height=self.canvas.height, overflow="auto", padding="0 8px"
            ),
        )
        self.panel.add_class("dld-engine-panel")
        self.output = w.Output(layout=w.Layout(max_height="120px", overflow="auto"))
        self.canvas.on_error = lambda text: self.output.append_stdout(text + "\n")  # browser errors, in the widget
        self.header = w.HTML(
            f"<b>{text(name)}</b> — TensorRT engine graph, read-only — {text(summary(graph))}"
        )
        self.toolbar = self._toolbar()
        self.canvas.observe(self._on_selection, names=["selection", "hovered"])
        super().__init__(
            [
                self.header,
                self.toolbar,
                w.HBox([self.canvas, self.panel], layout=w.Layout(flex_flow="row wrap")),
                self.output,
            ]
        )

    @property
    def selected_record(self) -> dict[str, Any] | None:
        """The record of the last selected node."""
        return self.view.record(self.canvas.selection[-1]) if self.canvas.selection else None

    @property
    def shown_record(self) -> dict[str, Any] | None:
        """The record the side panel shows: the hovered node's, else the selected one's."""
        hovered = self.view.record(self.canvas.hovered) if self.canvas.hovered else None
        return hovered or self.selected_record

    def select(self, layer_name: str) -> str:
        """Select a layer by its TensorRT name; returns its node id."""
        layer = self.graph.layer_named(layer_name)
        if layer is None:
            raise ValueError(f"no layer named {layer_name!r} in {self.graph.source}; see dld engine show.")
        node_id = f"L{layer.index}"
        self.canvas.selection = [node_id]
        self.canvas.send({"kind": "focus", "ids": [node_id]})
        return node_id

    def export(self, path: str | pathlib.Path) -> pathlib.Path:
        return self.canvas.export(path)

    def close(self) -> None:
        """Close the canvas, the record panel and every other widget shown here, then this one (widgets/closing.py)."""
        close_shown(self, getattr(self, "canvas", None))  # none when __init__ refused its arguments
        super().close()

    def _on_selection(self, _change: dict[str, Any]) -> None:
        self.panel.value = record_html(self.shown_record)

    def _toolbar(self) -> w.HBox:
        arrange = w.Button(
            description="Arrange",
            icon="sitemap",
            tooltip="Put every layer back on the layout",
            layout=w.Layout(width="auto"),
        )
        arrange.on_click(lambda _b: self.canvas.handle_intent({"action": "arrange"}))
        self.path_box = w.Text(placeholder="image.png / .svg", layout=w.Layout(width="200px"))
        export = w.Button(
            description="Export Image",
            icon="image",
            layout=w.Layout(width="auto"),
            tooltip="Save the engine graph as an image (.png, .jpg or .svg) at the path",
        )
        export.on_click(lambda _b: self._export())
        scheme = w.Dropdown(options=SCHEMES, value=self.canvas.color_scheme, layout=w.Layout(width="110px"))
        w.link((scheme, "value"), (self.canvas, "color_scheme"))
        grid = w.ToggleButton(description="Grid", value=self.canvas.show_grid, layout=w.Layout(width="auto"))
        w.link((grid, "value"), (self.canvas, "show_grid"))
        return w.HBox([arrange, export, self.path_box, scheme, grid], layout=w.Layout(flex_flow="row wrap"))

    def _export(self) -> None:
        try:
            if not self.path_box.value:
                raise ValueError("Export: type an image path (.png, .jpg or .svg) in the path box.")
            self.export(self.path_box.value)
        except (ValueError, OSError) as error:
            self.output.append_stdout(f"[Engine {self.canvas.title!r}] {error}\n")


def open_engine(path: str | pathlib.Path, **options: Any) -> EngineDesigner:
    """The engine graph of a `.trt.json` / `trtexec --exportLayerInfo` file (EngineGraphError when it is not one)."""
    return EngineDesigner(load_engine_graph(path), **options)
