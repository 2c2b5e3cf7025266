"""A tool's log in the browser, sent as increments at most every ~100 ms (issue 31: the user-tool dialog set a synced
Textarea value per line, so each line re-sent the whole log: 2 MB of output became 195 MB to the browser).

The kernel keeps the last MiB of output (usertools/log.py); the front end (js/src/widgets/tools/log_view.ts) keeps
the same text and applies `append` messages (drop so many characters from the front, append the new lines), so each
byte of output crosses the wire about once, in batches: the first line after a quiet spell leaves at once, the
next ones at most every `interval` seconds. A front end that starts late (a reload, a second view) says `hello`
and gets the whole kept log as one `replace`. State only Python knows: the kept log; state the front end keeps: the
scroll position (it follows the end unless the user scrolled up).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import traitlets

from dld_jupyter.usertools.log import LOG_LIMIT, ToolLog
from dld_jupyter.widgets.widget_base import DldWidget

INTERVAL = 0.1  # seconds between two messages to the browser


class LogView(DldWidget, bundle="log_view"):
    """`append(line)` from any thread; `value` is the text shown (marker and kept lines); `flush()` sends now."""

    keywords = ("height", "layout")

    height = traitlets.Unicode("200px").tag(sync=True)

    def __init__(self, limit: int = LOG_LIMIT, interval: float = INTERVAL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kept = ToolLog(limit)
        self.interval = interval
        self._send_lock = threading.Lock()  # one increment at a time, in order
        self._timer_lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._sent_at = 0.0
        self.on_msg(self._on_msg)

    @property
    def value(self) -> str:
        return self.kept.text()

    def append(self, line: str) -> None:
        self.kept.append(line)
        with self._timer_lock:
            if self._timer is not None:
                return
            delay = max(0.0, self._sent_at + self.interval - time.monotonic())
            self._timer = threading.Timer(delay, self.flush)
            self._timer.daemon = True
            self._timer.start()

    def flush(self) -> None:
        """Send what the browser has not got yet (the timer does it; a finished run calls it so the log is whole)."""
        with self._send_lock:
            with self._timer_lock:
                if self._timer is not None and self._timer is not threading.current_thread():
                    self._timer.cancel()
                self._timer = None
            increment = self.kept.take()
            if increment is not None:
                self.send(dict(increment))
                self._sent_at = time.monotonic()

    def clear(self) -> None:
        with self._send_lock:
            self.kept.clear()
            self.send(dict(self.kept.snapshot()))

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "hello":
            with self._send_lock:
                self.send(dict(self.kept.snapshot()))
