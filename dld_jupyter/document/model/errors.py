"""The one error type of the document layer: what went wrong, why, and how to fix it."""

from __future__ import annotations


class DocumentError(Exception):
    """A refused edit or an unreadable file. The document is left unchanged when this is raised by an edit.

    ``what`` names the failed action, ``why`` the cause, ``fix`` what the user can do about it.
    """

    def __init__(self, what: str, why: str, fix: str = "") -> None:
        self.what = what
        self.why = why
        self.fix = fix
        text = f"{what}: {why}"
        if fix:
            text += f" Fix: {fix}"
        super().__init__(text)
