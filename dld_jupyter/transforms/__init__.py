"""Transforms: model-wide edits, each one undo step (or a new file), behind one registry.

`transform` holds the contract (`Transform`, `EditPlan`/`FilePlan`, `Requirement`), `registry` the registry;
one transform per module, each listing the cases it handles: `extract` (a selection to a new model), `paste`
(the kernel `clipboard`'s nodes), `fp16` (Convert Model to FP16), `sanitize` (Sanitize Graph) and
`tensor_conversion` (Convert Tensors; its candidates in `tensor_candidates`), `subgraph_extract` (Extract Model
Subgraph: a Loop/If/Scan body to a new model), `function_create` / `function_inline` / `function_extract`
(Create Function from Selection, Inline Function, a local function to a new model; shared helpers in
`function_body`). Model-wide results pass `postcondition` (full checker, onnxruntime load) before they count as
done; `constant_forms`, `fp16_legal` and `type_constraints` keep the types they write legal. The long ones take a
`progress` callback and a `CancelToken` (`progress`). The built-in transforms are registered in `registry`, on its
first use. No Jupyter import: front doors call `get(name).apply(doc, **args)`.

The names here load their modules on first use (_lazy_names.py): a run's progress and cancel (`progress`, which the
activities' thread runs import) and a designer's first view never need the transforms themselves (issue 42).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dld_jupyter._lazy_names import lazy_names
from dld_jupyter.transforms.registry import all_transforms, get, register

if TYPE_CHECKING:
    from dld_jupyter.transforms.extract import ExtractSubgraph
    from dld_jupyter.transforms.fp16 import ConvertModelToFp16
    from dld_jupyter.transforms.function_create import CreateFunctionFromSelection, create_function_from_selection
    from dld_jupyter.transforms.function_extract import ExtractFunctionModel, extract_function_model
    from dld_jupyter.transforms.function_inline import InlineFunction, inline_function
    from dld_jupyter.transforms.paste import Paste
    from dld_jupyter.transforms.sanitize import Sanitize
    from dld_jupyter.transforms.subgraph_extract import ExtractModelSubgraph, extract_model_subgraph
    from dld_jupyter.transforms.tensor_conversion import ConvertTensors
    from dld_jupyter.transforms.transform import EditPlan, FilePlan, Plan, Requirement, Transform

__all__ = [
    "ConvertModelToFp16",
    "ConvertTensors",
    "CreateFunctionFromSelection",
    "EditPlan",
    "ExtractFunctionModel",
    "ExtractModelSubgraph",
    "ExtractSubgraph",
    "FilePlan",
    "InlineFunction",
    "Paste",
    "Plan",
    "Requirement",
    "Sanitize",
    "Transform",
    "all_transforms",
    "create_function_from_selection",
    "extract_function_model",
    "extract_model_subgraph",
    "get",
    "inline_function",
    "register",
]

_MODULES = {
    "ExtractSubgraph": "extract",
    "ConvertModelToFp16": "fp16",
    "CreateFunctionFromSelection": "function_create",
    "create_function_from_selection": "function_create",
    "ExtractFunctionModel": "function_extract",
    "extract_function_model": "function_extract",
    "InlineFunction": "function_inline",
    "inline_function": "function_inline",
    "Paste": "paste",
    "Sanitize": "sanitize",
    "ExtractModelSubgraph": "subgraph_extract",
    "extract_model_subgraph": "subgraph_extract",
    "ConvertTensors": "tensor_conversion",
    **{name: "transform" for name in ("EditPlan", "FilePlan", "Plan", "Requirement", "Transform")},
}
__getattr__, __dir__ = lazy_names(__name__, {name: f"{__name__}.{module}" for name, module in _MODULES.items()})
