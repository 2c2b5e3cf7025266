from __future__ import annotations

import json

import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.spec import known_kinds, spec_from_dict, spec_from_json


def test_defaults_and_report_path_next_to_model() -> None:
    spec = OrtProfileSpec(model="/data/net.onnx")
    assert spec.iterations == 100 and spec.provider == "cpu" and spec.optimize
    assert spec.uses_random_inputs
    assert spec.report_path() == "/data/net.dld-report.json"
    assert spec.ort_provider == "CPUExecutionProvider"


def test_json_round_trip_keeps_every_option() -> None:
    spec = OrtProfileSpec(
        model="m.onnx",
        iterations=7,
        warmup=0,
        provider="cuda",
        optimize=False,
        input_folder="in",
        batch_size=4,
        device=1,
        output="r.json",
        seed=3,
        threads=2,
        gpu_metrics=False,
        lock_clocks=True,
        sampling_ms=200.0,
    )
    text = spec.to_json()
    assert json.loads(text)["kind"] == "onnxruntime-profile"
    assert spec_from_json(text) == spec
    assert not spec.uses_random_inputs


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"iterations": 0}, "iterations"),
        ({"warmup": -1}, "warmup"),
        ({"provider": "dml"}, "provider"),
        ({"iterations": "10"}, "iterations: expected int"),
        ({"optimize": 1}, "optimize: expected bool"),
        ({"iterations": True}, "iterations: expected int"),
        ({"random_inputs": True, "input_folder": "x"}, "random_inputs off"),
        ({"random_inputs": False}, "input_folder"),
        ({"batch_size": 0}, "batch_size"),
        ({"device": -1}, "device"),
        ({"sampling_ms": 0}, "sampling_ms"),
        ({"bogus": 1}, "unknown option(s) ['bogus']"),
        ({"kind": "tensorrt-build"}, "kind"),
    ],
)
def test_bad_specs_say_which_option(data: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        OrtProfileSpec.from_dict({"model": "m.onnx", **data})


def test_bad_json_and_missing_model() -> None:
    with pytest.raises(SpecError, match="not valid JSON"):
        spec_from_json("{nope")
    with pytest.raises(SpecError, match="model"):
        spec_from_json("{}")
    with pytest.raises(SpecError, match="JSON object"):
        spec_from_json("[1]")


def test_spec_is_frozen() -> None:
    spec = OrtProfileSpec(model="m.onnx")
    with pytest.raises(AttributeError):
        spec.iterations = 3  # type: ignore[misc]


def test_resolved_makes_paths_absolute(tmp_path: object) -> None:
    resolved = OrtProfileSpec(model="m.onnx", input_folder="in").resolved()
    assert resolved.model.startswith("/") and resolved.input_folder and resolved.input_folder.startswith("/")
    assert resolved.output and resolved.output.endswith("m.dld-report.json")


def test_kinds_are_registered_and_dispatched() -> None:
    assert "onnxruntime-profile" in known_kinds()
    spec = OrtProfileSpec(model="m.onnx", iterations=3)
    assert spec_from_dict(spec.to_dict()) == spec
    assert spec_from_dict({"model": "m.onnx"}) == OrtProfileSpec(model="m.onnx")  # no kind: ONNX Runtime, as before


def test_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(SpecError, match=r"'openvino-profile' is not a known activity kind; known kinds are \["):
        spec_from_json('{"kind": "openvino-profile", "model": "m.onnx"}')
