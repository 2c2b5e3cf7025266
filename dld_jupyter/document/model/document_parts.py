"""What the Document's mixins (function_api, subgraph_api, trt_api) use of the Document, declared once for the type
checker: at run time this is an empty base, the Document itself provides every member."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnx_ir as ir

    from dld_jupyter.document.edits.commands import Command, Context


class DocumentPart:
    """Base of the Document's mixins."""

    if TYPE_CHECKING:
        _ctx: Context

        @property
        def model(self) -> ir.Model: ...

        def transaction(self, label: str) -> contextlib.AbstractContextManager[None]: ...

        def _do(self, command: Command) -> None: ...

        def ir_node(self, node_id: str) -> ir.Node | None: ...
