"""GraphCanvas: the model canvas widget (browser half: js/src/widgets/canvas/index.ts).

State Python knows (synced traits): selection (node ids), color_scheme, show_grid, show_constants, height, title.
State Python never sees: viewport, hover, drag and rubber band, open menus.
The kernel owns the graph: the browser sends intents, this widget applies them to the Document as commands and
answers with a reply and, through the document's events, a patch. Positions travel as Float32 buffers.
"""

from __future__ import annotations

import logging
import pathlib
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from dld_jupyter.activities import timing
from dld_jupyter.document import Document, DocumentError, Event
from dld_jupyter.document.files.loading import DocumentLoad
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.canvas_base import CanvasBase
from dld_jupyter.widgets.canvas.canvas_view import CanvasView
from dld_jupyter.widgets.canvas.function_bodies import BODY_SAFE, names_body_element
from dld_jupyter.widgets.canvas.intents import HANDLERS
from dld_jupyter.widgets.canvas.palette_ops import palette_ops
from dld_jupyter.widgets.canvas.preview_view import Overview, overview_in_child
from dld_jupyter.widgets.canvas.protocol import PaletteOp, PatchMessage
from dld_jupyter.widgets.canvas.view_routes import ViewRoutes

log = logging.getLogger(__name__)


class GraphCanvas(CanvasBase):
    """The document's graph: snapshots and patches to the views, gestures back as intents (intents.py)."""

    def __init__(self, document: Document | DocumentLoad, *, grouping: str = "auto",
                 on_error: Callable[[str], None] | None = None, **kwargs: Any) -> None:
        if grouping not in ("auto", "scopes", "none"):
            raise ValueError(f"grouping={grouping!r}: use 'auto' (group above 500 nodes), 'scopes' or 'none'.")
        # Intents and replies take the fast channel where the browser can reach it, the comm otherwise.
        self._routes = ViewRoutes(self._send_comm, lambda content, buffers: self._on_msg(self, content, buffers))
        super().__init__(channel_token=self._routes.token or "", **kwargs)
        self.title = document.name
        self.on_error = on_error
        self.host: Any = None  # the designer that opens subgraphs and functions (set by the Designer)
        self._functions: tuple[tuple[str, str, str], ...] = ()  # the local functions the palette lists
        self.version = 0
        self._held: list[tuple[PatchMessage, list[bytes]]] | None = None  # patches of the intent being handled
        # Messages and the arrival of a loading document are handled one at a time (the load ends on its thread).
        self._serial = threading.RLock()
        self._document_callbacks: list[Callable[[Document], None]] = []
        self._document: Document | None = None
        self._load: DocumentLoad | None = None
        self._grouping = grouping
        self._view: CanvasView | None = None
        self._shown = False  # a snapshot has been sent
        self._overview: Overview | None = None  # a loading model's first view, drawn from its outline
        self._overview_ready = threading.Event()
        self._build_asked = False  # a loading document's build was started by the canvas (once its overview is sent)
        if isinstance(document, DocumentLoad):
            # The overview of a big model is drawn from its outline, prepared while the browser builds the
            # widgets; the document itself is built once that overview is sent (see hello).
            self._load = document
            wait = overview_in_child(document, grouping, self.show_constants)
            threading.Thread(target=self._await_overview, args=(wait,), daemon=True,
                             name=f"dld-overview-{document.name}").start()
        else:
            self._overview_ready.set()
            self._attach(document, CanvasView(document, grouping, self.show_constants))
        self.on_msg(self._on_msg)
        self.observe(self._on_show_constants, names=["show_constants"])

    # ------------------------------------------------------------ the document (maybe still loading)
    @property
    def document(self) -> Document:
        """The model's Document; while it loads (a big model: document/files/loading.py) this waits for it."""
        return self._loaded()[0]

    @property
    def view(self) -> CanvasView:
        """What the canvas shows of the document (waits for a loading document, as `document` does)."""
        return self._loaded()[1]

    def _loaded(self) -> tuple[Document, CanvasView]:
        if self._document is None:
            self._arrive()
        assert self._document is not None and self._view is not None
        return self._document, self._view

    @property
    def loading(self) -> bool:
        """Whether the document is still loading: the canvas shows the model's outline meanwhile."""
        return self._document is None

    @property
    def pending_load(self) -> DocumentLoad | None:
        """The load under way while the document loads (or after it failed), else None."""
        return self._load if self._document is None else None

    def on_document(self, callback: Callable[[Document], None]) -> None:
        """Call ``callback(document)`` once the document is there: at once, or when it has loaded (then on the
        loading thread, while no message is handled)."""
        with self._serial:  # not while the loading thread hands the document over
            if self._document is not None:
                callback(self._document)
            else:
                self._document_callbacks.append(callback)

    def _await_overview(self, wait: Callable[[], Overview]) -> None:
        try:
            self._overview = wait()
        except Exception:  # the document's own view will be drawn instead, once it has loaded
            log.exception("outline view failed")
        finally:
            self._overview_ready.set()

    def _attach(self, document: Document, view: CanvasView) -> None:
        self._document, self._view = document, view
        self._unsubscribe = document.subscribe(self._on_events)

    def _arrive(self) -> None:
        """Take the loaded document: wait for it, hand the outline view's state to a view of it and send what
        differs (usually nothing). Raises the load's DocumentError when it failed."""
        assert self._load is not None
        document = self._load.result()
        self._overview_ready.wait()
        with self._serial:
            if self._document is not None:
                return
            overview, self._overview = self._overview, None
            if overview is not None and self._shown:  # the overview is on screen: correct it
                view = overview.view_of(document)
                patch = view.resync()
                self._attach(document, view)
                self._send_patch(patch)
            else:  # nothing drawn yet: the browser's hello will draw the document's own view
                self._attach(document, CanvasView(document, self._grouping, self.show_constants))
            callbacks, self._document_callbacks = self._document_callbacks, []
            for callback in callbacks:
                callback(document)
            self.send({"kind": "ops", "ops": self._palette()})  # the palette adds nodes: an edit, as the rest
            self.send({"kind": "loaded", "seconds": self._load.seconds})  # after the designer's editors

    def _build_document(self) -> None:
        """Start building the loading document (once); its palette is sent when it has arrived."""
        with self._serial:
            if self._load is None or self._build_asked or self.comm is None:  # closed: nobody to build it for
                return
            self._build_asked = True
            self._load.on_done(self._loaded_on_thread)
            self._load.start()

    def _loaded_on_thread(self, _load: DocumentLoad) -> None:
        if self.comm is None:  # closed while it loaded
            return
        try:
            self._arrive()
        except DocumentError as error:
            self._report(str(error))
            self.send({"kind": "load_failed", "message": str(error)})

    # ------------------------------------------------------------ kernel -> browser
    def send(self, content: Mapping[str, Any], buffers: list[bytes] | None = None) -> None:
        """Every message to the views: numbered, and sent over the fast channel to the views attached to it and
        over the comm to the others (view_routes.py)."""
        self._routes.send(content, list(buffers or []))

    def _send_comm(self, content: dict[str, Any], buffers: list[bytes]) -> None:
        super().send(content, buffers)

    def _send_snapshot(self) -> None:
        if self._view is None and self._overview is not None:  # a loading model: its overview, drawn in a child
            nodes, edges, points = self._overview.snapshot()
        else:
            nodes, edges, points = self.view.snapshot()
        self._shown = True
        if self._held is not None:
            self._held.clear()  # the snapshot supersedes the patches held for the current reply
        self.version += 1
        self.send({"kind": "snapshot", "version": self.version, "graph": {"nodes": nodes, "edges": edges},
                   "title": self.title, "loading": self.loading}, [gp.floats(points)])

    def _send_patch(self, pb: gp.PatchBuilder) -> None:
        if not pb:
            return
        self.version += 1
        message, buffers = pb.message(self.version)
        if self._held is not None:
            self._held.append((message, buffers))
        else:
            self.send(message, buffers)

    def _on_events(self, events: list[Event]) -> None:
        # One patch at a time: events come from the thread that made them (a tool's job, the type check), and two
        # patches built at once raced on what was sent ("dictionary changed size during iteration").
        with self._serial:
            self._patch_for(events)

    def _patch_for(self, events: list[Event]) -> None:
        if tuple(self.document.model.functions) != self._functions:  # created / deleted: palette
            self.send({"kind": "ops", "ops": self._palette()})
        try:
            self._send_patch(self.view.apply(events))
        except Exception:  # a view bug must not break the document's other subscribers
            log.exception("canvas patch failed")
            self._report(f"Patch failed:\n{traceback.format_exc()}")
            self._send_snapshot()
        try:
            self.overlays.model_changed(events)  # after the patch: stale overlays cleared, the heat redrawn
        except Exception:
            log.exception("overlay update failed")
            self._report(f"Overlay update failed:\n{traceback.format_exc()}")

    def _palette(self) -> list[PaletteOp]:
        imports = dict(self.document.model.opset_imports) if self._load is None else self._load.opsets
        if self._document is not None:  # local functions are operators too (palette_ops.py)
            self._functions = tuple(self._document.model.functions)
        return palette_ops(imports, self._functions)

    # ------------------------------------------------------------ browser -> kernel
    def _on_msg(self, _widget: object, content: dict[str, Any], buffers: list[bytes]) -> None:
        with self._serial:
            self._dispatch(content, buffers)

    def _dispatch(self, content: dict[str, Any], buffers: list[bytes]) -> None:
        kind = content.get("kind")
        if kind == "hello":
            self._routes.hello(content.get("view"), bool(content.get("lost")))
            self._overview_ready.wait()
            with timing.phase("canvas_snapshot"):  # the first view's layout, sent (benchmarks/open_time_bench.py)
                self._send_snapshot()  # without an overview (it failed), this waits for the document
            if self._load is not None and self._document is None:
                # A big model's overview is on its way: its document is built now, on the loading thread, while
                # the browser draws the overview (two cores: the page paints on one, the build runs on the other;
                # waiting for the paint cost the paint's time again before edits worked, issue 42).
                self._build_document()
            else:
                self.send({"kind": "ops", "ops": self._palette()})
            self._resend_exports()
            self.overlays.hello()  # after the snapshot: the overlays draw over its elements
        elif kind == "intent":
            self.handle_intent(content, buffers)
        elif kind == "bye":
            self._routes.bye(content.get("view"))
        elif kind == "js_error":
            self._report_js_error(content)
        elif kind == "export_result":
            self._write_export(content)
        elif kind == "overlay":
            self.overlays.receive(content, buffers)

    def handle_intent(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> dict[str, Any]:
        """Apply one intent; the reply (also returned, for tests) says ok or carries the error text."""
        request = int(content.get("request", 0))
        action = str(content.get("action"))
        handler = HANDLERS.get(action)
        reply: dict[str, Any] = {"kind": "reply", "request": request, "ok": True, "error": None, "data": None,
                                 "view": content.get("view")}
        self._held = []
        try:
            if handler is None:
                raise DocumentError(f"Intent {action!r}", "this action is unknown.", "Update dld_jupyter.")
            if action not in BODY_SAFE and names_body_element(content.get("args")):
                raise DocumentError(
                    f"{action.capitalize()} inside a local function",
                    "the nodes of an expanded local function show its definition, shared by every instance; they"
                    " are read-only here.",
                    "Collapse the function (double-click its box) and edit the instance, or edit the function's"
                    " definition in the model.",
                )
            reply["data"] = handler(self, dict(content.get("args") or {}), list(buffers or []))
        except DocumentError as error:
            reply.update(ok=False, error=str(error))
        except Exception as error:
            log.exception("intent %s failed", action)
            reply.update(ok=False, error=f"{action} failed: {type(error).__name__}: {error}")
            self._report(f"Intent {action} failed:\n{traceback.format_exc()}")
        finally:
            held, self._held = self._held, None
        # One message: the browser applies the patches and settles the intent together (one websocket hop less).
        reply["patches"] = [message for message, _ in held]
        self.send(reply, [b for _, buffers in held for b in buffers[:1]])
        return reply

    # ------------------------------------------------------------ operations (intents and Python API)
    def save(self, path: str | pathlib.Path | None = None) -> None:
        """Save; node positions the document lacks (fresh layout) are stored first, so the layout survives."""
        doc = self.document
        if not self.view.grouped:
            missing = {n.id: self.view.sent_pos[n.id] for n in doc.nodes()
                       if n.position is None and n.id in self.view.sent_pos}
            if missing:
                doc.move_nodes(missing)
        doc.save(path)

    def arrange(self) -> None:
        if self.view.grouped:
            self._send_patch(self.view.resync())
        else:
            sizes = {n: (d["width"], d["height"]) for n, d in self.view.sent_nodes.items()}
            self.document.arrange(sizes)

    def set_expanded(self, group: str, expanded: bool) -> None:
        """Expand or collapse a name-scope group, or a local-function instance (its body drawn in place)."""
        self._send_patch(self.view.set_expanded(group, expanded))

    def toggle_constant(self, node: str, index: int) -> None:
        self._send_patch(self.view.toggle_constant(node, index))

    def _on_show_constants(self, change: dict[str, Any]) -> None:
        self._send_patch(self.view.set_show_constants(bool(change["new"])))

    def focus(self, node_ids: list[str], reveal: bool = False) -> None:
        """Expand the groups around these nodes, select them and center the view on them. `reveal`: the canvas is
        brought into view first (its JupyterLab designer tab activated, scrolled to in a notebook), as a report's
        name link does."""
        patch = self.view.expand_to(node_ids)
        if patch is not None:
            self._send_patch(patch)
        self.selection = list(node_ids)
        self.send({"kind": "focus", "ids": list(node_ids), "reveal": reveal})

    def close(self) -> None:
        unsubscribe = getattr(self, "_unsubscribe", None)  # absent when __init__ refused its arguments
        if unsubscribe is not None:
            unsubscribe()
        routes = getattr(self, "_routes", None)
        if routes is not None:
            routes.close()
        super().close()
