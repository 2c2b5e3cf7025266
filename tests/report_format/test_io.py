"""load_report / save_report: round trips, every bad-input message, atomic writes, schema agreement."""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dld_jupyter.report_format.io import ReportError, load_report, report_from_data, report_to_json, save_report
from dld_jupyter.report_format.model import KernelRecord, Layer, MetricSeries, Report, Summary, TimelineEvent
from dld_jupyter.report_format.validation import KEYWORDS, load_schema, validate
from tests.reports._factory import make_report


def write(tmp_path: Path, data: object, name: str = "r.dld-report.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def good() -> dict[str, Any]:
    return make_report(6).to_dict()


def test_round_trip(tmp_path: Path) -> None:
    report = make_report(30)
    path = save_report(report, tmp_path / "sub" / "a.dld-report.json")
    assert load_report(path) == report
    assert not list(path.parent.glob("*.tmp"))


def test_round_trip_keeps_why_nodes_were_removed(tmp_path: Path) -> None:
    """The canvas heat says why a node has no time: the reasons must survive the file (they were dropped)."""
    report = make_report(4)
    report.removed_nodes = ["Identity_0"]
    report.removed_reasons = {"Identity_0": "constant: computed from initializers only, folded before the first run"}
    assert load_report(save_report(report, tmp_path / "r.dld-report.json")).removed_reasons == report.removed_reasons


def test_schema_is_package_data() -> None:
    schema = resources.files("dld_jupyter.report_format").joinpath("schema").joinpath("dld-report.schema.json")
    text = schema.read_text()
    assert json.loads(text)["$schema"].endswith("2020-12/schema")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such report file"):
        load_report(tmp_path / "nope.json")


def test_folder(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="is a folder"):
        load_report(tmp_path)


def test_not_json(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"not JSON \(line 1, column 12\)"):
        load_report(write(tmp_path, '{"format": '))


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(ReportError, match="not a text file"):
        load_report(path)


def test_nan_is_refused(tmp_path: Path) -> None:
    text = json.dumps(good()).replace('"median_ms": 0', '"median_ms": NaN', 1)
    text = text.replace('"passes_ms": [', '"passes_ms": [NaN, ', 1)
    with pytest.raises(ReportError, match="NaN is not JSON"):
        load_report(write(tmp_path, text))


def test_not_an_object(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="a report is a JSON object, found a JSON list"):
        load_report(write(tmp_path, [1, 2]))


def test_wrong_format(tmp_path: Path) -> None:
    data = good()
    data["format"] = "nsys-report"
    with pytest.raises(ReportError, match=r'\$\.format is "nsys-report", expected "dld-report".*import-trtexec'):
        load_report(write(tmp_path, data))


def test_newer_version(tmp_path: Path) -> None:
    data = good()
    data["version"] = 99
    with pytest.raises(ReportError, match=r"version 99 is newer than this dld_jupyter reads \(up to 2\)\. Upgrade"):
        load_report(write(tmp_path, data))


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["summary"].pop("median_ms"), r"\$\.summary\.median_ms: is required but missing \(wall time"),
        (lambda d: d["summary"].update(passes="10"), r"\$\.summary\.passes: must be an integer, found string \"10\""),
        (lambda d: d["summary"].update(passes=True), r"\$\.summary\.passes: must be an integer, found boolean"),
        (lambda d: d["layers"][3].update(median_ms="1.2"), r"\$\.layers\[3\]\.median_ms: must be a number"),
        (lambda d: d["layers"][2].update(median_ms=-1), r"\$\.layers\[2\]\.median_ms: must be at least 0"),
        (lambda d: d["layers"][1].pop("name"), r"\$\.layers\[1\]\.name: is required but missing"),
        (lambda d: d["layers"][0].update(input_dims=[[1, 2.5]]), r"\$\.layers\[0\]\.input_dims\[0\]\[1\]: must be"),
        (lambda d: d.update(layers={}), r"\$\.layers: must be an array, found object"),
        (lambda d: d.pop("summary"), r"\$\.summary: is required but missing"),
        (lambda d: d["timeline"][0].update(layer=-2), r"\$\.timeline\[0\]\.layer: must be at least -1"),
        (lambda d: d["gpu_metrics"][0].update(values="x"), r"\$\.gpu_metrics\[0\]\.values: must be an array"),
        (lambda d: d["summary"].update(profiling_overhead_ms="a"), r"must be a number or null"),
        (lambda d: d.update(version="1"), r"\$\.version: must be an integer"),
        (lambda d: d["summary"].update(settings=[]), r"\$\.summary\.settings: must be an object"),
    ],
)
def test_field_errors_name_the_path_and_the_fix(tmp_path: Path, mutate: Any, expected: str) -> None:
    data = good()
    mutate(data)
    with pytest.raises(ReportError, match=expected) as info:
        load_report(write(tmp_path, data))
    assert "docs/report-format.md" in str(info.value)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["layers"][1].update(index=0), r"\$\.layers\[1\]\.index: repeats index 0 of \$\.layers\[0\]"),
        (lambda d: d["timeline"][0].update(layer=50), r"\$\.timeline\[0\]\.layer: is 50 but there are only 6"),
        (lambda d: d["gpu_metrics"][0].update(values=[1.0]), r"has 3 times_ms but 1 values"),
        (lambda d: d["summary"].update(median_pass_index=10), r"median_pass_index: is 10 but passes_ms has 10"),
    ],
)
def test_cross_references(tmp_path: Path, mutate: Any, expected: str) -> None:
    data = good()
    mutate(data)
    with pytest.raises(ReportError, match=expected):
        load_report(write(tmp_path, data))


def test_many_problems_are_capped() -> None:
    data = good()
    for layer in data["layers"]:
        layer.update(median_ms="x", mean_ms="y", min_ms="z", max_ms="w")
    with pytest.raises(ReportError, match="problems, first shown") as info:
        report_from_data(data)
    assert str(info.value).count("\n  - ") == 20


def test_unknown_fields_are_ignored() -> None:
    data = good()
    data["extra"] = 1
    data["summary"]["future_field"] = "x"
    data["layers"][0]["future"] = [1]
    assert report_from_data(data) == make_report(6)


def test_minimal_report_uses_defaults() -> None:
    summary = {
        "model": "m",
        "model_path": "",
        "backend": "onnxruntime",
        "provider": "CPUExecutionProvider",
        "device": "CPU",
        "median_ms": 1.0,
        "passes": 1,
    }
    report = report_from_data({"format": "dld-report", "version": 1, "summary": summary})
    assert report.layers == [] and report.summary.stable is True


def test_save_refuses_nan_and_invalid(tmp_path: Path) -> None:
    report = make_report(3)
    report.layers[1].median_ms = math.nan
    with pytest.raises(ReportError, match=r"\$\.layers\[1\]\.median_ms is nan"):
        save_report(report, tmp_path / "x.json")
    report = make_report(3)
    report.layers[0].index = 2
    with pytest.raises(ReportError, match="repeats index"):
        save_report(report, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_save_is_atomic_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_report(make_report(3), tmp_path / "a.json")
    before = path.read_bytes()

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("dld_jupyter.report_format.io.os.replace", broken)
    with pytest.raises(ReportError, match="No space left on device"):
        save_report(make_report(9), path)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


def test_schema_uses_only_the_keywords_the_validator_knows() -> None:
    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        walk(sub)
                else:
                    assert key in KEYWORDS, f"schema keyword {key!r} is not handled by report_format.validation"
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(load_schema())


def test_schema_documents_every_dataclass_field() -> None:
    import dataclasses

    defs = load_schema()["$defs"]
    for cls, name in (
        (Summary, "summary"),
        (Layer, "layer"),
        (TimelineEvent, "timelineEvent"),
        (MetricSeries, "metricSeries"),
        (KernelRecord, "kernelRecord"),
    ):
        assert {f.name for f in dataclasses.fields(cls)} == set(defs[name]["properties"]), name
    top = {f.name for f in dataclasses.fields(Report)}
    assert top == set(load_schema()["properties"])
    doc = (Path(__file__).resolve().parents[2] / "docs" / "report-format.md").read_text()
    for cls in (Summary, Layer, TimelineEvent, MetricSeries, KernelRecord, Report):
        for f in dataclasses.fields(cls):
            assert f"`{f.name}`" in doc, f"docs/report-format.md does not describe {cls.__name__}.{f.name}"


BAD_SAMPLES: list[Any] = [
    lambda d: d["summary"].pop("backend"),
    lambda d: d["summary"].update(stable="yes"),
    lambda d: d["layers"][0].update(stream=-1),
    lambda d: d["layers"][0].update(output_dims=[["N", None]]),
    lambda d: d.update(passes_ms=[1, "2"]),
    lambda d: d.update(removed_nodes=[3]),
    lambda d: d.update(system="linux"),
    lambda d: d.update(format="other"),
    lambda d: d["timeline"][0].pop("start_ms"),
    lambda d: d["gpu_metrics"][0].pop("unit"),
]


def test_jsonschema_agrees_with_our_validator() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    checker = jsonschema.Draft202012Validator(load_schema())
    jsonschema.Draft202012Validator.check_schema(load_schema())
    data = good()
    assert checker.is_valid(data) and not validate(data)
    for mutate in BAD_SAMPLES:
        data = good()
        mutate(data)
        assert not checker.is_valid(data), mutate
        assert validate(data), mutate


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
times = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
dims = st.lists(st.lists(st.one_of(st.integers(-1, 2**31), names), max_size=5), max_size=3)


@st.composite
def reports(draw: st.DrawFn) -> Report:
    n = draw(st.integers(0, 8))
    layers = [
        Layer(
            index=i,
            name=draw(names),
            type=draw(names),
            onnx_nodes=draw(st.lists(names, max_size=3)),
            input_dims=draw(dims),
            output_dims=draw(dims),
            precision=draw(names),
            provider=draw(names),
            stream=draw(st.integers(0, 4)),
            median_ms=draw(times),
            mean_ms=draw(times),
            min_ms=draw(times),
            max_ms=draw(times),
            percent=draw(times),
            overhead=draw(st.booleans()),
        )
        for i in range(n)
    ]
    passes = draw(st.lists(times, max_size=6))
    summary = Summary(
        model=draw(names),
        model_path=draw(names),
        backend=draw(names),
        provider=draw(names),
        device=draw(names),
        median_ms=draw(times),
        passes=len(passes),
        median_pass_index=draw(st.integers(0, max(len(passes) - 1, 0))),
        stable=draw(st.booleans()),
        profiling_overhead_ms=draw(st.none() | times),
        device_memory_bytes=draw(st.none() | st.integers(0, 2**40)),
        settings=draw(st.dictionaries(names, st.integers(-(2**63), 2**64 - 1) | names, max_size=3)),  # 20 digits
    )
    timeline = [
        TimelineEvent(
            draw(st.integers(-1, n - 1)),
            draw(names),
            draw(st.integers(0, 3)),
            draw(times),
            draw(times),
            draw(st.booleans()),
        )
        for _ in range(draw(st.integers(0, 5)))
    ]
    k = draw(st.integers(0, 4))
    metrics = [
        MetricSeries(
            draw(names),
            draw(names),
            draw(names),
            draw(st.lists(times, min_size=k, max_size=k)),
            draw(st.lists(times, min_size=k, max_size=k)),
        )
    ]
    return Report(
        summary=summary,
        passes_ms=passes,
        layers=layers,
        timeline=timeline,
        gpu_metrics=metrics,
        system=draw(st.dictionaries(names, names, max_size=3)),
        removed_nodes=draw(st.lists(names, max_size=3)),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(report=reports())
def test_hypothesis_round_trip(tmp_path: Path, report: Report) -> None:
    path = save_report(report, tmp_path / "h.dld-report.json")
    assert load_report(path) == report
    assert report_from_data(json.loads(report_to_json(report))) == report


def test_a_number_the_reader_refuses_is_never_written(tmp_path: Path) -> None:
    """Saving checks the text against the reader's own limits: a 21-digit setting used to save, then fail to load."""
    report = Report(summary=Summary("m", "", "onnxruntime", "CPUExecutionProvider", "CPU", 1.0, 1))
    report.summary.settings["seed"] = 10**20
    with pytest.raises(ReportError, match="21 digits"):
        save_report(report, tmp_path / "big.dld-report.json")
    assert not list(tmp_path.iterdir())


def test_fast_check_defers_unusual_types_to_the_interpreter() -> None:
    import numpy as np

    from dld_jupyter.report_format.validation import is_valid_fast

    data = good()
    assert is_valid_fast(data)
    data["passes_ms"] = [np.float64(1.5)]  # a float subclass: fine for JSON, not an exact type
    assert not is_valid_fast(data) and validate(data) == []
    for mutate in BAD_SAMPLES:
        bad = good()
        mutate(bad)
        assert not is_valid_fast(bad)
