"""The Channel Inspector (seed 001 §4.5): a node's output or weights as N×C tiles of H×W on a red/green colour map.

Python half of js/src/widgets/analysis/channel_inspector/ (index.ts). State Python knows (synced): the title
(data, drawn as text), the tensor's ``meta`` and its values as one binary buffer (channel_tiles.py decides the
layout, the encoding and the bounds), and the colour map's ``shift`` and ``scale``, which the page's controls and
Reset write back, so ``inspector.shift = 0.5`` in a cell and the page's field are the same value. State Python never
sees: which tiles are painted (only those in view, painted when they scroll in), the pointer and its value readout,
the scroll.

Two sizes of one view: the docked inspector (small tiles, a Pop out button when ``on_pop_out`` is set) and the
popped-out one (``detail=True``: large tiles, each with its histogram and statistics, channel_histograms.py, computed
here on every ``show``), which the Analysis panel opens in a main-area tab (inspector_views.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import traitlets

from dld_jupyter.widgets.analysis.channel_histograms import channel_histograms
from dld_jupyter.widgets.analysis.channel_tiles import describe, layout_of
from dld_jupyter.widgets.widget_base import DldWidget


class ChannelInspector(DldWidget, bundle="channel_inspector"):
    """``show(values, title)`` draws a tensor; ``reset()`` restores the default shift and scale; ``clear(text)``."""

    keywords = ("height", "layout", "detail")

    title = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("Select a node to inspect its output or its weights.").tag(sync=True)
    meta = traitlets.Dict({}).tag(sync=True)
    data = traitlets.Bytes(b"").tag(sync=True)
    shift = traitlets.Float(0.0).tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    height = traitlets.Unicode("360px").tag(sync=True)
    detail = traitlets.Bool(False).tag(sync=True)  # large tiles, a histogram each (the pop-out; binned at each show)
    histograms = traitlets.Dict({}).tag(sync=True)  # {bins, tiles} of histogram_data (detail only)
    histogram_data = traitlets.Bytes(b"").tag(sync=True)
    poppable = traitlets.Bool(False).tag(sync=True)  # the page shows Pop out (on_pop_out is set)

    def __init__(self, values: Any = None, title: str = "",
                 on_pop_out: Callable[[], object] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_pop_out: Callable[[], object] | None = None
        self.on_pop_out = on_pop_out
        self.on_msg(self._on_msg)
        if values is not None:
            self.show(values, title)

    @property
    def on_pop_out(self) -> Callable[[], object] | None:
        """What the page's Pop out button calls (None: the page shows no button)."""
        return self._on_pop_out

    @on_pop_out.setter
    def on_pop_out(self, action: Callable[[], object] | None) -> None:
        self._on_pop_out = action
        self.poppable = action is not None

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "pop_out" and self.on_pop_out is not None:
            self.on_pop_out()

    def show(self, values: Any, title: str = "") -> None:
        """Show ``values`` (any array-like) under ``title``, with the colour map reset to its defaults."""
        array = np.asarray(values)
        meta, data = describe(array)
        found = channel_histograms(array, layout_of(tuple(array.shape)), int(meta["shown"])) if self.detail else None
        with self.hold_sync():
            self.meta = meta
            self.data = data
            self.histograms = found.meta() if found is not None else {}
            self.histogram_data = found.data() if found is not None else b""
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
            self.histograms = {}
            self.histogram_data = b""
            self.title = ""
            self.message = message
