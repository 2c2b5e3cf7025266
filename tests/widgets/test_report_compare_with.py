"""'Compare with…' on the kernel side: the viewer adds report files to what it shows (a comparison with a baseline
selector), answers the browser's request, names reports of one model by their files, refuses a bad file with a
clear error and changes nothing then; `dld.compare` is the notebook's way to the same view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dld_jupyter as dld
from dld_jupyter.report_format.io import save_report
from dld_jupyter.widgets.report.report_viewer import show_report
from tests.reports._factory import make_report


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = (
        tmp_path / "net_opt.dld-report.json",
        tmp_path / "net_noopt.dld-report.json",
        tmp_path / "net_fp16.dld-report.json",
    )
    for i, path in enumerate(paths):
        save_report(make_report(4 + i), path)
    return paths


def _sent(viewer: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    viewer.send = lambda message, buffers=None: sent.append(message)
    return sent


def test_compare_with_request_turns_the_viewer_into_a_comparison(tmp_path: Path) -> None:
    first, second, third = _files(tmp_path)
    viewer = show_report(first)
    assert viewer.payload["compare"] is None
    sent = _sent(viewer)
    viewer._on_message(
        viewer,
        {"kind": "request", "request": 3, "action": "compare_with", "args": {"paths": [str(second), str(third)]}},
        [],
    )
    assert sent[-1] == {"kind": "reply", "request": 3, "ok": True, "data": {"reports": 3}, "error": None}
    assert viewer.payload["compare"] is not None
    assert [r["label"] for r in viewer.payload["reports"]] == ["net_opt", "net_noopt", "net_fp16"]
    assert viewer.payload["compare"]["baseline"] == 0
    viewer.baseline = 2  # the viewer's baseline selector
    assert viewer.payload["compare"]["baseline"] == 2


def test_a_bad_file_is_refused_with_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    first, second, _ = _files(tmp_path)
    viewer = show_report(first)
    before = viewer.payload
    sent = _sent(viewer)
    viewer._on_message(
        viewer,
        {
            "kind": "request",
            "request": 4,
            "action": "compare_with",
            "args": {"paths": [str(second), str(tmp_path / "missing.dld-report.json")]},
        },
        [],
    )
    reply = sent[-1]
    assert reply["ok"] is False and "missing.dld-report.json" in reply["error"] and "Pick a" in reply["error"]
    assert viewer.payload == before and len(viewer.reports) == 1
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    viewer._on_message(
        viewer,
        {"kind": "request", "request": 5, "action": "compare_with", "args": {"paths": [str(tmp_path / "notes.json")]}},
        [],
    )
    assert sent[-1]["ok"] is False and "notes.json" in sent[-1]["error"]
    assert len(viewer.reports) == 1


def test_dld_compare_opens_a_comparison_from_files(tmp_path: Path) -> None:
    first, second, _ = _files(tmp_path)
    viewer = dld.compare(first, second, baseline=1)
    assert [r["label"] for r in viewer.payload["reports"]] == ["net_opt", "net_noopt"]
    assert viewer.payload["compare"]["baseline"] == 1
