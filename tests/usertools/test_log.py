"""The kept log of a user tool: capped to its last `limit` characters with a marker, and increments that rebuild
exactly the kept text on the front end while each line is sent at most once (issue 31)."""

from __future__ import annotations

import threading

import pytest

from dld_jupyter.usertools.log import ToolLog, dropped_marker


def apply(body: str, log: ToolLog) -> tuple[str, int]:
    """The front end's text after the next increment (as js/src/widgets/tools/log_view.ts applies it), and its size."""
    step = log.take()
    if step is None:
        return body, 0
    return (step["text"] if step["kind"] == "replace" else body[step["drop"] :] + step["text"]), len(step["text"])


def test_the_log_keeps_its_last_part_and_the_front_end_follows_it_exactly() -> None:
    log = ToolLog(limit=10_000)
    body, sent, written = "", 0, 0
    for i in range(3_000):
        line = f"line {i} " + "z" * (i % 37)
        log.append(line)
        written += len(line) + 1
        if i % 7 == 0:  # a flush every few lines, as the 100 ms timer would
            body, size = apply(body, log)
            sent += size
            assert body == log.body()
    body, size = apply(body, log)
    sent += size
    assert body == log.body() and len(body) <= 10_000 and body.endswith("line 2999 " + "z" * (2999 % 37) + "\n")
    assert sent <= written  # never a line twice
    assert log.text() == dropped_marker(log.dropped_lines, log.dropped_chars) + body
    assert log.text().startswith("… earlier output dropped (") and log.dropped_chars + len(body) == written


def test_lines_dropped_before_they_were_sent_are_never_sent() -> None:
    log = ToolLog(limit=100)
    for i in range(1_000):
        log.append(f"{i:09d}")  # 10 characters with the newline
    step = log.take()
    assert step is not None and step["drop"] == 0 and len(step["text"]) == 100
    assert step["text"].startswith("000000990") and step["dropped_lines"] == 990
    assert log.take() is None


def test_appends_from_two_threads_lose_nothing() -> None:
    log = ToolLog(limit=1 << 20)
    body = ""

    def write(tag: str) -> None:
        for i in range(5_000):
            log.append(f"{tag} {i}")

    threads = [threading.Thread(target=write, args=(t,)) for t in ("out", "err")]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        body, _ = apply(body, log)
    body, _ = apply(body, log)
    assert body == log.body() and len(body.splitlines()) == 10_000


def test_a_late_front_end_gets_the_whole_log_and_then_increments() -> None:
    log = ToolLog(limit=50)
    for i in range(20):
        log.append(f"{i:04d}")
    snapshot = log.snapshot()
    assert snapshot["kind"] == "replace" and snapshot["text"] == log.body() and log.take() is None
    log.append("next")
    body, _ = apply(snapshot["text"], log)
    assert body == log.body()
    with pytest.raises(ValueError, match="not positive"):
        ToolLog(limit=0)
