"""Layer baselines of the report viewer (seed 001 "Inference Report"), the Python side of Add / Clear Baseline.

Why a module of its own: the viewer's front end keeps the list (js/src/widgets/report/baselines.ts), and a notebook
user sets or reads the same list: `viewer.add_baseline("/layer1/Conv")`, `viewer.layer_baselines`,
`viewer.clear_baselines()`. Each baseline layer gets a colour (reports/bars_svg.py BASELINE_COLOURS, in the order
the charts and the HTML page use).
"""

from __future__ import annotations

import traitlets

from dld_jupyter.report_format.model import Report


class LayerBaselines(traitlets.HasTraits):
    """The synced list of baseline layer positions of the viewer's main report (positions in `report.layers`)."""

    layer_baselines = traitlets.List(traitlets.Int()).tag(sync=True)
    reports: list[Report]
    selection: list[int]

    def add_baseline(self, layer: int | str | None = None) -> list[int]:
        """Make `layer` (a position, or a layer name) a baseline; None: the selected layers. Returns the list."""
        if not self.reports:
            raise ValueError("add baseline: this viewer shows no report")
        layers = self.reports[0].layers
        if layer is None:
            wanted = list(self.selection)
            if not wanted:
                raise ValueError("add baseline: select a layer in the table first, or name one")
        elif isinstance(layer, str):
            found = [i for i, x in enumerate(layers) if x.name == layer]
            if not found:
                raise ValueError(f"add baseline: no layer named {layer!r} in this report")
            wanted = found[:1]
        else:
            if not 0 <= layer < len(layers):
                raise ValueError(f"add baseline: layer {layer} is not one of the {len(layers)} layers (0-based)")
            wanted = [layer]
        self.layer_baselines = [*self.layer_baselines, *(p for p in wanted if p not in self.layer_baselines)]
        return list(self.layer_baselines)

    def clear_baselines(self) -> None:
        """Remove every layer baseline (Clear Baseline)."""
        self.layer_baselines = []
