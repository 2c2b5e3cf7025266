"""The Analysis Output (seed 001 §4.5): the model's outputs as a person reads them (output_kinds.py decides how).

Python half of js/src/widgets/analysis/output_view.ts. Synced state: ``outputs`` (one entry per output: name, shape,
dtype, kind and what that kind shows: top-k rows, statistics and histogram, or image sizes with their ``offset`` in
``pixels``), ``pixels`` (the RGBA bytes of every image output, one binary trait) and ``message`` (a line such as
"stopped at conv1 (Conv), node 3 of 52"). Names are data: the page draws them as text. Nothing is page-only but
the scroll.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import traitlets

from dld_jupyter.widgets.analysis.output_kinds import read_output
from dld_jupyter.widgets.widget_base import DldWidget


class AnalysisOutput(DldWidget, bundle="output_view"):
    """``show({name: array}, message)`` renders the outputs; ``clear(message)`` shows only the message."""

    keywords = ("layout",)

    outputs: traitlets.List[dict[str, object]] = traitlets.List([]).tag(sync=True)
    pixels = traitlets.Bytes(b"").tag(sync=True)
    message = traitlets.Unicode("No analysis output yet: run the analysis.").tag(sync=True)

    def __init__(self, outputs: Mapping[str, Any] | None = None, message: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if outputs is not None:
            self.show(outputs, message)

    def show(self, outputs: Mapping[str, Any], message: str = "") -> None:
        entries, chunks, offset = [], [], 0
        for name, values in outputs.items():
            entry, pixels = read_output(str(name), values)
            if pixels:
                entry["offset"] = offset
                chunks.append(pixels)
                offset += len(pixels)
            entries.append(entry)
        with self.hold_sync():
            self.pixels = b"".join(chunks)
            self.outputs = entries
            self.message = message

    def clear(self, message: str = "") -> None:
        with self.hold_sync():
            self.outputs = []
            self.pixels = b""
            self.message = message
