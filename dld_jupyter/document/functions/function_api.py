"""The Document's local-function methods (a mixin of Document): the function list, create, open, delete.

Definitions live in the main model: a child document (a subgraph or function document, ``parent`` set) holds
copies of them, so these edits are refused there. ``open_function`` finds FunctionDocument through the opener
registry of ``child_lock`` (function_document.py imports document.py, so document.py cannot import it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dld_jupyter.document.functions import function_edits as fe
from dld_jupyter.document.functions.function_model import FunctionInfo, function_infos
from dld_jupyter.document.model.document_parts import DocumentPart
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.document.subgraphs.child_lock import opener

if TYPE_CHECKING:
    import onnx_ir as ir


class LocalFunctions(DocumentPart):
    """Local functions of the document's model (seed 000 "Local Functions"); see docs/document-api.md."""

    def require_main_model(self, what: str) -> None:
        """Refuse ``what`` in a child document: function definitions are edited from the main model's document."""
        if getattr(self, "parent", None) is not None:
            raise DocumentError(
                what,
                "the local functions of a model are edited from the main model's document (this one holds copies).",
                "Do it in the main model's document.",
            )

    def functions(self) -> list[FunctionInfo]:
        """The model's local functions with their parameters and the ids of their instances."""
        node_id: Callable[[ir.Node], str] = self._ctx.ids.node_id
        return function_infos(self.model, node_id)

    def create_function(
        self, name: str, domain: str, inputs: Iterable[str] = ("x",), outputs: Iterable[str] = ("y",)
    ) -> None:
        """A new local function whose body passes each input to an output (Identity); one undo step."""
        what = f"Create function {domain}::{name}"
        self.require_main_model(what)
        with self.transaction(what):
            fe.create_function(self._ctx, self._do, name, domain, inputs, outputs)

    def open_function(self, name: str, domain: str, overload: str = "") -> Any:
        """Open a local function's body as a FunctionDocument (a ChildDocument, kind "function"); this document is
        read-only until it is confirmed or closed (function_document.py)."""
        self.require_main_model(f"Open function {domain}::{name}")
        return opener("function")(self, name, domain, overload)

    def delete_function(self, name: str, domain: str, overload: str = "") -> None:
        """Remove a function's definition; its instances stay as custom-domain operators. One undo step."""
        what = f"Delete function {domain}::{name}"
        self.require_main_model(what)
        with self.transaction(what):
            fe.delete_function(self._ctx, self._do, name, domain, overload)
