"""Which physical GPU a CUDA device index names: the one mapping between CUDA's numbering and NVML's.

CUDA (and so ONNX Runtime's `device_id`, TensorRT, a spec's `device`) numbers only the GPUs `CUDA_VISIBLE_DEVICES`
lists, in its order; an entry is an index or a GPU UUID (or a prefix of one), and CUDA stops at the first entry it
cannot resolve. NVML numbers every GPU of the host. Metrics, clock locking and device facts go through NVML, so they
need this mapping or they read (and lock) another GPU on hosts that set the variable (dask-cuda workers, shared
servers). A worker that narrows the variable to its one GPU (TensorRT's) records the listing it narrowed
(`narrow`), so that the spec's CUDA index still maps to the same GPU afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from dld_jupyter.activities.errors import UnavailableError

VARIABLE = "CUDA_VISIBLE_DEVICES"
_narrowed: list[str | None] = []  # the listing before `narrow` changed it, once it did


def listing() -> str | None:
    """`CUDA_VISIBLE_DEVICES` as this process started with it (before a `narrow`); None when unset."""
    return _narrowed[0] if _narrowed else os.environ.get(VARIABLE)


def cuda_order(visible: str | None, uuids: Sequence[str]) -> list[int]:
    """The NVML indices of the GPUs CUDA sees, in CUDA order (`uuids`: every GPU's UUID in NVML order)."""
    if visible is None:
        return list(range(len(uuids)))
    order: list[int] = []
    for item in (part.strip() for part in visible.split(",")):
        if not item:
            continue
        if item.isdigit():
            index = int(item) if int(item) < len(uuids) else None
        else:
            index = next((i for i, uuid in enumerate(uuids) if uuid.startswith(item)), None)
        if index is None or index in order:
            break  # CUDA stops at the first entry it cannot resolve (a repeated one included)
        order.append(index)
    return order


def missing(cuda_index: int, visible: str | None, order: Sequence[int], host_gpus: int) -> str:
    """What to tell a user who asked for a GPU the process cannot see: how many there are and which."""
    seen = ", ".join(str(i) for i in range(len(order))) or "none"
    plural = "" if len(order) == 1 else "s"
    if visible is None:
        return (f"GPU {cuda_index} requested, this host has {len(order)} GPU{plural} ({seen}); "
                f"choose a device below {len(order)}" if order else f"GPU {cuda_index} requested, this host has no GPU")
    physical = ", ".join(f"{i}: NVML GPU {n}" for i, n in enumerate(order))
    return (
        f"GPU {cuda_index} requested, {VARIABLE}={visible!r} makes {len(order)} of this host's {host_gpus} GPUs "
        f"visible ({physical or 'none'}); choose a device below {len(order)} or change {VARIABLE}"
    )


def nvml_index(cuda_index: int, visible: str | None, uuids: Sequence[str]) -> int:
    """The NVML index of CUDA device `cuda_index`; UnavailableError (`missing`) when the process cannot see it."""
    order = cuda_order(visible, uuids)
    if not 0 <= cuda_index < len(order):
        raise UnavailableError(missing(cuda_index, visible, order, len(uuids)))
    return order[cuda_index]


def narrow(cuda_index: int) -> None:
    """Leave CUDA device `cuda_index` the only visible one (before CUDA starts), remembering the listing it had."""
    visible = listing()
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible is not None else None
    if ids is not None and cuda_index >= len(ids):
        raise UnavailableError(
            f"GPU {cuda_index} requested, {VARIABLE}={visible!r} lists {len(ids)}; choose a device below {len(ids)}"
        )
    if not _narrowed:
        _narrowed.append(visible)
    os.environ[VARIABLE] = ids[cuda_index] if ids is not None else str(cuda_index)
