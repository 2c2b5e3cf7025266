"""Tensor values for initializers: element types, generation (seed 002) and dtype conversion with loss warnings.

Generators, by the seed's rules:
1. ``normal``: standard normal, for floating types stored in more than one byte (float16, bfloat16, float, double);
2. ``zeros``: every type (empty strings for string);
3. ``uniform_positive``: uniform over the type's positive values (zero excluded), integer types of at least one byte;
4. ``uniform_negative``: the same over negative values, signed integer types of at least one byte.
Conversion (Tensor Editor "Convert") is refused for bool, string and complex sources; it saturates instead of
wrapping and says how many values lost precision, were truncated, clipped or overflowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from dld_jupyter.document.model.errors import DocumentError

DT = ir.DataType
GENERATORS: dict[str, str] = {
    "normal": "Random values (standard normal)",
    "zeros": "Zeros",
    "uniform_positive": "Random positive values (uniform)",
    "uniform_negative": "Random negative values (uniform)",
}
MAX_EDIT_ELEMENTS = 10_000  # seed 000: larger tensors are replaced from a .npy file, not edited as text
MAX_GENERATED_BYTES = 1 << 30  # a typo in a shape must not exhaust the kernel's memory


def element_types() -> list[DT]:
    """Every element type a tensor can have here (numpy can hold it)."""
    out = []
    for dtype in DT:
        if dtype in (DT.UNDEFINED, DT.STRING):
            continue
        try:
            dtype.numpy()
        except Exception:
            continue
        out.append(dtype)
    return [*out, DT.STRING]


def parse_dtype(name: str | DT) -> DT:
    """``"float16"`` / ``"FLOAT16"`` / DataType → DataType; raises DocumentError for unknown names."""
    if isinstance(name, DT):
        return name
    key = str(name).strip().upper()
    key = {"FLOAT32": "FLOAT", "FLOAT64": "DOUBLE"}.get(key, key)
    if key in DT.__members__ and key != "UNDEFINED":
        return DT.__members__[key]
    raise DocumentError(f"Use type {name!r}", "it is not an ONNX element type.", "Pick float, float16, int64, ...")


def numpy_dtype(dtype: DT) -> np.dtype[Any]:
    return np.dtype(np.str_) if dtype == DT.STRING else np.dtype(dtype.numpy())


def generators_for(dtype: DT) -> list[str]:
    """The generators seed 002 allows for ``dtype``, in menu order."""
    if dtype == DT.FLOAT8E8M0:  # exponent-only: it has no zero, so no generator fits
        return []
    out = []
    if dtype.is_floating_point() and dtype.bitwidth > 8:
        out.append("normal")
    out.append("zeros")
    if dtype.is_integer() and dtype.bitwidth >= 8:
        out.append("uniform_positive")
        if dtype.is_signed():
            out.append("uniform_negative")
    return out


def check_shape(shape: Any, what: str) -> tuple[int, ...]:
    """A shape as a tuple of non-negative ints; raises DocumentError otherwise."""
    if isinstance(shape, int | np.integer):
        shape = [shape]
    if not isinstance(shape, Sequence | np.ndarray) or isinstance(shape, str):
        raise DocumentError(what, f"the shape {shape!r} is not a list of sizes.", "Write it as [2, 3].")
    dims = list(shape)
    if not all(isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise DocumentError(what, f"the shape {dims} must hold non-negative integers.", "Write it as [2, 3].")
    return tuple(int(d) for d in dims)


def generate(dtype: DT, shape: Any, method: str, seed: int | None = None) -> np.ndarray:
    """A new tensor of ``dtype`` and ``shape`` filled by ``method``; raises DocumentError when not allowed."""
    what = f"Generate a {dtype.name.lower()} tensor"
    dims = check_shape(shape, what)
    if method not in GENERATORS:
        raise DocumentError(what, f"unknown generator {method!r}.", f"Use one of {', '.join(GENERATORS)}.")
    allowed = generators_for(dtype)
    if method not in allowed:
        raise DocumentError(what, f"{GENERATORS[method]} is not available for this type.", f"Use {allowed}.")
    target = numpy_dtype(dtype)
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if count * max(target.itemsize, 1) > MAX_GENERATED_BYTES:
        raise DocumentError(what, f"{count:,} elements exceed the 1 GiB limit.", "Load a .npy file instead.")
    rng = np.random.default_rng(seed)
    if method == "zeros":
        return np.zeros(dims, dtype=target) if dtype != DT.STRING else np.full(dims, "", dtype=np.str_)
    if method == "normal":
        return rng.standard_normal(dims).astype(target)
    info = np.iinfo(target)
    if method == "uniform_positive":
        return rng.integers(1, int(info.max), size=dims, dtype=target, endpoint=True)
    return rng.integers(int(info.min), -1, size=dims, dtype=target, endpoint=True)


def check_element_kind(data: np.ndarray, dtype: DT, what: str) -> None:
    """Refuse values of another kind than the tensor holds: numpy would turn the text '1.5' into a float, drop
    the imaginary part of a complex number, or store a date as an integer, silently."""
    kind = data.dtype.kind
    if dtype == DT.STRING:
        if kind not in "USO" and data.size:
            raise DocumentError(what, f"{data.dtype} values cannot go into a string tensor.", "Write them as text.")
        return
    if kind in "USOmM":
        raise DocumentError(
            what, f"{data.dtype} values cannot go into a {dtype.name.lower()} tensor.", "Write numbers, not text."
        )
    if kind == "c" and dtype not in (DT.COMPLEX64, DT.COMPLEX128):
        raise DocumentError(
            what,
            f"complex values cannot go into a {dtype.name.lower()} tensor.",
            "Drop the imaginary parts first (numpy.real) or pick complex64.",
        )


def check_fits(data: np.ndarray, dtype: DT, what: str) -> None:
    """Refuse values an integer or bool type cannot hold exactly (a typed-in 1.5 for uint8 is a mistake)."""
    if not (dtype.is_integer() or dtype == DT.BOOL) or data.dtype.kind not in "fiub" or data.size == 0:
        return
    wide = data.astype(np.float64)
    if data.dtype.kind == "f" and not np.array_equal(wide, np.trunc(wide)):
        raise DocumentError(what, f"{dtype.name.lower()} holds no fractional values.", "Round them or pick a float.")
    lo, hi = (0, 1) if dtype == DT.BOOL else (int(dtype.min), int(dtype.max))
    source = data if data.dtype.kind in "iu" else wide  # exact comparison for 64-bit integers
    out = bool((source < lo).any() or (source > hi).any())
    if out:
        raise DocumentError(what, f"a value is outside {lo}..{hi} of {dtype.name.lower()}.", "Pick a wider type.")


# ------------------------------------------------------------------ conversion
def convertible(dtype: DT) -> bool:
    """Whether a tensor of ``dtype`` can be converted (seed 000: not bool or string; complex has no target here)."""
    return dtype not in (DT.BOOL, DT.STRING, DT.COMPLEX64, DT.COMPLEX128, DT.UNDEFINED)


def conversion_targets(dtype: DT) -> list[DT]:
    if not convertible(dtype):
        return []
    return [t for t in element_types() if t != dtype and t not in (DT.STRING, DT.COMPLEX64, DT.COMPLEX128)]


def _plural(count: int, text: str) -> str:
    return f"{count:,} value{'s' if count != 1 else ''} {text}"


def _int_range(dtype: DT) -> tuple[int, int]:
    return int(dtype.min), int(dtype.max)


def _to_integer(src: np.ndarray, source: DT, target: DT, warnings: list[str]) -> np.ndarray:
    lo, hi = _int_range(target)
    out = np.zeros(src.shape, dtype=numpy_dtype(target))
    if source.is_floating_point():
        wide = src.astype(np.float64)
        nan = np.isnan(wide)
        low, high = wide < float(lo), wide >= float(hi + 1)  # hi + 1 is exact in float64 where hi is not
        ok = ~(nan | low | high)
        truncated = int(np.count_nonzero(ok & (wide != np.trunc(wide))))
        out[ok] = np.trunc(wide[ok]).astype(out.dtype)
        if truncated:
            warnings.append(_plural(truncated, "had fractional parts, truncated toward zero"))
        if nan.any():
            warnings.append(_plural(int(nan.sum()), "were NaN, set to 0"))
    else:
        wide_int = src.astype(np.uint64) if not source.is_signed() else src.astype(np.int64)
        low = wide_int < lo if source.is_signed() else np.zeros(src.shape, dtype=bool)
        high = wide_int > hi if not (hi >= 2**63 - 1 and source.is_signed()) else np.zeros(src.shape, dtype=bool)
        ok = ~(low | high)
        out[ok] = wide_int[ok].astype(out.dtype)
    out[low], out[high] = lo, hi
    clipped = int(np.count_nonzero(low | high))
    if clipped:
        warnings.append(_plural(clipped, f"were outside {lo}..{hi}, clipped"))
    return out


def _to_float(src: np.ndarray, target: DT, warnings: list[str]) -> np.ndarray:
    wide = src.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        out = wide.astype(numpy_dtype(target))
        back = out.astype(np.float64)
    finite = np.isfinite(wide)
    overflow = finite & ~np.isfinite(back)
    lost = finite & ~overflow & (back != wide)
    if overflow.any():
        warnings.append(_plural(int(overflow.sum()), f"overflowed the range of {target.name.lower()}"))
    if lost.any():
        worst = float(np.max(np.abs(back[lost] - wide[lost])))
        warnings.append(_plural(int(lost.sum()), f"lost precision (largest change {worst:.3g})"))
    nan_lost = np.isnan(wide) & ~np.isnan(back)
    if nan_lost.any():
        warnings.append(_plural(int(nan_lost.sum()), f"were NaN, which {target.name.lower()} cannot hold"))
    return out


def convert(array: Any, source: DT, target: DT) -> tuple[np.ndarray, list[str]]:
    """``array`` (of ``source`` type) as ``target``, saturating; the warnings say what was lost."""
    what = f"Convert {source.name.lower()} to {target.name.lower()}"
    if not convertible(source):
        raise DocumentError(what, f"{source.name.lower()} tensors cannot be converted.", "Create a new initializer.")
    if target not in conversion_targets(source):
        raise DocumentError(what, "this target type is not offered.", f"Use one of {conversion_targets(source)}.")
    src = np.asarray(array)
    warnings: list[str] = []
    if target == DT.BOOL:
        wide = src.astype(np.float64)
        other = int(np.count_nonzero((wide != 0) & (wide != 1)))
        if other:
            warnings.append(_plural(other, "other than 0 and 1 became true"))
        return wide != 0, warnings
    if target.is_integer():
        return _to_integer(src, source, target, warnings), warnings
    return _to_float(src, target, warnings), warnings
