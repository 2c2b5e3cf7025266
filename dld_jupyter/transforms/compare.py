"""Run a model and its transformed copy on the same random inputs and say how far their outputs moved.

FP16 conversion and sanitize both end with this check (issue 20: beyond the seed). Cases handled, in order:
1. inputs come from the original model's graph inputs; symbolic dimensions become 1, floats are standard normal,
   integers are 0 or 1 (valid token ids, masks and indices for any vocabulary), bools are random; fixed `seed`;
2. both models run on onnxruntime's CPU provider with graph optimizations off, so the comparison sees the models
   as written, not what onnxruntime rewrote them into; a cancel ends a running inference (`RunOptions.terminate`);
3. per output: the largest absolute difference and the largest relative difference |a - b| / max(|a|, tiny) over
   elements finite in both, and the count of elements finite in the original that went NaN/inf in the copy
   (flagged non-finite); a shape change or a failed run is an error on that output, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import onnx

from dld_jupyter.transforms.postcondition import cpu_session
from dld_jupyter.transforms.progress import CancelToken, Progress, step

TINY = float(np.finfo(np.float32).tiny)


@dataclass(frozen=True)
class OutputDiff:
    """How one output of the transformed model differs from the original's."""

    name: str
    shape: tuple[int, ...]
    max_abs: float
    max_rel: float
    nonfinite: int  # elements finite in the original that are NaN/inf in the copy
    error: str | None = None

    @property
    def went_nonfinite(self) -> bool:
        return self.nonfinite > 0

    def within(self, atol: float) -> bool:
        return self.error is None and not self.went_nonfinite and self.max_abs <= atol


@dataclass(frozen=True)
class Comparison:
    """The outputs of both models on one random input set."""

    outputs: list[OutputDiff]
    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    seed: int = 0
    error: str | None = None  # a model that did not run at all

    @property
    def max_abs(self) -> float:
        return max((o.max_abs for o in self.outputs), default=0.0)

    def within(self, atol: float) -> bool:
        return self.error is None and all(o.within(atol) for o in self.outputs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "error": self.error,
            "inputs": {k: list(v) for k, v in self.inputs.items()},
            "outputs": [
                {**asdict(o), "shape": list(o.shape), "went_nonfinite": o.went_nonfinite} for o in self.outputs
            ],
        }

    def lines(self) -> list[str]:
        if self.error:
            return [f"comparison: {self.error}"]
        out = []
        for o in self.outputs:
            if o.error:
                out.append(f"output {o.name}: {o.error}")
                continue
            flag = f", {o.nonfinite:,} values went non-finite" if o.nonfinite else ""
            out.append(
                f"output {o.name} {list(o.shape)}: max abs diff {o.max_abs:.3g}, max rel diff {o.max_rel:.3g}{flag}"
            )
        return out


def random_inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """One input set for `model` (see the module docstring, case 1)."""
    rng = np.random.default_rng(seed)
    initializers = {i.name for i in model.graph.initializer}
    feeds: dict[str, np.ndarray] = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dims = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tensor.shape.dim)
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type))
        if dtype.kind == "f":
            feeds[value.name] = rng.standard_normal(dims).astype(dtype)
        elif dtype.kind == "b":
            feeds[value.name] = rng.integers(0, 2, dims).astype(bool)
        else:
            feeds[value.name] = rng.integers(0, 2, dims).astype(dtype)
    return feeds


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], cancel: CancelToken | None) -> dict[str, np.ndarray]:
    import onnxruntime as ort

    session = cpu_session(model.SerializeToString())
    run_options = ort.RunOptions()
    remove: Callable[[], None] = lambda: None  # noqa: E731
    if cancel is not None:

        def terminate() -> None:
            run_options.terminate = True

        remove = cancel.on_cancel(terminate)
    try:
        names = [o.name for o in session.get_outputs()]
        wanted = {i.name for i in session.get_inputs()}
        results = session.run(names, {k: v for k, v in feeds.items() if k in wanted}, run_options)
    finally:
        remove()
    return {name: np.asarray(result) for name, result in zip(names, results, strict=True)}


def diff(name: str, reference: np.ndarray, candidate: np.ndarray) -> OutputDiff:
    """The differences of one output (module docstring, case 3)."""
    if reference.shape != candidate.shape:
        error = f"shape changed from {list(reference.shape)} to {list(candidate.shape)}"
        return OutputDiff(name, tuple(reference.shape), float("inf"), float("inf"), 0, error)
    a = reference.astype(np.float64)
    b = candidate.astype(np.float64)
    finite_a = np.isfinite(a)
    both = finite_a & np.isfinite(b)
    delta = np.abs(a[both] - b[both])
    max_abs = float(delta.max()) if delta.size else 0.0
    max_rel = float((delta / np.maximum(np.abs(a[both]), TINY)).max()) if delta.size else 0.0
    nonfinite = int(np.count_nonzero(finite_a & ~np.isfinite(b)))
    return OutputDiff(name, tuple(int(d) for d in a.shape), max_abs, max_rel, nonfinite)


def compare_models(
    original: onnx.ModelProto,
    transformed: onnx.ModelProto,
    seed: int = 0,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
) -> Comparison:
    """Run both models on the same random inputs; errors become `Comparison.error` / `OutputDiff.error`."""
    what = "Compare outputs"
    feeds = random_inputs(original, seed)
    shapes = {k: tuple(int(d) for d in v.shape) for k, v in feeds.items()}
    results: list[dict[str, np.ndarray]] = []
    for label, model in (("original", original), ("transformed", transformed)):
        step(progress, cancel, what, None, f"running the {label} model with onnxruntime")
        try:
            results.append(_run(model, feeds, cancel))
        except Exception as error:  # onnxruntime raises its own Fail/InvalidGraph/RuntimeException types
            step(progress, cancel, what, None, f"the {label} model did not run")
            return Comparison([], shapes, seed, f"the {label} model did not run in onnxruntime: {error}")
    reference, candidate = results
    outputs = [
        diff(name, value, candidate[name])
        if name in candidate
        else OutputDiff(name, tuple(value.shape), float("inf"), float("inf"), 0, "missing from the transformed model")
        for name, value in reference.items()
    ]
    return Comparison(outputs, shapes, seed)
