"""Progress and cancel for long transforms (FP16 conversion and comparison of a large model, sanitize with many passes).

A `CancelToken` is set from another thread (a dialog's Cancel, Ctrl-C in the CLI) and checked by the transform
between its steps: between Polygraphy's constant-folding passes, before and after the conversion, between the
onnxruntime runs of the output comparison. While onnxruntime runs a model the token also ends that run through
`RunOptions.terminate`, the one place where a single step can take minutes on a large model.

Why no child process: the steps that cannot be interrupted (one folding pass, one onnxconverter-common pass) take
seconds on BERT-base and GPT-2 (see benchmarks/batch_mods_bench.py), while shipping a model of hundreds of MB to a
child and back would add about as much as it saves and would double the peak memory; cancelling between steps
leaves the document untouched either way, because nothing is applied before the plan is complete.

`Progress` is called as `progress(fraction, message)`, fraction in 0..1 (None when unknown).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

Progress = Callable[[float | None, str], None]


class Cancelled(Exception):
    """The user cancelled a long transform; nothing was changed."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what}: cancelled; the model was not changed.")


class CancelToken:
    """Thread-safe cancel flag with hooks run once when it is set (e.g. terminating an onnxruntime run)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._hooks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            hooks, self._hooks = self._hooks, []
        for hook in hooks:
            hook()

    def on_cancel(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Run `hook` when cancelled (at once if already); returns a function that removes it."""
        with self._lock:
            if not self._event.is_set():
                self._hooks.append(hook)

                def remove() -> None:
                    with self._lock:
                        if hook in self._hooks:
                            self._hooks.remove(hook)

                return remove
        hook()
        return lambda: None

    def check(self, what: str) -> None:
        """Raise `Cancelled` when the token is set."""
        if self._event.is_set():
            raise Cancelled(what)


def no_progress(fraction: float | None, message: str) -> None:
    """The default progress callback: ignore."""


def step(
    progress: Progress | None, cancel: CancelToken | None, what: str, fraction: float | None, message: str
) -> None:
    """Report a step and honour a cancel request first."""
    if cancel is not None:
        cancel.check(what)
    (progress or no_progress)(fraction, message)
