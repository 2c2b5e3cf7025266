"""The one error type of the report layer (report files, imports of profiler outputs, exports).

Kept in a module of its own so that the JSON reading helper, the loader and the importers raise the same class
without importing each other; `report_format.io` re-exports it where callers have always found it.
"""

from __future__ import annotations


class ReportError(Exception):
    """A report file or report data that cannot be used; the message says what, where and how to fix it.

    Raised with one sentence (``ReportError(message)``) or in parts (``ReportError(what, why, fix)``): ``what``
    names the file or record, ``why`` the problem, ``fix`` what the user can do. The CLI maps it to exit code 2.
    """

    def __init__(self, what: str, why: str = "", fix: str = "") -> None:
        self.what = what
        self.why = why
        self.fix = fix
        text = f"{what}: {why}" if why else what
        if fix:
            text += f" Fix: {fix}"
        super().__init__(text)
