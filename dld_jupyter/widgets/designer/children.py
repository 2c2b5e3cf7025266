"""The Designer's side of subgraph and local-function documents (seed 000 "Subgraphs", "Local Functions").

`d.open_subgraph(node, "body")` / `d.open_function(name, domain)` open the child document (the core's
`doc.subgraphs.open` / `doc.functions.open`) in a child Designer hosted by the root designer's document tabs
(family.py) and return it; `child.confirm()` writes it back into its parent as one undo step there; `child.close()`
drops unconfirmed edits and releases the parent. While a child is open its parent is read-only: the parent shows a
banner with the reason and refuses edits (the refusal is shown where the gesture was made). Closing a child with
unconfirmed edits from its toolbar or tab asks Confirm / Discard / Cancel.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.document import DocumentError
from dld_jupyter.formats.html_text import bold, fill, join
from dld_jupyter.frontdoor.children import (
    EXTRACT_SUBGRAPH_PANEL,
    FUNCTION_SETTINGS,
    FUNCTION_SETTINGS_PANEL,
    FUNCTIONS_PANEL,
)
from dld_jupyter.widgets.closing import replace_children
from dld_jupyter.widgets.designer.family import Family

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


class ChildrenMixin:
    """Mixed into Designer: child documents, their tabs, confirm and close, the windows of frontdoor/children."""

    parent_designer: Any
    family: Family
    banner: w.HTML
    ask: w.Box
    tools: w.Box
    _options: dict[str, Any]
    side_dock: Any

    # ------------------------------------------------------------ the Designer provides these
    @property
    def document(self) -> Any:
        raise NotImplementedError

    def _show_error(self, text: str) -> None:
        raise NotImplementedError

    def _refresh_status(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ family
    @property
    def root_designer(self) -> Any:
        up: Any = self
        while up.parent_designer is not None:
            up = up.parent_designer
        return up

    @property
    def is_child(self) -> bool:
        return self.parent_designer is not None

    @property
    def active_designer(self) -> Any:
        """The designer whose document is shown now (this one, or one of the children it hosts)."""
        return self.root_designer.family.active

    def children_designers(self) -> list[Any]:
        """The child designers opened from this one (not their own children)."""
        return list(self.root_designer.family.children_of(self))

    def refresh_banner(self) -> None:
        reason = self.document.read_only if not getattr(self.canvas, "loading", False) else None  # type: ignore[attr-defined]
        self.banner.value = fill(BANNER, reason=reason) if reason else ""
        canvas = getattr(self, "canvas", None)
        if canvas is not None and hasattr(canvas, "editing_locked"):  # an engine canvas is read-only on its own
            canvas.editing_locked = self.document.read_only or ""

    # ------------------------------------------------------------ open
    def _node_id(self, node: str) -> str:
        """A node id from an id or an ONNX node name."""
        if self.document.ir_node(node) is not None:
            return node
        found: list[str] = [n.id for n in self.document.nodes() if n.name == node]
        if not found:
            raise DocumentError(f"Node {node!r}", "no node has this id or name.", "Use a node id or name here.")
        return found[0]

    def open_subgraph(self, node_id: str, attribute: str, index: int | None = None) -> Any:
        """Open the subgraph `attribute` (`index` in a list) of `node_id` (an id or a node name) in a child
        Designer shown in this designer's document tabs; returns it."""
        child_doc = self.document.subgraphs.open(self._node_id(node_id), attribute, index)
        return self._adopt(child_doc)

    def open_function(self, name: str, domain: str, overload: str = "") -> Any:
        """Open the local function `domain::name` in a child Designer shown in the document tabs; returns it."""
        child_doc = self.document.functions.open(name, domain, overload)
        return self._adopt(child_doc)

    def _adopt(self, child_doc: Any) -> Any:
        options = {k: v for k, v in self._options.items() if k != "grouping"}
        options["dock"] = self.side_dock.side  # a child docks its panels where its parent does
        try:
            child = type(self)(child_doc, parent_designer=self, **options)  # type: ignore[call-arg]
        except Exception:
            child_doc.close()
            raise
        self.root_designer.family.add(child)
        return child

    # ------------------------------------------------------------ confirm, close
    def confirm(self) -> None:
        """Write this subgraph / function back into its parent as one undo step of the parent (refused, parent
        unchanged, when it breaks the operator's contract: the error is shown here and raised)."""
        if not self.is_child:
            raise DocumentError(
                "Confirm edits",
                "this designer shows a model, not a subgraph or function.",
                "Confirm in the designer of the subgraph or function.",
            )
        replace_children(self.ask, [])
        try:
            self.document.confirm()
        except DocumentError as error:
            replace_children(self.ask, [w.HTML(fill(ERROR, text=error))])
            raise
        self._refresh_status()
        self.root_designer.family.refresh()

    def close_document(self) -> None:
        """Close this child document (unconfirmed edits dropped, the parent released) and its tab."""
        if not self.is_child:
            raise DocumentError("Close", "this designer shows a model.", "Close the notebook output or tab instead.")
        self.document.close()
        self.root_designer.family.remove(self)
        for designer in [self, *self._descendants()]:
            designer.close_widgets()

    def _descendants(self) -> list[Any]:
        family = self.root_designer.family
        return [m for m in family.members if family._descends(m, self)] if self in family.members else []

    def request_close(self) -> None:
        """Close from the toolbar or the tab: asks Confirm / Discard / Cancel when there are unconfirmed edits."""
        if not self.document.dirty:
            self.close_document()
            return
        self.root_designer.family.show(self)
        parent = self.parent_designer.document.name
        text = w.HTML(join([bold(self.document.title), " has unconfirmed edits. Confirm them into ", bold(parent),
                            ", discard them, or keep editing?"]))
        confirm = w.Button(
            description=self.document.confirm_label, button_style="primary", layout=w.Layout(width="auto")
        )
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
        cancel.on_click(lambda _b: replace_children(self.ask, []))
        box = w.VBox(
            [text, w.HBox([confirm, discard, cancel])],
            layout=w.Layout(border="1px solid #f59e0b", padding="4px", margin="2px 0"),
        )
        box.add_class("dld-close-ask")
        replace_children(self.ask, [box])

    # ------------------------------------------------------------ windows
    def child_panel(self, kind: str, **settings: Any) -> Any:
        """Show the Model Local Functions window, Local Function Settings or Extract Model Subgraph above the
        canvas (the tools slot), replacing what it showed; returns it."""
        if kind == FUNCTIONS_PANEL:
            from dld_jupyter.widgets.designer.functions_panel import FunctionsPanel

            panel: Any = FunctionsPanel(self, **settings)
        elif kind == FUNCTION_SETTINGS_PANEL:
            enabled = FUNCTION_SETTINGS.enabled(self)  # type: ignore[arg-type]
            if enabled is not True:
                raise DocumentError("Local Function Settings", str(enabled), "Open a local function first.")
            from dld_jupyter.widgets.designer.function_settings import FunctionSettings

            panel = FunctionSettings(self, **settings)
        elif kind == EXTRACT_SUBGRAPH_PANEL:
            from dld_jupyter.widgets.designer.extract_subgraph import ExtractSubgraphDialog

            panel = ExtractSubgraphDialog(self, **settings)
        else:
            raise DocumentError(
                "Open a window",
                f"no window {kind!r}.",
                "Use local_functions, function_settings or extract_model_subgraph.",
            )
        replace_children(self.tools, [panel])
        return panel
