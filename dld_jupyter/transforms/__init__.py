"""Transforms: model-wide edits, each one undo step (or a new file), behind one registry.

`transform` holds the contract (`Transform`, `EditPlan`/`FilePlan`, `Requirement`), `registry` the registry;
one transform per module, each listing the cases it handles: `extract` (a selection to a new model), `paste`
(the kernel `clipboard`'s nodes), `fp16` (Convert Model to FP16), `sanitize` (Sanitize Graph) and
`tensor_conversion` (Convert Tensors; its candidates in `tensor_candidates`), `subgraph_extract` (Extract Model
Subgraph: a Loop/If/Scan body to a new model), `function_create` / `function_inline` / `function_extract`
(Create Function from Selection, Inline Function, a local function to a new model; shared helpers in
`function_body`). Model-wide results pass `postcondition` (full checker, onnxruntime load) before they count as
done; `constant_forms`, `fp16_legal` and `type_constraints` keep the types they write legal. The long ones take a
`progress` callback and a `CancelToken` (`progress`). The built-in transforms are registered here. No Jupyter
import: front doors call `get(name).apply(doc, **args)`.
"""

from __future__ import annotations

from dld_jupyter.transforms.extract import ExtractSubgraph
from dld_jupyter.transforms.fp16 import ConvertModelToFp16
from dld_jupyter.transforms.function_create import CreateFunctionFromSelection, create_function_from_selection
from dld_jupyter.transforms.function_extract import ExtractFunctionModel, extract_function_model
from dld_jupyter.transforms.function_inline import InlineFunction, inline_function
from dld_jupyter.transforms.paste import Paste
from dld_jupyter.transforms.registry import all_transforms, get, register
from dld_jupyter.transforms.sanitize import Sanitize
from dld_jupyter.transforms.subgraph_extract import ExtractModelSubgraph, extract_model_subgraph
from dld_jupyter.transforms.tensor_conversion import ConvertTensors
from dld_jupyter.transforms.transform import EditPlan, FilePlan, Plan, Requirement, Transform

register(ExtractSubgraph())
register(Paste())
register(ConvertModelToFp16())
register(Sanitize())
register(ConvertTensors())
register(CreateFunctionFromSelection())
register(InlineFunction())
register(ExtractFunctionModel())
register(ExtractModelSubgraph())

__all__ = [
    "EditPlan",
    "FilePlan",
    "Plan",
    "Requirement",
    "Transform",
    "all_transforms",
    "create_function_from_selection",
    "extract_function_model",
    "extract_model_subgraph",
    "get",
    "inline_function",
    "register",
]
