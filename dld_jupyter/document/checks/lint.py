"""Polygraphy lint (seed 000: "type checking is provided by the Polygraphy linter") in a background process.

`polygraphy check lint` runs every node through ONNX Runtime, which can take long on big models and can crash:
a child process keeps the kernel safe and makes the run cancellable. Its JSON report becomes Diagnostics.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dld_jupyter.document.checks.diagnostics import Diagnostic, Severity

NameToId = Callable[[str], "str | None"] | Mapping[str, str] | None

_LEVELS: dict[str, Severity] = {"exception": "error", "error": "error", "warning": "warning", "info": "info"}
_RUNNER = "import sys; from polygraphy.tools import main; sys.argv[0] = 'polygraphy'; sys.exit(main())"


def _diagnostic(severity: Severity, message: str, node_id: str | None = None, hint: str = "") -> Diagnostic:
    return Diagnostic(severity, message, node_id, hint, "polygraphy")


def parse_lint_report(report: Mapping[str, Any], names: NameToId = None) -> list[Diagnostic]:
    """Diagnostics from Polygraphy's lint JSON (`lint_entries`: level, source, message, nodes)."""
    lookup: Callable[[str], str | None]
    if names is None:
        lookup = lambda name: name or None  # noqa: E731 - node names are the ids when none are given
    elif isinstance(names, Mapping):
        lookup = names.get
    else:
        lookup = names
    found: list[Diagnostic] = []
    for entry in report.get("lint_entries", []):
        severity = _LEVELS.get(str(entry.get("level", "")).lower(), "warning")
        message = " ".join(str(entry.get("message", "")).split())
        source = entry.get("source")
        if source:
            message = f"[{source}] {message}"
        nodes = [str(n) for n in entry.get("nodes", []) or []] or [""]
        for node in nodes:
            text = f"{node}: {message}" if node else message
            found.append(_diagnostic(severity, text, lookup(node) if node else None))
    return found


def lint_unavailable_reason() -> str:
    """Why Polygraphy lint cannot run here ("" when it can): it needs polygraphy and onnx_graphsurgeon."""
    for module in ("polygraphy", "onnx_graphsurgeon", "onnxruntime"):
        if importlib.util.find_spec(module) is None:
            return f"Polygraphy lint unavailable: the '{module}' package is not installed"
    return ""


class LintRun:
    """A running lint: `.done`, `.cancel()`, `.result()` (blocks; diagnostics, never raises)."""

    def __init__(
        self,
        argv: Sequence[str],
        report_path: Path | None,
        names: NameToId = None,
        unavailable: str = "",
        private_dir: Path | None = None,
    ) -> None:
        self._names = names
        self._report_path = report_path
        self._private_dir = private_dir  # holds the report; removed with it when the run ends
        self._cancelled = False
        self._diagnostics: list[Diagnostic] | None = None
        self._finished = threading.Event()
        self._process: subprocess.Popen[str] | None = None
        if unavailable:
            self._diagnostics = [_diagnostic("info", unavailable, hint="Install onnx-graphsurgeon to enable it.")]
            self._finished.set()
            return
        self._process = subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
        threading.Thread(target=self._wait, name="dld-polygraphy-lint", daemon=True).start()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Stop the lint process (its children too); `result()` then answers one "cancelled" entry."""
        self._cancelled = True
        if self._process is not None and self._process.poll() is None:
            self._process.kill()

    def result(self, timeout: float | None = None) -> list[Diagnostic]:
        if not self._finished.wait(timeout):
            raise TimeoutError("Polygraphy lint is still running")
        return list(self._diagnostics or [])

    def _wait(self) -> None:
        assert self._process is not None
        output, _ = self._process.communicate()
        try:
            self._diagnostics = self._collect(self._process.returncode, output)
        finally:
            if self._private_dir is not None:
                shutil.rmtree(self._private_dir, ignore_errors=True)
            elif self._report_path is not None:
                self._report_path.unlink(missing_ok=True)
            self._finished.set()

    def _collect(self, returncode: int, output: str) -> list[Diagnostic]:
        if self._cancelled:
            return [_diagnostic("info", "Polygraphy lint was cancelled.", hint="Run the check again.")]
        report: Any = None
        if self._report_path is not None and self._report_path.exists():
            try:
                report = json.loads(self._report_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                report = None
        if isinstance(report, dict):
            return parse_lint_report(report, self._names)
        tail = " ".join(line for line in output.strip().splitlines()[-3:])
        if "is required but could not be imported" in output:
            return [_diagnostic("info", f"Polygraphy lint unavailable: {tail}", hint="Install the named module.")]
        return [_diagnostic("error", f"Polygraphy lint failed (exit {returncode}): {tail}")]


def start_polygraphy_lint(model_path: str | os.PathLike[str], names: NameToId = None) -> LintRun:
    """Start `polygraphy check lint` on a saved model; `names` maps node names to UI ids."""
    unavailable = lint_unavailable_reason()
    # Polygraphy writes the report only on success, so absence must mean "no report": the name therefore lives
    # in a private folder (mkdtemp: mode 0700, ours alone). A name reserved in the shared temp folder and deleted
    # for Polygraphy to recreate could be taken over in between, and its JSON read back as the lint's.
    private = None if unavailable else Path(tempfile.mkdtemp(prefix="dld-lint-"))
    report_path = private / "lint.json" if private is not None else None
    argv = [sys.executable, "-c", _RUNNER, "check", "lint", os.fspath(model_path), "-o", str(report_path)]
    return LintRun(argv, report_path, names, unavailable, private)
