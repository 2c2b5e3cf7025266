"""Model checks in a child process, for big models.

onnx's checker and shape inference are C++ calls that hold the GIL: on a 7k-node model they stopped the kernel for
~0.1 s, and the Python parts of the check shared the GIL with every edit for ~0.4 s more. In a child process a
check costs the kernel only the weightless skeleton (built here) and the wait; a crash inside onnx's C++ code
(malformed models can segfault it) ends the child, not the kernel; cancel kills it.

The child rebuilds the model from the skeleton with the real node names and checks it with the same code
(`check_model`); diagnostics come back bound to node indexes and are mapped to the caller's ids here. Differences
from an in-process check: weights too large for the skeleton are graph inputs there, and Constant nodes holding
such weights are not checked themselves; their data sizes are checked here, in the parent (data_size.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import onnx_ir as ir

from dld_jupyter.document.checks.checks import CheckResult, check_model
from dld_jupyter.document.checks.data_size import data_size_diagnostics
from dld_jupyter.document.checks.diagnostics import Diagnostic
from dld_jupyter.document.checks.skeleton import TOKEN_RE, Skeleton
from dld_jupyter.document.files.io import GENERATED_NAMES_KEY
from dld_jupyter.formats.node_names import Generated

# From this many nodes a background check runs in a child process (its start-up, ~1 s, is worth it).
PROCESS_MIN_NODES = int(os.environ.get("DLD_CHECK_PROCESS_MIN_NODES", "2000"))


class CheckProcess:
    """One check of `model` in a child process; `result()` waits for it, `kill()` stops it."""

    def __init__(self, model: ir.Model, ids: Callable[[ir.Node], str | None]) -> None:
        skeleton = Skeleton(model)
        self._ids = [ids(node) for node in skeleton.nodes]
        self._sizes = data_size_diagnostics(model, ids)  # the skeleton has no weights to check: done here
        self._dir = tempfile.TemporaryDirectory(prefix="dld-check-")
        folder = Path(self._dir.name)
        (folder / "skeleton.onnx").write_bytes(skeleton.proto.SerializeToString())
        generated = model.meta.get(GENERATED_NAMES_KEY)  # what opening named, said by the check (checks.py)
        names = {"nodes": [node.name or "" for node in skeleton.nodes], "inner": skeleton.inner_names,
                 "generated": generated.names if generated is not None else []}
        (folder / "names.json").write_text(json.dumps(names))
        command = [sys.executable, "-m", "dld_jupyter.document.checks.check_process", str(folder)]
        if shutil.which("nice"):  # a background check must not take CPU from the browser and the kernel
            command = ["nice", "-n", "10", *command]
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    def kill(self) -> None:
        if self._process.poll() is None:
            self._process.kill()

    def result(self) -> CheckResult:
        try:
            out, err = self._process.communicate()
        finally:
            self._dir.cleanup()
        if self._process.returncode != 0:
            why = f"signal {-self._process.returncode}" if self._process.returncode < 0 else err.strip()[-400:]
            message = f"The check process failed ({why}); the model is unchanged."
            return CheckResult([Diagnostic("error", message, None, "Run Check again, or Lint.", "checker")], {})
        found = json.loads(out)
        diagnostics = [
            Diagnostic(d["severity"], d["message"], self._node_id(d["node"]), d["fix_hint"], d["source"])
            for d in found["diagnostics"]
        ]
        seen = {(d.message, d.node_id) for d in diagnostics}
        diagnostics[:0] = [d for d in self._sizes if (d.message, d.node_id) not in seen]
        inferred = {name: (info[0], info[1]) for name, info in found["inferred"].items()}
        return CheckResult(diagnostics, inferred)

    def _node_id(self, index: str | None) -> str | None:
        if index is None or not index.isdigit() or int(index) >= len(self._ids):
            return index
        return self._ids[int(index)]


def _child(folder: Path) -> None:
    model = ir.load(folder / "skeleton.onnx")
    names = json.loads((folder / "names.json").read_text())
    index: dict[ir.Node, str] = {}
    for node in ir.traversal.RecursiveGraphIterator(model.graph):
        match = TOKEN_RE.fullmatch(node.name or "")
        if match is None:
            continue
        if match.group(2) is None:  # a node of the main graph: its index in the caller's graph
            index[node] = match.group(1)
            node.name = names["nodes"][int(match.group(1))]
        else:
            node.name = names["inner"].get(node.name, node.name)
    if names["generated"]:
        model.meta[GENERATED_NAMES_KEY] = Generated(names["generated"])
    result = check_model(model, index.get)
    print(json.dumps({
        "diagnostics": [
            {"severity": d.severity, "message": d.message, "node": d.node_id, "fix_hint": d.fix_hint,
             "source": d.source}
            for d in result.diagnostics
        ],
        "inferred": {name: [info[0], info[1]] for name, info in result.inferred.items() if info is not None},
    }))


if __name__ == "__main__":
    _child(Path(sys.argv[1]))
