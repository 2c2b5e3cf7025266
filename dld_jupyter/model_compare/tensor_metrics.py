"""How far one candidate tensor is from its reference: max abs, max rel, cosine, SQNR, NaN/Inf counts.

The numbers users compare between FP16/INT8/TensorRT and the float model (Polygraphy's `--check-error-stat`,
Model Explorer's node data). Computed in float64 over chunks of a million elements, so measuring one tensor costs
a few MB beside the two arrays whatever their size. Elements that are not finite in either tensor are left out of
the error statistics and counted instead: `nan`/`inf` in the candidate, `new_nonfinite` where the reference was
finite (a candidate that overflows is over any tolerance). `max_rel` divides by |reference| floored at a millionth of
the tensor's largest |reference| (of the candidate's where the reference is all zeros): an element at 0 beside
values near 1 is measured against 1e-6, not against float32's smallest normal (which printed ~1e35 for any error
there). Both tensors all zeros: 0. SQNR is 10·log10(Σref² / Σ(ref-cand)²) in dB (inf when equal).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

TINY = float(np.finfo(np.float32).tiny)
REL_FLOOR = 1e-6  # of the tensor's largest |reference|: the smallest denominator max_rel divides by
CHUNK = 1 << 20
METRICS = ("max_abs", "max_rel", "cosine", "sqnr")


@dataclass(frozen=True)
class TensorMetrics:
    max_abs: float
    max_rel: float
    cosine: float
    sqnr: float  # dB
    nan: int  # NaN elements in the candidate
    inf: int  # ±inf elements in the candidate
    new_nonfinite: int  # finite in the reference, NaN/inf in the candidate
    error: str | None = None  # shapes that differ, a type that cannot be compared

    def value(self, metric: str) -> float:
        return float(getattr(self, metric))

    def over(self, metric: str, tolerance: float) -> bool:
        """Past ``tolerance``: above it for max_abs/max_rel, below it for cosine and SQNR; any new NaN/inf or an
        error is always over."""
        if self.error is not None or self.new_nonfinite:
            return True
        value = self.value(metric)
        if math.isnan(value):
            return True
        return value < tolerance if metric in ("cosine", "sqnr") else value > tolerance

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: a non-finite float becomes its text ("inf", "nan"), as JSON has no such numbers."""
        return {k: _json(v) for k, v in asdict(self).items()}


def _json(value: object) -> object:
    return str(value) if isinstance(value, float) and not math.isfinite(value) else value


def failed(error: str) -> TensorMetrics:
    nan = float("nan")
    return TensorMetrics(nan, nan, nan, nan, 0, 0, 0, error)


def _largest(values: np.ndarray) -> float:
    """The largest finite |value| (0 when none), a chunk at a time."""
    largest = 0.0
    for start in range(0, values.size, CHUNK):
        chunk = np.abs(values[start : start + CHUNK].astype(np.float64))
        chunk = chunk[np.isfinite(chunk)]
        if chunk.size:
            largest = max(largest, float(chunk.max()))
    return largest


def measure(reference: np.ndarray, candidate: np.ndarray) -> TensorMetrics:
    """The metrics of ``candidate`` against ``reference`` (same shape; any numeric or bool dtype)."""
    if reference.shape != candidate.shape:
        return failed(f"shape {list(candidate.shape)} where the reference has {list(reference.shape)}")
    if reference.dtype.kind not in "biuf" or candidate.dtype.kind not in "biuf":
        return failed(f"{candidate.dtype} cannot be compared numerically")
    ref, cand = reference.reshape(-1), candidate.reshape(-1)
    floor = REL_FLOOR * (_largest(ref) or _largest(cand))
    max_abs = max_rel = 0.0
    dot = ref_sq = cand_sq = err_sq = 0.0
    nan = inf = new_nonfinite = 0
    for start in range(0, ref.size, CHUNK):
        r = ref[start : start + CHUNK].astype(np.float64)
        c = cand[start : start + CHUNK].astype(np.float64)
        finite_r, finite_c = np.isfinite(r), np.isfinite(c)
        nan += int(np.isnan(c).sum())
        inf += int(np.isinf(c).sum())
        new_nonfinite += int((finite_r & ~finite_c).sum())
        both = finite_r & finite_c
        if not both.all():
            r, c = r[both], c[both]
        if r.size == 0:
            continue
        d = np.abs(r - c)
        max_abs = max(max_abs, float(d.max()))
        if floor > 0:
            max_rel = max(max_rel, float((d / np.maximum(np.abs(r), max(floor, TINY))).max()))
        dot += float(r @ c)
        ref_sq += float(r @ r)
        cand_sq += float(c @ c)
        err_sq += float(d @ d)
    if ref_sq == 0.0 and cand_sq == 0.0:
        cosine = 1.0
    elif ref_sq == 0.0 or cand_sq == 0.0:
        cosine = 0.0
    else:
        cosine = dot / math.sqrt(ref_sq * cand_sq)
    if err_sq == 0.0:
        sqnr = math.inf
    elif ref_sq == 0.0:
        sqnr = -math.inf
    else:
        sqnr = 10.0 * math.log10(ref_sq / err_sq)
    return TensorMetrics(max_abs, max_rel, cosine, sqnr, nan, inf, new_nonfinite)
