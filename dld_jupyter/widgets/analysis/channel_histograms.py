"""Per-channel histograms for the popped-out Channel Inspector: each tile's value distribution and its statistics.

Why a module apart from channel_tiles.py: the docked inspector never pays for them (a 64-tile map in a 330 px dock
has no room for a histogram each); the pop-out (a main-area tab, large tiles) shows one under each tile. They are
computed here, in the kernel, from the values the inspector was handed (exact, before the uint8 quantisation of
channel_tiles.encode), so the browser receives binned counts, never more values: ``BINS`` counts and five statistics
per tile, for at most ``LIMIT`` tiles (512 channels: 74 KB). A tile's bins span its own finite minimum to maximum, as
``numpy.histogram`` chooses them (a constant tile: ±0.5 around its value); its NaN and ±Inf are counted apart.

The buffer: float32 ``[minimum, maximum, mean, std, non-finite]`` per tile (NaN statistics for a tile with no finite
value), then uint32 counts, ``BINS`` per tile (js/src/widgets/analysis/channel_inspector/histograms.ts reads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dld_jupyter.widgets.analysis.channel_tiles import TileLayout

BINS = 32  # bars per histogram: 5-7 px each under a 168-224 px card
LIMIT = 1024  # tiles with a histogram at most (the first ones; the meta says how many)
STATS = 5  # float32 statistics per tile, before the counts


@dataclass(frozen=True)
class Histograms:
    """``stats``: tiles × 5 float32 (min, max, mean, std, non-finite count); ``counts``: tiles × ``bins`` uint32."""

    stats: np.ndarray[Any, np.dtype[np.float32]]
    counts: np.ndarray[Any, np.dtype[np.uint32]]

    @property
    def tiles(self) -> int:
        return int(self.counts.shape[0])

    @property
    def bins(self) -> int:
        return int(self.counts.shape[1])

    def meta(self) -> dict[str, int]:
        return {"bins": self.bins, "tiles": self.tiles}

    def data(self) -> bytes:
        return self.stats.astype("<f4").tobytes() + self.counts.astype("<u4").tobytes()


def _comparable(flat: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Values numpy.histogram takes: booleans as 0/1, complex numbers by magnitude, the rest as they are."""
    if flat.dtype == np.bool_:
        return flat.astype(np.uint8)
    if np.issubdtype(flat.dtype, np.complexfloating):
        magnitude: np.ndarray[Any, Any] = np.abs(flat)
        return magnitude
    if not np.issubdtype(flat.dtype, np.number):
        return flat.astype(np.float64)
    return flat


def channel_histograms(values: np.ndarray[Any, Any], layout: TileLayout, shown: int, bins: int = BINS) -> Histograms:
    """The histogram and statistics of each of the first ``min(shown, LIMIT)`` tiles of ``values`` laid out as
    ``layout`` (channel_tiles.layout_of): tile ``i`` is the i-th H×W map (n = i // C, c = i % C) or the i-th strip."""
    tiles = max(0, min(shown, LIMIT, layout.tiles))
    size = layout.tile_size
    flat = _comparable(np.asarray(values).reshape(-1)[: tiles * size]).reshape(tiles, size)
    stats = np.full((tiles, STATS), np.nan, dtype=np.float32)
    counts = np.zeros((tiles, bins), dtype=np.uint32)
    floating = np.issubdtype(flat.dtype, np.floating)
    for i in range(tiles):
        row = flat[i]
        finite = row[np.isfinite(row)] if floating else row
        stats[i, 4] = row.size - finite.size
        if finite.size == 0:
            continue
        counts[i], _ = np.histogram(finite, bins=bins)
        wide = finite.astype(np.float64)
        stats[i, :4] = (wide.min(), wide.max(), wide.mean(), wide.std())
    return Histograms(stats, counts)
