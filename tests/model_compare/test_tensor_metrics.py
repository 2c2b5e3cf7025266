"""Tensor metrics: the relative error where the reference is zero is measured against the tensor's scale."""

from __future__ import annotations

import numpy as np
import pytest

from dld_jupyter.model_compare.tensor_metrics import measure


def test_max_rel_where_the_reference_is_zero_uses_the_tensors_scale() -> None:
    """A ReLU output (zeros beside values near 1) off by 1e-3 at a zero printed max_rel ~1e35 (divided by
    float32's smallest normal); against a millionth of the tensor's scale it is 1e3."""
    reference = np.array([0.0, 0.5, 1.0, 0.0], dtype=np.float32)
    candidate = np.array([1e-3, 0.5, 1.0, 0.0], dtype=np.float32)
    metrics = measure(reference, candidate)
    assert metrics.max_rel == pytest.approx(1e3, rel=1e-3)
    assert metrics.max_abs == pytest.approx(1e-3, rel=1e-3)


def test_max_rel_elsewhere_is_the_plain_relative_error() -> None:
    reference = np.array([2.0, -4.0, 8.0], dtype=np.float32)
    candidate = np.array([2.2, -4.0, 8.0], dtype=np.float32)
    assert measure(reference, candidate).max_rel == pytest.approx(0.1, rel=1e-5)


def test_all_zero_tensors_and_an_all_zero_reference() -> None:
    zeros = np.zeros(5, dtype=np.float32)
    assert measure(zeros, zeros).max_rel == 0.0
    off = measure(zeros, np.array([0, 0, 0, 0, 2e-3], dtype=np.float32))
    assert off.max_rel == pytest.approx(1e6) and off.max_abs == pytest.approx(2e-3)
