"""The Analysis panel's analysis layers and Parameter Editor (seed 001 §4 and §4.3, issue 37): the palette's
"Analysis" category (Mix, Affine, Noise, Snapshot) inserted into the analysis copy only while analysing, and each
layer's runtime options as sliders (a Mix's blend function as a choice) that rerun the analysis from what reads
them, the Analysis Output following.

Why a widget of its own: the options change the live `Analysis` (frontdoor/analysis_layers.py) and nothing else;
the document stays read-only and never sees a layer, so no document edit is a way in. The canvas (its node menu, the
sidebar palette's Analysis category dropped on a node: canvas_layers.py) adds layers through the same
`Analysis.add_layer`, and their sliders show here. Undo takes the last layer back out.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.activities.analysis.layers import BLENDS, CATEGORY, KINDS, AnalysisLayer
from dld_jupyter.formats.html_text import small
from dld_jupyter.widgets.widget_base import DldVBox

HINT = "Launch Analysis first: analysis layers live in the analysis copy only, never in the model."


class LayerEditor(DldVBox):
    """One panel's analysis layers; `refresh()` after each change of the analysis redraws the Parameter Editor."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.kind = w.Dropdown(options=list(KINDS), value="Mix", description=CATEGORY, layout=w.Layout(width="190px"))
        self.first = w.Combobox(placeholder="value (an input, a node's output)", layout=w.Layout(width="220px"))
        self.second = w.Combobox(placeholder="second value (Mix)", layout=w.Layout(width="220px"))
        self.insert_button = w.Button(description="Insert", icon="plus", layout=w.Layout(width="auto"),
                                      tooltip="Add this analysis layer to the analysis copy (never saved)")
        self.undo_button = w.Button(description="Undo layer", icon="undo", layout=w.Layout(width="auto"),
                                    tooltip="Take the last analysis layer out again")
        for widget, css in ((self.kind, "dld-an-layer-kind"), (self.first, "dld-an-layer-a"),
                            (self.second, "dld-an-layer-b"), (self.insert_button, "dld-an-layer-insert"),
                            (self.undo_button, "dld-an-layer-undo")):
            widget.add_class(css)
        self.insert_button.on_click(lambda _b: self.insert())
        self.undo_button.on_click(lambda _b: self.undo())
        self.kind.observe(lambda _c: self._refresh_form(), names="value")
        self.hint = w.HTML()
        self.parameters = w.VBox()
        self.parameters.add_class("dld-an-parameters")
        super().__init__([
            w.HBox([self.kind, self.first, self.second, self.insert_button, self.undo_button],
                   layout=w.Layout(flex_flow="row wrap")),
            self.hint,
            self.parameters,
        ])
        self.refresh()

    def insert(self) -> str | None:
        """Insert the chosen layer on the typed values; returns its name (None: the panel says why)."""
        analysis = self.panel.analysis
        if analysis is None:
            self.panel.error.value = small(HINT)
            return None
        count = KINDS[self.kind.value][0]
        values = [v.value.strip() for v in (self.first, self.second)[:count]]
        name: str | None = self.panel._quiet(lambda: analysis.add_layer(self.kind.value, *values))
        self.panel.refresh()
        return name

    def undo(self) -> None:
        if self.panel.analysis is not None:
            self.panel._quiet(self.panel.analysis.undo_layer)
            self.panel.refresh()

    def set_option(self, layer: str, option: str, value: Any) -> None:
        """What a slider (or the blend choice) does: the option changes, the analysis reruns, the panel redraws."""
        analysis = self.panel.analysis
        if analysis is not None:
            self.panel.error.value = ""
            self.panel._quiet(lambda: analysis.set_option(layer, option, value))
            self.panel.refresh()

    def refresh(self) -> None:
        analysis = self.panel.analysis
        live = analysis is not None
        self.insert_button.disabled = not live
        self.undo_button.disabled = not (live and analysis.analysis_layers)
        self.hint.value = "" if live else small(HINT)
        if live:  # the values to pick: the inputs and every value computed so far (a dead worker: none)
            names = [*analysis.feeds, *(self.panel._guard(analysis.shapes) or {})]
            self.first.options = self.second.options = tuple(dict.fromkeys(names))
        layers = analysis.analysis_layers if live else []
        shown = [(layer.name, dict(layer.options)) for layer in layers]
        if shown != getattr(self, "_shown", None):
            self._shown = shown
            self.parameters.children = [self._group(layer) for layer in layers]
        self._refresh_form()

    def _refresh_form(self) -> None:
        self.second.layout.display = "" if KINDS[self.kind.value][0] == 2 else "none"

    def _group(self, layer: AnalysisLayer) -> w.Widget:
        """The Parameter Editor's expandable item of one layer: a slider per option."""
        rows: list[w.Widget] = []
        for option, spec in KINDS[layer.kind][1].items():
            slider_kind = w.IntSlider if option == "seed" else w.FloatSlider
            slider = slider_kind(value=layer.options[option], min=spec.low, max=spec.high, step=spec.step,
                                 description=option, continuous_update=False)
            slider.add_class(f"dld-an-option-{option}")
            slider.observe(lambda c, o=option: self.set_option(layer.name, o, c["new"]), names="value")
            rows.append(slider)
        if layer.kind == "Mix":
            blend = w.Dropdown(options=list(BLENDS), value=layer.options["blend"], description="blend")
            blend.add_class("dld-an-option-blend")
            blend.observe(lambda c: self.set_option(layer.name, "blend", c["new"]), names="value")
            rows.append(blend)
        if layer.kind == "Snapshot":
            rows.append(w.HTML(small(f"keeps {layer.inputs[0]} as it was (shown beside the outputs)")))
        box = w.Accordion(children=[w.VBox(rows)], selected_index=0)
        box.set_title(0, f"{layer.name} · {layer.kind}({', '.join(layer.inputs)})")
        box.add_class("dld-an-layer")
        return box
