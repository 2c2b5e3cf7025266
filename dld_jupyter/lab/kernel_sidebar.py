"""Kernel side of the JupyterLab sidebar: a comm target serving the palette and layer explorer of a designer.

The sidebar (js/src/lab/connection.ts) opens one comm per kernel on the target `dld_jupyter.sidebar` and
binds it to the designer the user works in, named by the widget model id of its output. No HTTP server or extra
port is involved, so the same works on a remote JupyterHub.

Messages (same names in js/src/lab/messages.ts):
  browser → kernel: hello{candidates}, bind{model_id}, unbind, select{ids}, focus{id},
                    command{request, action, args} (a request of the shared envelope, formats/envelope.py, whose
                    action names a registered operation), add_node{op, domain} (domain dld.analysis: an analysis
                    layer after the selected node, through Add Analysis Layer),
                    attr_filter{request, expression} (reply data {ids}: layers whose attributes match it),
                    settings{color_scheme, hide_constants, auto_check_threshold},
                    runs_watch, run_cancel{id}, run_open{id, name, point} (the Runs section: runs_feed.py)
  kernel → browser: designers{items}, state{...}, loading{model_id, title, path} (a bind of a designer whose model
                    still loads: its state follows once loaded), layers_patch{removed, upsert}, selection{ids},
                    breakpoints{ids},
                    reply{request, ok, error, data} (to a command), error{message} (any other message refused),
                    runs{rows, cwd}, open_file{artifact, file} (the Runs section)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dld_jupyter.activities.analysis.layers import PALETTE_DOMAIN
from dld_jupyter.document import Document
from dld_jupyter.document.model.events import NodesAdded, NodesChanged, NodesRemoved
from dld_jupyter.formats.envelope import failed, ok
from dld_jupyter.frontdoor.analysis_operations import ADD_ANALYSIS_LAYER, Analyses
from dld_jupyter.frontdoor.designers import LiveDesigner, loading, registry
from dld_jupyter.frontdoor.operation_target import LiveCanvas
from dld_jupyter.frontdoor.operations import InvalidModel, operations
from dld_jupyter.frontdoor.soon import Soon, on_loop, running_loop
from dld_jupyter.lab.layer_rows import layer_columns, palette_entries
from dld_jupyter.lab.runs_feed import MESSAGES as RUNS_MESSAGES
from dld_jupyter.lab.runs_feed import RunsFeed

TARGET = "dld_jupyter.sidebar"


class SidebarSession:
    """One sidebar connection: which designer it shows, and the subscriptions that keep it current."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self._model_id: str | None = None
        self._designer: LiveDesigner | None = None
        self._document: Document | None = None
        self._canvas: LiveCanvas | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._unwatch: Callable[[], None] | None = None  # stop following the designer's breakpoints
        self._badged: list[str] = []  # the breakpoints the explorer badges
        self._touched: dict[str, bool] = {}  # node id -> alive, of edits not yet sent to the explorer
        self._patch_soon = Soon(self._send_layers_patch)
        self._unfollow: Callable[[], None] | None = None  # stop following a designer's document tabs
        self._function_keys: tuple[object, ...] = ()  # the palette lists local functions: resent when they change
        self._state_soon = Soon(self._resend_state)
        self._runs = RunsFeed(send)  # the Runs section: this kernel's runs, whether a designer is bound or not

    # -- messages from the browser ------------------------------------------------------------------------
    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        try:
            if kind == "hello":
                self._send({"kind": "designers", "items": self._designers(message.get("candidates", []))})
            elif kind == "bind":
                self._bind(str(message["model_id"]))
            elif kind == "unbind":
                self._unbind()
            elif kind == "select":
                self._require_canvas().selection = [str(i) for i in message.get("ids", [])]
            elif kind == "focus":
                self._focus(str(message["id"]))
            elif kind == "command":
                self._command(message)
            elif kind == "settings":
                self._apply_settings(message)
            elif kind in RUNS_MESSAGES:
                self._runs.handle(message)
            elif kind == "attr_filter":
                self._attr_filter(message)
            elif kind == "add_node" and message.get("domain") == PALETTE_DOMAIN:  # an analysis layer, no node
                self._require_document()
                assert self._designer is not None
                ADD_ANALYSIS_LAYER(self._designer, kind=str(message["op"]))  # after the selected node(s)
            elif kind == "add_node":
                document = self._require_document()
                document.add_node(str(message["op"]), domain=_onnx_domain(str(message.get("domain", ""))))
            else:
                raise ValueError(f"unknown sidebar message kind {kind!r}")
        except Exception as error:  # shown in the sidebar, never raised into the comm machinery
            self._send({"kind": "error", "message": f"DL Designer sidebar: {error}"})

    def _designers(self, candidates: list[str]) -> list[dict[str, str]]:
        items = []
        for model_id in candidates:
            designer = registry.by_model_id(model_id)
            if designer is None:
                continue
            load = loading(designer)
            if load is not None:
                items.append({"model_id": model_id, "title": designer.canvas.title, "path": str(load.path)})
            else:
                document = designer.document
                items.append({"model_id": model_id, "title": document.name, "path": str(document.path or "")})
        return items

    def _bind(self, model_id: str) -> None:
        designer = registry.by_model_id(model_id)
        if designer is None:
            raise ValueError(f"widget {model_id} is not a designer (was its kernel restarted?)")
        self._unbind()
        load = loading(designer)
        if load is not None:  # bound once its model has loaded; the browser hears the bind arrived meanwhile
            self._model_id = model_id
            title, path = designer.canvas.title, str(load.path)
            self._send({"kind": "loading", "model_id": model_id, "title": title, "path": path})
            # bound on the thread that handles the sidebar's messages (a subshell's, else the kernel's main thread):
            # the loading thread goes on to the canvas
            loop = running_loop()
            designer.canvas.on_document(lambda _document: on_loop(loop, lambda: self._bind_loaded(model_id)))
            return
        # A designer showing a subgraph or local function in its document tabs: the sidebar serves that document
        # (its palette, layers and commands: Confirm, Local Function Settings) and follows the tabs.
        shown = getattr(designer, "active_designer", designer)
        self._model_id, self._designer = model_id, shown
        self._document, self._canvas = shown.document, shown.canvas
        self._unsubscribe = self._document.subscribe(self._on_events)
        self._canvas.observe(self._on_selection, names="selection")
        family = getattr(designer, "family", None)
        if family is not None:
            self._unfollow = family.on_active(lambda _shown: self._follow(model_id))
        self._function_keys = tuple(self._document.model.functions)
        if isinstance(shown, Analyses):  # the debugger's breakpoints, badged in the explorer (state has them too)
            self._unwatch = shown.watch_breakpoints(self._on_breakpoints)
        self._send(self._state())

    def _follow(self, model_id: str) -> None:
        """Another document of the bound designer's tabs is shown: serve that one."""
        if self._model_id == model_id:
            try:
                self._bind(model_id)
            except Exception as error:
                self._send({"kind": "error", "message": f"DL Designer sidebar: {error}"})

    def _on_breakpoints(self, ids: list[str]) -> None:
        if ids != self._badged:
            self._badged = list(ids)
            self._send({"kind": "breakpoints", "ids": self._badged})

    def _resend_state(self) -> None:
        if self._document is not None:
            self._send(self._state())

    def _bind_loaded(self, model_id: str) -> None:
        if self._model_id != model_id or self._document is not None:  # another designer was chosen meanwhile
            return
        try:
            self._bind(model_id)
        except Exception as error:
            self._send({"kind": "error", "message": f"DL Designer sidebar: {error}"})

    def _unbind(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._canvas is not None:
            self._canvas.unobserve(self._on_selection, names="selection")
        if self._unwatch is not None:
            self._unwatch()
        self._unsubscribe = self._unwatch = None
        self._touched, self._badged = {}, []
        self._model_id = self._designer = self._document = self._canvas = None

    def close(self) -> None:
        self._unbind()
        self._runs.close()

    def _state(self) -> dict[str, Any]:
        document = self._require_document()
        return {
            "kind": "state",
            "model_id": self._model_id,
            "title": document.name,
            "path": str(document.path or ""),
            "opsets": dict(document.model.opset_imports),
            "palette": palette_entries(document),
            "layers": layer_columns(document),
            "selection": list(getattr(self._canvas, "selection", []) or []),
            "breakpoints": list(self._badged),
        }

    def _focus(self, node_id: str) -> None:
        self._require_document()
        assert self._designer is not None
        self._designer.focus(node_id)

    def _apply_settings(self, settings: dict[str, Any]) -> None:
        """Lab settings become the designer's defaults once, when it is first bound (later toggles are the user's)."""
        canvas = self._require_canvas()
        if getattr(canvas, "_dld_lab_defaults_applied", False):
            return
        canvas.color_scheme = str(settings.get("color_scheme", "default"))
        canvas.show_constants = not bool(settings.get("hide_constants", True))
        threshold = settings.get("auto_check_threshold")
        if threshold is not None and hasattr(self._designer, "auto_check_threshold"):  # a designer that checks
            setattr(self._designer, "auto_check_threshold", int(threshold))  # noqa: B010 (not in the protocol)
        setattr(canvas, "_dld_lab_defaults_applied", True)  # noqa: B010 (a mark on the widget, not in the protocol)

    def _attr_filter(self, message: dict[str, Any]) -> None:
        """The layer explorer's attribute filter: the ids of the layers it keeps, or why the expression is wrong."""
        from dld_jupyter.document.model.attribute_filter import matching_layers

        request = int(message.get("request", 0))
        try:
            ids = matching_layers(self._require_document(), str(message.get("expression", "")))
        except Exception as error:  # a bad expression is the user's input: said in the sidebar
            self._send({"kind": "reply", **failed(request, f"DL Designer sidebar: {error}")})
            return
        self._send({"kind": "reply", **ok(request, {"ids": ids})})

    def _command(self, message: dict[str, Any]) -> None:
        """Run a registered operation on the bound designer; the reply says ok or carries the error text."""
        request = int(message.get("request", 0))
        try:
            operation = operations.get(str(message["action"]))  # refuses an unknown one, listing the known ones
            self._require_document()
            assert self._designer is not None
            operation(self._designer, **dict(message.get("args") or {}))
        except InvalidModel as error:  # Save As of an invalid model: the browser lists why and asks about a draft
            reply = {**failed(request, f"DL Designer sidebar: {error}"), "data": {"invalid": error.problems}}
            self._send({"kind": "reply", **reply})
            return
        except Exception as error:  # shown in the sidebar, never raised into the comm machinery
            self._send({"kind": "reply", **failed(request, f"DL Designer sidebar: {error}")})
            return
        self._send({"kind": "reply", **ok(request)})

    # -- kernel-side changes ---------------------------------------------------------------------------------
    def _on_selection(self, change: dict[str, Any]) -> None:
        self._send({"kind": "selection", "ids": list(change["new"] or [])})

    def _on_events(self, events: list[Any]) -> None:
        # The document emits one list per committed command (a whole transform included): one update per list.
        document = self._document
        if document is None:
            return
        touched = self._touched
        for event in events:
            if isinstance(event, NodesRemoved):
                touched.update(dict.fromkeys(event.node_ids, False))
            elif isinstance(event, NodesAdded | NodesChanged):
                touched.update(dict.fromkeys(event.node_ids, True))
        if touched:
            self._patch_soon()  # after the canvas's reply to the edit; one patch per burst
        keys = tuple(document.model.functions)
        if keys != self._function_keys:  # a function created or deleted: the palette lists them
            self._function_keys = keys
            self._state_soon()

    def _send_layers_patch(self) -> None:
        document, touched, self._touched = self._document, self._touched, {}
        if document is None or not touched:
            return
        upsert = layer_columns(document, [node_id for node_id, alive in touched.items() if alive])
        removed = sorted(set(touched) - set(upsert["ids"]))
        self._send({"kind": "layers_patch", "removed": removed, "upsert": upsert})

    def _require_document(self) -> Document:
        if self._document is None:
            raise ValueError("no designer is bound to the sidebar")
        return self._document

    def _require_canvas(self) -> LiveCanvas:
        self._require_document()
        assert self._canvas is not None
        return self._canvas


def _onnx_domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


def register() -> None:
    """Register the comm target in the running kernel (idempotent). Called by the sidebar's silent import."""
    from comm import get_comm_manager

    manager = get_comm_manager()
    if TARGET in getattr(manager, "targets", {}):
        return

    def on_open(comm: Any, _open_msg: dict[str, Any]) -> None:
        session = SidebarSession(lambda message: comm.send(message))
        comm.on_msg(lambda msg: session.handle(msg["content"]["data"]))
        comm.on_close(lambda _msg: session.close())

    manager.register_target(TARGET, on_open)
