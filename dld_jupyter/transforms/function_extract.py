"""Extract a local function to a standalone model (the Model Local Functions window's save button).

Writes a new file; the document is not changed. Cases handled, in order:
1. the function must exist; the file is `path`, or `<model>_<function>.onnx` beside the model;
2. the body becomes the graph: function inputs/outputs are its inputs/outputs, with their names;
3. input types: the function's own value types when it declares them, else those of the first instance's input
   values (declared, or inferred by onnx shape inference over the whole model). No type known is refused: a graph
   input needs one (place an instance, or run Check on a model with one);
4. reference attributes take the first instance's values, else the parameter defaults (an unset one drops its
   attribute, the ONNX rule);
5. the functions the body calls are copied along, with their domains' imports;
6. output types come from shape inference on the new model; the result must pass onnx.checker (full check), else
   the error says why. Saved through the document layer's atomic save.
"""

from __future__ import annotations

import pathlib
from typing import Any, ClassVar

import onnx
import onnx_ir as ir

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.files import io as document_io
from dld_jupyter.document.files.self_contained import self_contained_proto
from dld_jupyter.document.functions.function_body import instance_types, model_types, standalone_model
from dld_jupyter.document.functions.function_model import find_function, instances_of
from dld_jupyter.transforms.transform import FilePlan, Transform


def standalone(doc: Document, name: str, domain: str, overload: str = "") -> onnx.ModelProto:
    what = f"Extract function {domain}::{name}"
    model = doc.model
    key = find_function(model, name, domain, overload, what)
    function = model.functions[key]
    calls = instances_of(model.graph, key)
    instance = calls[0] if calls else None
    types = instance_types(model, instance, lambda: model_types(model))
    for i, formal in enumerate(function.inputs):
        if formal.type is None and (i >= len(types) or types[i] is None):
            raise DocumentError(
                what,
                f"the type of input {formal.name!r} is not known"
                + (" (no instance in the main graph)." if instance is None else "."),
                "Place an instance of the function in the model, connect its inputs, and extract again.",
            )
    new, _ = standalone_model(model, function.graph, function.attributes, instance, types, function.name)
    proto = self_contained_proto(new, what)  # an external tensor is read from its own folder, not the working one
    try:
        proto = onnx.shape_inference.infer_shapes(proto, strict_mode=True)
        onnx.checker.check_model(proto, full_check=True)
    except Exception as error:  # onnx raises several types; the user needs the message
        raise DocumentError(
            what, f"the extracted model is not valid ONNX: {error}", "Open the function, Check it."
        ) from None
    return proto


def _target(doc: Document, name: str, path: object) -> pathlib.Path:
    if isinstance(path, str | pathlib.Path) and str(path):
        return pathlib.Path(path)
    folder = doc.path.parent if doc.path else pathlib.Path.cwd()
    return folder / f"{doc.name}_{name.replace('.', '_')}.onnx"


class ExtractFunctionModel(Transform):
    name: ClassVar[str] = "extract_function"
    label: ClassVar[str] = "Extract Local Function"
    writes_new_file: ClassVar[bool] = True

    def plan(self, doc: Document, **args: Any) -> FilePlan[pathlib.Path]:
        """`name`, `domain`, `overload` (""): the function; `path`: the new file (default beside the model)."""
        name, domain = str(args.get("name", "")), str(args.get("domain", ""))
        proto = standalone(doc, name, domain, str(args.get("overload", "")))
        target = _target(doc, name, args.get("path")).resolve()

        def write() -> pathlib.Path:
            document_io.save(ir.from_proto(proto), target, {})
            return target

        return FilePlan(f"{self.label} to {target.name}", write)


def extract_function_model(
    doc: Document, name: str, domain: str, path: str | pathlib.Path | None = None, overload: str = ""
) -> pathlib.Path:
    """Write function ``domain::name`` as a standalone model to ``path``; returns the file written."""
    result: pathlib.Path = ExtractFunctionModel().apply(doc, name=name, domain=domain, path=path, overload=overload)
    return result
