"""Every browser test fails on an uncaught error or console error of the page (issue 42: "zero uncaught errors in
the browser console across the README journeys"). Users never see the console, so errors there went unnoticed: 944
"Comms are disabled" errors in seven minutes of one report viewer.

A test that provokes an error on purpose (a broken widget whose error must surface in the notebook) says so with
`expect_console_error(page, pattern)` after checking what the user sees; what it names is then not a failure.
`DLD_CONSOLE_ERRORS=record` writes what each test left to test-artifacts/console-errors.jsonl instead of failing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

# What the page prints that is not the product's: Chromium's resource-load lines for requests JupyterLab itself
# makes and handles (a 404 for a workspace or a settings file that does not exist yet is how it asks).
# Notebook 7 pages raise two errors of their own at start-up, thrown inside Notebook's bundle (notebook_core): its
# router runs `filebrowser:open-path`, which a notebook page does not register, and its shortcuts plugin reads the
# schema of a plugin whose settings it is reloading. Matched by message and by where they are thrown.
BENIGN = (
    re.compile(r"^Failed to load resource: the server responded with a status of 404 \(Not Found\)$"),
    re.compile(r"^uncaught: Command 'filebrowser:open-path' not registered\."),
    # Tests that run a server of their own stop it while their page is still open (the page fixture closes last).
    re.compile(r"net::ERR_CONNECTION_REFUSED"),
    re.compile(r"^uncaught: Cannot read properties of undefined \(reading 'schema'\) \[at [^ ]*/static/notebook/"
               r"notebook_core\."),
)


def collect(page: Any) -> list[str]:
    """Start collecting the page's console errors and uncaught exceptions; returns the live list."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}" + _where(e)))
    page.console_errors = errors
    page.expected_console_errors = []
    # Chromium's "Failed to load resource" line names no URL: the failed responses say which.
    page.failed_responses = []
    page.on("response", lambda r: page.failed_responses.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return errors


def _where(error: Any) -> str:
    """The first frames of an uncaught error's stack (which script, which function), to find it from the failure."""
    frames = [line.strip() for line in str(getattr(error, "stack", "") or "").splitlines()[1:9]]
    return f" [{' < '.join(frames)}]" if frames else ""


def expect_console_error(page: Any, pattern: str) -> None:
    """Declare that this test provokes console errors matching `pattern` (a regular expression) on purpose."""
    page.expected_console_errors.append(re.compile(pattern))


# Notebook 7's pages ask for two icon fonts of its own static folders that its server refuses (403): its own files.
NOTEBOOK_FONT = re.compile(r"^403 https?://[^/]+/static/(lab|notebook)/[0-9a-f]+\.woff2$")
FORBIDDEN = "Failed to load resource: the server responded with a status of 403 (Forbidden)"


def unexpected(page: Any) -> list[str]:
    allowed = [*BENIGN, *getattr(page, "expected_console_errors", [])]
    refused = [r for r in getattr(page, "failed_responses", []) if r.startswith("403 ")]
    fonts_only = bool(refused) and all(NOTEBOOK_FONT.match(r) for r in refused)
    return [e for e in getattr(page, "console_errors", [])
            if not any(p.search(e) for p in allowed) and not (fonts_only and e == FORBIDDEN)]


def check(page: Any, test_id: str, artifacts: Path) -> str | None:
    """The failure message for what the test left in the console, or None (also None when only recording)."""
    left = unexpected(page)
    if not left:
        return None
    if os.environ.get("DLD_CONSOLE_ERRORS") == "record":
        artifacts.mkdir(parents=True, exist_ok=True)
        with (artifacts / "console-errors.jsonl").open("a") as out:
            out.write(json.dumps({"test": test_id, "errors": left[:20], "count": len(left),
                                  "failed_requests": getattr(page, "failed_responses", [])[:10]}) + "\n")
        return None
    distinct = list(dict.fromkeys(left))
    failed = getattr(page, "failed_responses", [])
    return (f"{len(left)} browser console error(s) during the test (issue 42: none may be left): "
            + " | ".join(e[:300] for e in distinct[:5]) + (f" (failed requests: {failed[:5]})" if failed else ""))
