"""Divergence against ground truths made here: one weight changed at a known node, an identical and a renamed copy,
FP16 conversions of a BERT-sized encoder and of a real BERT export, Model Explorer node data, the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from dld_jupyter.cli.main import main
from dld_jupyter.model_compare.divergence import diverge
from dld_jupyter.model_compare.node_data import read_node_data, save_node_data, to_node_data
from dld_jupyter.transforms.fp16 import convert_proto
from tests import models
from tests.model_compare.test_structural_diff import renamed, with_weight

REAL = Path(__file__).parents[1] / "data" / "real"
FEEDS = {"input_ids": np.random.default_rng(0).integers(0, 128, (1, 16))}


def test_one_changed_weight_is_reported_first_and_nothing_before_it() -> None:
    model = models.transformer_like(layers=3)
    result = diverge(model, with_weight(model, "/layers.1/mlp/up.weight", 0.5), inputs=FEEDS, tolerance=0.0, window=16)
    first = result.first
    assert first is not None and first.node == "/layers.1/mlp/up/MatMul_57" and first.op_type == "MatMul"
    assert not any(row.over for row in result.rows if row.order < first.order)
    assert all(row.metrics.max_abs == 0.0 for row in result.rows if row.order < first.order)
    assert len(result.rows) == len(model.graph.node) and result.windows == math.ceil(len(model.graph.node) / 16)
    assert result.rows[-1].over and result.rows[-1].tensor == "logits"


def test_an_identical_copy_diverges_nowhere_and_a_renamed_one_pairs_by_structure() -> None:
    model = models.transformer_like(layers=2)
    same = diverge(model, model, inputs=FEEDS, tolerance=0.0)
    assert same.first is None and all(r.metrics.sqnr == math.inf for r in same.rows)
    moved = diverge(model, renamed(with_weight(model, "/layers.0/attn/v_proj.weight", 0.5)), inputs=FEEDS,
                    tolerance=0.0)
    assert not moved.unpaired_reference and not moved.unpaired_candidate
    assert moved.first is not None and moved.first.node == "/layers.0/attn/v_proj/MatMul_10"
    assert moved.first.candidate_node.startswith("node_MatMul_")


def test_fp16_of_a_bert_sized_encoder_gives_a_first_node_and_a_table_in_onnx_names() -> None:
    model = models.transformer_like(layers=2, hidden=768, heads=12, vocab=30522)
    fp16, _ = convert_proto(model, compare=False)
    feeds = {"input_ids": np.random.default_rng(1).integers(0, 30522, (1, 32))}
    result = diverge(model, fp16, inputs=feeds, metric="max_abs", tolerance=1e-3, window=40)
    names = {node.name for node in model.graph.node}
    assert result.first is not None and result.first.node in names
    assert {row.node for row in result.rows} == names and result.windows == math.ceil(len(names) / 40)
    assert all(row.metrics.nan == 0 and row.metrics.cosine > 0.999 for row in result.rows)
    worst = result.table(sort_by="max_abs")
    assert worst[0].metrics.max_abs == max(r.metrics.max_abs for r in result.rows)
    by_cosine = result.table(sort_by="cosine", descending=False)
    assert by_cosine[0].metrics.cosine == min(r.metrics.cosine for r in result.rows)
    assert 0 < result.largest_window_bytes < 40 * 32 * 3072 * 4 * 2


def test_fp16_of_a_real_bert_export() -> None:
    model = onnx.load(str(REAL / "bert_tiny.onnx"))
    fp16, _ = convert_proto(model, compare=False)
    result = diverge(model, fp16)
    names = {node.name for node in model.graph.node}
    assert result.rows and {row.node for row in result.rows} <= names
    # the attention mask's fill value (float32's lowest) has no float16 equal: the conversion clamps it
    assert result.first is not None and result.first.node == "/model/Constant_29"
    assert result.first.metrics.max_abs > 1e38
    assert len(result.rows) >= len(model.graph.node) - len(result.unpaired_reference)


def _check_model_explorer_schema(data: dict[str, object]) -> None:
    """Model Explorer's documented GraphNodeData (model_explorer/node_data_builder.py)."""
    assert set(data) <= {"results", "thresholds", "gradient", "hideInAggregatedStatsTable",
                         "hideInChildrenStatsTable", "hideAggregatedStats", "showExpandedSummaryOnGroupNode",
                         "showLabelCountColumnsInChildrenStatsTable"}
    results = data["results"]
    assert isinstance(results, dict) and results
    for key, result in results.items():
        assert isinstance(key, str) and isinstance(result, dict) and set(result) <= {"value", "bgColor", "textColor"}
        assert isinstance(result["value"], int | float) and math.isfinite(result["value"])
    gradient = data["gradient"]
    assert isinstance(gradient, list)
    stops = [item["stop"] for item in gradient]
    assert stops[0] == 0 and stops[-1] == 1 and stops == sorted(stops)
    assert all(set(item) <= {"stop", "bgColor", "textColor"} and item["bgColor"].startswith("#") for item in gradient)


def test_model_explorer_node_data_round_trip(tmp_path: Path) -> None:
    model = models.transformer_like(layers=2)
    result = diverge(model, with_weight(model, "/layers.1/mlp/up.weight", 0.5), inputs=FEEDS, tolerance=0.0)
    data = to_node_data(result)
    _check_model_explorer_schema(data)
    path = save_node_data(result, tmp_path / "divergence.json")
    values = read_node_data(path)
    assert values["/layers.1/mlp/up/MatMul_57"] == pytest.approx(result.by_node()["/layers.1/mlp/up/MatMul_57"]
                                                                  .metrics.max_abs)
    assert values["/embed/Gather_0"] == 0.0
    (tmp_path / "model.json").write_text(json.dumps({"main_graph": data}))  # ModelNodeData of one graph
    assert read_node_data(tmp_path / "model.json") == values


def test_cli_diverge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = models.transformer_like(layers=2)
    onnx.save(model, str(tmp_path / "ref.onnx"))
    onnx.save(with_weight(model, "/layers.1/mlp/up.weight", 0.5), str(tmp_path / "cand.onnx"))
    np.save(tmp_path / "ids.npy", FEEDS["input_ids"])
    onnx.save_tensor(numpy_helper.from_array(FEEDS["input_ids"]), str(tmp_path / "ids.pb"))
    ref, cand = str(tmp_path / "ref.onnx"), str(tmp_path / "cand.onnx")
    args = ["diverge", ref, cand, "--input", f"input_ids={tmp_path / 'ids.npy'}", "--tolerance", "0", "--json",
            "--node-data", str(tmp_path / "nd.json")]
    assert main(args) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["first"]["node"] == "/layers.1/mlp/up/MatMul_57" and len(data["rows"]) == len(model.graph.node)
    _check_model_explorer_schema(json.loads((tmp_path / "nd.json").read_text()))
    assert main(["diverge", ref, ref, "--input", f"input_ids={tmp_path / 'ids.pb'}", "--tolerance", "0"]) == 0
    assert capsys.readouterr().out.startswith(f"{len(model.graph.node)} tensors compared, none past max_abs 0")
    assert main(["diverge", ref, cand, "--candidate-provider", "cuda"]) in (0, 1, 3)
    with pytest.raises(SystemExit) as bad:
        main(["diverge", ref, cand, "--input", "input_ids"])
    assert bad.value.code == 2
    assert main(["diverge", ref, str(tmp_path / "missing.onnx")]) == 2


def test_the_package_front_door(tmp_path: Path) -> None:
    import dld_jupyter as dld

    model = models.transformer_like(layers=1)
    onnx.save(model, str(tmp_path / "m.onnx"))
    assert dld.diff(tmp_path / "m.onnx", model).identical
    assert dld.diverge(tmp_path / "m.onnx", model, inputs=FEEDS, tolerance=0.0).first is None


def test_the_comparison_operations_on_a_designer(tmp_path: Path) -> None:
    """dld:compare-with and dld:check-against-original, as the designer's toolbar buttons run them."""
    import dld_jupyter as dld
    from dld_jupyter.frontdoor.compare_runs import divergence_of
    from dld_jupyter.frontdoor.comparisons import CHECK_AGAINST_ORIGINAL, COMPARE_WITH

    model = models.transformer_like(layers=1)
    onnx.save(model, str(tmp_path / "old.onnx"))
    onnx.save(with_weight(model, "/layers.0/mlp/up.weight", 1.0), str(tmp_path / "new.onnx"))
    designer = dld.open(str(tmp_path / "new.onnx"))
    try:
        found = COMPARE_WITH(designer, path=str(tmp_path / "old.onnx"))
        assert found.headline() == "graph: 1 changed"  # type: ignore[attr-defined]
        with pytest.raises(ValueError, match="path box"):
            COMPARE_WITH(designer, path=" ")
        run = CHECK_AGAINST_ORIGINAL(designer, inputs=FEEDS, tolerance=0.0)  # a run on the designer's job
        assert designer.compare_job.wait(60)
        assert divergence_of(run).first is None  # type: ignore[arg-type]  # unedited: the saved file, the same model
        with pytest.raises(ValueError, match="Check against original"):
            CHECK_AGAINST_ORIGINAL(designer, candidate_provider="cuda")  # CPU-only onnxruntime here: exit-3 kind
    finally:
        designer.close()


def test_a_qdq_quantized_copy_pairs_every_original_node(tmp_path: Path) -> None:
    """onnxruntime's static QDQ quantization of the MatMuls: every node of the float model pairs, the candidate's
    only unpaired nodes are the QuantizeLinear/DequantizeLinear it inserted, and a first node past cosine 0.9999."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Calibration(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.feeds = iter([{"input_ids": np.random.default_rng(i).integers(0, 128, (1, 16))} for i in range(4)])

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.feeds, None)

    model = models.transformer_like(layers=2)
    onnx.save(model, str(tmp_path / "float.onnx"))
    quantize_static(str(tmp_path / "float.onnx"), str(tmp_path / "qdq.onnx"), Calibration(),
                    quant_format=QuantFormat.QDQ, op_types_to_quantize=["MatMul"], weight_type=QuantType.QInt8,
                    activation_type=QuantType.QInt8)
    inserted = {n.name for n in onnx.load(str(tmp_path / "qdq.onnx")).graph.node
                if n.op_type in ("QuantizeLinear", "DequantizeLinear")}
    result = diverge(tmp_path / "float.onnx", tmp_path / "qdq.onnx", inputs=FEEDS, metric="cosine", tolerance=0.9999)
    assert not result.unpaired_reference and set(result.unpaired_candidate) == inserted and inserted
    assert len(result.rows) == len(model.graph.node)
    assert result.first is not None and result.first.op_type in {"MatMul", "Add", "Reshape", "Transpose"}
