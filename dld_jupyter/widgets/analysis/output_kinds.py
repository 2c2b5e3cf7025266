"""How the Analysis Output reads each model output (seed 001 §4.5: the Analysis Output view), decided in the kernel.

Why here and not in the page: the decision needs the whole tensor (is it an image, are these probabilities), and
sending the tensor to decide would cost what the Channel Inspector already bounds. Three readings, in order:
- an **image**: N×3×H×W, N×1×H×W, 3×H×W or H×W×3 (N×H×W×3 too) with H, W ≥ 8, shown as RGBA pixels (the first
  ``IMAGE_LIMIT`` images of N); values in [0, 1] are scaled by 255, values in [0, 255] kept, others stretched from
  their min–max, so a denoiser's output and a normalised one both look like pictures;
- **class scores**: N×K floats with K ≥ 2 (or N×K×1×1): the top ``TOP_K`` per row (first ``ROW_LIMIT`` rows) with
  their probability; rows that are already probabilities (in [0, 1], summing to 1) are kept, logits go through a
  softmax;
- anything else: statistics (channel_tiles.stats_of) and a histogram of ``BINS`` bins over the finite values.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np

from dld_jupyter.widgets.analysis.channel_tiles import stats_of

IMAGE_LIMIT = 4
TOP_K = 5
ROW_LIMIT = 4
BINS = 32
MIN_SIDE = 8


def image_planes(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """The tensor as N×H×W×C (C 1 or 3) when it reads as images, else None."""
    if not np.issubdtype(values.dtype, np.number) or np.issubdtype(values.dtype, np.complexfloating):
        return None
    shape = values.shape
    if values.ndim == 3:
        values, shape = values[None], (1, *shape)
    if values.ndim != 4:
        return None
    if shape[1] in (1, 3) and min(shape[2], shape[3]) >= MIN_SIDE:
        return np.moveaxis(values, 1, -1)
    if shape[3] == 3 and min(shape[1], shape[2]) >= MIN_SIDE:
        return values
    return None


def to_rgba(planes: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """N×H×W×C numbers → N×H×W×4 uint8 (see the module docstring for the value range rules; NaN black)."""
    data = planes.astype(np.float64)
    finite = np.isfinite(data)
    lo = float(data[finite].min()) if finite.any() else 0.0
    hi = float(data[finite].max()) if finite.any() else 0.0
    if lo >= 0 and hi <= 1:
        scaled = data * 255
    elif lo >= 0 and hi <= 255:
        scaled = data
    else:
        scaled = (data - lo) * (255 / (hi - lo)) if hi > lo else np.zeros_like(data)
    rgb = np.clip(np.where(finite, scaled, 0), 0, 255).astype(np.uint8)
    if rgb.shape[-1] == 1:
        rgb = np.repeat(rgb, 3, axis=-1)
    alpha = np.full((*rgb.shape[:-1], 1), 255, dtype=np.uint8)
    return np.concatenate([rgb, alpha], axis=-1)


def class_rows(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """The tensor as N×K float scores when it reads as class scores, else None."""
    if not np.issubdtype(values.dtype, np.floating):
        return None
    squeezed = values.reshape(values.shape[:2]) if values.ndim == 4 and values.shape[2:] == (1, 1) else values
    if squeezed.ndim == 1 and squeezed.shape[0] >= 2:
        squeezed = squeezed[None]
    if squeezed.ndim != 2 or squeezed.shape[1] < 2 or not np.isfinite(squeezed).all():
        return None
    return squeezed


def probabilities(rows: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], bool]:
    """(probabilities, whether a softmax was applied): rows in [0, 1] summing to 1 are kept."""
    data = rows.astype(np.float64)
    if data.min() >= 0 and data.max() <= 1 and np.allclose(data.sum(axis=1), 1, atol=1e-3):
        return data, False
    shifted = np.exp(data - data.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True), True


def top_classes(rows: np.ndarray[Any, Any], k: int = TOP_K) -> dict[str, Any]:
    """The top ``k`` classes of the first ``ROW_LIMIT`` rows: index, score and probability, best first."""
    shown = rows[:ROW_LIMIT]
    probs, softmax = probabilities(shown)
    table = []
    for row, prob in zip(shown, probs, strict=True):
        order = np.argsort(-prob, kind="stable")[:k]
        table.append([{"index": int(i), "score": float(row[i]), "probability": float(prob[i])} for i in order])
    return {"rows": table, "softmax": softmax, "row_count": int(rows.shape[0]), "classes": int(rows.shape[1])}


def histogram(values: np.ndarray[Any, Any], bins: int = BINS) -> dict[str, Any]:
    """Counts of the finite values in ``bins`` equal bins between their min and max (empty when none is finite)."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype == np.bool_ or not np.issubdtype(flat.dtype, np.number):
        flat = flat.astype(np.float64)
    if np.issubdtype(flat.dtype, np.complexfloating):
        flat = np.abs(flat)
    finite = flat[np.isfinite(flat)] if np.issubdtype(flat.dtype, np.floating) else flat
    if finite.size == 0:
        return {"counts": [], "low": None, "high": None}
    lo, hi = float(finite.min()), float(finite.max())
    counts, _ = np.histogram(finite, bins=bins, range=(lo, hi) if hi > lo else (lo - 0.5, lo + 0.5))
    return {"counts": [int(c) for c in counts], "low": lo, "high": hi}


def read_output(name: str, values: Any) -> tuple[dict[str, Any], bytes]:
    """One output's entry for the page and its pixels (empty unless it is an image)."""
    array = np.asarray(values)
    entry: dict[str, Any] = {"name": name, "shape": [int(d) for d in array.shape], "dtype": str(array.dtype)}
    planes = image_planes(array)
    if planes is not None:
        rgba = to_rgba(planes[:IMAGE_LIMIT])
        entry.update(kind="image", images=int(rgba.shape[0]), of=int(planes.shape[0]))
        entry.update(height=int(rgba.shape[1]), width=int(rgba.shape[2]))
        return entry, rgba.tobytes()
    rows = class_rows(array)
    if rows is not None:
        entry.update(kind="classes", **top_classes(rows))
        return entry, b""
    entry.update(kind="stats", stats=asdict(stats_of(array)), histogram=histogram(array))
    return entry, b""
