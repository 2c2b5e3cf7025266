"""Lossless round trip: open -> save gives a semantically identical model (ONNX's own backend test models)."""

from __future__ import annotations

import pathlib
import warnings

import onnx
import pytest

from dld_jupyter.document import Document
from tests import models
from tests.document.support import canonical

DATA = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data"
DATA_SETS = ("light", "pytorch-converted", "pytorch-operator", "simple")


def _round_trip(proto: onnx.ModelProto, folder: pathlib.Path) -> bytes:
    src, dst = folder / "src.onnx", folder / "dst.onnx"
    onnx.save(proto, src)
    Document.open(src).save(dst)
    return bytes(canonical(onnx.load(dst)))


def test_backend_node_models_round_trip(tmp_path: pathlib.Path) -> None:
    from onnx.backend.test import loader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = loader.load_node_model_tests()
    assert len(cases) > 1800
    failed = [case.name for case in cases if _round_trip(case.model, tmp_path) != canonical(case.model)]
    assert failed == [], f"{len(failed)} of {len(cases)} differ: {failed[:10]}"
    print(f"\nround-tripped {len(cases)} backend node test models")


def _data_files() -> list[pathlib.Path]:
    return sorted(p for name in DATA_SETS if (DATA / name).is_dir() for p in (DATA / name).rglob("*.onnx"))


def test_backend_data_files_round_trip(tmp_path: pathlib.Path) -> None:
    files = _data_files()
    if not files:
        pytest.skip("this onnx wheel ships no backend data files")
    failed = []
    for path in files:
        proto = onnx.load(path)
        if _round_trip(proto, tmp_path) != canonical(proto):
            failed.append(str(path.relative_to(DATA)))
    assert failed == [], failed
    print(f"\nround-tripped {len(files)} backend data files")


@pytest.mark.parametrize(
    "build", [models.resnet_like, models.transformer_like, lambda: models.generated_graph(500)]
)
def test_architectures_round_trip_and_check(tmp_path: pathlib.Path, build: object) -> None:
    proto = build()  # type: ignore[operator]
    assert _round_trip(proto, tmp_path) == canonical(proto)
    doc = Document.open(tmp_path / "dst.onnx")
    errors = [d for d in doc.check() if d.severity == "error"]
    assert errors == []
    assert doc.inferred  # shapes for the edge labels
