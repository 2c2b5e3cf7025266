"""The Channel Inspector (seed 001 §4.5): a node's output or weights as N×C tiles of H×W on a red/green colour map.

Python half of js/src/widgets/analysis/channel_inspector/ (index.ts). State Python knows (synced): the title
(data, drawn as text), the tensor's ``meta`` and its values as one binary buffer (channel_tiles.py decides the
layout, the encoding and the bounds), and the colour map's ``shift`` and ``scale``, which the page's controls and
Reset write back, so ``inspector.shift = 0.5`` in a cell and the page's field are the same value. State Python never
sees: which tiles are painted (only those in view, painted when they scroll in), the pointer and its value readout,
the scroll.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import traitlets

from dld_jupyter.widgets.analysis.channel_tiles import describe
from dld_jupyter.widgets.widget_base import DldWidget


class ChannelInspector(DldWidget, bundle="channel_inspector"):
    """``show(values, title)`` draws a tensor; ``reset()`` restores the default shift and scale; ``clear(text)``."""

    keywords = ("height", "layout")

    title = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("Select a node to inspect its output or its weights.").tag(sync=True)
    meta = traitlets.Dict({}).tag(sync=True)
    data = traitlets.Bytes(b"").tag(sync=True)
    shift = traitlets.Float(0.0).tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    height = traitlets.Unicode("360px").tag(sync=True)

    def __init__(self, values: Any = None, title: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if values is not None:
            self.show(values, title)

    def show(self, values: Any, title: str = "") -> None:
        """Show ``values`` (any array-like) under ``title``, with the colour map reset to its defaults."""
        meta, data = describe(np.asarray(values))
        with self.hold_sync():
            self.meta = meta
            self.data = data
            self.title = title
            self.message = ""
            self.shift = float(meta["default_shift"])
            self.scale = float(meta["default_scale"])

    def reset(self) -> None:
        """The Reset Parameters action: the default shift and scale of the tensor shown."""
        with self.hold_sync():
            self.shift = float(self.meta.get("default_shift", 0.0))
            self.scale = float(self.meta.get("default_scale", 1.0))

    def clear(self, message: str = "") -> None:
        """Show nothing but ``message`` (text, never markup)."""
        with self.hold_sync():
            self.meta = {}
            self.data = b""
            self.title = ""
            self.message = message
