"""The Sweep form, plugged into the one run panel (widgets/runs/panel.py): the grid builder (models, batch sizes,
providers, precisions, iterations, folder, executor), the panel's target chooser, progress per point in the live
table below, Cancel, then the results: the Pareto chart and a comparison of the points chosen in the list.

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
from dld_jupyter.activities.sweep.manifest import DONE
from dld_jupyter.activities.targets.base import Target
from dld_jupyter.formats.html_text import fill
from dld_jupyter.frontdoor.run_source import RunInput
from dld_jupyter.widgets.runs.panel import RunPanel
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
        self.table = w.HTML("")
        self.chosen = w.SelectMultiple(options=[], description="Points", rows=4, layout=wide)
        self.compare_button = w.Button(description="Compare", icon="columns", disabled=True,
                                       tooltip="The chosen points' reports side by side")
        self.pareto_button = w.Button(description="Pareto chart", icon="line-chart", disabled=True)
        self.compare_button.on_click(lambda _b: self.compare())
        self.pareto_button.on_click(lambda _b: self.pareto())
        self.view: SweepView | None = None
        form = [self.models, self.batch, self.provider, self.precision, self.iterations, self.out, self.executor,
                self.dask_box]
        results = w.HBox([self.chosen, w.VBox([self.compare_button, self.pareto_button])])
        super().__init__(source, w.HTML(fill(TITLE, model)), form, "Sweep", "th", below=[self.table, results])
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
            self.phase.value = f"connecting to the Dask scheduler at {executor.removeprefix('dask://')}…"
        try:
            sweep = self._start(models, precisions, executor, target)
        finally:
            self.phase.value = ""
        self.view = SweepView(sweep.manifest, sweep)
        sweep.on_change(self._changed)
        self._changed(sweep)
        return sweep

    def _start(self, models: list[str], precisions: list[str], executor: str | None, target: Target) -> Sweep:
        return start_sweep(models, _numbers(self.batch.value), list(self.provider.value), precisions,
                           [target.name], out=self.out.value or None, executor=executor,
                           iterations=int(self.iterations.value), on_progress=self._on_progress,
                           on_log=self._on_log)

    def skip(self, result: ActivityResult) -> list[str]:
        return list(result.artifacts)  # the reports are in the table below: Compare and Pareto chart open them

    def ended_text(self, result: ActivityResult) -> str:
        sweep = self.sweep
        counts = sweep.manifest.counts() if sweep is not None else {}
        return ", ".join(f"{n} {state}" for state, n in counts.items() if n)

    def _changed(self, sweep: Sweep) -> None:
        points = sweep.points()
        assert self.view is not None
        self.table.value = self.view._repr_html_()
        self.chosen.options = [p.point.id for p in points if p.state == DONE]
        self.compare_button.disabled = self.pareto_button.disabled = not self.chosen.options

    def compare(self) -> Any:
        """The chosen points' reports in the comparison view, shown below the form."""
        if self.view is None:
            return None
        try:
            viewer = self.view.compare(*self.chosen.value)
        except ValueError as error:
            self.show_error(str(error))
            return None
        self.show_error("")
        self.artifacts_area.children = [viewer]
        return viewer

    def pareto(self) -> Any:
        """The latency-vs-throughput chart, shown below the form."""
        if self.view is None:
            return None
        import plotly.graph_objects as go

        figure = go.FigureWidget(self.view.pareto_figure())
        self.artifacts_area.children = [figure]
        return figure


def sweep_form(model: RunInput, run: bool = False, **fields: Any) -> SweepPanel:
    """The Sweep form for a model path or Designer, pre-filled with `fields`; `run=True` starts it."""
    panel = SweepPanel(model, **fields)
    if run:
        panel.run()
    return panel
