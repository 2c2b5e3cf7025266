"""The engine must run on a GPU host with only numpy/onnx/onnxruntime/pynvml: no Jupyter, onnx_ir or igraph."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

BLOCKED = [
    "onnx_ir",
    "igraph",
    "jupyterlab",
    "jupyter_server",
    "ipywidgets",
    "anywidget",
    "plotly",
    "IPython",
    "ipykernel",
    "polygraphy",
    "jsonschema",
    "dld_jupyter.document",
    "dld_jupyter.widgets",
    "dld_jupyter.lab",
]

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, json, sys
    BLOCKED = {blocked!r}

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"blocked for this test: {{name}}")
            return None

    sys.meta_path.insert(0, Blocker())
    import dld_jupyter.activities
    from dld_jupyter.activities import OrtProfileSpec
    from dld_jupyter.activities.protocol import Channel
    from dld_jupyter.activities import worker, engine, api, cache  # noqa: F401
    from dld_jupyter.activities.gpu import nvml, clocks  # noqa: F401
    from dld_jupyter.activities.runtimes.onnxruntime import session  # noqa: F401
    from dld_jupyter.activities.kinds import profile as profile_kind  # noqa: F401
    from dld_jupyter.cli import prof, profile  # noqa: F401
    spec = OrtProfileSpec(model={model!r}, iterations=2, warmup=0, threads=1, output={output!r})
    code = worker.run(spec.to_json(), Channel(sys.stdout))  # the whole backend, in this blocked process
    print("EXIT", code)
    print("LOADED", sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED)))
    """
)


def test_activities_run_without_jupyter_onnx_ir_or_igraph(resnet_path: Path, tmp_path: Path) -> None:
    output = tmp_path / "r.json"
    script = SCRIPT.format(blocked=BLOCKED, model=str(resnet_path), output=str(output))
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=root, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "EXIT 0" in done.stdout and "LOADED []" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    assert output.is_file()
