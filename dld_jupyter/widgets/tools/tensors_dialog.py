"""Convert Tensors (seed 000 "Batch Tensor Conversion"): initializers in the top panel (filter by name and data
type), tensor and list attributes of nodes in the bottom panel (filter by node or tensor name and data type),
multi-select in both, one target data type, OK; then progress with the errors met, the tensor editor's
precision-loss and overflow warnings, and the log. The whole conversion is ONE undo step: one Undo (Ctrl+Z)
brings every converted tensor back.

The panels list `transforms.tensor_candidates` rows (tensors that cannot be converted are listed, greyed by a
"(not convertible)" mark, so the user sees why one is missing); the conversion is `ConvertTensors`, executed on
the kernel's main thread like every other edit.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.edits.tensors import element_types
from dld_jupyter.formats.html_text import bold
from dld_jupyter.transforms.progress import CancelToken, Progress
from dld_jupyter.transforms.tensor_candidates import (
    AttributeCandidate,
    InitializerCandidate,
    list_attributes,
    list_initializers,
)
from dld_jupyter.transforms.tensor_conversion import ConversionResult, ConvertTensors
from dld_jupyter.widgets.tools.job import Job, error_html
from dld_jupyter.widgets.tools.status import status_view
from dld_jupyter.widgets.widget_base import DldVBox

ANY = "(any type)"
SEP = "\x1f"  # between node id and attribute name in a bottom-panel key
TARGETS = [t.name.lower() for t in element_types() if t.name not in ("STRING", "COMPLEX64", "COMPLEX128", "BOOL")]


def _shape(shape: list[int]) -> str:
    return "×".join(str(d) for d in shape) or "scalar"


def _mark(convertible: bool) -> str:
    return "" if convertible else "  (not convertible)"


def _init_row(r: InitializerCandidate) -> tuple[str, str]:
    return f"{r.name}   {r.dtype}   {_shape(r.shape)}{_mark(r.convertible)}", r.value_id


def _attr_row(r: AttributeCandidate) -> tuple[str, str]:
    label = f"{r.node_name or r.node_id} ({r.op_type}).{r.attribute}   {r.kind} {r.dtype}   {_shape(r.shape)}"
    return label + _mark(r.convertible), f"{r.node_id}{SEP}{r.attribute}"


class _Panel(DldVBox):
    """One filtered, multi-select list; `selected()` are the selected rows' keys."""

    def __init__(self, title: str, placeholder: str, css: str) -> None:
        self.name = w.Text(placeholder=placeholder, description="Filter", layout=w.Layout(width="320px"),
                           continuous_update=False)
        self.name.add_class(f"{css}-filter")
        self.dtype = w.Dropdown(options=[ANY], value=ANY, description="Type", layout=w.Layout(width="220px"))
        self.dtype.add_class(f"{css}-dtype")
        self.listing = w.SelectMultiple(options=[], rows=8, layout=w.Layout(width="100%"))
        self.listing.add_class(css)
        self.count = w.HTML("")
        self.error = w.HTML("")
        select_all = w.Button(description="Select all", layout=w.Layout(width="auto"))
        select_all.add_class(f"{css}-all")
        select_all.on_click(lambda _b: setattr(self.listing, "value", tuple(v for _l, v in self.listing.options)))
        super().__init__([w.HTML(bold(title)),
                          w.HBox([self.name, self.dtype, select_all, self.count]), self.error, self.listing],
                         layout=w.Layout(width="100%"))

    def set_rows(self, rows: list[tuple[str, str]], dtypes: list[str]) -> None:
        kept = set(self.listing.value)
        current = self.dtype.value
        self.dtype.options = [ANY, *sorted(set(dtypes))]
        self.dtype.value = current if current in self.dtype.options else ANY
        self.listing.options = rows
        self.listing.value = tuple(key for _label, key in rows if key in kept)
        self.count.value = f"<small>{len(rows):,} shown</small>"

    def selected(self) -> list[str]:
        return list(self.listing.value)


class TensorsDialog(DldVBox, css="dld-tool-dialog dld-tensors-dialog"):
    def __init__(self, target: Any, to: str = "float16") -> None:
        self.target = target
        self.result: ConversionResult | None = None
        self.inits = _Panel("Initializers", "name (regular expression)", "dld-tensors-inits")
        self.attrs = _Panel("Node attributes (tensors and lists)", "node, op type or attribute name (regex)",
                            "dld-tensors-attrs")
        for panel in (self.inits, self.attrs):
            panel.name.observe(lambda _c: self.refresh(), names="value")
            panel.dtype.observe(lambda _c: self.refresh(), names="value")
        self.to = w.Dropdown(options=TARGETS, value=to if to in TARGETS else "float16", description="Convert to",
                             layout=w.Layout(width="240px"))
        self.to.add_class("dld-tensors-target")
        self.ok_button = w.Button(description="OK", icon="check", button_style="primary",
                                  layout=w.Layout(width="auto"))
        self.ok_button.add_class("dld-tensors-ok")
        self.ok_button.on_click(lambda _b: self.run())
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        close.on_click(lambda _b: self.close())
        self.job = Job()
        self.status_area = w.VBox([])
        header = w.HTML("<b>Convert Tensors</b> <small>select initializers and attributes, pick one data type;"
                        " one Undo reverts them all</small>")
        super().__init__([header, self.inits, self.attrs, w.HBox([self.to, self.ok_button, close]), self.job,
                          self.job.error, self.status_area],
                         layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"))
        self.refresh()

    @staticmethod
    def _filter(panel: _Panel) -> tuple[str, str | None]:
        return panel.name.value, None if panel.dtype.value == ANY else panel.dtype.value

    def refresh(self) -> None:
        """List both panels again with their filters (after an edit or a filter change)."""
        doc: Document = self.target.document
        try:
            name, dtype = self._filter(self.inits)
            inits = list_initializers(doc, name=name, dtype=dtype)
            self.inits.set_rows([_init_row(r) for r in inits], [r.dtype for r in list_initializers(doc)])
            self.inits.error.value = ""
        except DocumentError as error:
            self.inits.error.value = error_html(str(error))
        try:
            name, dtype = self._filter(self.attrs)
            attrs = list_attributes(doc, name=name, dtype=dtype)
            self.attrs.set_rows([_attr_row(r) for r in attrs], [r.dtype for r in list_attributes(doc)])
            self.attrs.error.value = ""
        except DocumentError as error:
            self.attrs.error.value = error_html(str(error))

    def run(self) -> None:
        initializers = self.inits.selected()
        attributes = [tuple(k.split(SEP, 1)) for k in self.attrs.selected()]
        if not initializers and not attributes:
            self.job.show_error("Convert tensors: select initializers or attributes first.")
            return
        doc: Document = self.target.document
        to = self.to.value
        self.ok_button.disabled = True
        self.status_area.children = []

        def work(progress: Progress, cancel: CancelToken) -> Any:
            progress(0.0, f"converting {len(initializers) + len(attributes):,} tensors to {to}")
            return ConvertTensors().plan(doc, to=to, initializers=initializers, attributes=attributes,
                                         progress=progress, cancel=cancel)

        def finish(plan: Any) -> None:
            self.ok_button.disabled = False
            result: ConversionResult = plan.execute(doc)
            self.result = result
            self.status_area.children = [self._status(result)]
            self.refresh()

        self.job.start("Convert tensors", work, finish, lambda _t: setattr(self.ok_button, "disabled", False))

    @staticmethod
    def _status(result: ConversionResult) -> w.Widget:
        warnings = [f"{o.label}: {warning}" for o in result.outcomes for warning in o.warnings]
        errors = [f"{o.label}: {o.error}" for o in result.errors]
        skipped = [o.label for o in result.outcomes if o.skipped]
        rows = [
            ("Converted", f"{len(result.converted):,} tensors to {result.target} (one undo step)"),
            ("Errors", "; ".join(errors) if errors else "none"),
            ("Warnings", "; ".join(warnings[:8]) + (" …" if len(warnings) > 8 else "") if warnings else "none"),
            ("Skipped (already that type)", ", ".join(skipped) if skipped else "none"),
            ("Valid model", result.verdict.summary() if result.verdict is not None else "not verified"),
        ]
        valid = result.verdict is not None and result.verdict.ok
        ok = not errors and valid
        headline = ("Tensors converted" if ok else f"Tensors converted, {len(errors):,} errors" if errors
                    else "Tensors converted, but the model is not verified (see below)")
        return status_view(headline, rows, result.log, None, ok)

    def wait(self, timeout: float | None = None) -> ConversionResult | None:
        self.job.wait(timeout)
        return self.result
