"""What the Channel Inspector sends to the browser for one tensor: its tiles, their encoding and its statistics.

Why a module apart from the widget: the decisions here are testable without a browser and decide what the browser
costs. A tensor of rank ≥ 3 is shown as N×C tiles of H×W (seed 001 §4.5.1; ranks above 4 fold their leading axes
into N, rank 3 is one N); a rank-1 or rank-2 tensor as heat strips (one strip of L, or A strips of B). Values cross
the wire as one binary buffer: float32 while small, quantised to uint8 (step and offset given, 255 marks NaN/±Inf)
above ``FLOAT_LIMIT`` elements, so a 1×512×28×28 map is 401 KB instead of 1.6 MB (BROWSER.md: ~0.4 s per 10 MiB
kernel → browser). At most ``ELEMENT_LIMIT`` elements are sent; a larger tensor shows its first whole tiles and says
so, which keeps the kernel and the page bounded for an embedding table. The colour map's default scale maps the
largest finite magnitude to full red/green with no shift (js/src/widgets/analysis/channel_inspector/paint.ts draws
it).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

FLOAT_LIMIT = 1 << 18  # elements: above this, values travel as uint8 (256 K elements = 1 MiB of float32)
ELEMENT_LIMIT = 1 << 23  # elements sent at most (8 M: 8 MB of uint8)
NON_FINITE = 255  # the uint8 code of NaN and ±Inf; finite values use 0..254


@dataclass(frozen=True)
class TileLayout:
    """``kind`` "tiles": ``n``×``c`` tiles of ``h``×``w``; "strips": ``n`` strips of ``w`` (``c`` = ``h`` = 1)."""

    kind: str
    n: int
    c: int
    h: int
    w: int

    @property
    def tiles(self) -> int:
        return self.n * self.c

    @property
    def tile_size(self) -> int:
        return self.h * self.w


@dataclass(frozen=True)
class Stats:
    """Statistics over the finite values (None when there is none) and the counts of the others."""

    count: int
    minimum: float | None
    maximum: float | None
    mean: float | None
    std: float | None
    nan: int
    inf: int


@dataclass(frozen=True)
class Encoded:
    """The values of ``shown`` tiles as bytes: ``dtype`` "float32" (value = stored) or "uint8" (value = offset +
    code × step, code 255 non-finite)."""

    dtype: str
    data: bytes
    offset: float
    step: float
    shown: int


def layout_of(shape: tuple[int, ...]) -> TileLayout:
    """How a tensor of ``shape`` is shown (a scalar is one strip of one value)."""
    dims = [int(d) for d in shape]
    if len(dims) <= 1:
        return TileLayout("strips", 1, 1, 1, dims[0] if dims else 1)
    if len(dims) == 2:
        return TileLayout("strips", dims[0], 1, 1, dims[1])
    if len(dims) == 3:
        return TileLayout("tiles", 1, dims[0], dims[1], dims[2])
    return TileLayout("tiles", math.prod(dims[:-3]), dims[-3], dims[-2], dims[-1])


def stats_of(values: np.ndarray[Any, Any]) -> Stats:
    """Min/max/mean/std of the finite values, and how many are NaN or infinite (booleans and integers too)."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype == np.bool_ or not np.issubdtype(flat.dtype, np.number):
        flat = flat.astype(np.float64)
    if np.issubdtype(flat.dtype, np.complexfloating):
        flat = np.abs(flat)
    if np.issubdtype(flat.dtype, np.floating):
        nan = int(np.isnan(flat).sum())
        inf = int(np.isinf(flat).sum())
        finite = flat[np.isfinite(flat)] if nan or inf else flat
    else:
        nan = inf = 0
        finite = flat
    if finite.size == 0:
        return Stats(int(flat.size), None, None, None, None, nan, inf)
    wide = finite.astype(np.float64)
    return Stats(int(flat.size), float(wide.min()), float(wide.max()), float(wide.mean()), float(wide.std()), nan, inf)


def default_mapping(stats: Stats) -> tuple[float, float]:
    """(shift, scale) of the colour map before any adjustment: no shift, the largest finite magnitude at full
    colour (scale 1 when every value is 0 or none is finite)."""
    if stats.minimum is None or stats.maximum is None:
        return 0.0, 1.0
    largest = max(abs(stats.minimum), abs(stats.maximum))
    return 0.0, (1.0 / largest) if largest > 0 and math.isfinite(largest) else 1.0


def encode(values: np.ndarray[Any, Any], layout: TileLayout, stats: Stats) -> Encoded:
    """The first whole tiles that fit ``ELEMENT_LIMIT``, as float32 or quantised uint8 (see the module docstring)."""
    shown = max(1, min(layout.tiles, ELEMENT_LIMIT // max(1, layout.tile_size)))
    flat = np.asarray(values).reshape(-1)[: shown * layout.tile_size]
    if np.issubdtype(flat.dtype, np.complexfloating):
        flat = np.abs(flat)
    data = flat.astype(np.float32, copy=False)
    if data.size <= FLOAT_LIMIT:
        return Encoded("float32", np.ascontiguousarray(data).tobytes(), 0.0, 1.0, shown)
    lo = stats.minimum if stats.minimum is not None else 0.0
    hi = stats.maximum if stats.maximum is not None else 0.0
    step = (hi - lo) / (NON_FINITE - 1) if hi > lo else 1.0
    finite = np.isfinite(data)
    codes = np.rint((np.where(finite, data, lo) - lo) / step)
    codes = np.clip(codes, 0, NON_FINITE - 1).astype(np.uint8)
    codes[~finite] = NON_FINITE
    return Encoded("uint8", codes.tobytes(), float(lo), float(step), shown)


def decode(encoded: Encoded) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The values the browser sees (NaN for a non-finite code): what the value readout and the tests read."""
    if encoded.dtype == "float32":
        return np.frombuffer(encoded.data, dtype=np.float32)
    codes = np.frombuffer(encoded.data, dtype=np.uint8)
    values = (encoded.offset + codes.astype(np.float64) * encoded.step).astype(np.float32)
    values[codes == NON_FINITE] = np.nan
    return values


def describe(values: np.ndarray[Any, Any]) -> tuple[dict[str, Any], bytes]:
    """The widget's ``meta`` (layout, encoding, statistics, default mapping, tiles shown of all) and its buffer."""
    array = np.asarray(values)
    layout = layout_of(tuple(array.shape))
    stats = stats_of(array)
    encoded = encode(array, layout, stats)
    shift, scale = default_mapping(stats)
    meta = {
        "shape": [int(d) for d in array.shape],
        "dtype": str(array.dtype),
        "layout": asdict(layout),
        "encoding": {"dtype": encoded.dtype, "offset": encoded.offset, "step": encoded.step},
        "shown": encoded.shown,
        "tiles": layout.tiles,
        "stats": asdict(stats),
        "default_shift": shift,
        "default_scale": scale,
    }
    return meta, encoded.data
