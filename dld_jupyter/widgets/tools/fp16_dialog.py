"""Convert Model to FP16 (seed 000 "Batch Modifications"): output path or this model, Finish, a spinning wheel with
progress and Cancel, then the status: tensors converted, Cast nodes inserted, values beyond float16's range, the
float16 share of weights, the post-condition's verdict (full checker and onnxruntime load; a result failing it is
refused and the error shown instead), the output comparison, and the expandable log.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from dld_jupyter.document import Document
from dld_jupyter.transforms.fp16 import ConvertModelToFp16, Fp16Result
from dld_jupyter.transforms.progress import CancelToken, Progress
from dld_jupyter.transforms.transform import Plan
from dld_jupyter.widgets.tools.model_dialog import ModelDialog
from dld_jupyter.widgets.tools.status import status_view


class Fp16Dialog(ModelDialog):
    title = "Convert Model to FP16"
    intro = ("Polygraphy (onnxconverter-common) converts float32 initializers and tensors to float16 and inserts"
             " Cast nodes around operators kept in float32; inputs and outputs keep their types.")
    suffix = "fp16"

    def plan(self, doc: Document, path: str | None, progress: Progress, cancel: CancelToken) -> Plan[Any]:
        return ConvertModelToFp16().plan(doc, path=path, compare=self.compare.value, progress=progress,
                                         cancel=cancel)

    def status(self, result: Fp16Result, in_place: bool) -> w.Widget:
        where = "this model (Undo reverts it in one step)" if in_place else str(result.output)
        comparison = result.comparison
        nonfinite = comparison is not None and any(o.went_nonfinite or o.error for o in comparison.outputs)
        verdict = result.verdict
        ok = verdict is not None and verdict.ok and not nonfinite and not (comparison and comparison.error)
        rows = [
            ("Written to", where),
            ("Tensors converted", f"{result.tensors_converted:,}"),
            ("Cast nodes inserted", f"{result.casts_inserted:,}"),
            ("Values beyond float16 range", f"{result.beyond_fp16:,} (largest |value| {result.largest_abs:.6g})"),
            ("Values clamped by the converter", f"{result.clamped:,}"),
            ("float16 share of weights", f"{result.fp16_weight_share:.1%}"),
            ("Valid model", verdict.summary() if verdict is not None else "not verified"),
        ]
        headline = "Converted to FP16" if ok else "Converted to FP16, with problems (see below)"
        return status_view(headline, rows, result.log, comparison, ok)
