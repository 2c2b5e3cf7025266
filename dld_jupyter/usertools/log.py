"""A user tool's kept log, and what of it the browser has not been sent yet (issue 31: a chatty tool re-sent its whole
log per line, 2 MB of output became 195 MB to the browser, and one 50 MB line stayed whole).

The log keeps the last `limit` characters, in whole lines (lines longer than the runner's LINE_LIMIT were cut
there, so one line is never most of the log); what falls off the front is counted for an "… earlier output dropped"
marker. It also tracks the increment the browser needs: the lines appended since the last `take()` and how many
characters the browser must drop from the front of what it shows, so the browser's text stays equal to `body()`
while each byte of output crosses the wire at most once. Thread-safe: the runner's two reader threads append, the
widget's flush takes.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from typing import TypedDict

LOG_LIMIT = 1 << 20  # characters kept (and shown): the last MiB of output


class LogIncrement(TypedDict):
    """The message the log view's front end applies: `append` drops `drop` characters from the front of its text,
    then appends `text`; `replace` sets its text to `text`. Both carry the dropped totals for the marker."""

    kind: str  # "append" | "replace"
    text: str
    drop: int
    dropped_lines: int
    dropped_chars: int


def dropped_marker(lines: int, chars: int) -> str:
    """The first line shown once output was dropped (the front end writes the same words)."""
    if not lines:
        return ""
    return f"… earlier output dropped ({lines:,} lines, {chars:,} characters; only the last part is kept)\n"


class ToolLog:
    """The last `limit` characters of output as whole lines, and the increment still to send."""

    def __init__(self, limit: int = LOG_LIMIT) -> None:
        if limit <= 0:
            raise ValueError(f"Tool log: the limit {limit} is not positive; give the characters to keep (> 0).")
        self.limit = limit
        self._lock = threading.Lock()
        self._lines: deque[str] = deque()  # each with its newline
        self._size = 0
        self._unsent = 0  # the last `_unsent` lines have not been sent
        self._drop = 0  # characters sent earlier that the front end must drop
        self.dropped_lines = 0
        self.dropped_chars = 0

    def append(self, line: str) -> None:
        entry = line + "\n"
        with self._lock:
            self._lines.append(entry)
            self._size += len(entry)
            self._unsent += 1
            while self._size > self.limit and len(self._lines) > 1:
                old = self._lines.popleft()
                self._size -= len(old)
                self.dropped_lines += 1
                self.dropped_chars += len(old)
                if len(self._lines) + 1 > self._unsent:  # the browser has it: tell it to drop it
                    self._drop += len(old)
                else:  # never sent: nothing to drop there
                    self._unsent -= 1

    def body(self) -> str:
        """The kept lines (without the marker)."""
        with self._lock:
            return "".join(self._lines)

    def text(self) -> str:
        """What the user sees: the marker when output was dropped, then the kept lines."""
        with self._lock:
            return dropped_marker(self.dropped_lines, self.dropped_chars) + "".join(self._lines)

    def take(self) -> LogIncrement | None:
        """The increment since the last take (None when there is nothing new); it counts as sent."""
        with self._lock:
            if not self._unsent and not self._drop:
                return None
            lines = itertools.islice(self._lines, len(self._lines) - self._unsent, None)
            increment = LogIncrement(
                kind="append",
                text="".join(lines),
                drop=self._drop,
                dropped_lines=self.dropped_lines,
                dropped_chars=self.dropped_chars,
            )
            self._unsent = self._drop = 0
            return increment

    def snapshot(self) -> LogIncrement:
        """The whole kept log as one `replace` (a front end that starts late); everything counts as sent."""
        with self._lock:
            self._unsent = self._drop = 0
            return LogIncrement(
                kind="replace",
                text="".join(self._lines),
                drop=0,
                dropped_lines=self.dropped_lines,
                dropped_chars=self.dropped_chars,
            )

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()
            self._size = self._unsent = self._drop = self.dropped_lines = self.dropped_chars = 0
