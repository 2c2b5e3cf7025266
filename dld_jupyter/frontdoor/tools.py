"""The Tools operations (seed 000 "Batch Modifications" and "User Tools"): Global Model Modifications, Convert Model
to FP16, Sanitize Graph, Convert Tensors, Custom Tools and running one user tool.

Each opens its dialog on a target that hosts tool dialogs (the notebook Designer: `HasTools`), like Profile opens
its panel: the dialog holds the options, the busy indicator, Cancel and the status, so the Lab command palette,
the sidebar, the Designer's Tools button and a notebook cell all reach the same form. Arguments given to the
operation pre-fill it (`output`, `fold`, `passes`, ...; `tool` names the user tool to run). Registered in the one
operation registry when this module is imported (the Designer and the Lab sidebar's kernel side import it).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dld_jupyter.frontdoor.operation_target import OperationTarget
from dld_jupyter.frontdoor.operations import Enabled, Operation, OperationUnavailable, operations, ready

MENU = "global_modifications"
FP16 = "convert_fp16"
SANITIZE = "sanitize"
TENSORS = "convert_tensors"
CUSTOM_TOOLS = "custom_tools"
RUN_USER_TOOL = "run_user_tool"
KINDS = (MENU, FP16, SANITIZE, TENSORS, CUSTOM_TOOLS, RUN_USER_TOOL)


@runtime_checkable
class HasTools(Protocol):
    """A target that shows tool dialogs (the notebook Designer); `kind` is one of KINDS."""

    def tools_panel(self, kind: str, **settings: Any) -> object: ...


def _can(target: OperationTarget) -> Enabled:
    return ready(target) if isinstance(target, HasTools) else "tool dialogs need a designer (dld.open)"


def _opener(kind: str) -> Any:
    def run(target: OperationTarget, **settings: Any) -> object:
        if not isinstance(target, HasTools):
            raise OperationUnavailable(str(_can(target)))
        return target.tools_panel(kind, **settings)

    return run


def _add(kind: str, id_: str, label: str, caption: str) -> Operation:
    return operations.add(Operation(id_, kind, label, caption, _can, _opener(kind)))


GLOBAL_MODIFICATIONS = _add(
    MENU, "dld:global-modifications", "Tools", "Global model modifications: FP16, sanitize, convert tensors"
)
CONVERT_FP16 = _add(
    FP16, "dld:convert-fp16", "Convert Model to FP16", "Convert float32 weights and tensors to float16 (Polygraphy)"
)
SANITIZE_GRAPH = _add(
    SANITIZE, "dld:sanitize", "Sanitize Graph", "Fold constants and remove unused nodes (Polygraphy sanitize)"
)
CONVERT_TENSORS = _add(
    TENSORS, "dld:convert-tensors", "Convert Tensors", "Convert chosen initializers and attributes to one data type"
)
MANAGE_USER_TOOLS = _add(
    CUSTOM_TOOLS, "dld:custom-tools", "Custom Tools", "Create, edit and delete user tools ($Model, $Output)"
)
RUN_TOOL = _add(
    RUN_USER_TOOL, "dld:run-user-tool", "User Tools", "Run a user tool on this model (saved first)"
)
