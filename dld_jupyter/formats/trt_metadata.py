"""TensorRT attributes stored in the model (seed 000 "Dynamic Shapes and TensorRT", "Specifying Layer Precisions").

They live in the ONNX file so they travel with it and every front door (canvas, explorer, `dld export-engine`,
the activity worker) reads the same thing:
- model ``metadata_props["dld.trt.profiles"]``: JSON ``{"version": 1, "inputs": {name: {"min", "opt", "max"}}}``,
  one optimization profile (min/opt/max shapes) per dynamic top-level input;
- model ``metadata_props["dld.trt.inferred_batch"]``: the Inferred Batch Size (an integer as text), used for
  inputs with a single leading wildcard that have no profile of their own;
- node ``metadata_props["dld.trt_precision"]``: a layer precision constraint (fp32 ... bool).
This module is the codec and the validation only (pure functions on shapes and strings, standard library only), so
the activity worker reads the same format the document writes without importing the document layer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PROFILES_KEY = "dld.trt.profiles"
INFERRED_BATCH_KEY = "dld.trt.inferred_batch"
TRT_PRECISION_KEY = "dld.trt_precision"

# The seed's list: floating point, then integral. trtexec's --layerPrecisions accepts fewer (see trt_mapping).
LAYER_PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "int64", "int32", "int8", "int4", "uint8", "bool")

Dim = int | str  # a static size, or a symbolic (wildcard) name
MAX_SIZE = 2**31 - 1  # trtexec reads shape sizes as 32-bit ints; larger ones reached its command line as they were
Shape = tuple[int, ...]


class ProfileError(ValueError):
    """A profile or precision that TensorRT would refuse: ``why`` and ``fix`` are for the user."""

    def __init__(self, why: str, fix: str) -> None:
        super().__init__(f"{why} Fix: {fix}")
        self.why = why
        self.fix = fix


@dataclass(frozen=True)
class OptimizationProfile:
    """Min / opt / max shapes of one dynamic input (TensorRT's IOptimizationProfile.set_shape)."""

    min: Shape
    opt: Shape
    max: Shape

    def to_json(self) -> dict[str, list[int]]:
        return {"min": list(self.min), "opt": list(self.opt), "max": list(self.max)}


def is_dynamic(dim: Dim | None) -> bool:
    """A wildcard dimension: symbolic, unknown, or a negative size."""
    return not isinstance(dim, int) or dim < 0


def _shape(value: object, what: str) -> Shape:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise ProfileError(
            f"the {what} shape {value!r} is not a list of sizes.", "Give a list such as [1, 3, 224, 224]."
        )
    sizes = tuple(value)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in sizes):
        raise ProfileError(f"the {what} shape {list(sizes)} holds a non-integer size.", "Use whole numbers only.")
    return sizes


def validate_profile(
    input_name: str, dims: Sequence[Dim | None], min_: object, opt: object, max_: object
) -> OptimizationProfile:
    """The profile for an input of shape `dims`, or ProfileError saying which dimension is wrong and why."""
    shapes = [_shape(min_, "min"), _shape(opt, "opt"), _shape(max_, "max")]
    rank = len(dims)
    if not any(is_dynamic(d) for d in dims):
        raise ProfileError(
            f"input {input_name!r} has the static shape {list(dims)}; TensorRT needs profiles for dynamic inputs only.",
            "Set profiles on inputs with symbolic or unknown dimensions.",
        )
    for what, shape in zip(("min", "opt", "max"), shapes, strict=True):
        if len(shape) != rank:
            raise ProfileError(
                f"the {what} shape {list(shape)} has rank {len(shape)}, input {input_name!r} has rank {rank} "
                f"({list(dims)}).",
                f"Give {rank} sizes.",
            )
        for axis, (size, dim) in enumerate(zip(shape, dims, strict=True)):
            if size < 0 or (size == 0 and is_dynamic(dim)):
                raise ProfileError(f"the {what} size of axis {axis} is {size}.", "Sizes of dynamic axes are 1 or more.")
            if size > MAX_SIZE:
                raise ProfileError(f"the {what} size of axis {axis} is {size}, more than TensorRT's int32 sizes hold.",
                                   f"Give sizes up to {MAX_SIZE}.")
            if not is_dynamic(dim) and size != dim:
                raise ProfileError(
                    f"axis {axis} of input {input_name!r} is static ({dim}) but the {what} shape gives {size}.",
                    f"Use {dim} on axis {axis} in min, opt and max.",
                )
    low, mid, high = shapes
    for axis in range(rank):
        if not low[axis] <= mid[axis] <= high[axis]:
            raise ProfileError(
                f"on axis {axis} min {low[axis]} <= opt {mid[axis]} <= max {high[axis]} does not hold.",
                "Order the sizes so that min <= opt <= max on every axis.",
            )
    return OptimizationProfile(low, mid, high)


def single_leading_wildcard(dims: Sequence[Dim | None]) -> bool:
    """True for shapes like ['N', 3, 224, 224] or ['n']: the only shapes the Inferred Batch Size applies to."""
    return bool(dims) and is_dynamic(dims[0]) and not any(is_dynamic(d) for d in dims[1:])


def batch_profile(dims: Sequence[Dim | None], batch: int) -> OptimizationProfile:
    """The profile the Inferred Batch Size gives an input with a single leading wildcard: that batch, fixed."""
    shape = (batch, *(int(d) for d in dims[1:] if isinstance(d, int)))
    return OptimizationProfile(shape, shape, shape)


def validate_batch(batch: object) -> int:
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise ProfileError(f"the inferred batch size {batch!r} is not a whole number of 1 or more.", "Use e.g. 1 or 8.")
    return batch


def validate_precision(precision: object) -> str | None:
    """A precision of LAYER_PRECISIONS (case-insensitive), or None for No Constraint."""
    if precision is None:
        return None
    if isinstance(precision, str) and precision.lower() in LAYER_PRECISIONS:
        return precision.lower()
    raise ProfileError(
        f"{precision!r} is not a TensorRT layer precision.",
        f"Use one of {', '.join(LAYER_PRECISIONS)}, or None for No Constraint.",
    )


def encode_profiles(profiles: Mapping[str, OptimizationProfile]) -> str | None:
    """The metadata value for `profiles` (None removes the key when there are none)."""
    if not profiles:
        return None
    body = {"version": 1, "inputs": {name: profiles[name].to_json() for name in sorted(profiles)}}
    return json.dumps(body, separators=(",", ":"))


def decode_profiles_strict(text: str | None) -> dict[str, tuple[object, object, object]]:
    """(min, opt, max) as stored, by input name, for `validate_profile`; ProfileError when the value is damaged.
    A build reads this way: what it uses must hold, where opening a model reads leniently (`decode_profiles`)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's recursion limit
        data = None
    inputs = data.get("inputs") if isinstance(data, dict) else None
    if not isinstance(inputs, dict) or not all(isinstance(e, dict) for e in inputs.values()):
        raise ProfileError(
            f'the stored optimization profiles ("{PROFILES_KEY}") are not {{"inputs": {{name: {{min, opt, max}}}}}}.',
            "Set the profiles again (Set TensorRT Optimization Profile...).",
        )
    out: dict[str, tuple[object, object, object]] = {}
    for name, entry in inputs.items():
        missing = [key for key in ("min", "opt", "max") if key not in entry]
        if missing:
            raise ProfileError(
                f"the stored profile of input {name!r} has no {'/'.join(missing)} shape.",
                "Set the profile again with min, opt and max.",
            )
        out[name] = (entry["min"], entry["opt"], entry["max"])
    return out


def decode_profiles(text: str | None) -> dict[str, OptimizationProfile]:
    """Profiles by input name from a metadata value; a damaged value reads as none (it never blocks opening)."""
    try:
        stored = decode_profiles_strict(text)
        return {
            name: OptimizationProfile(*(_shape(s, k) for s, k in zip(v, ("min", "opt", "max"), strict=True)))
            for name, v in stored.items()
        }
    except ProfileError:
        return {}


def decode_batch_strict(text: str | None) -> int | None:
    """The stored inferred batch (None when there is none); ProfileError when it is not a whole number >= 1."""
    if not text:
        return None
    try:
        value: object = int(text)
    except ValueError:
        value = text
    return validate_batch(value)


def decode_batch(text: str | None) -> int | None:
    try:
        return decode_batch_strict(text)
    except ProfileError:
        return None
