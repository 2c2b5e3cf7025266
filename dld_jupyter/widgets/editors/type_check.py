"""Type check list (seed 000): checks run in a background thread after each edit (debounced) and on request; a model
just opened is checked at once when its check runs in the thread (`CheckRunner.opened`).

Why a thread: checker + shape inference take seconds on large models and must not block the kernel. The check
reads the model while the user may edit it; a result computed for an older history position is dropped (and the
check re-runs), so a diagnostic never describes a model the user no longer has. From PROCESS_MIN_NODES nodes the
thread hands the check to a child process (document/checks/check_process.py): onnx's C++ checks hold the GIL, which
stalled edits, and a crash in them ends the child, not the kernel; cancel kills it. Smaller checks run in the
thread, where cancel drops the result (onnx's C++ checker cannot be interrupted). Above the size threshold of
document/checks/checks.py, automatic checks are off; "Check model" still runs. Polygraphy lint runs in its own process.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dld_jupyter.document import Document
from dld_jupyter.document.checks.check_process import PROCESS_MIN_NODES, CheckProcess
from dld_jupyter.document.checks.checks import CheckResult, check_model, should_check_automatically
from dld_jupyter.document.checks.diagnostics import Diagnostic
from dld_jupyter.document.checks.lint import LintRun, start_polygraphy_lint
from dld_jupyter.frontdoor.soon import on_loop, running_loop

from .debounce import Debouncer

DEBOUNCE_S = 0.4


class CheckRunner:
    """Runs ``doc`` checks off the main thread; ``on_change()`` is called (on the main thread) when state changes."""

    def __init__(self, doc: Document, on_change: Callable[[], None], debounce_s: float = DEBOUNCE_S) -> None:
        self.doc, self.on_change, self.debounce_s = doc, on_change, debounce_s
        self.running = False
        self.lint_running = False
        self.lint_items: list[Diagnostic] = []
        self.checked_version: tuple[int, int] | None = None
        self._generation = 0
        self._lint: LintRun | None = None
        self._lock = threading.Lock()
        self._process: CheckProcess | None = None
        self._loop = running_loop()
        self._debounce = Debouncer(debounce_s, lambda: on_loop(self._loop, self.start), "dld-check-debounce")

    def version(self) -> tuple[int, int]:
        return (len(self.doc.history), self.doc.history_index)

    @property
    def busy(self) -> bool:
        """A check is running or about to start (benchmarks wait for a settled designer)."""
        return self.running or self._debounce.pending

    @property
    def automatic(self) -> bool:
        return should_check_automatically(self.doc.model)

    def edited(self) -> None:
        """The model changed: check again after a quiet moment, if automatic checks are on."""
        if not self.automatic:
            return
        self._debounce.poke()

    def opened(self) -> None:
        """The model was just opened: a model checked in this thread (below PROCESS_MIN_NODES nodes; ~2-35 ms on
        the real exports, the checks run on a weightless skeleton) is checked now, so the canvas's first view
        already shows the links' inferred shapes and the diagnostics. Checked after the debounce, the result came
        while the browser drew that first view and relabelled every link: a patch of all edges, cytoscape
        restyling and redrawing the whole graph (~0.1 s of the page's main thread for MobileNetV3-small, just
        before it was interactive; issue 42). A bigger model is checked in a child process after the debounce,
        as after an edit."""
        if not self.automatic:
            return
        try:
            small = len(self.doc.check_input()[0].graph) < PROCESS_MIN_NODES
        except Exception:  # the background check reports what this model provokes; the open goes on
            small = False
        if small:
            self.run_now()
        else:
            self._debounce.poke()

    def start(self) -> None:
        """Start a check now (the previous one's result, if still running, is dropped; its child is killed)."""
        with self._lock:
            if self._process is not None:
                self._process.kill()
                self._process = None
            self._generation += 1
            generation = self._generation
            self.running = True
        version = self.version()
        doc = self.doc
        thread = threading.Thread(target=self._run, args=(doc, generation, version), daemon=True, name="dld-check")
        thread.start()
        self.on_change()

    def run_now(self) -> list[Diagnostic]:
        """Check synchronously (tests, the CLI): same result the background check publishes."""
        self.cancel()
        found = self.doc.check()
        self.checked_version = self.version()
        self.on_change()
        return found

    def _run(self, doc: Document, generation: int, version: tuple[int, int]) -> None:
        try:
            model, ids = doc.check_input()  # a subgraph document checks a standalone copy of its body
            if len(model.graph) >= PROCESS_MIN_NODES:  # big: in a child process, off the kernel's GIL
                process = CheckProcess(model, ids)
                with self._lock:
                    superseded = generation != self._generation
                    self._process = process
                if superseded:
                    process.kill()
                result = process.result()
                with self._lock:
                    if self._process is process:
                        self._process = None
            else:
                result = check_model(model, ids)
        except Exception as exc:
            result = CheckResult([Diagnostic("error", f"The check failed: {exc}")], {})
        on_loop(self._loop, lambda: self._publish(result, generation, version))

    def _publish(self, result: CheckResult, generation: int, version: tuple[int, int]) -> None:
        if generation != self._generation:
            return  # cancelled, or superseded by a newer check
        self.running = False
        if version != self.version():
            # The model changed while checking: this result describes an older model. Check again once the
            # edits pause (starting at once would keep a core busy while the user is still editing).
            self._debounce.poke()
            self.on_change()
            return
        self.doc.apply_check(result)
        self.checked_version = version
        self.on_change()

    def cancel(self) -> None:
        self._debounce.cancel()
        with self._lock:
            if self._process is not None:
                self._process.kill()  # a real cancel for checks in a child process
                self._process = None
            self._generation += 1
            was_running = self.running
            self.running = False
        if was_running:
            self.on_change()

    # ------------------------------------------------------------ lint
    def lint(self) -> None:
        """Polygraphy lint of the current model (saved to a temporary file), in a separate process."""
        if self._lint is not None and not self._lint.done:
            self._lint.cancel()
        folder = Path(tempfile.mkdtemp(prefix="dld-lint-"))
        path = folder / "model.onnx"
        from dld_jupyter.document.files import io

        io.save(self.doc.model, path, {})
        names = {n.name: n.id for n in self.doc.nodes() if n.name}
        run = start_polygraphy_lint(path, names)
        self._lint, self.lint_running = run, True
        self.on_change()

        def wait() -> None:
            items = run.result()
            on_loop(self._loop, lambda: self._lint_done(run, items))

        threading.Thread(target=wait, daemon=True, name="dld-lint-wait").start()

    def _lint_done(self, run: LintRun, items: list[Diagnostic]) -> None:
        if run is self._lint:
            self.lint_items, self.lint_running = items, False
            self.on_change()

    def cancel_lint(self) -> None:
        if self._lint is not None:
            self._lint.cancel()

    def close(self) -> None:
        self.cancel()
        self.cancel_lint()
        self._debounce.close()


def _name(doc: Document, node_id: str) -> str:
    try:
        node = doc.node(node_id)
    except Exception:  # a diagnostic about a node removed since the check
        return ""
    return node.name or node.op_type


def view(doc: Document, runner: CheckRunner) -> dict[str, Any]:
    items = [*doc.diagnostics, *runner.lint_items]
    names = {d.node_id: _name(doc, d.node_id) for d in items if d.node_id}
    stale = runner.checked_version is not None and runner.checked_version != runner.version()
    return {
        "running": runner.running,
        "lint_running": runner.lint_running,
        "automatic": runner.automatic,
        "checked": runner.checked_version is not None,
        "stale": stale,
        "items": [
            {
                "severity": d.severity,
                "message": d.message,
                "node_id": d.node_id,
                "node_name": names.get(d.node_id, "") if d.node_id else "",
                "fix_hint": d.fix_hint,
                "source": d.source,
            }
            for d in items
        ],
    }
