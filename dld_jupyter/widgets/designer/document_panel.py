"""Base of the designer's windows that follow their document (Model Local Functions, Local Function Settings):
refreshed once after a burst of the document's events, unsubscribed when closed, and a refused action shown in the
window's own message line, where the user is looking (not only in the kernel log)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import ipywidgets as w

from dld_jupyter.document import Document
from dld_jupyter.formats.html_text import fill
from dld_jupyter.frontdoor.soon import Soon
from dld_jupyter.widgets.widget_base import DldVBox


class DocumentPanel(DldVBox):
    # What an action may be refused with (shown in `message`), and how the message reads; set per window.
    REFUSED: ClassVar[tuple[type[BaseException], ...]] = (ValueError,)
    ERROR: ClassVar[str] = '<div style="color:#b91c1c;white-space:pre-wrap">{}</div>'
    message: w.HTML

    def _follow(self, document: Document, refresh: Callable[[], None]) -> None:
        """Call `refresh` after the document's events (coalesced: an undo of 50 edits refreshes once)."""
        refresh_soon = Soon(refresh)
        self._unsubscribe: Callable[[], None] = document.subscribe(lambda _events: refresh_soon())

    def _guard(self, action: Callable[[], Any]) -> None:
        try:
            action()
        except self.REFUSED as error:
            self.message.value = fill(self.ERROR, error)

    def close(self) -> None:
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
        super().close()
