"""Profile Layer Timings for the Network Overview (seed 001 §4.4: "each layer will display its most recent inference
time"): one short ONNX Runtime profile of the analysed model on the analysis's own inputs, its layer times mapped
onto nodes the way the heat overlay maps them (reports/heat.py: a fused layer's time on each of its nodes).

Why a profile and not the analysis worker's clock: the debugger runs prefixes of the model (a session per stop
window), so its wall times are not the layers' times; the profile activity measures the whole model with ORT's
own per-node profiler, in its worker, and its report is what the heat and the report viewer already read.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from onnx import numpy_helper

from dld_jupyter.activities.api import profile
from dld_jupyter.activities.run import Run
from dld_jupyter.document import Document
from dld_jupyter.reports.heat import heat_of

PASSES = 5  # measured passes: the median of a few is steady enough for a glyph's line


def write_feeds(feeds: Mapping[str, np.ndarray[Any, Any]], folder: Path) -> None:
    """The analysis's inputs as the profile's input folder (one TensorProto `<name>.pb` per input)."""
    for name, array in feeds.items():
        safe = "".join(c if c.isalnum() or c in "_.-" else "_" for c in name)
        (folder / f"{safe}.pb").write_bytes(numpy_helper.from_array(np.asarray(array), name).SerializeToString())


def layer_times(
    document: Document, feeds: Mapping[str, np.ndarray[Any, Any]], provider: str = "cpu", within: Run | None = None
) -> dict[str, float]:
    """Node id → its latest median time in ms (nodes the runtime fused away or removed are left out); `within`: the
    analysis's run, whose GPU the profile may use while the analysis holds it."""
    with tempfile.TemporaryDirectory(prefix="dld-timings-") as folder:
        root = Path(folder)
        write_feeds(feeds, root)
        report = profile(
            document,
            provider=provider,
            iterations=PASSES,
            warmup=1,
            input_folder=folder,
            output=str(root / "timings.dld-report.json"),
            within=within,
        )
    heat = heat_of(report)
    times = {}
    for node in document.model.graph:
        value = heat.node_value(node.name) if node.name else None
        if value is not None:
            times[document.node_id(node)] = value
    return times


def time_text(ms: float) -> str:
    return f"{ms * 1000:.0f} µs" if ms < 1 else f"{ms:.2f} ms"
