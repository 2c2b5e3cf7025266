"""The CLI's one error table and guard: bad input is a message and exit 2, our bugs a short traceback asking to
report them (exit 1), and a report's text cannot send escape sequences to the terminal."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from dld_jupyter.activities.errors import RunFailed, SpecError, UnavailableError
from dld_jupyter.cli import prof
from dld_jupyter.cli.errors import EXIT_CODES, exit_code_for, run_guarded
from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.cli.main import main
from dld_jupyter.document.edits.literals import LiteralError
from dld_jupyter.document.model.errors import DocumentError
from dld_jupyter.report_format.io import ReportError, save_report
from tests.reports._factory import make_report


def test_every_class_in_the_table_exists() -> None:
    for module, name in EXIT_CODES:
        assert isinstance(getattr(importlib.import_module(module), name), type), (module, name)


@pytest.mark.parametrize(
    "error,code",
    [
        (DocumentError("Open m.onnx", "it is truncated.", "save it again."), ExitCode.BAD_INPUT),
        (LiteralError("1x", 1, "not a number"), ExitCode.BAD_INPUT),
        (ReportError("r.json", "not JSON.", "pass the file dld wrote."), ExitCode.BAD_INPUT),
        (SpecError("iterations must be at least 1"), ExitCode.BAD_INPUT),
        (UnavailableError("no CUDA provider"), ExitCode.UNAVAILABLE),
        (RunFailed("the worker crashed"), ExitCode.FAILED),
    ],
)
def test_known_errors_are_a_message_and_their_exit_code(
    capsys: pytest.CaptureFixture[str], error: Exception, code: ExitCode
) -> None:
    def verb(args: object) -> int:
        raise error

    assert exit_code_for(error) == code
    assert run_guarded("dld x", verb, None) == code
    err = capsys.readouterr().err
    assert err.startswith("dld x: error: ") and str(error) in err and "Traceback" not in err


def test_report_error_parts_read_as_what_why_fix() -> None:
    error = ReportError("r.json", "the report is not JSON.", "pass the file dld wrote.")
    assert (error.what, error.why, error.fix) == ("r.json", "the report is not JSON.", "pass the file dld wrote.")
    assert str(error) == "r.json: the report is not JSON. Fix: pass the file dld wrote."
    assert str(ReportError("one sentence")) == "one sentence"


def test_a_bug_is_a_short_traceback_and_a_please_report_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        return {}["missing"]  # a KeyError: our bug, not the user's input

    monkeypatch.setattr("dld_jupyter.cli.report.open_report", broken)
    report = save_report(make_report(3), tmp_path / "r.json")
    assert main(["report", "show", str(report)]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError" in err and "Please report it" in err
    assert "dld report show: internal error" in err


def test_environment_failures_are_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    def full(args: object) -> int:
        raise OSError(28, "No space left on device")

    assert run_guarded("dld-prof", full, None) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert "No space left on device" in err and "Traceback" not in err


def test_dld_prof_runs_under_the_guard(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def bad(args: argparse.Namespace) -> object:
        raise SpecError("--iterations must be at least 1")

    monkeypatch.setattr(prof, "spec_from_args", bad)
    assert prof.main(["m.onnx", "-q"]) == ExitCode.BAD_INPUT
    assert "iterations" in capsys.readouterr().err


def test_report_text_cannot_reach_the_terminal_as_escape_sequences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = make_report(3)
    report.layers[0].name = "\x1b]0;owned\x07\x1b[2J\u202eevil"
    report.layers[0].median_ms = 100.0  # the slowest: listed in the top layers
    report.summary.model = "net\x1b[31m"
    path = save_report(report, tmp_path / "r.json")
    assert main(["report", "show", str(path)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "evil" in out and "\ufffd" in out
