"""The Designer's side of subgraph and local-function documents (seed 000 "Subgraphs", "Local Functions").

``d.child_documents`` is this, a collaborator the Designer owns (it was a mixin reaching its host through type
ignores), with a typed handle on what it needs of the designer (``ChildHost``) and how to make a child designer.

`d.open_subgraph(node, "body")` / `d.open_function(name, domain)` open the child document (the core's
`doc.subgraphs.open` / `doc.functions.open`) in a child Designer hosted by the root designer's document tabs
(family.py) and return it; `child.confirm()` writes it back into its parent as one undo step there; `child.close()`
drops unconfirmed edits and releases the parent. While a child is open its parent is read-only: the parent shows a
banner with the reason and refuses edits (the refusal is shown where the gesture was made). Closing a child with
unconfirmed edits from its toolbar or tab asks Confirm / Discard / Cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as w

from dld_jupyter.document import ChildDocument, DocumentError
from dld_jupyter.formats.html_text import bold, fill, join
from dld_jupyter.frontdoor.children import (
    EXTRACT_SUBGRAPH_PANEL,
    FUNCTION_SETTINGS,
    FUNCTION_SETTINGS_PANEL,
    FUNCTIONS_PANEL,
)
from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.widgets.closing import replace_children
from dld_jupyter.widgets.designer.family import Family

if TYPE_CHECKING:
    from dld_jupyter.widgets.canvas.canvas import GraphCanvas
    from dld_jupyter.widgets.designer.dock import SideDock

NO_INITIALIZERS = (
    "A {kind} has no initializers of its own (seed 000): it reads the model's weights as outer "
    "references. Edit initializers in the model's designer."
)
BANNER = (
    '<div class="dld-readonly-banner" style="background:#fef3c7;color:#78350f;border:1px solid #f59e0b;'
    'border-radius:4px;padding:4px 8px;margin:2px 0"><b>Read-only</b> — {reason}</div>'
)
ERROR = (
    '<div class="dld-child-error" style="background:#fee2e2;color:#7f1d1d;border:1px solid #dc2626;'
    'border-radius:4px;padding:4px 8px;margin:2px 0;white-space:pre-wrap">{text}</div>'
)


class ChildHost(OperationTarget, Protocol):
    """What the child documents use of their designer: its banner, question and tools slots, its dock and canvas."""

    parent_designer: Any
    family: Family
    banner: w.HTML
    ask: w.Box
    tools: w.Box
    _options: dict[str, Any]
    side_dock: SideDock

    @property
    def canvas(self) -> GraphCanvas: ...

    def _refresh_status(self) -> None: ...

    def close_widgets(self) -> None: ...


class ChildDocuments:
    """``d.child_documents``: child documents, their tabs, confirm and close, the windows of frontdoor/children."""

    def __init__(self, host: ChildHost, make_child: Callable[..., Any]) -> None:
        self._host = host
        self._make_child = make_child  # a child designer of the host: make_child(child document, **options)

    # ------------------------------------------------------------ family
    @property
    def root(self) -> Any:
        """The designer of the model: the host, or the root of the family the host is a child designer in."""
        up: Any = self._host
        while up.parent_designer is not None:
            up = up.parent_designer
        return up

    @property
    def is_child(self) -> bool:
        return self._host.parent_designer is not None

    @property
    def active(self) -> Any:
        """The designer whose document is shown now (this one, or one of the children it hosts)."""
        return self.root.family.active

    def designers(self) -> list[Any]:
        """The child designers opened from this one (not their own children)."""
        return list(self.root.family.children_of(self._host))

    def refresh_banner(self) -> None:
        canvas = self._host.canvas
        reason = self._host.document.read_only if not canvas.loading else None
        self._host.banner.value = fill(BANNER, reason=reason) if reason else ""
        if hasattr(canvas, "editing_locked"):  # an engine canvas is read-only on its own
            canvas.editing_locked = self._host.document.read_only or ""

    def _child_document(self, what: str) -> ChildDocument:
        """The host's document, refused with why when it shows a model, not a subgraph or function."""
        document = self._host.document
        if not isinstance(document, ChildDocument):
            raise DocumentError(what, "this designer shows a model, not a subgraph or function.",
                                f"{what} in the designer of the subgraph or function.")
        return document

    # ------------------------------------------------------------ open
    def _node_id(self, node: str) -> str:
        """A node id from an id or an ONNX node name."""
        if self._host.document.ir_node(node) is not None:
            return node
        found: list[str] = [n.id for n in self._host.document.nodes() if n.name == node]
        if not found:
            raise DocumentError(f"Node {node!r}", "no node has this id or name.", "Use a node id or name here.")
        return found[0]

    def open_subgraph(self, node_id: str, attribute: str, index: int | None = None) -> Any:
        """Open the subgraph `attribute` (`index` in a list) of `node_id` (an id or a node name) in a child
        Designer shown in this designer's document tabs; returns it."""
        child_doc = self._host.document.subgraphs.open(self._node_id(node_id), attribute, index)
        return self._adopt(child_doc)

    def open_function(self, name: str, domain: str, overload: str = "") -> Any:
        """Open the local function `domain::name` in a child Designer shown in the document tabs; returns it."""
        child_doc = self._host.document.functions.open(name, domain, overload)
        return self._adopt(child_doc)

    def _adopt(self, child_doc: Any) -> Any:
        options = {k: v for k, v in self._host._options.items() if k != "grouping"}
        options["dock"] = self._host.side_dock.side  # a child docks its panels where its parent does
        try:
            child = self._make_child(child_doc, **options)
        except Exception:
            child_doc.close()
            raise
        self.root.family.add(child)
        return child

    # ------------------------------------------------------------ confirm, close
    def confirm(self) -> None:
        """Write this subgraph / function back into its parent as one undo step of the parent (refused, parent
        unchanged, when it breaks the operator's contract: the error is shown here and raised)."""
        document = self._child_document("Confirm edits")
        replace_children(self._host.ask, [])
        try:
            document.confirm()
        except DocumentError as error:
            replace_children(self._host.ask, [w.HTML(fill(ERROR, text=error))])
            raise
        self._host._refresh_status()
        self.root.family.refresh()

    def close_document(self) -> None:
        """Close this child document (unconfirmed edits dropped, the parent released) and its tab."""
        if not self.is_child:
            raise DocumentError("Close", "this designer shows a model.", "Close the notebook output or tab instead.")
        self._child_document("Close").close()
        self.root.family.remove(self._host)
        for designer in [self._host, *self._descendants()]:
            designer.close_widgets()

    def _descendants(self) -> list[Any]:
        family = self.root.family
        host = self._host
        return [m for m in family.members if family._descends(m, host)] if host in family.members else []

    def request_close(self) -> None:
        """Close from the toolbar or the tab: asks Confirm / Discard / Cancel when there are unconfirmed edits."""
        document = self._child_document("Close")
        if not document.dirty:
            self.close_document()
            return
        self.root.family.show(self._host)
        parent = self._host.parent_designer.document.name
        text = w.HTML(join([bold(document.title), " has unconfirmed edits. Confirm them into ", bold(parent),
                            ", discard them, or keep editing?"]))
        confirm = w.Button(description=document.confirm_label, button_style="primary", layout=w.Layout(width="auto"))
        discard = w.Button(description="Discard", button_style="warning", layout=w.Layout(width="auto"))
        cancel = w.Button(description="Cancel", layout=w.Layout(width="auto"))
        for b, cls in ((confirm, "dld-ask-confirm"), (discard, "dld-ask-discard"), (cancel, "dld-ask-cancel")):
            b.add_class(cls)

        def do_confirm(_b: object) -> None:
            try:
                self.confirm()
            except DocumentError:
                return  # shown in place; the document stays open
            self.close_document()

        confirm.on_click(do_confirm)
        discard.on_click(lambda _b: self.close_document())
        cancel.on_click(lambda _b: replace_children(self._host.ask, []))
        box = w.VBox(
            [text, w.HBox([confirm, discard, cancel])],
            layout=w.Layout(border="1px solid #f59e0b", padding="4px", margin="2px 0"),
        )
        box.add_class("dld-close-ask")
        replace_children(self._host.ask, [box])

    # ------------------------------------------------------------ windows
    def child_panel(self, kind: str, **settings: Any) -> Any:
        """Show the Model Local Functions window, Local Function Settings or Extract Model Subgraph above the
        canvas (the tools slot), replacing what it showed; returns it."""
        if kind == FUNCTIONS_PANEL:
            from dld_jupyter.widgets.designer.functions_panel import FunctionsPanel

            panel: Any = FunctionsPanel(self._host, **settings)
        elif kind == FUNCTION_SETTINGS_PANEL:
            enabled = FUNCTION_SETTINGS.enabled(self._host)
            if enabled is not True:
                raise DocumentError("Local Function Settings", str(enabled), "Open a local function first.")
            from dld_jupyter.widgets.designer.function_settings import FunctionSettings

            panel = FunctionSettings(self._host, **settings)
        elif kind == EXTRACT_SUBGRAPH_PANEL:
            from dld_jupyter.widgets.designer.extract_subgraph import ExtractSubgraphDialog

            panel = ExtractSubgraphDialog(self._host, **settings)
        else:
            raise DocumentError(
                "Open a window",
                f"no window {kind!r}.",
                "Use local_functions, function_settings or extract_model_subgraph.",
            )
        replace_children(self._host.tools, [panel])
        return panel
