"""Subgraph and local-function operations (seed 000 "Subgraphs", "Local Functions"; issue 19): open a subgraph or
a function in its own designer, confirm or close it, the Model Local Functions window, Local Function Settings,
Extract Model Subgraph, create / delete / extract functions, create a function from a selection, inline one.

Opening a child and the windows need a designer that hosts child designers (`HostsChildren`: the notebook
Designer); the edits themselves are document and transform calls, so a bare canvas runs those too. Registered in
the one operation registry when this module is imported (the Designer, the canvas intents and the Lab sidebar's
kernel side import it).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from dld_jupyter.document import DocumentError
from dld_jupyter.document.model.ids import kind_of
from dld_jupyter.document.subgraphs.child_document import ChildDocument
from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import Enabled, Operation, OperationUnavailable, operations, ready

FUNCTIONS_PANEL = "local_functions"
FUNCTION_SETTINGS_PANEL = "function_settings"
EXTRACT_SUBGRAPH_PANEL = "extract_model_subgraph"
PANELS = (FUNCTIONS_PANEL, FUNCTION_SETTINGS_PANEL, EXTRACT_SUBGRAPH_PANEL)


@runtime_checkable
class HostsChildren(Protocol):
    """A designer that opens child designers (subgraphs, functions) and shows the windows of this module."""

    def open_subgraph(self, node_id: str, attribute: str, index: int | None = None) -> object: ...

    def open_function(self, name: str, domain: str, overload: str = "") -> object: ...

    def child_panel(self, kind: str, **settings: Any) -> object: ...


def child_kind(target: OperationTarget) -> str | None:
    """ "subgraph" or "function" when the target edits a child document, else None."""
    kind = getattr(target.document, "kind", None)
    return kind if isinstance(kind, str) and hasattr(target.document, "confirm") else None


def transform(name: str) -> Callable[..., Any]:
    """A transform function of `dld_jupyter.transforms` by name (create_function_from_selection, ...)."""
    module = importlib.import_module("dld_jupyter.transforms")
    found: Callable[..., Any] | None = getattr(module, name, None)
    if found is None:
        raise OperationUnavailable(f"{name} is not available in this dld_jupyter (dld_jupyter.transforms.{name}).")
    return found


# ------------------------------------------------------------------ enabled
def _hosts(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, HostsChildren) else "opening subgraphs and functions needs a designer"


def _in_child(target: OperationTarget) -> Enabled:
    found = ready(target)
    if found is not True:
        return found
    return True if child_kind(target) else "this designer shows a model, not a subgraph or function"


def _in_function(target: OperationTarget) -> Enabled:
    found = ready(target)
    if found is not True:
        return found
    return True if child_kind(target) == "function" else "Local Function Settings needs a local function document"


def _needs_host(target: OperationTarget) -> HostsChildren:
    if not isinstance(target, HostsChildren):
        raise OperationUnavailable(str(_hosts(target)))
    return target


# ------------------------------------------------------------------ run
def _open_subgraph(target: OperationTarget, node: str = "", attribute: str = "", index: int | None = None) -> object:
    return _needs_host(target).open_subgraph(node, attribute, index)


def _open_function(
    target: OperationTarget, name: str = "", domain: str = "", overload: str = "", node: str = ""
) -> object:
    if node:  # a function instance on the canvas: its function
        found = target.document.ir_node(node)
        if found is None or (found.domain, found.op_type, found.overload) not in target.document.model.functions:
            raise OperationUnavailable(f"Open local function: node {node!r} is not a local function instance.")
        name, domain, overload = found.op_type, found.domain, found.overload
    return _needs_host(target).open_function(name, domain, overload)


def _child_document(target: OperationTarget) -> ChildDocument:
    document = target.document
    if not child_kind(target) or not isinstance(document, ChildDocument):
        raise OperationUnavailable(str(_in_child(target)))
    return document


def _confirm(target: OperationTarget) -> None:
    document = _child_document(target)
    confirm: Callable[[], object] = getattr(target, "confirm", None) or document.confirm
    confirm()


def _close(target: OperationTarget) -> None:
    document = _child_document(target)
    close: Callable[[], object] = getattr(target, "close_document", None) or document.close
    close()


def _panel(kind: str) -> Callable[..., object]:
    def run(target: OperationTarget, **settings: Any) -> object:
        return _needs_host(target).child_panel(kind, **settings)

    return run


def _create_function(target: OperationTarget, name: str = "", domain: str = "", **io: Any) -> None:
    if not name:
        raise OperationUnavailable("Create local function: give its name (and domain).")
    target.document.functions.create(name, domain, **io)


def _delete_function(target: OperationTarget, name: str = "", domain: str = "", overload: str = "") -> None:
    target.document.functions.delete(name, domain, overload)


def _extract_function(target: OperationTarget, name: str = "", domain: str = "", path: str = "") -> Path:
    if not path:
        raise OperationUnavailable("Extract local function: give the path of the model to write.")
    return Path(transform("extract_function_model")(target.document, name, domain, path))


def _extract_subgraph(
    target: OperationTarget, node: str = "", attribute: str = "", index: int | None = None, path: str = ""
) -> object:
    if not node:  # no subgraph named: the wizard
        return _needs_host(target).child_panel(EXTRACT_SUBGRAPH_PANEL)
    if not path:
        raise OperationUnavailable("Extract model subgraph: give the path of the model to write.")
    return Path(transform("extract_model_subgraph")(target.document, node, attribute, index, path))


def _from_selection(target: OperationTarget, nodes: Sequence[str] = (), name: str = "", domain: str = "") -> str:
    picked = [n for n in (nodes or getattr(target.canvas, "selection", [])) if kind_of(str(n)) != "group"]
    if not picked:
        raise DocumentError(
            "Create function from selection",
            "no node is selected.",
            "Select the nodes that become the function's body.",
        )
    if not name:
        raise DocumentError("Create function from selection", "the function has no name.", "Give its name.")
    return str(transform("create_function_from_selection")(target.document, list(picked), name, domain))


def _inline(target: OperationTarget, node: str = "") -> list[str]:
    if not node:
        raise DocumentError("Inline function", "no function instance is named.", "Right-click the instance.")
    return list(transform("inline_function")(target.document, node))


def _create_subgraph(
    target: OperationTarget,
    node: str = "",
    attribute: str = "",
    name: str | None = None,
    duplicate_of: int | None = None,
    open: bool = False,
) -> int | None:
    index: int | None = target.document.subgraphs.create(node, attribute, name or None, duplicate_of)
    if open:
        _needs_host(target).open_subgraph(node, attribute, index)
    return index


def _remove_subgraph(target: OperationTarget, node: str = "", attribute: str = "", index: int = 0) -> None:
    target.document.subgraphs.remove(node, attribute, index)


def _add(
    id_: str,
    name: str,
    label: str,
    caption: str,
    enabled: Callable[[OperationTarget], Enabled],
    run: Callable[..., object],
) -> Operation:
    return operations.add(Operation(id_, name, label, caption, enabled, run))


OPEN_SUBGRAPH = _add(
    "dld:open-subgraph",
    "open_subgraph",
    "Open Subgraph",
    "Open a subgraph (Loop/Scan body, If branch) in its own designer",
    _hosts,
    _open_subgraph,
)
OPEN_FUNCTION = _add(
    "dld:open-function",
    "open_function",
    "Open Local Function",
    "Open a local function's definition in its own designer",
    _hosts,
    _open_function,
)
CONFIRM_EDITS = _add(
    "dld:confirm-edits",
    "confirm_edits",
    "Confirm Edits",
    "Write the subgraph / function back into its parent (one undo step there)",
    _in_child,
    _confirm,
)
CLOSE_CHILD = _add(
    "dld:close-child",
    "close_child",
    "Close",
    "Close this subgraph / function document (unconfirmed edits are dropped)",
    _in_child,
    _close,
)
LOCAL_FUNCTIONS = _add(
    "dld:local-functions",
    "local_functions",
    "Functions",
    "Model Local Functions: list, open, extract, create, delete",
    _hosts,
    _panel(FUNCTIONS_PANEL),
)
FUNCTION_SETTINGS = _add(
    "dld:function-settings",
    "function_settings",
    "Local Function Settings",
    "Parameters of this local function (name, type, default)",
    _in_function,
    _panel(FUNCTION_SETTINGS_PANEL),
)
EXTRACT_MODEL_SUBGRAPH = _add(
    "dld:extract-model-subgraph",
    "extract_model_subgraph",
    "Extract Model Subgraph",
    "Export a subgraph of an operator to a standalone model",
    _hosts,
    _extract_subgraph,
)
CREATE_FUNCTION = _add(
    "dld:create-function",
    "create_function",
    "Create Local Function",
    "Create an empty local function (name, domain)",
    ready,
    _create_function,
)
DELETE_FUNCTION = _add(
    "dld:delete-function",
    "delete_function",
    "Delete Local Function",
    "Delete a local function; its instances become custom operators",
    ready,
    _delete_function,
)
EXTRACT_FUNCTION = _add(
    "dld:extract-function",
    "extract_function",
    "Extract Local Function",
    "Export a local function to a standalone model",
    ready,
    _extract_function,
)
CREATE_FUNCTION_FROM_SELECTION = _add(
    "dld:create-function-from-selection",
    "create_function_from_selection",
    "Create Function from Selection",
    "The selected nodes become a local function and one instance of it (one undo step)",
    ready,
    _from_selection,
)
INLINE_FUNCTION = _add(
    "dld:inline-function",
    "inline_function",
    "Inline Function",
    "Replace a function instance by its body (one undo step)",
    ready,
    _inline,
)
CREATE_SUBGRAPH = _add(
    "dld:create-subgraph",
    "create_subgraph",
    "Create Subgraph",
    "Create a subgraph for an operator's graph parameter",
    ready,
    _create_subgraph,
)
REMOVE_SUBGRAPH = _add(
    "dld:remove-subgraph",
    "remove_subgraph",
    "Remove Subgraph",
    "Remove a subgraph from an operator's graph list parameter",
    ready,
    _remove_subgraph,
)
