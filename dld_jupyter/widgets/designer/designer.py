"""Designer: the notebook front door to one model: toolbar + canvas + a slot for editor panels + error output.

`open_designer(path)` / `new_designer(opset=..., contrib=...)` build one; `dld_jupyter.open/new` return it.
Errors from the browser (JS exceptions, failed patches) print in the Designer's own output area, named, in the notebook.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from dld_jupyter.activities import timing
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.files.loading import DocumentLoad, open_for_view
from dld_jupyter.formats.html_text import small
from dld_jupyter.frontdoor.children import child_kind
from dld_jupyter.frontdoor.designers import registry
from dld_jupyter.frontdoor.results_tab import ResultsOpener
from dld_jupyter.frontdoor.soon import Soon
from dld_jupyter.widgets.canvas.canvas import GraphCanvas
from dld_jupyter.widgets.closing import close_shown, replace_children
from dld_jupyter.widgets.designer.analysis_mode import AnalysisMode
from dld_jupyter.widgets.designer.children import NO_INITIALIZERS, ChildDocuments
from dld_jupyter.widgets.designer.compare_actions import CompareActions
from dld_jupyter.widgets.designer.dock import SideDock
from dld_jupyter.widgets.designer.family import Family
from dld_jupyter.widgets.designer.layouts import Layouts
from dld_jupyter.widgets.designer.node_data_actions import NodeDataActions
from dld_jupyter.widgets.designer.overlay_actions import OverlayActions
from dld_jupyter.widgets.designer.run_panels import RunPanels
from dld_jupyter.widgets.designer.toolbar import child_toolbar, model_toolbar
from dld_jupyter.widgets.editors import EditorPanels
from dld_jupyter.widgets.widget_base import DldVBox, check_keywords

if TYPE_CHECKING:
    from dld_jupyter.frontdoor.analysis import Analysis, Inputs

_CANVAS_OPTIONS = ("grouping", "color_scheme", "show_grid", "show_constants", "height")
_OPTIONS = (*_CANVAS_OPTIONS, "dock")  # dock: "right" (default) or "bottom", where the side panels sit


class Designer(CompareActions, NodeDataActions, OverlayActions, RunPanels, DldVBox,
               css="dld-designer"):
    """Toolbar (new/open/save/undo/redo/arrange/check/export), then the canvas with a docked side panel (dock.py:
    `panels` for the editors, `profiling` and `tools` for the Profile panel and the Tools / Export Engine dialogs),
    then a profile's report, the status line and messages; `layouts` arranges the dock (named layouts, layouts.py).

    A child Designer (`parent_designer` set: a subgraph or local function opened from another designer, see
    children.py) has Confirm / Close in its toolbar instead of New / Open / Save and is shown in the root
    designer's document tabs (family.py).

    Collaborators it owns: `analysis_mode` (the Analysis panel, analysis_mode.py), `child_documents` (children.py)
    and its toolbar (toolbar.py); the names front doors and users call stay on the Designer."""

    def __init__(self, document: Document | DocumentLoad, *, parent_designer: Designer | None = None,
                 **options: Any) -> None:
        check_keywords("Designer", options, _OPTIONS)
        side = str(options.pop("dock", "right"))
        self.parent_designer = parent_designer
        # Set by a JupyterLab designer tab (lab/document_tabs.py): opens a finished profile's report in a tab split
        # beside this one, on this kernel; returns False when it cannot (the report then shows below the designer).
        self.open_report_tab: Callable[[str], bool] | None = None
        self.open_results_tab: ResultsOpener | None = None  # the same link: a sweep's results, a divergence table
        self.banner = w.HTML()  # the read-only reason while a child document of this one is open
        self.ask = w.Box(layout=w.Layout(width="100%", flex_flow="column"))  # close question, confirm errors
        self.output = w.Output(layout=w.Layout(max_height="160px", overflow="auto"))
        self.status = w.HTML()
        self.panels = w.Box(layout=w.Layout(width="100%"))
        self.profiling = w.Box(layout=w.Layout(width="100%", flex_flow="column"))  # the Profile panel, when opened
        self.tools = w.Box(layout=w.Layout(width="100%", flex_flow="column"))  # a Tools dialog, when opened
        self.reports = w.Box(layout=w.Layout(width="100%", flex_flow="column"))  # a finished profile's report
        self._options = options
        self.analysis_mode = AnalysisMode(self)  # the Analysis panel and the toolbar's Launch / Stop Analysis
        self.child_documents = ChildDocuments(self, lambda doc, **opts: Designer(doc, parent_designer=self, **opts))
        self.canvas = self._make_canvas(document)
        self.side_dock = SideDock(self.canvas, [self.tools, self.profiling, self.panels],
                                  height=self.canvas.height, side=side)
        self.layouts = Layouts(self.side_dock, lambda: self._editors, lambda then: self.canvas.on_document(then))
        self.toolbar = child_toolbar(self) if parent_designer is not None else model_toolbar(self)
        self.family = Family(self, self._relayout)
        super().__init__(self._parts())
        if parent_designer is not None:
            self.add_class("dld-child-designer")
        self._refresh_status()
        registry.register(self)  # the sidebar and report links find it there, until it is closed

    def close(self) -> None:
        """Close the designer (again: nothing more); a child designer closes its document first (edits dropped)."""
        if self.comm is None:  # closed already, or __init__ refused its arguments
            return
        if self.parent_designer is not None and not getattr(self.document, "closed", True):
            self.close_document()
            return
        for child in self.family.children_of(self):
            child.close()
        self.close_widgets()

    def close_widgets(self) -> None:
        registry.unregister(self)
        self._unsubscribe()
        close_shown(self, self.canvas, self._editors, self.family.bar)  # socket, check thread...: closing.py
        super().close()

    def own_parts(self) -> list[w.Widget]:
        return [self.banner, self.toolbar, self.ask, *self.comparing, self.side_dock.body, self.reports, self.status,
                self.output]

    def _show_parts(self) -> None:  # again: a part made when first used (the comparisons' job) comes in
        self.children = self._parts()

    def _parts(self) -> list[w.Widget]:
        if self.parent_designer is not None:
            return self.own_parts()
        return [self.family.bar, *self.own_parts(), *self.family.members[1:]]

    def _relayout(self) -> None:
        """Show the family's active document: this model's parts, or one child designer."""
        active = self.family.active
        for part in self.own_parts():
            part.layout.display = None if active is self else "none"
        for child in self.family.members[1:]:
            child.layout.display = None if child is active else "none"
        self.children = self._parts()

    def _make_canvas(self, document: Document | DocumentLoad) -> GraphCanvas:
        canvas = GraphCanvas(document, on_error=self._show_error, **self._options)
        canvas.host = self  # its intents open subgraphs and functions here
        self._editors: EditorPanels | None = None
        self._unsubscribe: Callable[[], None] = lambda: None
        self.canvas = canvas
        canvas.on_document(lambda doc: self._document_ready(canvas, doc))  # a big model: once it has loaded
        return canvas

    def _document_ready(self, canvas: GraphCanvas, document: Document) -> None:
        if canvas is not self.canvas:  # another model was opened meanwhile
            return
        refresh_soon = Soon(self._refresh_status)  # after the canvas's reply to an edit
        self._unsubscribe = document.subscribe(lambda _events: refresh_soon())
        self._refresh_status()
        disabled = {"initializers": NO_INITIALIZERS.format(kind=child_kind(self))} if child_kind(self) else {}
        # parameters, initializers, tensor: in the dock, which scrolls (no height of their own)
        self._editors = EditorPanels(document, canvas, disabled_tabs=disabled, height="none")
        self._editors.host = self  # its subgraph links open children here
        self.panels.children = [self._editors]

    @property
    def editors(self) -> EditorPanels:
        """The editor panels (built once the document is there: this waits for a loading one)."""
        self.canvas.document  # noqa: B018 (waits for a loading document; its arrival builds the panels)
        assert self._editors is not None
        return self._editors

    def _guard(self, action: Any) -> None:
        try:
            action()
        except (DocumentError, ValueError, OSError) as error:
            self._show_error(str(error))

    def _show_error(self, text: str) -> None:
        # append_stdout, not `with self.output: print(...)`: a big model's load fails on its loading thread, where
        # the output capture of the kernel's current message does not apply.
        self.output.append_stdout(f"[Designer {self.canvas.title!r}] {text}\n")
        if self.canvas.loading:  # a failed load: the status line must stop saying it is loading
            self._refresh_status()

    def _refresh_status(self) -> None:
        load = self.canvas.pending_load
        if load is not None and load.failed:
            self.status.value = small(self.canvas.title, " — the model could not be loaded (see below).")
            return
        if load is not None:
            count = load.node_count
            self.status.value = small(self.canvas.title, f" — loading the model ({count:,} nodes): the overview"
                                      " is drawn; edits, expanding groups and the editors wait for it…")
            return
        doc = self.document
        mark = " •" if doc.dirty else ""
        where = str(doc.path) if doc.path else "unsaved"
        if self.parent_designer is not None:
            where = f"part of {self.parent_designer.document.name}: confirm, then save the model"
            mark = " • unconfirmed edits" if doc.dirty else ""
        undone = len(doc.history) - doc.history_index  # the count follows Undo/Redo: it said every step ever made
        done = doc.history_index
        steps = f" — {done} step{'' if done == 1 else 's'}" + (f" ({undone} to redo)" if undone else "")
        self.status.value = small(doc.name, mark, " — ", where, steps)
        self.refresh_banner()  # a child opened or closed through the Python API (ReadOnlyChanged) shows too
        root = self.root_designer
        if getattr(root, "family", None) is not None and len(root.family.members) > 1:
            root.family.refresh()  # tab titles carry the dirty mark

    @property
    def document(self) -> Document:
        return self.canvas.document

    def save(self, path: str | pathlib.Path | None = None) -> None:
        self.canvas.save(path)
        self._refresh_status()

    def undo(self) -> str:
        return self.document.undo()

    def redo(self) -> str:
        return self.document.redo()

    def check(self) -> list[Any]:
        found = self.document.check()
        for d in found:
            self._show_error(f"{d.severity}: {d.message}" + (f" ({d.fix_hint})" if d.fix_hint else ""))
        if not found:
            self._show_error("check passed: no diagnostics.")
        return found

    # ------------------------------------------------------------ child documents (children.py), by their public names
    @property
    def root_designer(self) -> Any:
        return self.child_documents.root

    @property
    def active_designer(self) -> Any:
        """The designer whose document is shown now (this one, or one of the children it hosts)."""
        return self.child_documents.active

    def open_subgraph(self, node_id: str, attribute: str, index: int | None = None) -> Any:
        """Open the subgraph `attribute` (`index` in a list) of `node_id` (an id or a node name) in a child
        Designer shown in this designer's document tabs; returns it."""
        return self.child_documents.open_subgraph(node_id, attribute, index)

    def open_function(self, name: str, domain: str, overload: str = "") -> Any:
        """Open the local function `domain::name` in a child Designer shown in the document tabs; returns it."""
        return self.child_documents.open_function(name, domain, overload)

    def confirm(self) -> None:
        """Write this subgraph / function back into its parent as one undo step of the parent."""
        self.child_documents.confirm()

    def close_document(self) -> None:
        self.child_documents.close_document()

    def request_close(self) -> None:
        self.child_documents.request_close()

    def refresh_banner(self) -> None:
        self.child_documents.refresh_banner()

    def child_panel(self, kind: str, **settings: Any) -> Any:
        return self.child_documents.child_panel(kind, **settings)

    # ------------------------------------------------------------ analysis (analysis_mode.py), as front doors name it
    def analyse(self, inputs: Inputs | None = None, provider: str = "cpu", **options: Any) -> Analysis:
        """Analyse this designer's model for a script, no panel (see `dld_jupyter.frontdoor.analysis.analyse`)."""
        from dld_jupyter.frontdoor.analysis import analyse  # the debugger's runtime: imported when used

        return analyse(self.document, inputs, provider, **options)

    @property
    def analysis(self) -> Analysis | None:
        """The live Analysis; None when not analysing."""
        return self.analysis_mode.live

    def launch_analysis(self, inputs: Mapping[str, Any] | None = None, provider: str = "cpu", target: Any = None
                        ) -> Analysis | None:
        """Open the Analysis panel, feed `inputs` and launch (see `AnalysisMode.launch`)."""
        return self.analysis_mode.launch(inputs, provider, target)

    def stop_analysis(self) -> None:
        self.analysis_mode.stop()

    def set_breakpoints(self, nodes: Sequence[str], add: bool = True) -> None:
        self.analysis_mode.set_breakpoints(nodes, add)

    def watch_breakpoints(self, listener: Callable[[list[str]], object]) -> Callable[[], None]:
        return self.analysis_mode.watch_breakpoints(listener)

    def add_analysis_layer(self, kind: str, node: str, other: str = "") -> str:
        return self.analysis_mode.add_layer(kind, node, other)

    def open_trt_dialog(self, dialog: str, nodes: Any = ()) -> None:
        """Open the canvas's Set Layer Precision / Set TensorRT Optimization Profile dialog (`nodes`: the layers,
        else the canvas selection); the layer explorer's menu lands here. The browser's TensorRT overlay opens it
        (js/src/widgets/canvas/overlays/tensorrt/), entered like every overlay by its name."""
        self.canvas.send({"kind": "overlay", "overlay": "tensorrt", "action": "dialog", "dialog": dialog,
                          "nodes": list(nodes) or list(self.canvas.selection)})

    def profile(self, **options: Any) -> Any:
        """Profile the current model (a dirty one from a saved copy) and return its Report."""
        from dld_jupyter.activities.api import profile

        return profile(self.document, **options)

    def select(self, names: list[str] | str, reveal: bool = False) -> list[str]:
        """Select nodes by ONNX name (or id), expanding their groups; returns their ids. `reveal`: bring the
        designer into view first (its JupyterLab tab activated), as a report's name link does."""
        wanted = [names] if isinstance(names, str) else list(names)
        by_name = {n.name: n.id for n in self.document.nodes()}
        ids = [by_name.get(n, n) for n in wanted]
        self.canvas.focus(ids, reveal=reveal)
        return ids

    def focus(self, name: str) -> str:
        return self.select([name])[0]

    def export(self, path: str | pathlib.Path, background: str = "white", grid: bool | str = False) -> pathlib.Path:
        """Export the canvas as an image; `background` and `grid` (True, or its colour) as in `GraphCanvas.export`."""
        if not str(path):
            raise ValueError("Export: type an image path (.png, .jpg or .svg) in the path box.")
        return self.canvas.export(path, background=background, grid=grid)

    def open_model(self, path: str | pathlib.Path) -> None:
        """Replace the document shown by the one at `path`."""
        if not str(path):
            raise ValueError("Open: type a model path in the path box.")
        self._swap(_open(path, self._options))

    def new(self, opset: int = 21, contrib: bool = False) -> None:
        self._swap(Document.new(opset=opset, contrib=contrib))

    def _swap(self, document: Document | DocumentLoad) -> None:
        if self.parent_designer is not None:
            raise DocumentError("Open another model", "this designer shows a subgraph or local function.",
                                "Open models in the model's designer.")
        for child in self.family.children_of(self):
            child.close()
        self._unsubscribe()
        replace_children(self.panels, [])  # the old editors close (their check thread ends)
        self._make_canvas(document)
        self.side_dock.set_canvas(self.canvas)  # the old canvas closes (its channel socket too)
        self.children = self._parts()
        self._refresh_status()


def open_designer(path: str | pathlib.Path, **options: Any) -> Designer:
    check_keywords("open_designer", options, _OPTIONS)
    with timing.phase("open_read"):  # the phases of a designer tab's open (benchmarks/open_time_bench.py)
        document = _open(path, options)
    with timing.phase("open_view"):
        return Designer(document, **options)


def _open(path: str | pathlib.Path, options: dict[str, Any]) -> Document | DocumentLoad:
    """A big model opens in two halves when its canvas groups (its first view is a collapsed overview)."""
    return open_for_view(path) if options.get("grouping", "auto") != "none" else Document.open(path)


def new_designer(opset: int = 21, contrib: bool = False, **options: Any) -> Designer:
    check_keywords("new_designer", options, _OPTIONS)
    return Designer(Document.new(opset=opset, contrib=contrib), **options)
