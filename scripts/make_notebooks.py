"""Regenerate the user notebooks in notebooks/ from the cell sources below (tests execute them).

    python scripts/make_notebooks.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

QUICKSTART = [
    ("markdown", """# dld_jupyter quickstart

Design, inspect, edit and profile an ONNX model from a notebook. This opens the bundled model (a CIFAR ResNet-8
with seeded random weights) in the designer, then profiles it with ONNX Runtime on the CPU: no GPU, no network.

The left sidebar (the DL Designer icon) shows the operator palette and the layer explorer of the designer you
work in."""),
    ("code", """import dld_jupyter as dld
from dld_jupyter.models import sample_model

model_path = sample_model(copy_to="resnet8.onnx")  # a writable copy beside this notebook
model_path"""),
    ("markdown", """## The designer

Drag nodes, connect terminals (drag from an output circle to an input triangle), `Ctrl+Space` for quick add,
right-click for the context menu, `Ctrl+Z` / `Ctrl+Y` to undo / redo, `Ctrl+S` to save."""),
    ("code", """d = dld.open(model_path)
d"""),
    ("markdown", """Everything a click does, code does too: every edit is an undoable command on the document."""),
    ("code", """doc = d.document
relu = doc.add_node("Relu")
print(len(doc.nodes()), "nodes;", "history:", doc.history)
doc.undo()
print(len(doc.nodes()), "nodes after undo; dirty:", doc.dirty)"""),
    ("code", """problems = doc.check()
print(f"{len(problems)} diagnostics")"""),
    ("markdown", """## Profile with ONNX Runtime (CPU)

The profile runs in a separate process (a runtime crash cannot take the kernel down). Warm-up passes are
excluded, the median pass is reported, and per-layer times come from ONNX Runtime's own profiler."""),
    ("code", """report = dld.profile(model_path, iterations=20, warmup=3)
print(f"median {report.summary.median_ms:.3f} ms over {report.summary.passes} passes "
      f"on {report.summary.provider}; {len(report.layers)} layers")"""),
    ("code", """dld.report(report)"""),
]


def write(name: str, cells: list[tuple[str, str]]) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [
        nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
        for kind, source in cells
    ]
    path = NOTEBOOKS / name
    nbformat.write(notebook, path)
    return path


if __name__ == "__main__":
    NOTEBOOKS.mkdir(exist_ok=True)
    print(write("01_quickstart.ipynb", QUICKSTART))
