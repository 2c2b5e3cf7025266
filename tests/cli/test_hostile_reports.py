"""A generated corpus of hostile report, trtexec and ONNX Runtime trace files for `dld report`: each one is refused
with a clear message naming the file (never a traceback), exit code 2, and nothing written.

Reports go through `show` and the three exports (`csv`, `html`, `trace`); trtexec files through `import-trtexec`
(profile, layer information, times and metadata files each broken on their own); traces through `import-ort`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import report_to_json
from tests.reports._factory import make_report

SENTINEL = 123456.789  # a number put in a field, then replaced in the text by a hostile token
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1E+309", "9" * 400 + ".0")
WRONG_TYPES: tuple[object, ...] = ("x", [], {}, None, True)
Case = tuple[str, bytes]


def _report_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(report_to_json(make_report(4)))
    return data


def _set(data: Any, path: tuple[Any, ...], value: object) -> Any:
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def _text(data: object) -> bytes:
    return json.dumps(data).encode()


def _with_token(path: tuple[Any, ...], token: str) -> bytes:
    return _text(_set(_report_data(), path, SENTINEL)).replace(str(SENTINEL).encode(), token.encode())


def _nest(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def report_cases() -> list[Case]:
    cases: list[Case] = []
    numbers = [("summary", "median_ms"), ("layers", 0, "median_ms"), ("passes_ms", 0), ("timeline", 0, "start_ms"),
               ("gpu_metrics", 0, "values", 0)]  # fmt: skip
    for path in numbers:
        for token in NON_FINITE:
            cases.append((f"{'.'.join(map(str, path))}={token[:12]}", _with_token(path, token)))
    for path, token in [(("layers", 0, "index"), "1" + "0" * 30), (("summary", "passes"), "9" * 5000),
                        (("timeline", 0, "layer"), "-" + "9" * 25)]:  # fmt: skip
        cases.append((f"huge {'.'.join(map(str, path))}", _with_token(path, token)))
    for path in [("summary", "median_ms"), ("summary", "model"), ("layers",), ("layers", 0, "name"),
                 ("timeline", 0, "layer"), ("passes_ms",), ("format",), ("version",), ("summary",),
                 ("layers", 0, "input_dims")]:  # fmt: skip
        for value in WRONG_TYPES:
            if value == [] and path in (("layers",), ("passes_ms",), ("layers", 0, "input_dims")):
                continue  # an empty list is valid there
            if value == "x" and path in (("summary", "model"), ("layers", 0, "name")):
                continue  # and so is a string
            cases.append((f"{'.'.join(map(str, path))}={json.dumps(value)}", _text(_set(_report_data(), path, value))))
    for depth in (65, 300, 5_000, 100_000):
        cases.append((f"nested file {depth}", _nest(depth).encode()))
        cases.append((f"nested settings {depth}", _with_token(("summary", "settings", "x"), _nest(depth))))
    cases.append(("nested dims", _with_token(("layers", 0, "input_dims"), _nest(70))))
    good = _text(_report_data())
    for cut in range(0, len(good), max(1, len(good) // 12)):
        cases.append((f"truncated at {cut}", good[:cut]))
    cases += [
        ("not UTF-8", b'{"format": "dld-report", "x": "\xff\xfe"}'),
        ("BOM", b"\xef\xbb\xbf" + good),
        ("lone surrogate", good.replace(b'"net"', b'"\\ud800net"', 1)),
        ("null", b"null"),
        ("list", b"[]"),
        ("number", b"1"),
        ("string", b'"dld-report"'),
        ("other format", _text({"format": "nsys-report", "version": 1})),
        ("newer version", _text(_set(_report_data(), ("version",), 99))),
        ("timeline layer out of range", _text(_set(_report_data(), ("timeline", 0, "layer"), 99))),
        ("negative time", _text(_set(_report_data(), ("layers", 0, "median_ms"), -1))),
    ]
    return cases


def _profile() -> list[dict[str, Any]]:
    return [{"count": 3}, {"name": "conv1", "timeMs": 1.0, "averageMs": 0.5, "medianMs": 0.5, "percentage": 60.0},
            {"name": "relu1", "timeMs": 0.6, "averageMs": 0.3, "medianMs": 0.3, "percentage": 40.0}]  # fmt: skip


def _layer_info() -> dict[str, Any]:
    tensor = {"Name": "x", "Dimensions": [1, 3, 8, 8], "Format/Datatype": "Row major linear FP32"}
    return {"Layers": [{"Name": "conv1", "LayerType": "CaskConvolution", "Inputs": [dict(tensor)],
                        "Outputs": [dict(tensor)], "Metadata": "[ONNX Layer: conv1]"}, "relu1"]}  # fmt: skip


def _times() -> list[dict[str, Any]]:
    return [{"latencyMs": 1.0, "h2dMs": 0.1, "computeMs": 0.8, "d2hMs": 0.1}, {"latencyMs": 1.2}]


TrtCase = tuple[str, str, bytes]  # (label, which file is broken, its bytes)


def trtexec_cases() -> list[TrtCase]:
    cases: list[TrtCase] = []

    def profile(label: str, change: Callable[[list[Any]], object]) -> None:
        cases.append((label, "profile", _text(change(_profile()))))

    for value in ("abc", None, 1.5, True, -5, 0, [], {}, "1"):
        profile(f"count={json.dumps(value)}", lambda d, v=value: _set(d, (0, "count"), v))
    for value in (5, [], None, {}, True, ["conv1"]):
        profile(f"name={json.dumps(value)}", lambda d, v=value: _set(d, (1, "name"), v))
    for field in ("averageMs", "medianMs", "timeMs"):
        for value in ("x", "1.5", None, [], True, -1, {}):
            profile(f"{field}={json.dumps(value)}", lambda d, f=field, v=value: _set(d, (1, f), v))
    for value in ("x", [], None):
        profile(f"percentage={json.dumps(value)}", lambda d, v=value: _set(d, (1, "percentage"), v))
    profile("no time", lambda d: [d[0], {"name": "conv1", "percentage": 1.0}])
    profile("no count value", lambda d: [{"count": None}, *d[1:]])
    for shape in ({}, "str", 5, [[]], [1, 2], [{"count": 1}], [], None):
        profile(f"profile={json.dumps(shape)}", lambda d, s=shape: s)
    for token in NON_FINITE:
        text = _text(_set(_profile(), (1, "averageMs"), SENTINEL)).replace(str(SENTINEL).encode(), token.encode())
        cases.append((f"averageMs={token[:12]}", "profile", text))
    for depth in (65, 10_000):
        cases.append((f"nested profile {depth}", "profile", _nest(depth).encode()))
        cases.append((f"nested layers {depth}", "layers", _nest(depth).encode()))
        cases.append((f"nested times {depth}", "times", _nest(depth).encode()))

    def layers(label: str, path: tuple[Any, ...], value: object) -> None:
        cases.append((label, "layers", _text(_set(_layer_info(), path, value))))

    layers("Layers={}", ("Layers",), {})
    for value in (5, {"Name": 5}, {"LayerType": "x"}, None, []):
        layers(f"Layers[0]={json.dumps(value)}", ("Layers", 0), value)
    for field, value in [("LayerType", 5), ("Inputs", {}), ("Inputs", [5]), ("Outputs", "x"), ("Metadata", []),
                         ("Inputs", [{"Dimensions": 5}]), ("Inputs", [{"Dimensions": [True]}]),
                         ("Inputs", [{"Dimensions": [[1]]}]), ("Inputs", [{"Format/Datatype": 16}]),
                         ("Outputs", [{"Name": ["x"]}])]:  # fmt: skip
        layers(f"{field}={json.dumps(value)}", ("Layers", 0, field), value)

    def times(label: str, value: object) -> None:
        cases.append((label, "times", _text(value)))

    for value in ({"a": 1}, [], [5], [{}], [{"latencyMs": "x"}], [{"latencyMs": -1}], [{"latencyMs": None}],
                  [{"latencyMs": True}], [{"latencyMs": 1, "h2dMs": "a"}], [{"latencyMs": 1, "h2dMs": -2}],
                  [{"latencyMs": 1, "startEnqMs": []}]):  # fmt: skip
        times(f"times={json.dumps(value)}", value)

    for value in ([1], {"device_information": []}, {"build_options": "x"}, {"inference_options": 5}, "x"):
        cases.append((f"metadata={json.dumps(value)}", "metadata", _text(value)))
    return cases


def trace_cases() -> list[Case]:
    node = {"cat": "Node", "name": "conv_kernel_time", "ts": 10, "dur": 5, "tid": 1, "args": {"op_name": "Conv"}}
    run = {"cat": "Session", "name": "model_run", "ts": 0, "dur": 100}
    cases: list[Case] = []
    for field, value in [("ts", "x"), ("dur", -1), ("dur", None), ("tid", "main"), ("tid", 1.5), ("args", 5),
                         ("ts", True)]:  # fmt: skip
        cases.append((f"node {field}={json.dumps(value)}", _text([run, {**node, field: value}])))
    cases.append(("run dur=x", _text([{**run, "dur": "x"}, node])))
    cases.append(("run ts=[]", _text([{**run, "ts": []}, node])))
    cases.append(("nested trace", _nest(20_000).encode()))
    cases.append(("NaN ts", _text([run, {**node, "ts": SENTINEL}]).replace(str(SENTINEL).encode(), b"NaN")))
    return cases


REPORTS = report_cases()
TRTEXEC = trtexec_cases()
TRACES = trace_cases()


def test_corpus_size() -> None:
    assert len(REPORTS) * 4 + len(TRTEXEC) + len(TRACES) >= 300, (len(REPORTS), len(TRTEXEC), len(TRACES))


def _run(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str], named: Path) -> str:
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code = main(argv)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before, f"files written or changed: {text}"
    assert code == 2, text
    assert "Traceback" not in text and "internal error" not in text, text
    assert str(named) in text or named.name in text, text  # the message names the file
    return text


@pytest.mark.parametrize("command", ["show", "csv", "html", "trace"])
@pytest.mark.parametrize("label,data", REPORTS, ids=[c[0] for c in REPORTS])
def test_hostile_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, data: bytes, command: str
) -> None:
    path = tmp_path / "r.dld-report.json"
    path.write_bytes(data)
    out = ["-o", str(tmp_path / f"out.{command}")] if command != "show" else []
    _run(["report", command, str(path), *out], tmp_path, capsys, path)


@pytest.mark.parametrize("label,which,data", TRTEXEC, ids=[c[0] for c in TRTEXEC])
def test_hostile_trtexec_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, which: str, data: bytes
) -> None:
    files = {"profile": _text(_profile()), "layers": _text(_layer_info()), "times": _text(_times()),
             "metadata": _text({"device_information": {"Selected Device": "GPU"}})}  # fmt: skip
    files[which] = data
    paths = {key: tmp_path / f"m.{key}.json" for key in files}
    for key, content in files.items():
        paths[key].write_bytes(content)
    argv = ["report", "import-trtexec", str(paths["profile"]), "--layers", str(paths["layers"]), "--times",
            str(paths["times"]), "--metadata", str(paths["metadata"]), "-o", str(tmp_path / "out.json")]  # fmt: skip
    _run(argv, tmp_path, capsys, paths[which])


def test_the_unbroken_trtexec_files_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"profile": _profile(), "layers": _layer_info(), "times": _times()}
    for key, content in files.items():
        (tmp_path / f"m.{key}.json").write_bytes(_text(content))
    argv = ["report", "import-trtexec", str(tmp_path / "m.profile.json"), "--layers", str(tmp_path / "m.layers.json"),
            "--times", str(tmp_path / "m.times.json"), "-o", str(tmp_path / "out.json")]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr()
    for command in ("show", "csv", "html", "trace"):
        out = ["-o", str(tmp_path / f"out.{command}")] if command != "show" else []
        assert main(["report", command, str(tmp_path / "out.json"), *out]) == 0


@pytest.mark.parametrize("label,data", TRACES, ids=[c[0] for c in TRACES])
def test_hostile_ort_trace_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, data: bytes
) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(data)
    _run(["report", "import-ort", str(path), "-o", str(tmp_path / "out.json")], tmp_path, capsys, path)
