"""Spread of measured passes: min/median/p90/max/mean, the median pass, and whether the passes can be trusted.

Used through `builder` by every backend and importer, so every report judges stability the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# A p90 more than this far above the median means a tenth of the passes were noticeably slower than typical:
# the median is then a weak summary (seed 003: check the spread before trusting a number).
UNSTABLE_P90_RATIO = 1.10


@dataclass(frozen=True)
class Spread:
    min_ms: float
    median_ms: float
    p90_ms: float
    max_ms: float
    mean_ms: float
    median_index: int  # position in the passes of the pass whose time is the median
    stable: bool
    note: str
    median_ci: tuple[float, float] | None = None  # 95 % confidence interval of the median (None: too few passes)


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method), q in [0, 100]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


CONFIDENCE = 0.95
MIN_PASSES_FOR_INTERVAL = 6  # below that no pair of order statistics covers the median with 95 % confidence


def median_interval(values: list[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """Distribution-free confidence interval of the median from order statistics: the narrowest symmetric pair
    (x_(j), x_(n+1-j)) with P(x_(j) <= median <= x_(n+1-j)) >= `confidence` (the binomial(n, 1/2) tail; exact up
    to 1,000 values, the normal approximation beyond). None when there are too few values for any such pair."""
    n = len(values)
    if n < MIN_PASSES_FOR_INTERVAL:
        return None
    ordered = sorted(values)
    alpha = 1.0 - confidence
    if n <= 1000:
        # Largest j with P(B <= j - 1) <= alpha / 2, B ~ binomial(n, 1/2): then both tails together stay <= alpha.
        cumulative, j = 0.0, 0
        while True:
            cumulative += math.comb(n, j) / 2.0**n
            if cumulative > alpha / 2:
                break
            j += 1
        low = max(j, 1)
    else:
        low = max(1, math.floor(n / 2 - 1.959964 * math.sqrt(n) / 2))
    return ordered[low - 1], ordered[n - low]


def intervals_overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool | None:
    """Whether two medians are within noise of each other (their intervals overlap); None when either is unknown."""
    if a is None or b is None:
        return None
    return a[0] <= b[1] and b[0] <= a[1]


def median_index(passes_ms: list[float]) -> int:
    """Index of the pass whose time is the (lower) median: a real pass, so its layers can be reported."""
    if not passes_ms:
        return 0
    order = sorted(range(len(passes_ms)), key=lambda i: (passes_ms[i], i))
    return order[(len(order) - 1) // 2]


def spread(passes_ms: list[float]) -> Spread:
    """Summary numbers of `passes_ms` (all zero and stable for no passes)."""
    if not passes_ms:
        return Spread(0.0, 0.0, 0.0, 0.0, 0.0, 0, True, "")
    index = median_index(passes_ms)
    median = passes_ms[index]
    p90 = percentile(passes_ms, 90)
    stable, note = True, ""
    if len(passes_ms) < 3:
        stable, note = False, f"only {len(passes_ms)} measured pass(es): too few to judge the spread"
    elif median > 0 and p90 > median * UNSTABLE_P90_RATIO:
        stable = False
        note = (
            f"p90 {p90:.3f} ms is {100 * (p90 / median - 1):.0f}% above the median {median:.3f} ms "
            f"(limit {100 * (UNSTABLE_P90_RATIO - 1):.0f}%)"
        )
    mean = sum(passes_ms) / len(passes_ms)
    return Spread(min(passes_ms), median, p90, max(passes_ms), mean, index, stable, note, median_interval(passes_ms))
