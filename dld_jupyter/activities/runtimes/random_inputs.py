"""The one rule for random model inputs, whatever runs them: an ONNX Runtime or TensorRT profile, an analysis,
`dld run`, a divergence.

Why one rule: each runtime once drew its own (floats standard normal in TensorRT, [0, 1) in ONNX Runtime; integers
0..7 in TensorRT, 0/1 elsewhere; one generator across inputs here, one per input there), so a profile, an analysis and
a divergence of one model did not see the same inputs, and a TensorRT run fed token ids its ONNX Runtime twin never
saw. The rule: the input at position `i` (among the inputs that need data, in the model's order) draws from its own
generator seeded `seed + i`, so one input's values never depend on another's shape; floats (and bfloat16) are uniform
in [0, 1), integers 0 or 1 (valid indices for any Gather, a valid mask), booleans fair coin flips.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dld_jupyter.activities.errors import SpecError

Array = np.ndarray[Any, Any]


def random_array(name: str, shape: Sequence[int], dtype: Any, seed: int, otherwise: str) -> Array:
    """Random data of `dtype` and `shape` for input `name`, drawn from a generator seeded `seed` (the input's own:
    `seed + position`); SpecError for a type with no random rule, ending with `otherwise` (what to give instead)."""
    kind = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    dims = [int(d) for d in shape]
    if kind.kind == "f" or kind.name == "bfloat16":
        return rng.random(dims, dtype=np.float32).astype(kind)
    if kind.kind in "iu":
        return rng.integers(0, 2, size=dims).astype(kind)
    if kind.kind == "b":
        return np.asarray(rng.random(dims) < 0.5)
    raise SpecError(f"input {name!r}: cannot generate random data of type {kind}; {otherwise}")


def input_seed(seed: int, position: int) -> int:
    """The seed of the input at `position` among those that need data."""
    return seed + position
