"""Editor panels bound to a Document and a canvas selection: parameters, initializers, tensor editor, type checks."""

from __future__ import annotations

from .panels import EditorPanels

__all__ = ["EditorPanels"]
