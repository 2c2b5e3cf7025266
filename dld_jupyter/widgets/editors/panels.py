"""EditorPanels: parameters, initializers, tensor editor and type check list of one Document, bound to a canvas.

Browser half: js/src/widgets/editors/index.ts. State Python knows (synced traits): ``selection`` (mirrors the
canvas), ``tab``, and the four panel views plus ``errors``/``notice`` (kernel → browser only). State Python never
sees: drafts being typed, filters, collapsed sections, open dialogs. The browser sends intents as messages
as requests of the shared envelope (formats/envelope.py: ``{"kind": "request", "request": 7, "action":
"set_attr", "args": {...}}``); ``handle`` applies them as Document commands; a refused one leaves the model as it
was and sets the field's inline error in ``errors`` (state: it stays beside the field until the field changes), and
the reply says ok or carries the same error text.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

import ipywidgets
import traitlets

from dld_jupyter.document import Document, Event
from dld_jupyter.formats.envelope import failed, ok
from dld_jupyter.frontdoor.soon import Soon
from dld_jupyter.widgets.widget_base import DldWidget

from . import analysis_overrides, child_edits, initializers, parameters, tensor_editor, type_check
from .edit_error import EditError, as_edit_error
from .tensor_editor import TensorRef

log = logging.getLogger(__name__)
_PARAMETER_KINDS = {"set_attr", "reset_attr", "rename", "set_model", "set_opset", "set_meta", "set_io_type"}
_INITIALIZER_KINDS = {"init_create", "init_delete", "init_connect", "init_disconnect"}
_CHILD_KINDS = set(child_edits.KINDS)
_TENSOR_KINDS = {"tensor_set", "tensor_load", "tensor_export", "tensor_convert", "tensor_sparse", "tensor_external"}


# Events after which every initializer row is still what it was (names of nodes, attributes, positions).
_LIST_NEUTRAL = frozenset(
    {"NodesChanged", "NodesMoved", "DiagnosticsChanged", "DirtyChanged", "ModelInfoChanged", "ReadOnlyChanged"}
)
# Events that leave the model as it was: no new check.
_CHECK_NEUTRAL = frozenset({"NodesMoved", "DiagnosticsChanged", "DirtyChanged", "ReadOnlyChanged"})


class EditorPanels(DldWidget, bundle="editors"):
    """``EditorPanels(document, canvas=None)``; with a canvas, its ``selection`` drives the panels."""

    keywords = ("height", "layout", "tab", "disabled_tabs")

    selection = traitlets.List(traitlets.Unicode()).tag(sync=True)
    tab = traitlets.Enum(("parameters", "initializers", "tensor"), default_value="parameters").tag(sync=True)
    height = traitlets.Unicode("560px").tag(sync=True)
    params = traitlets.Dict().tag(sync=True)
    inits = traitlets.Dict().tag(sync=True)
    # All initializers, apart from `inits` so a click does not resend them.
    init_items: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    tensor = traitlets.Dict().tag(sync=True)
    checks = traitlets.Dict().tag(sync=True)
    errors = traitlets.Dict().tag(sync=True)
    notice = traitlets.Dict().tag(sync=True)
    disabled_tabs = traitlets.Dict().tag(sync=True)  # tab -> why it is disabled (a subgraph has no initializers)

    def __init__(self, document: Document, canvas: Any = None, *, auto_check: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("layout", ipywidgets.Layout(width="100%"))  # fill the Designer's slot, not the content
        super().__init__(**kwargs)
        self.document = document
        self.canvas = canvas
        self.auto_check = auto_check
        self.tensor_ref: TensorRef | None = None
        self.host: Any = None  # the designer that opens subgraphs and functions (set by the Designer)
        self._watched: Any = None  # the live analysis whose overrides the views show (followed once seen)
        self.runner = type_check.CheckRunner(document, self._refresh_checks)
        self._pending_items = False
        self._flush_soon = Soon(self._flush)
        self._unsubscribe = document.subscribe(self._on_events)
        self.on_msg(self._on_msg)
        self.observe(self._on_selection, names=["selection"])
        if canvas is not None:
            self.selection = list(getattr(canvas, "selection", []) or [])
            canvas.observe(self._on_canvas_selection, names=["selection"])
        self.refresh()
        if auto_check:
            self.runner.opened()

    # ------------------------------------------------------------ state → browser
    def refresh(self, initializers_changed: bool = True) -> None:
        self.params = self._params_view()
        if initializers_changed:
            self.init_items = initializers.items(self.document)
        self.inits = initializers.view(self.document, self.selection)
        self.tensor = self._tensor_view()
        self._refresh_checks()

    def _analysis(self) -> Any:
        """The designer's live analysis (its overrides are what the views show), followed once seen."""
        analysis = analysis_overrides.live_analysis(self.host, self.document)
        if analysis is not None and analysis is not self._watched:
            self._watched = analysis
            analysis.subscribe(lambda _a: self._show_overrides() if self.comm is not None else None)
        return analysis

    def _params_view(self) -> dict[str, Any]:
        view = parameters.view(self.document, self.selection)
        return analysis_overrides.decorate_params(view, self._analysis(), self.document)

    def _tensor_view(self) -> dict[str, Any]:
        view = tensor_editor.view(self.document, self.tensor_ref)
        return analysis_overrides.decorate_tensor(view, self.document, self.tensor_ref, self._analysis())

    def _show_overrides(self) -> None:
        self.params = self._params_view()
        self.tensor = self._tensor_view()

    def _refresh_checks(self) -> None:
        self.checks = type_check.view(self.document, self.runner)

    def _on_events(self, events: list[Event]) -> None:
        if all(type(e).__name__ in _CHECK_NEUTRAL for e in events):
            if any(type(e).__name__ == "DiagnosticsChanged" for e in events):
                self._refresh_checks()
            if any(type(e).__name__ == "ReadOnlyChanged" for e in events):
                self._show_overrides()  # an analysis stopped: its override marks go
            return
        # Renames, attribute edits and moves leave the initializer list as it was: don't rebuild 15k rows.
        self._pending_items |= any(type(e).__name__ not in _LIST_NEUTRAL for e in events)
        if self.auto_check:
            self.runner.edited()
        self._flush_soon()  # after the canvas's reply to the edit; once per burst of events

    def _flush(self) -> None:
        items, self._pending_items = self._pending_items, False
        if self.comm is not None:  # closed meanwhile: nothing to show
            self.refresh(initializers_changed=items)

    def _on_selection(self, _change: dict[str, Any]) -> None:
        self.errors = {}
        self.notice = {}
        self.params = self._params_view()
        self.inits = initializers.view(self.document, self.selection)

    def _on_canvas_selection(self, change: dict[str, Any]) -> None:
        self.selection = list(change["new"])

    # ------------------------------------------------------------ browser → kernel
    def _on_msg(self, _widget: object, content: dict[str, Any], _buffers: list[bytes]) -> None:
        if content.get("kind") != "request":
            return
        request = int(content.get("request", 0))
        error = self._apply({**dict(content.get("args") or {}), "kind": str(content.get("action"))})
        self.send({"kind": "reply", **(ok(request) if error is None else failed(request, error))})

    def handle(self, msg: dict[str, Any]) -> bool:
        """Apply one intent ``{"kind": action, **args}``; False (and an inline error) when it was refused."""
        return self._apply(msg) is None

    def _apply(self, msg: dict[str, Any]) -> str | None:
        """Apply one intent; None when done, else the refusal's text (also set as the field's inline error)."""
        kind = str(msg.get("kind"))
        key = str(msg.get("key") or "")
        try:
            self._dispatch(kind, msg)
        except EditError as exc:
            self.errors = {**self.errors, (key or exc.key): exc.payload()}
            return exc.message
        except Exception as exc:
            log.exception("editor message %s failed", kind)
            error = as_edit_error(key or "panel", exc)
            error.message = f"{kind} failed: {type(exc).__name__}: {exc}"
            self.errors = {**self.errors, error.key: error.payload()}
            self.notice = {"kind": "error", "text": traceback.format_exc(limit=3)}
            return error.message
        if key and key in self.errors:
            self.errors = {k: v for k, v in self.errors.items() if k != key}
        return None

    def _dispatch(self, kind: str, msg: dict[str, Any]) -> None:
        doc = self.document
        analysis = analysis_overrides.live_analysis(self.host, doc)
        if analysis is not None and kind in analysis_overrides.ROUTED:  # runtime options: the session, not the file
            analysis_overrides.route(analysis, doc, self.selection, self.tensor_ref, msg)
            self._show_overrides()
        elif kind in _PARAMETER_KINDS:
            parameters.handle(doc, self.selection, msg)
        elif kind in _CHILD_KINDS:
            child_edits.handle(doc, self.host, self.selection, msg)
        elif kind in _INITIALIZER_KINDS:
            if "initializers" in self.disabled_tabs:
                raise EditError(str(msg.get("key") or "panel"), str(self.disabled_tabs["initializers"]))
            created = initializers.handle(doc, self.selection, msg)
            if created is not None:
                self.notice = {"kind": "info", "text": f"Created initializer {msg.get('name')}."}
        elif kind in _TENSOR_KINDS:
            warnings = tensor_editor.handle(doc, self.tensor_ref, msg)
            self.notice = {"kind": "warning" if kind == "tensor_convert" else "info", "text": " ".join(warnings)}
            self.tensor = self._tensor_view()
        elif kind == "open_tensor":
            self.open_tensor(msg.get("value_id"), msg.get("node_id"), msg.get("attribute"))
        elif kind == "check":
            self.runner.start()
        elif kind == "cancel_check":
            self.runner.cancel()
            self.runner.cancel_lint()
        elif kind == "lint":
            self.runner.lint()
        elif kind == "focus":
            self.focus(str(msg["node_id"]))
        elif kind == "undo":
            doc.undo()
        elif kind == "redo":
            doc.redo()
        elif kind == "clear_error":
            self.errors = {k: v for k, v in self.errors.items() if k != msg.get("key")}

    # ------------------------------------------------------------ Python API
    def open_tensor(self, value_id: Any = None, node_id: Any = None, attribute: Any = None) -> None:
        """Show an initializer (value id) or a node's tensor attribute in the tensor editor."""
        self.tensor_ref = TensorRef(
            None if value_id is None else str(value_id),
            None if node_id is None else str(node_id),
            None if attribute is None else str(attribute),
        )
        self.errors = {}
        self.tensor = self._tensor_view()
        self.tab = "tensor"

    def focus(self, node_id: str) -> None:
        """Select ``node_id`` and center the canvas on it (the type check list's double-click)."""
        canvas = self.canvas
        if canvas is not None and hasattr(canvas, "focus"):
            canvas.focus([node_id])
        elif canvas is not None:
            canvas.selection = [node_id]
            canvas.send({"kind": "focus", "ids": [node_id]})
        self.selection = [node_id]

    def check(self) -> list[Any]:
        """Check now, synchronously; the list shows the result."""
        return self.runner.run_now()

    def close(self) -> None:
        if getattr(self, "comm", None) is None:  # closed already (ipywidgets closes again when collecting it)
            return
        if hasattr(self, "runner"):  # __init__ may have refused its arguments before these existed
            self._unsubscribe()
            self.runner.close()
        if getattr(self, "canvas", None) is not None:
            self.canvas.unobserve(self._on_canvas_selection, names=["selection"])
        super().close()
