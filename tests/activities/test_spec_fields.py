"""Spec fields are checked against their dataclass annotations, for every spec kind and settings group: a wrong type
is a SpecError naming the field, its type and the value (`kernel_records="no"` was accepted and turned records on:
the hand-kept type table had no row for it)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from dld_jupyter.activities import ProfilerSettings, TrtBuildSpec, TrtProfileSpec, TrtSettings
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.kinds.analysis import OrtAnalysisSpec
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec, OrtSessionSpec
from dld_jupyter.activities.spec import spec_from_dict
from dld_jupyter.activities.spec_fields import check_fields, describe
from dld_jupyter.activities.sweep.grid import Settings

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kernel_records": "no"}, "kernel_records: expected bool, got 'no'"),
        ({"iterations": "5"}, "iterations: expected int, got '5'"),
        ({"batch_size": True}, "batch_size: expected int or null, got True"),
        ({"hide_non_compute": 1}, "hide_non_compute: expected bool, got 1"),
        ({"sampling_ms": "100"}, "sampling_ms: expected float, got '100'"),
        ({"source_document": 3}, "source_document: expected str or null, got 3"),
        ({"model": None}, "model: expected str, got None"),
    ],
)
def test_ort_profile_spec_refuses_wrong_types_naming_field_type_and_value(options: dict[str, Any],
                                                                          message: str) -> None:
    with pytest.raises(SpecError) as error:
        OrtProfileSpec(**{"model": "m.onnx", **options})
    assert str(error.value) == message
    with pytest.raises(SpecError, match="expected"):  # the same from JSON
        spec_from_dict({"kind": "onnxruntime-profile", "model": "m.onnx", **options})


def test_a_float_field_takes_an_int_from_json_and_bools_stay_bools() -> None:
    assert OrtProfileSpec(model="m.onnx", sampling_ms=200).sampling_ms == 200
    assert OrtProfileSpec(model="m.onnx", kernel_records=False).kernel_records is False


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TrtSettings(plugins=["a.so"]), "settings.plugins: expected tuple of str, got ['a.so']"),  # type: ignore[arg-type]
        (lambda: TrtSettings(plugins=("a.so", 3)), "settings.plugins: expected tuple of str, got ('a.so', 3)"),  # type: ignore[arg-type]
        (lambda: TrtSettings(workspace_mib=1.5), "settings.workspace_mib: expected int or null, got 1.5"),  # type: ignore[arg-type]
        (lambda: ProfilerSettings(lock_clocks="no"), "profiler.lock_clocks: expected bool, got 'no'"),  # type: ignore[arg-type]
        (lambda: TrtProfileSpec(model="m.onnx", settings={"fp16": True}),  # type: ignore[arg-type]
         "settings: expected TrtSettings, got {'fp16': True}"),
        (lambda: TrtProfileSpec(model="m.onnx", profiler=None),  # type: ignore[arg-type]
         "profiler: expected ProfilerSettings, got None"),
        (lambda: TrtBuildSpec(model="m.onnx", open_metadata="yes"), "open_metadata: expected bool, got 'yes'"),  # type: ignore[arg-type]
        (lambda: TrtBuildSpec(model="m.onnx", engine=7), "engine: expected str or null, got 7"),  # type: ignore[arg-type]
        (lambda: OrtSessionSpec(model="m.onnx", threads=2.0), "threads: expected int, got 2.0"),  # type: ignore[arg-type]
        (lambda: OrtAnalysisSpec(model="m.onnx", window=True), "window: expected int, got True"),
        (lambda: OrtAnalysisSpec(model="m.onnx", inputs=Path("x.npz")),  # type: ignore[arg-type]
         "inputs: expected str or null, got PosixPath('x.npz')"),
        (lambda: Settings(lock_clocks="no"), "lock_clocks: expected bool, got 'no'"),  # type: ignore[arg-type]
        (lambda: Settings(gpus=(0, "1")), "gpus: expected tuple of int or null, got (0, '1')"),  # type: ignore[arg-type]
    ],
)
def test_every_spec_kind_and_settings_group_is_checked_from_its_annotations(build: Any, message: str) -> None:
    with pytest.raises(SpecError) as error:
        build()
    assert str(error.value) == message


def test_a_new_field_is_checked_without_a_table_row() -> None:
    @dataclasses.dataclass(frozen=True)
    class Extended(OrtProfileSpec):
        fused: bool = False
        ratio: tuple[int, int] = (1, 2)

    with pytest.raises(SpecError, match=r"^fused: expected bool, got 'no'$"):
        Extended(model="m.onnx", fused="no")  # type: ignore[arg-type]
    with pytest.raises(SpecError, match=r"^ratio: expected tuple \(int, int\), got \(1, 2, 3\)$"):
        Extended(model="m.onnx", ratio=(1, 2, 3))  # type: ignore[arg-type]
    assert describe(int | None) == "int or null"
    check_fields(Extended(model="m.onnx"))


def test_no_hand_kept_type_table_is_left() -> None:
    """The tables the annotations replaced (a `{"field": (types…)}` dict, `_TYPES` keyed by annotation strings)."""
    offences = [str(path.relative_to(PACKAGE)) for path in sorted((PACKAGE / "activities").rglob("*.py"))
                if "_check_types" in path.read_text() or "_TYPES: dict[str, tuple[type" in path.read_text()]
    assert not offences, offences
