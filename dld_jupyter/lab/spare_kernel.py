"""Kernel side of the warm spare kernel: what a designer tab's first cell needs, imported before the tab exists.

Why: a designer tab opened on a new kernel spent most of its seconds starting that kernel and importing dld_jupyter
and the designer (issue 42: ResNet-18 2.4 s from the double-click against Netron's 1.3 s; 0.8 s with the tab's
kernel already running). The labextension keeps one spare kernel started while JupyterLab is idle
(js/src/lab/warm_kernel.ts) and runs `warm()` there silently; the next designer tab takes that kernel instead of
starting one. The spare starts in the server's root folder, a tab's own kernel in its file's folder (the tab gives
the kernel paths relative to it): `adopt(folder)` moves the spare there as it becomes the tab's kernel.
"""

from __future__ import annotations

import importlib
import os

# What a designer tab's first cell imports (document_tab.ts: dld_jupyter, lab.document_tabs; the size check's
# lab.transfer) and what `dld.open` / `dld.report` import lazily (the designer with its canvas and editors, the
# report viewer): ~0.6 s of imports in a fresh kernel. Then the whole operator schema registry: a first view looks up
# the operators of onnx's domains one by one (schema.py), but a model importing ONNX Runtime's domains, the operator
# documentation and the checks' version lists need it built (0.25-0.4 s in a kernel).
WARM_MODULES = (
    "dld_jupyter",
    "dld_jupyter.lab.document_tabs",
    "dld_jupyter.lab.transfer",
    "dld_jupyter.widgets.designer.designer",
    "dld_jupyter.widgets.report.report_viewer",
)

_root: str | None = None


def warm() -> None:
    """Import what a designer tab needs, and remember the folder the kernel started in (the server's root)."""
    global _root
    if _root is None:
        _root = os.getcwd()
    for name in WARM_MODULES:
        importlib.import_module(name)
    from dld_jupyter.document.operators.schema import registry

    len(registry)  # every operator schema (ONNX's and onnxruntime's), built here while the page is idle


def adopt(folder: str) -> bool:
    """The spare becomes the kernel of a tab in `folder` (relative to the server's root; "" for the root): its
    working directory moves there, where a kernel started for the tab would have started. A kernel that does not see
    the server's folders (a remote kernel) stays where it is, as a remote kernel started for the tab would: the tab
    sends it the file (lab/transfer.py). Whether it moved."""
    root = _root if _root is not None else os.getcwd()
    target = os.path.join(root, folder)
    if not os.path.isdir(target):
        return False
    os.chdir(target)
    return True
