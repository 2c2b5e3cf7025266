"""Convert Model to FP16 (seed 000 "Batch Modifications"): Polygraphy's `ConvertToFp16`, never a converter of ours.

Cases handled, in order:
1. the model is taken with its weights in memory (`model_source`); a graph output that nodes also read gets an
   Identity before it (`_split_read_outputs`): with `keep_io_types` onnxconverter-common 1.16 casts such an output
   back to float32 and leaves its readers on the float32 copy, so BERT's pooler (it reads `last_hidden_state`) mixes
   float16 weights with float32 data and onnxruntime refuses the model; Polygraphy (onnxconverter-common behind it,
   `keep_io_types=True`) converts float initializers and Constant tensors to float16 and inserts Cast nodes around
   the operators it keeps in float32; a missing Polygraphy or onnxconverter-common is `Unavailable`;
   before it, Constants take their `value` form (`constant_forms`) and graph inputs read in subgraphs an Identity;
   after it, local function bodies and quantization scales get legal types (`fp16_legal`);
2. a model already in float16 is refused (the converter would corrupt it), as is a float64-only model (nothing to
   convert) and any converter failure, with the converter's message; a result that is no valid model (full checker,
   onnxruntime load: `postcondition`) is refused unless the original already failed the same check;
3. the status: tensors converted (by name), Cast nodes inserted, float32 values beyond float16's range (count and
   largest |value|), values the converter clamps (|v| > 1e4 or 0 < |v| < 1e-7, its defaults), the float16 share of
   weight elements, the post-condition's verdict, and the log (Polygraphy's lines and the converter's warnings);
4. with `compare` (default) both models run on the same random inputs (`compare`: per-output largest absolute and
   relative difference, outputs that went non-finite);
5. `path` given: the converted model is written there through the document layer's atomic save (a `FilePlan`);
   none: the document's model is replaced by the converted one as ONE undo step (an `EditPlan`).
Progress and cancel between the steps (`progress`).
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import onnx
import onnx.numpy_helper

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.files.proto_tensors import all_tensors
from dld_jupyter.transforms.compare import Comparison, compare_models
from dld_jupyter.transforms.constant_forms import canonical_constants
from dld_jupyter.transforms.fp16_legal import (
    convert_function_bodies,
    float64_only,
    float_casts_to_float16,
    keep_quantization_float32,
    route_outer_inputs,
)
from dld_jupyter.transforms.model_source import model_proto
from dld_jupyter.transforms.model_swap import rewrite, rewritten_model_plan
from dld_jupyter.transforms.polygraphy_glue import captured, polygraphy_onnx, require_onnxconverter, trimmed
from dld_jupyter.transforms.postcondition import Verdict, require_valid
from dld_jupyter.transforms.progress import CancelToken, Progress, step
from dld_jupyter.transforms.transform import Plan, Transform

FP16_MAX = 65504.0
CLAMP_MAX, CLAMP_MIN = 1e4, 1e-7  # onnxconverter-common's max_finite_val / min_positive_val, as Polygraphy calls it
FLOATS = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}


@dataclass(frozen=True)
class Fp16Result:
    """The status of one conversion (the dialog's summary; `log` is its expandable section)."""

    converted: list[str]  # tensors now float16 that were float32 (initializer or Constant node names)
    casts_inserted: int
    beyond_fp16: int  # float32 values with |v| > 65504
    clamped: int  # float32 values the converter clamps to its range
    largest_abs: float  # largest finite |value| among the float32 tensors
    fp16_weight_share: float  # float16 elements / floating-point weight elements, after conversion
    check_error: str | None  # the post-condition's problems (already the original's: pre-existing), None when valid
    comparison: Comparison | None
    log: list[str] = field(default_factory=list)
    verdict: Verdict | None = None  # the post-condition's (postcondition.require_valid)
    output: pathlib.Path | None = None

    @property
    def tensors_converted(self) -> int:
        return len(self.converted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "transform": ConvertModelToFp16.name,
            "output": str(self.output) if self.output else None,
            "tensors_converted": self.tensors_converted,
            "converted": self.converted,
            "casts_inserted": self.casts_inserted,
            "values_beyond_fp16": self.beyond_fp16,
            "values_clamped": self.clamped,
            "largest_abs_value": self.largest_abs,
            "fp16_weight_share": self.fp16_weight_share,
            "checker_ok": self.check_error is None,
            "check_error": self.check_error,
            "verdict": self.verdict.to_dict() if self.verdict else None,
            "comparison": self.comparison.to_dict() if self.comparison else None,
            "log": self.log,
        }


def _named_tensors(proto: onnx.ModelProto) -> dict[str, onnx.TensorProto]:
    tensors = {t.name: t for t in proto.graph.initializer}
    for node in proto.graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.HasField("t"):
                    tensors[f"{node.name or node.output[0]} (Constant)"] = attr.t
    return tensors


def _range_stats(proto: onnx.ModelProto) -> tuple[int, int, float]:
    beyond = clamped = 0
    largest = 0.0
    for tensor in _named_tensors(proto).values():
        if tensor.data_type != onnx.TensorProto.FLOAT:
            continue
        values = np.abs(onnx.numpy_helper.to_array(tensor).astype(np.float64))
        values = values[np.isfinite(values)]
        if values.size:
            largest = max(largest, float(values.max()))
            beyond += int(np.count_nonzero(values > FP16_MAX))
            clamped += int(np.count_nonzero((values > CLAMP_MAX) | ((values > 0) & (values < CLAMP_MIN))))
    return beyond, clamped, largest


def fp16_share(proto: onnx.ModelProto) -> float:
    """float16 elements among the floating-point elements of every tensor held in the model."""
    total = half = 0
    for tensor in all_tensors(proto):
        if tensor.data_type in FLOATS:
            count = int(np.prod(tensor.dims, dtype=np.int64))
            total += count
            half += count if tensor.data_type == onnx.TensorProto.FLOAT16 else 0
    return half / total if total else 0.0


def _casts(proto: onnx.ModelProto) -> int:
    return sum(node.op_type == "Cast" for node in proto.graph.node)


def _split_read_outputs(proto: onnx.ModelProto) -> list[str]:
    """Give every graph output that nodes also read its own Identity (case 1); returns those outputs' names."""
    graph = proto.graph
    outputs = {o.name for o in graph.output}
    read = [name for name in dict.fromkeys(i for n in graph.node for i in n.input) if name in outputs]
    taken = {v for n in graph.node for v in (*n.input, *n.output)} | {i.name for i in graph.initializer}
    for name in read:
        inner = f"{name}_fp16_inner"
        while inner in taken:
            inner += "_"
        taken.add(inner)
        for node in graph.node:
            node.input[:] = [inner if i == name else i for i in node.input]
            node.output[:] = [inner if o == name else o for o in node.output]
        graph.node.append(onnx.helper.make_node("Identity", [inner], [name], name=f"{name}_output"))
    return read


def convert_proto(
    original: onnx.ModelProto,
    compare: bool = True,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> tuple[onnx.ModelProto, Fp16Result]:
    """The converted copy of `original` and its status (cases 1-4); `original` is not changed."""
    what = ConvertModelToFp16.label
    backend = polygraphy_onnx(what)
    require_onnxconverter(what)
    if float64_only(original):
        raise DocumentError(
            what,
            "the model computes in float64 (double) and holds no float32 tensor; the converter turns float32 into"
            " float16 and leaves float64 as it is, so nothing would be converted.",
            "Convert its float64 tensors to float (Convert Tensors) and its inputs to float32, or export it in"
            " float32, then convert to FP16.",
        )
    step(progress, cancel, what, 0.05, "measuring the float32 tensors")
    beyond, clamped, largest = _range_stats(original)
    log: list[str] = []
    step(progress, cancel, what, 0.15, "converting with Polygraphy (onnxconverter-common)")
    source = onnx.ModelProto()
    source.CopyFrom(original)
    split = _split_read_outputs(source)
    if split:
        log.append(f"graph outputs also read inside the model, given an Identity first: {', '.join(split)}")
    routed = route_outer_inputs(source)
    if routed:
        log.append(f"graph inputs read inside subgraphs, given an Identity first: {', '.join(routed)}")
    canonical_constants(source)
    try:
        with captured(log):
            converted = backend.ConvertToFp16(source, copy=True)()
    except Exception as error:  # onnxconverter-common raises ValueError, onnx errors, ...
        already = "already converted to float16" in str(error)
        why = "it is already in float16." if already else f"the converter failed: {error}"
        fix = "Open the float32 model instead." if already else "Run Check and fix the model, or keep it in float32."
        raise DocumentError(what, why, fix) from None
    step(progress, cancel, what, 0.5, "checking the converted model")
    functions = convert_function_bodies(converted, CLAMP_MIN, CLAMP_MAX)
    recast = float_casts_to_float16(converted)
    quantize = keep_quantization_float32(converted, source)
    before, after = _named_tensors(source), _named_tensors(converted)
    names = [
        n
        for n, t in after.items()
        if t.data_type == onnx.TensorProto.FLOAT16 and n in before and before[n].data_type == onnx.TensorProto.FLOAT
    ] + functions
    if functions:
        log.append(f"float32 tensors in local function bodies converted too: {', '.join(functions)}")
    if recast:
        log.append(f"Casts to float32 that fed float16 operators now cast to float16: {', '.join(recast)}")
    if quantize:
        log.append(f"kept in float32 (opset below 19 allows only float32 scales): {', '.join(quantize)}")
    step(progress, cancel, what, 0.55, "verifying the converted model (full check, onnxruntime load)")
    verdict = require_valid(what, converted, lambda: original)
    check_error = "; ".join(verdict.lines()) if verdict.problems else None
    comparison = None
    if compare:
        step(progress, cancel, what, 0.6, "comparing outputs with onnxruntime")
        comparison = compare_models(original, converted, seed, progress, cancel)
    casts = _casts(converted) - _casts(source)
    summary = [
        f"{len(names):,} tensors converted to float16, {casts:,} Cast nodes inserted",
        f"{beyond:,} float32 values beyond float16's range (largest |value| {largest:.6g}); {clamped:,} clamped",
        f"float16 share of weight elements: {fp16_share(converted):.1%}",
        *verdict.lines(),
    ]
    log = summary + (comparison.lines() if comparison else []) + log
    step(progress, cancel, what, 1.0, "done")
    result = Fp16Result(
        names, casts, beyond, clamped, largest, fp16_share(converted), check_error, comparison, trimmed(log), verdict
    )
    return converted, result


class ConvertModelToFp16(Transform):
    name: ClassVar[str] = "convert_fp16"
    label: ClassVar[str] = "Convert model to FP16"

    def plan(self, doc: Document, **args: Any) -> Plan[Fp16Result]:
        """`path`: write there instead of editing; `compare` (True), `seed` (0), `progress`, `cancel`."""
        original = model_proto(doc)
        converted, result = convert_proto(
            original,
            bool(args.get("compare", True)),
            int(args.get("seed", 0)),
            args.get("progress"),
            args.get("cancel"),
        )
        return rewritten_model_plan(self.label, converted, result, args.get("path"))


def convert_to_fp16(
    model: Document | str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    compare: bool = True,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Fp16Result:
    """Convert `model` (a Document or a file) to FP16; `output`: the new file, else the document is edited (one
    undo step; a path without `output` is refused, it would edit nothing)."""
    result: Fp16Result = rewrite(
        ConvertModelToFp16(), model, output, "model_fp16.onnx", compare=compare, seed=seed, progress=progress,
        cancel=cancel,
    )
    return result
