"""Real profiling reports for UI tests: the real MobileNetV3 export profiled with ONNX Runtime on the CPU, once with
graph optimizations on and once off (a real, meaningful comparison), written into the JupyterLab root."""

from __future__ import annotations

import shutil
from pathlib import Path

from dld_jupyter.activities.api import profile

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MODEL = "mobilenet_v3_small_w05.onnx"


def mobilenet_reports(root: Path) -> tuple[Path, Path]:
    """(optimized report, unoptimized report) beside a copy of the model in `root`; made once per root."""
    model = root / MODEL
    if not model.exists():
        shutil.copyfile(REAL / MODEL, model)
    paths = (root / "mobilenet_opt.dld-report.json", root / "mobilenet_noopt.dld-report.json")
    for path, optimize in zip(paths, (True, False), strict=True):
        if not path.exists():
            profile(str(model), iterations=5, warmup=1, threads=1, optimize=optimize, output=str(path))
    return paths
