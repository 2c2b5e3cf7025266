"""The inline error of one editor field: what the panel shows under the input, with a caret when it has a position."""

from __future__ import annotations

from typing import Any

from dld_jupyter.document import DocumentError
from dld_jupyter.document.edits.literals import LiteralError


class EditError(Exception):
    """A refused edit of the field ``key``; the document is unchanged when this is raised."""

    def __init__(self, key: str, message: str, excerpt: str = "", caret: int = -1) -> None:
        super().__init__(message)
        self.key, self.message, self.excerpt, self.caret = key, message, excerpt, caret

    def payload(self) -> dict[str, Any]:
        return {"message": self.message, "excerpt": self.excerpt, "caret": self.caret}


def as_edit_error(key: str, exc: Exception) -> EditError:
    """Turn what an edit raised into the field's inline error."""
    if isinstance(exc, EditError):
        return exc
    if isinstance(exc, LiteralError):
        excerpt, caret = exc.excerpt()
        expected = f" (expected {exc.expected})" if exc.expected else ""
        return EditError(key, f"At character {exc.position + 1}: {exc.message}{expected}", excerpt, caret)
    if isinstance(exc, DocumentError):
        text = f"{exc.why[:1].upper()}{exc.why[1:]}" + (f" {exc.fix}" if exc.fix else "")
        return EditError(key, text)
    return EditError(key, str(exc))
