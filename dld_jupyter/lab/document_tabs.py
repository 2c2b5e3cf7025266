"""Kernel side of DL Designer document tabs: the view each tab shows, kept by the tab's key, and one comm per tab
that tells the tab its model's name, file and dirty state and runs its Save / Save As.

Why: a designer tab is a kernel-backed panel whose designer lives in the kernel. Before this module, a page reload
turned the tab into a bare console (the designer was gone though its kernel still held it), and the tab knew nothing
of the document's dirty state, so closing it asked nothing. Keeping the view by key lets a reloaded tab display the
same live widget again (nothing lost, still dirty); the comm lets the tab draw its dirty marker and ask before an
unsaved close. The key is the tab's session path (js/src/lab/document_tab.ts), stable for the tab's life.

A Start Activity tab (frontdoor.run_source.TabbedRuns: no designer, runs on a model file) gets the same report
tabs, and its Browse… asks the browser for JupyterLab's file dialog. Wide results (a sweep's table and Pareto chart,
frontdoor/results_tab.py) open the same way as reports, in a tab beside the designer or the dialog on this kernel:
the live view is offered here under a token, which the new tab's `results(...)` takes (a reloaded page finds it
under the tab's key; a tab whose kernel stopped builds it again from its file).

Messages (same names in js/src/lab/tab_messages.ts):
  browser → kernel: save{request, path} (path None: the document's own file),
                    model_picked{path} (the model chosen in the file dialog, relative to the kernel's working directory)
  kernel → browser: state{name, path, dirty, document}, reply{request, ok, error, data},
                    open_report{file} (a finished profile's report, relative to the kernel's working directory: the
                    tab opens it in a tab split beside it, on this kernel), pick_model (Browse…: open the file dialog),
                    open_results{token, view, title, file} (a wide result: the tab opens a tab beside it whose view
                    is `results(token, rebuild)`; `view` one of results_tab.KINDS, `file` relative as above, what
                    the tab rebuilds the view from: `dld.sweep_results(file)` for a sweep)
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

from dld_jupyter.activities import timing
from dld_jupyter.document import Document, DocumentError
from dld_jupyter.document.model.events import DirtyChanged
from dld_jupyter.formats.envelope import failed, ok
from dld_jupyter.formats.html_text import bold, join, tag
from dld_jupyter.frontdoor.designers import LiveDesigner, loading, registry
from dld_jupyter.frontdoor.operations import SAVE, SAVE_AS, InvalidModel
from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.frontdoor.run_source import TabbedRuns
from dld_jupyter.frontdoor.soon import on_loop, running_loop
from dld_jupyter.report_format.errors import ReportError

TARGET = "dld_jupyter.tab"

_views: dict[str, Any] = {}
_offered: dict[str, Any] = {}  # results views waiting for their tab, by token


def is_live(key: str) -> bool:
    """Whether this kernel still holds the view of the tab `key` (a reloaded page reattaches to it)."""
    return key in _views


def show(key: str, make: Callable[[], Any]) -> Any:
    """The live view of tab `key`, or a new one built by `make` and kept under `key`; registers the comm target."""
    register()
    view = _views.get(key)
    if view is None:
        try:
            with timing.phase("tab_view"):
                view = make()
        except (DocumentError, ReportError, ValueError, OSError) as error:  # a file this tab cannot show
            return error_view(str(error))
        _views[key] = view
    return view


def error_view(text: str) -> Any:
    """Why the tab's file cannot be shown, in the tab (not a traceback); not kept: a reload tries the file again."""
    import ipywidgets as w

    view = w.HTML(join([bold("DL Designer cannot show this file."), tag("br"), text]))
    view.add_class("dld-tab-error")
    return view


def results(token: str, rebuild: Callable[[], Any] | None = None) -> Any:
    """The view of a results tab: the live one offered under `token`, else `rebuild()` (from the result's file: the
    kernel that offered it stopped, or the page reopened it later); a result with no file cannot come back."""
    view = _offered.pop(token, None)
    if view is not None:
        return view
    if rebuild is None:
        raise ValueError("these results lived in a kernel that has stopped and were never written to a file; "
                         "run them again")
    return rebuild()


def forget(key: str) -> None:
    """Drop the view of a tab that closed while its kernel is kept running."""
    view = _views.pop(key, None)
    if view is not None and hasattr(view, "close"):
        view.close()


def _designer(view: object) -> LiveDesigner | None:
    """The view as a live designer (registered by its widget model id); None for a report viewer."""
    found = registry.by_model_id(str(getattr(view, "model_id", "")))
    return found if found is view else None


class TabLink:
    """One tab's comm: state on every dirty change and after saves; Save / Save As requests."""

    def __init__(self, key: str, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        view = _views.get(key)
        self._designer = _designer(view)
        self._runs = view if self._designer is None and isinstance(view, TabbedRuns) else None
        self._unsubscribe: Callable[[], None] = lambda: None
        self._tokens: list[str] = []  # results offered to a tab not opened yet
        if self._runs is not None:  # Start Activity: reports in tabs beside it, Browse… in the file dialog
            self._runs.open_report_tab = self._open_report
            self._runs.open_results_tab = self._open_results
            self._runs.allow_browse(lambda: self._send({"kind": "pick_model"}))
        if self._designer is None:  # a report viewer or Start Activity: nothing to save, never dirty
            self._send({"kind": "state", "name": "", "path": "", "dirty": False, "document": False})
            return
        designer, loop = self._designer, running_loop()
        designer.open_report_tab = self._open_report  # the newest tab link (a reloaded page) opens the reports
        designer.open_results_tab = self._open_results
        if loading(designer) is not None:  # a big model: its document arrives on the loading thread
            designer.canvas.on_document(lambda document: on_loop(loop, lambda: self._bind(document)))
        else:
            self._bind(designer.document)

    def _bind(self, document: Document) -> None:
        self._unsubscribe()

        def on_events(events: list[Any]) -> None:
            if any(isinstance(event, DirtyChanged) for event in events):
                self._send_state()

        self._unsubscribe = document.subscribe(on_events)
        self._send_state()

    def _send_state(self) -> None:
        designer = self._designer
        if designer is None or loading(designer) is not None:
            return
        document = designer.document
        self._send({"kind": "state", "name": document.name, "path": str(document.path or ""),
                    "dirty": document.dirty, "document": True})

    def handle(self, message: dict[str, Any]) -> None:
        if message.get("kind") == "model_picked":  # no reply: the dialog's field shows the choice
            if self._runs is not None:
                self._runs.set_model(str(message.get("path", "")))
            return
        request = int(message.get("request", 0))
        try:
            if message.get("kind") != "save":
                raise ValueError(f"unknown tab message kind {message.get('kind')!r}")
            if self._designer is None:
                raise ValueError("this tab shows no model to save")
            path = message.get("path")
            operation = SAVE_AS if path else SAVE
            enabled = operation.enabled(self._designer)
            if enabled is not True:  # "the model has no file yet: use Save As", not the Python API's hint
                raise ValueError(enabled)
            operation(self._designer, **({"path": str(path), "draft": bool(message.get("draft"))} if path else {}))
        except InvalidModel as error:  # the tab asks whether to save a draft, listing what is invalid
            reply = {**failed(request, f"DL Designer: {error}"), "data": {"invalid": error.problems}}
            self._send({"kind": "reply", **reply})
            return
        except Exception as error:  # answered to the tab, which shows it; never raised into the comm machinery
            self._send({"kind": "reply", **failed(request, f"DL Designer: {error}")})
            return
        self._send_state()
        self._send({"kind": "reply", **ok(request)})

    def _open_report(self, report_path: str) -> bool:
        """Ask the tab to open the report in a tab split beside it, on this kernel (its name links then find this
        designer in-process); False when the tab's link is gone."""
        try:
            self._send({"kind": "open_report", "file": os.path.relpath(os.path.abspath(report_path))})
        except Exception:  # the comm closed under us: the report shows below the designer instead
            return False
        return True

    def _open_results(self, shown: ResultsTab) -> bool:
        """Ask the tab to open a wide result in a tab beside it, on this kernel; False when the link is gone."""
        token = uuid.uuid4().hex
        _offered[token] = shown.view
        self._tokens.append(token)
        try:
            self._send({"kind": "open_results", "token": token, "view": shown.kind, "title": shown.title,
                        "file": os.path.relpath(os.path.abspath(shown.file)) if shown.file else ""})
        except Exception:  # the comm closed under us: the results show below instead
            _offered.pop(token, None)
            return False
        return True

    def close(self) -> None:
        self._unsubscribe()
        for token in self._tokens:  # offered to a tab that never opened: nothing will take them
            _offered.pop(token, None)
        runs = self._runs
        if runs is not None and runs.open_report_tab == self._open_report:  # a newer link (reloaded page) keeps its own
            runs.open_report_tab = runs.open_results_tab = None
            runs.allow_browse(None)
        designer = self._designer
        if designer is not None and designer.open_report_tab == self._open_report:
            designer.open_report_tab = designer.open_results_tab = None


def register() -> None:
    """Register the comm target in the running kernel (idempotent)."""
    from comm import get_comm_manager

    manager = get_comm_manager()
    if TARGET in getattr(manager, "targets", {}):
        return

    def on_open(comm: Any, open_msg: dict[str, Any]) -> None:
        key = str(open_msg["content"]["data"].get("key", ""))
        link = TabLink(key, lambda message: comm.send(message))
        comm.on_msg(lambda msg: link.handle(msg["content"]["data"]))
        comm.on_close(lambda _msg: link.close())

    manager.register_target(TARGET, on_open)
