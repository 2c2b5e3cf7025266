"""Closing a composite widget closes everything it shows, once: what a Designer calls when it closes.

Why: ipywidgets' ``Widget.close()`` closes that one widget's comm. The widgets it shows (its children, their Layouts
and Styles, any widget-valued trait) stay in ipywidgets' registry for the kernel's life, and with them whatever they
hold: a canvas's fast-channel socket and its file, the editors' check-debounce thread, the document. Each designer
opened and closed in a kernel left a thread, a listening Unix socket, ~87 widgets and 2-17 MB behind (issue 31;
benchmarks/designer_leak_bench.py). Walking the synced traits reaches exactly the widgets the browser shows, the same
references ipywidgets serializes as ``IPY_MODEL_<id>``, and calling each one's own ``close()`` runs its cleanup (the
canvas closes its socket, the editor panels stop their checks).

A widget is owned by the tree that shows it: one shared by several trees (a module-level ``Layout``) would be
closed under the others, so build one per use.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ipywidgets as w


def _widgets_in(value: Any) -> Iterator[w.Widget]:
    if isinstance(value, w.Widget):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _widgets_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _widgets_in(item)


def shown_widgets(roots: Iterable[w.Widget]) -> list[w.Widget]:
    """Every widget reachable from ``roots`` through synced traits (roots included), each once, parents first."""
    seen: dict[int, w.Widget] = {}
    queue = list(roots)
    while queue:
        widget = queue.pop(0)
        if id(widget) in seen:
            continue
        seen[id(widget)] = widget
        for name in widget.keys:
            if name.startswith("_"):  # _model_name, _view_module...: never widgets
                continue
            queue.extend(_widgets_in(getattr(widget, name, None)))
    return list(seen.values())


def close_shown(owner: w.Widget, *also: w.Widget | None) -> None:
    """Close every open widget that ``owner`` (and ``also``: parts it holds but may not show right now) shows,
    except ``owner`` itself, which the caller closes last. Parents close before their children, so a composite
    widget's own ``close()`` still finds its parts."""
    roots = [owner, *(widget for widget in also if widget is not None)]
    for widget in shown_widgets(roots):
        if widget is not owner and widget.comm is not None:  # comm None: closed already
            widget.close()


def replace_children(box: w.Box, children: Iterable[w.Widget]) -> None:
    """Show ``children`` in ``box`` and close what it showed before and no longer does (a slot's previous panel,
    a redrawn tab strip): replaced widgets are reachable from nothing, so nothing else would ever close them."""
    new = list(children)
    kept = {id(widget) for widget in new}
    gone = [widget for widget in box.children if id(widget) not in kept]
    box.children = new
    for widget in shown_widgets(gone):
        if widget.comm is not None:
            widget.close()
