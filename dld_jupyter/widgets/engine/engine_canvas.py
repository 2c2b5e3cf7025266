"""EngineCanvas: the model canvas (same browser half, js/src/widgets/canvas/index.ts) showing an engine graph,
read-only.

The browser draws and selects as on a model; every intent that would edit is answered with a refusal the canvas
shows as a toast (and a dragged layer goes back where it was). Nothing here holds a Document: the engine graph is
plain data (engine_view.py), so no write path exists to reach.
"""

from __future__ import annotations

from typing import Any

import traitlets

from dld_jupyter.document import DocumentError
from dld_jupyter.widgets.canvas import graph_payload as gp
from dld_jupyter.widgets.canvas.canvas_base import CanvasBase
from dld_jupyter.widgets.engine.engine_view import EngineView

READ_ONLY_FIX = "Edit the ONNX model (dld.open or Open With DL Designer) and export a new engine with Export Engine."
_HARMLESS = frozenset({"ping"})


def refusal(action: str) -> DocumentError:
    return DocumentError(
        f"{action.replace('_', ' ').capitalize()}",
        "this is a TensorRT engine graph, which is read-only: an engine's layers, tactics and formats were fixed "
        "when TensorRT built it.",
        READ_ONLY_FIX,
    )


class EngineCanvas(CanvasBase):
    """An engine's layers on the canvas, read-only (no fast channel: every message takes the comm)."""

    read_only = traitlets.Unicode("").tag(sync=True)  # the browser's banner; non-empty: a read-only canvas
    hovered = traitlets.Unicode("")  # the node under the pointer ("" for none), told by the browser; not synced

    def __init__(self, view: EngineView, title: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view
        self.title = title
        self.read_only = "TensorRT engine graph (read-only)"
        self.refusals: list[str] = []  # the refusals sent, newest last (tests and the designer's status read it)
        self._version = 0
        self.on_msg(self._on_msg)

    # ------------------------------------------------------------ kernel -> browser
    def _snapshot(self) -> None:
        nodes = self.view.nodes
        self._version += 1
        points = [self.view.positions[n["id"]] for n in nodes]
        self.send(
            {
                "kind": "snapshot",
                "version": self._version,
                "title": self.title,
                "loading": False,
                "graph": {"nodes": nodes, "edges": self.view.edges},
            },
            [gp.floats(points)],
        )

    # ------------------------------------------------------------ browser -> kernel
    def _on_msg(self, _widget: object, content: dict[str, Any], buffers: list[bytes]) -> None:
        kind = content.get("kind")
        if kind == "hello":
            self._snapshot()
            self.send({"kind": "ops", "ops": []})  # nothing to add: the quick-add palette stays empty
            self._resend_exports()
            self.overlays.hello()
        elif kind == "intent":
            self.handle_intent(content)
        elif kind == "hover":
            self.hovered = str(content.get("id") or "")
        elif kind == "export_result":
            self._write_export(content)
        elif kind == "js_error":
            self._report_js_error(content)
        elif kind == "overlay":
            self.overlays.receive(content, buffers)

    def handle_intent(self, content: dict[str, Any]) -> dict[str, Any]:
        """Answer one intent: ping and arrange are fine, every edit is refused (returned too, for tests)."""
        action = str(content.get("action"))
        reply: dict[str, Any] = {
            "kind": "reply",
            "request": int(content.get("request", 0)),
            "ok": True,
            "error": None,
            "data": None,
            "view": content.get("view"),
            "patches": [],
        }
        buffers: list[bytes] = []
        if action == "arrange":  # the layout is the engine's own: put every node back on it
            self._version += 1
            builder = gp.PatchBuilder()
            builder.move(self.view.positions)
            message, buffers = builder.message(self._version)
            reply["patches"] = [message]
        elif action not in _HARMLESS:
            error = refusal(action)
            reply.update(ok=False, error=str(error))
            self.refusals.append(str(error))
            if action == "move":  # the dragged layers go back to their places
                ids = [str(i) for i in (content.get("args") or {}).get("ids", []) if i in self.view.positions]
                self._version += 1
                builder = gp.PatchBuilder()
                builder.move({i: self.view.positions[i] for i in ids})
                message, buffers = builder.message(self._version)
                reply["patches"] = [message] if ids else []
                buffers = buffers if ids else []
        self.send(reply, buffers)
        return reply

