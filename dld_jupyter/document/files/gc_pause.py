"""Python's cyclic garbage collector paused while a big model's objects are made (`gc_paused()`).

Why: building the document of a 50,000-node model makes millions of objects, and the collector's passes, each of
which walks the objects the kernel already holds, were half of that build's CPU (0.89 -> 0.45 s here) and slowed
the view built on it (issue 42). What a build makes is not garbage, so a pause frees nothing later than it would
have been freed: reference counting still frees what is dropped meanwhile, only cycles wait for the end. The
collector runs again when the last pause ends, unless it was off before the first began (a user's gc.disable()).

What a pause made is then moved to the oldest generation at once (gc.freeze() + gc.unfreeze(): two list splices),
as surviving two collections would have moved it: otherwise the first young collections after the pause walked the
~550,000 objects a 50,000-node model leaves young (0.09 + 0.09 s, then a full pass of 0.12 s, on whatever thread
allocated next: the kernel's IOPub thread sending "edits work", by 0.2-0.7 s in canvas_bench's timeline). The
splice takes every young object, not only the pause's: a cycle that became garbage just before the pause waits for
the next full collection instead of a young one (it is freed, later). Skipped while a user keeps objects frozen
(unfreezing would release theirs).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0  # pauses under way (two models may load at once)
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No collection during the block (nested and concurrent pauses end together with the last one)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                if gc.get_freeze_count() == 0:
                    gc.freeze()  # every tracked object to the permanent generation,
                    gc.unfreeze()  # and from there to the oldest one
                gc.enable()
