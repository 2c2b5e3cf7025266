"""The front-end bundles (``dld_jupyter/static/``, built from js/) as our anywidgets' ``_esm`` and ``_css``.

Why their text and not their path: anywidget turns a path into a ``FileContents`` and connects, for every widget
instance, a lambda holding that widget to the file's ``changed`` signal (for hot reload), so no widget whose ``_esm``
is a path is ever freed, closed or not (manzt/anywidget#929). Every canvas, editor panel and report viewer of a
closed designer stayed in the kernel with its document: +3.6 MB per open/close of two small models
(benchmarks/designer_leak_bench.py, issue 31). Developing the front end with ``ANYWIDGET_HMR=1``, the path is
given, and hot reload works as anywidget documents it (those widgets then stay alive, as anywidget makes them).
"""

from __future__ import annotations

import os
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "static"


def bundle(name: str) -> str | Path:
    """``static/<name>``'s text (its path under ``ANYWIDGET_HMR=1``); FileNotFoundError when the front end is not
    built (``cd js && npm run build:widgets``)."""
    path = STATIC / name
    if os.environ.get("ANYWIDGET_HMR") == "1":
        return path
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise FileNotFoundError(f"{path}: the front end is not built (cd js && npm run build:widgets)") from error
