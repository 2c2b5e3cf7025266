from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.onnxruntime.inputs import concrete_shape, folder_feeds, model_inputs, random_feeds


def _graph() -> object:
    return helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H"]),
            helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", 8]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [3]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.zeros(3, np.float32), "w")],
    )


def test_initializer_inputs_need_no_data() -> None:
    assert [v.name for v in model_inputs(_graph())] == ["x", "ids"]  # type: ignore[arg-type]


def test_free_dims_are_one_and_batch_fills_a_single_leading_wildcard() -> None:
    x, ids = model_inputs(_graph())  # type: ignore[arg-type]
    assert concrete_shape(x, None) == [1, 3, 1]
    assert concrete_shape(x, 8) == [1, 3, 1]  # two wildcards: no inferred batch
    assert concrete_shape(ids, 8) == [8, 8]
    assert concrete_shape(ids, None) == [1, 8]


def test_random_feeds_are_seeded_and_typed() -> None:
    a = random_feeds(_graph(), 2, seed=1)  # type: ignore[arg-type]
    b = random_feeds(_graph(), 2, seed=1)  # type: ignore[arg-type]
    assert a["x"].dtype == np.float32 and a["ids"].dtype == np.int64 and a["ids"].shape == (2, 8)
    assert np.array_equal(a["x"], b["x"])


def _write(folder: Path, name: str, array: np.ndarray) -> None:
    (folder / f"{name}.pb").write_bytes(numpy_helper.from_array(array, name).SerializeToString())


def test_folder_feeds_read_one_pb_per_input(tmp_path: Path) -> None:
    _write(tmp_path, "x", np.ones((2, 3, 5), np.float32))
    _write(tmp_path, "ids", np.arange(8, dtype=np.int64).reshape(1, 8))
    feeds = folder_feeds(_graph(), str(tmp_path))  # type: ignore[arg-type]
    assert feeds["x"].shape == (2, 3, 5) and feeds["ids"][0, 7] == 7


def test_folder_errors_name_the_file(tmp_path: Path) -> None:
    _write(tmp_path, "x", np.ones((1, 3, 1), np.float32))
    with pytest.raises(SpecError, match=r"lacks ids\.pb"):
        folder_feeds(_graph(), str(tmp_path))  # type: ignore[arg-type]
    _write(tmp_path, "ids", np.ones((1, 8), np.int32))
    with pytest.raises(SpecError, match="int32 data but input 'ids' expects int64"):
        folder_feeds(_graph(), str(tmp_path))  # type: ignore[arg-type]
    _write(tmp_path, "ids", np.ones((1, 9), np.int64))
    with pytest.raises(SpecError, match="does not fit input 'ids'"):
        folder_feeds(_graph(), str(tmp_path))  # type: ignore[arg-type]
    (tmp_path / "ids.pb").write_bytes(b"\xff\xff garbage")
    with pytest.raises(SpecError, match="not a readable ONNX TensorProto"):
        folder_feeds(_graph(), str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="not a directory"):
        folder_feeds(_graph(), str(tmp_path / "none"))  # type: ignore[arg-type]


def test_one_random_rule_for_profile_analysis_and_divergence() -> None:
    """A profile (random_feeds), an analysis or `dld run` (load_inputs) and a divergence (default_feeds) of one model
    see the same random inputs for one seed: each input from its own generator (seed + its position), so the second
    and third inputs of the real scripted GRU export are the same everywhere (one generator across inputs gave them
other values in a profile than in an analysis)."""
    import onnx_ir as ir

    from dld_jupyter.activities.analysis.inputs import load_inputs, model_input_specs
    from dld_jupyter.model_compare.divergence import default_feeds

    path = Path(__file__).resolve().parents[1] / "data" / "real" / "gru_scripted.onnx"
    profile = random_feeds(onnx.load(str(path), load_external_data=False).graph, None, 7)
    analysis = load_inputs(model_input_specs(path), seed=7)
    divergence = default_feeds(ir.load(path), seed=7)
    assert len(profile) == 3 and list(profile) == list(analysis) == list(divergence)
    for name, array in profile.items():
        assert array.dtype == analysis[name].dtype == divergence[name].dtype
        assert np.array_equal(array, analysis[name]) and np.array_equal(array, divergence[name]), name
