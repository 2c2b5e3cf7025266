"""``doc.functions``: the local functions of a document's model (seed 000 "Local Functions"): list, create, open,
delete. A collaborator the Document owns, holding a typed handle on it (it was a mixin reaching its host).

Definitions live in the main model: a child document (a subgraph or function document, ``parent`` set) holds
copies of them, so these edits are refused there. ``open`` finds FunctionDocument through the opener registry of
``child_lock`` (function_document.py imports document.py, so document.py cannot import it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from dld_jupyter.document.functions import function_edits as fe
from dld_jupyter.document.functions.function_model import FunctionInfo, function_infos
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.subgraphs.child_lock import opener

if TYPE_CHECKING:
    from dld_jupyter.document.model.document_handle import DocumentHandle


class LocalFunctions:
    """``doc.functions``; see docs/document-api.md."""

    def __init__(self, document: DocumentHandle) -> None:
        self._doc = document

    def require_main_model(self, what: str) -> None:
        """Refuse ``what`` in a child document: function definitions are edited from the main model's document."""
        if self._doc.parent is not None:
            raise DocumentError(
                what,
                "the local functions of a model are edited from the main model's document (this one holds copies).",
                "Do it in the main model's document.",
            )

    def list(self) -> list[FunctionInfo]:
        """The model's local functions with their parameters and the ids of their instances."""
        return function_infos(self._doc.model, self._doc.node_id)

    def create(self, name: str, domain: str, inputs: Iterable[str] = ("x",), outputs: Iterable[str] = ("y",)) -> None:
        """A new local function whose body passes each input to an output (Identity); one undo step."""
        what = f"Create function {domain}::{name}"
        self.require_main_model(what)
        self._doc.edit(what, lambda ctx, do: fe.create_function(ctx, do, name, domain, inputs, outputs))

    def open(self, name: str, domain: str, overload: str = "") -> Any:
        """Open a local function's body as a FunctionDocument (a ChildDocument, kind "function"); the document is
        read-only until it is confirmed or closed (function_document.py)."""
        self.require_main_model(f"Open function {domain}::{name}")
        return opener("function")(self._doc, name, domain, overload)

    def delete(self, name: str, domain: str, overload: str = "") -> None:
        """Remove a function's definition; its instances stay as custom-domain operators. One undo step."""
        what = f"Delete function {domain}::{name}"
        self.require_main_model(what)
        self._doc.edit(what, lambda ctx, do: fe.delete_function(ctx, do, name, domain, overload))
