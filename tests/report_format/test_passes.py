"""Spread of measured passes: numbers that match numpy, the median is a real pass, and the stability rule."""

from __future__ import annotations

import numpy as np
import pytest

from dld_jupyter.report_format.passes import median_index, percentile, spread


def test_spread_matches_numpy() -> None:
    rng = np.random.default_rng(5)
    passes = [float(v) for v in rng.uniform(1, 2, 101)]
    s = spread(passes)
    assert s.median_ms == pytest.approx(float(np.median(passes)))
    assert s.p90_ms == pytest.approx(float(np.percentile(passes, 90)))
    assert s.mean_ms == pytest.approx(float(np.mean(passes))) and passes[s.median_index] == s.median_ms
    assert percentile([], 50) == 0.0 and median_index([]) == 0
    assert median_index([3.0, 1.0, 2.0, 4.0]) == 2  # the lower median is a real pass


def test_stability() -> None:
    assert spread([1.0] * 20).stable
    few = spread([1.0, 1.0])
    assert not few.stable and "too few" in few.note
    noisy = spread([1.0] * 8 + [2.0, 2.0])
    assert not noisy.stable and "above the median" in noisy.note
    assert spread([]).stable
