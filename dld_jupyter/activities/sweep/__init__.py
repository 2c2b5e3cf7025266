"""Sweeps: a grid of models × batch sizes × providers × precisions × targets, each point a normal profile run with
its own report, a manifest beside them, on local devices or any `concurrent.futures.Executor` (Dask first)."""

from dld_jupyter.activities.sweep.grid import Settings, SweepPoint
from dld_jupyter.activities.sweep.manifest import Manifest, PointState, load_manifest
from dld_jupyter.activities.sweep.sweep import Sweep, resume_sweep, start_sweep

__all__ = ["Manifest", "PointState", "Settings", "Sweep", "SweepPoint", "load_manifest", "resume_sweep", "start_sweep"]
