"""Fuzzing the report loader, the trtexec import and the ONNX Runtime trace import: only ReportError escapes, and
whatever is accepted is a valid report (it saves, and loads back).

Set ``DLD_FUZZ_EXAMPLES`` to run the fuzzers longer than CI does (the run for issue 17 used 10,000 per fuzzer:
about 2.5 minutes each for the loader and the imports, nothing found).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dld_jupyter.report_format.io import ReportError, load_report, report_to_json
from dld_jupyter.reports.ort_trace import import_ort_trace
from dld_jupyter.reports.trtexec import import_trtexec
from tests.reports._factory import make_report

FUZZ = int(os.environ.get("DLD_FUZZ_EXAMPLES", "200"))
FOLDER = Path(tempfile.mkdtemp(prefix="dld-report-fuzz-"))
FUZZ_SETTINGS = settings(max_examples=FUZZ, deadline=None, suppress_health_check=list(HealthCheck))

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8), st.sampled_from(["1.5", "", "NaN", "\ud800", "=cmd"]),
)  # fmt: skip
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                     max_size=4), max_leaves=12)  # fmt: skip


def _write(name: str, data: object) -> Path:
    path = FOLDER / name
    try:
        text = json.dumps(data, allow_nan=True)
    except (ValueError, TypeError):
        text = repr(data)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def _accepted_is_valid(report: Any) -> None:
    text = report_to_json(report)  # validates: what was accepted must be a report we can save
    assert json.loads(text)["format"] == "dld-report"


def _paths(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []

    def walk(node: object, path: tuple[Any, ...]) -> None:
        found.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node[:3]):
                walk(value, (*path, index))

    walk(data, ())
    return found[1:]


BASE_REPORT: dict[str, Any] = json.loads(report_to_json(make_report(3)))
REPORT_PATHS = _paths(BASE_REPORT)


@FUZZ_SETTINGS
@given(st.lists(st.tuples(st.sampled_from(REPORT_PATHS), _json), min_size=1, max_size=3))
def test_fuzz_report_loader_with_changed_fields(changes: list[tuple[tuple[Any, ...], object]]) -> None:
    data = json.loads(json.dumps(BASE_REPORT))
    for path, value in changes:
        node = data
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    try:
        report = load_report(_write("r.json", data))
    except ReportError as error:
        assert str(error)
        return
    _accepted_is_valid(report)


@FUZZ_SETTINGS
@given(st.text(alphabet=st.sampled_from([*'{}[]",:0123456789.eE+-nulltrufaseNIy \\ud', "\ud800"]), max_size=80))
def test_fuzz_report_loader_with_json_like_text(text: str) -> None:
    path = FOLDER / "t.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        report = load_report(path)
    except ReportError:
        return
    _accepted_is_valid(report)


_record = st.fixed_dictionaries(
    {"name": st.one_of(st.text(max_size=6), _json)},
    optional={"averageMs": _json | st.floats(0, 10), "medianMs": _json | st.floats(0, 10), "timeMs": _json,
              "percentage": _json | st.floats(0, 100)},
)  # fmt: skip
_profile = st.lists(st.one_of(_record, st.fixed_dictionaries({"count": _json | st.integers(0, 5)}), _json), max_size=5)
_layers = st.one_of(_json, st.fixed_dictionaries({"Layers": st.lists(_json | st.fixed_dictionaries(
    {"Name": st.text(max_size=4)}, optional={"LayerType": _json, "Inputs": _json, "Outputs": _json,
                                            "Metadata": _json}), max_size=4)}))  # fmt: skip
_times = st.one_of(_json, st.lists(st.dictionaries(st.sampled_from(["latencyMs", "h2dMs", "d2hMs", "x"]), _json
                                                   | st.floats(0, 10), max_size=4), max_size=4))  # fmt: skip


@FUZZ_SETTINGS
@given(_profile, st.none() | _layers, st.none() | _times, st.none() | _json)
def test_fuzz_trtexec_import(profile: object, layers: object, times: object, metadata: object) -> None:
    kwargs: dict[str, Any] = {}
    if layers is not None:
        kwargs["layers"] = _write("m.layers.json", layers)
    if times is not None:
        kwargs["times"] = _write("m.times.json", times)
    if metadata is not None:
        kwargs["metadata"] = [_write("m.meta.json", metadata)]
    try:
        report = import_trtexec(_write("m.profile.json", profile), **kwargs)
    except ReportError as error:
        assert str(error)
        return
    _accepted_is_valid(report)


_event = st.fixed_dictionaries(
    {"cat": st.sampled_from(["Node", "Session", "x"]), "name": st.sampled_from(["model_run", "a_kernel_time", "b"])},
    optional={"ts": _json | st.floats(0, 100), "dur": _json | st.floats(0, 100), "tid": _json | st.integers(0, 3),
              "args": _json},
)  # fmt: skip


@FUZZ_SETTINGS
@given(st.lists(_event | _json, max_size=6))
def test_fuzz_ort_trace_import(events: list[object]) -> None:
    try:
        report = import_ort_trace(_write("trace.json", events))
    except ReportError as error:
        assert str(error)
        return
    _accepted_is_valid(report)
