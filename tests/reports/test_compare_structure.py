"""Reports of one network whose exports name their nodes differently pair their layers through the structure.

Ground truth (issue 41): real ONNX Runtime profiles (CPU) of the real MobileNetV3 export, of its FP16 conversion and
of a QDQ copy (onnxruntime.quantization) with every node renamed, each pairing checked against the known renaming;
the real trtexec FP16 and QAT builds of the TensorFlow ResNet-50 (tests/data/trt), paired through their engine
graphs without a model. Before, names paired none of these layers.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import save_report
from dld_jupyter.report_format.model import Report
from dld_jupyter.reports.compare import Comparison, compare
from dld_jupyter.reports.trtexec import import_trtexec

REAL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"
TRT = Path(__file__).resolve().parents[1] / "data" / "trt"
PLUMBING = {"QuantizeLinear", "DequantizeLinear", "Cast", "ReorderInput", "ReorderOutput"}


def _renamed(source: Path, target: Path, prefix: str) -> dict[str, str]:
    """`source` saved as `target` with node i named `<prefix>_i`; returns new name -> old name."""
    model = onnx.load(str(source))
    truth = {}
    for i, node in enumerate(model.graph.node):
        truth[f"{prefix}_{i}"] = node.name
        node.name = f"{prefix}_{i}"
    onnx.save(model, str(target))
    return truth


@pytest.fixture(scope="module")
def ort_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Report, dict[str, str]]]:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    import dld_jupyter as dld
    from dld_jupyter.transforms.fp16 import convert_to_fp16

    folder = tmp_path_factory.mktemp("structure")
    base = folder / "mobilenet.onnx"
    shutil.copy(REAL, base)
    convert_to_fp16(base, folder / "fp16.onnx", compare=False)
    fp16_truth = _renamed(folder / "fp16.onnx", folder / "fp16_renamed.onnx", "renamed")
    name = onnx.load(str(base)).graph.input[0].name
    rng = np.random.default_rng(0)

    class Calibration(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = 2

        def get_next(self) -> dict[str, np.ndarray] | None:
            self.left -= 1
            return {name: rng.random((1, 3, 96, 96), dtype=np.float32)} if self.left >= 0 else None

    quantize_static(str(base), str(folder / "qdq.onnx"), Calibration(), quant_format=QuantFormat.QDQ)
    qdq_truth = _renamed(folder / "qdq.onnx", folder / "qdq_renamed.onnx", "q")
    run = {"iterations": 3, "warmup": 1}
    return {
        "base": (dld.profile(str(base), **run), {}),
        "fp16": (dld.profile(str(folder / "fp16_renamed.onnx"), **run), fp16_truth),
        "qdq": (dld.profile(str(folder / "qdq_renamed.onnx"), **run), qdq_truth),
    }


def _check_ort(base: Report, other: Report, truth: dict[str, str]) -> tuple[int, int, Comparison]:
    """(compute layers of `base`, those paired by structure with a layer holding a node the renaming says is one
    of theirs); a pairing against the truth fails the test."""
    result = compare([base, other])
    total = paired = 0
    for row in result.layers:
        for pos in row.members[0]:
            layer = base.layers[pos]
            if layer.overhead or layer.type in PLUMBING or not layer.onnx_nodes:
                continue
            total += 1
            if not row.members[1]:
                continue
            theirs = {truth.get(n, n) for q in row.members[1] for n in other.layers[q].onnx_nodes}
            assert theirs & set(layer.onnx_nodes), (layer.name, [other.layers[q].name for q in row.members[1]])
            assert row.paired == "structure"
            paired += 1
    return total, paired, result


def test_fp16_copy_with_every_node_renamed_pairs_by_structure(ort_reports) -> None:
    (base, _), (fp16, truth) = ort_reports["base"], ort_reports["fp16"]
    assert not {n for layer in base.layers for n in layer.onnx_nodes} & {n for layer in fp16.layers for n in
                                                                           layer.onnx_nodes}
    total, paired, result = _check_ort(base, fp16, truth)
    assert total > 50 and paired >= 0.9 * total, (paired, total)
    assert not result.notes


def test_qdq_copy_with_every_node_renamed_pairs_by_structure(ort_reports) -> None:
    (base, _), (qdq, truth) = ort_reports["base"], ort_reports["qdq"]
    fused = [layer for layer in qdq.layers if layer.type == "QLinearConv"]
    assert fused and all(layer.onnx_nodes for layer in fused)  # `<Conv>_token_<n>` names its Conv
    total, paired, _ = _check_ort(base, qdq, truth)
    assert total > 50 and paired >= 0.9 * total, (paired, total)


def test_a_missing_model_is_said_and_names_pair_what_they_can(ort_reports, tmp_path: Path) -> None:
    (base, _), (fp16, _) = ort_reports["base"], ort_reports["fp16"]
    moved = Report.from_dict(fp16.to_dict())
    moved.summary.model_path = str(tmp_path / "gone.onnx")
    result = compare([base, moved], labels=["fp32", "fp16"])
    assert all(row.paired in ("name", "unpaired") for row in result.layers)
    assert result.notes == [f"fp16: layers paired by name only: fp16: its model {tmp_path / 'gone.onnx'} is not "
                            "there (pass it with --model / models=)"]
    given = compare([base, moved], structures=[None, fp16.summary.model_path])
    assert sum(row.paired == "structure" for row in given.layers) > 40 and not given.notes


KEY = re.compile(r"(conv\d_block\d+_\d|conv1|pool1|avg_pool|predictions)")


def _trt(build: str) -> Report:
    prefix = TRT / f"tf-resnet50-rtx3090-{build}.engine"
    return import_trtexec(f"{prefix}.profile.json", layers=f"{prefix}.graph.json")


def test_trt_fp16_and_qat_builds_pair_through_their_engine_graphs() -> None:
    fp16, qat = _trt("fp16"), _trt("qat")
    result = compare([fp16, qat])
    compute = paired = 0
    for row in result.layers:
        mine = [fp16.layers[p] for p in row.members[0] if not fp16.layers[p].overhead]
        theirs = {k for p in row.members[1] if not qat.layers[p].overhead for k in KEY.findall(qat.layers[p].name)}
        for layer in mine:
            if layer.type in ("Shuffle", "Padding"):
                continue
            compute += 1
            if theirs:
                assert set(KEY.findall(layer.name)) <= theirs, (layer.name, theirs)
                paired += 1
    assert (compute, paired) == (57, 57)
    assert sum(row.paired == "structure" for row in result.layers) >= 40


def test_cli_compare_says_how_rows_paired(tmp_path: Path, capsys: Callable[..., object]) -> None:
    paths = []
    for build in ("fp16", "qat"):
        paths.append(tmp_path / f"{build}.dld-report.json")
        save_report(_trt(build), paths[-1])
    assert main(["report", "compare", *map(str, paths), "--top", "3"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert re.search(r"rows paired: \d+ by name, (4\d|5\d) by structure", out) and "Paired" in out
    assert main(["report", "compare", *map(str, paths), "--structure", "-"]) == 2
    assert "1 --structure for 2 reports" in capsys.readouterr().err  # type: ignore[attr-defined]
