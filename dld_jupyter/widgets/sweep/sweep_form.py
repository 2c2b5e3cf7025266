"""The Sweep form, plugged into the one run panel (widgets/runs/panel.py): the grid builder (models, batch sizes,
providers, precisions, iterations, folder, executor), the panel's target chooser, the bar, Cancel and the log. The
results (the live table, the labelled Pareto chart, a comparison of chosen points: widgets/sweep/sweep_results.py)
open where they have the page's width: in a JupyterLab tab beside the designer or the Start Activity tab, below the
designer in a notebook, else below this form.

Executor "dask" shows where the points go (issue 42: a designer tab has no console to make a `distributed.Client`):
the Scheduler field (a scheduler's address, tcp://host:8786 or a scheduler file; empty: the kernel's own client)
or "Start a local cluster" (`executor="dask-local"`: a LocalCluster in the kernel, stopped when the sweep ends or
the kernel exits). An address where no scheduler answers is said in the panel at once.

A sweep is a run made of runs (`activities.group.RunGroup`): the form's `launch()` starts it (`activities.sweep`)
and the panel follows it as it follows one run: its Run, Cancel and wait, the bar (the share of points that have
ended), the log (a line per point as it ends). Errors are shown in the panel, never raised into the notebook.

    from dld_jupyter.widgets.sweep.sweep_form import sweep_form
    sweep_form("model.onnx", batch="1,8")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.model_ref import ModelRef
from dld_jupyter.activities.result import ActivityResult
from dld_jupyter.activities.sweep import Sweep, start_sweep
from dld_jupyter.activities.sweep.local_cluster import LOCAL_CLUSTER
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.formats.html_text import fill, text
from dld_jupyter.frontdoor.run_source import RunInput
from dld_jupyter.widgets.runs.panel import RunPanel
from dld_jupyter.widgets.sweep.sweep_results import SweepResults
from dld_jupyter.widgets.sweep.sweep_view import SweepView

TITLE = "<b>Sweep</b> <small>{}</small>"


def _numbers(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError as error:
        raise ValueError(f"batch sizes: {text!r} is not a comma-separated list of integers (1,8,32)") from error


class SweepPanel(RunPanel):
    """See the module docstring."""

    what = "Sweep"

    def __init__(self, source: RunInput, batch: str = "1,8", provider: tuple[str, ...] = ("cpu",),
                 precision: str = "fp32", iterations: int = 20, out: str = "", executor: str = "local",
                 scheduler: str = "", local_cluster: bool = False) -> None:
        model = ModelRef.of(source).user_file or ""  # a sweep runs model files: a new model has none yet
        wide = w.Layout(width="auto", min_width="260px")
        self.models = w.Textarea(value=model, description="Models", placeholder="one .onnx path per line", layout=wide)
        self.batch = w.Text(value=batch, description="Batch sizes", layout=wide)
        self.provider = w.SelectMultiple(options=["cpu", "cuda", "tensorrt"], value=provider, description="Providers",
                                         rows=3)
        self.precision = w.Text(value=precision, description="Precisions", layout=wide)
        self.iterations = w.BoundedIntText(value=iterations, min=1, max=100000, description="Iterations")
        self.out = w.Text(value=out or str(Path(model).with_name(Path(model).stem + "-sweep")), description="Folder",
                          layout=wide)
        if executor == LOCAL_CLUSTER:  # the executor names sweep() takes, as the form shows them
            executor, local_cluster = "dask", True
        elif executor.startswith("dask://"):
            executor, scheduler = "dask", executor.removeprefix("dask://")
        self.executor = w.Dropdown(options=["local", "dask"], value=executor, description="Executor",
                                   tooltip="local: this machine's threads; dask: a Dask cluster's workers")
        self.scheduler = w.Text(value=scheduler, description="Scheduler", layout=wide,
                                placeholder="tcp://host:8786 or scheduler.json (empty: this kernel's Dask client)")
        self.local_cluster = w.Checkbox(value=local_cluster, description="Start a local cluster", indent=False,
                                        tooltip="A Dask LocalCluster in this kernel, stopped when the sweep ends or "
                                        "the kernel exits")
        self.dask_box = w.HBox([self.scheduler, self.local_cluster])
        self.dask_box.add_class("dld-sweep-dask")
        self.executor.observe(lambda _change: self._show_dask(), "value")
        self.local_cluster.observe(lambda _change: self._show_dask(), "value")
        self._show_dask()
        self.results_area = w.VBox([], layout=w.Layout(width="100%"))  # the results when no tab or designer shows them
        self.results: SweepResults | None = None
        self.results_shown = ""  # where the last results went: "tab", "below" (the designer) or "here"
        self.view: SweepView | None = None
        form = [self.models, self.batch, self.provider, self.precision, self.iterations, self.out, self.executor,
                self.dask_box]
        super().__init__(source, w.HTML(fill(TITLE, model)), form, "Sweep", "th", below=[self.results_area])
        self.add_class("dld-sweep-panel")

    @property
    def sweep(self) -> Sweep | None:
        """The sweep the panel runs or ran last."""
        return self.handle if isinstance(self.handle, Sweep) else None

    def _show_dask(self) -> None:
        self.dask_box.layout.display = "" if self.executor.value == "dask" else "none"
        self.scheduler.disabled = self.local_cluster.value or self.local_cluster.disabled

    def executor_name(self) -> str | None:
        """The executor the form names (`activities.sweep.executors`): None (threads here), "dask-local", "dask" (the
        kernel's client) or "dask://ADDRESS"."""
        if self.executor.value != "dask":
            return None
        if self.local_cluster.value:
            return LOCAL_CLUSTER
        address = self.scheduler.value.strip().removeprefix("dask://")
        return f"dask://{address}" if address else "dask"

    def disable_form(self, running: bool) -> None:
        for field in (self.models, self.batch, self.provider, self.precision, self.iterations, self.out,
                      self.executor, self.local_cluster):
            field.disabled = running
        self._show_dask()

    def launch(self, target: Target) -> Sweep:
        models = [line.strip() for line in self.models.value.splitlines() if line.strip()]
        precisions = [p.strip() for p in self.precision.value.split(",") if p.strip()]
        executor = self.executor_name()
        if executor == LOCAL_CLUSTER:
            self.phase.value = "starting a local Dask cluster…"
        elif executor is not None and executor != "dask":
            self.phase.value = text(f"connecting to the Dask scheduler at {executor.removeprefix('dask://')}…")
        try:
            sweep = self._start(models, precisions, executor, target)
        finally:
            self.phase.value = ""
        self.view = SweepView(sweep.manifest, sweep)
        self.results = SweepResults(self.view)
        self.results_shown = self._show(self.results)
        return sweep

    def _start(self, models: list[str], precisions: list[str], executor: str | None, target: Target) -> Sweep:
        return start_sweep(models, _numbers(self.batch.value), list(self.provider.value), precisions,
                           [target.name], out=self.out.value or None, executor=executor,
                           iterations=int(self.iterations.value), on_progress=self._on_progress,
                           on_log=self._on_log)

    def _show(self, results: SweepResults) -> str:
        """The results in a tab of their own (a Start Activity tab's, a designer tab's), else below the designer,
        else below this form."""
        opener = self.results_tab
        if opener is not None and opener(results.tab()):
            return "tab"
        if self.origin is not None:
            return self.origin.show_results(results.tab())
        self.results_area.children = [results]
        return "here"

    def skip(self, result: ActivityResult) -> list[str]:
        return list(result.artifacts)  # the reports are in the results' table: their Compare opens them

    def ended_text(self, result: ActivityResult) -> str:
        sweep = self.sweep
        counts = sweep.manifest.counts() if sweep is not None else {}
        return ", ".join(f"{n} {state}" for state, n in counts.items() if n)

    def compare(self) -> Any:
        """The points chosen in the results' list in the report comparison, shown in the results (None if not)."""
        return self.results.compare() if self.results is not None else None


def sweep_form(model: RunInput, run: bool = False, **fields: Any) -> SweepPanel:
    """The Sweep form for a model path or Designer, pre-filled with `fields`; `run=True` starts it."""
    panel = SweepPanel(model, **fields)
    if run:
        panel.run()
    return panel
