"""The Channel Inspector's kernel half on real tensors (a MobileNetV3 export's weights and its ORT output): how a
tensor of each rank is tiled, what crosses the wire (float32 while small, uint8 with step and offset above, the
first whole tiles of a huge one), the statistics (NaN/Inf counted apart), the default colour mapping, Reset, and
the title kept as text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

from dld_jupyter.widgets.analysis import channel_tiles
from dld_jupyter.widgets.analysis.channel_inspector import ChannelInspector
from dld_jupyter.widgets.analysis.channel_tiles import decode, default_mapping, describe, encode, layout_of, stats_of

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def test_layouts_of_every_rank() -> None:
    assert layout_of(()) == channel_tiles.TileLayout("strips", 1, 1, 1, 1)
    assert layout_of((7,)) == channel_tiles.TileLayout("strips", 1, 1, 1, 7)
    assert layout_of((2, 1000)) == channel_tiles.TileLayout("strips", 2, 1, 1, 1000)
    assert layout_of((3, 4, 5)) == channel_tiles.TileLayout("tiles", 1, 3, 4, 5)
    assert layout_of((1, 512, 28, 28)) == channel_tiles.TileLayout("tiles", 1, 512, 28, 28)
    assert layout_of((2, 3, 4, 5, 6)) == channel_tiles.TileLayout("tiles", 6, 4, 5, 6)


def test_stats_count_nan_and_inf_apart() -> None:
    values = np.array([1.0, -3.0, np.nan, np.inf, -np.inf, 2.0], dtype=np.float32)
    stats = stats_of(values)
    assert (stats.count, stats.nan, stats.inf) == (6, 1, 2)
    assert (stats.minimum, stats.maximum) == (-3.0, 2.0)
    assert stats.mean == pytest.approx(0.0)
    assert stats_of(np.array([True, False])).maximum == 1.0
    assert stats_of(np.arange(5, dtype=np.int64)).mean == 2.0
    empty = stats_of(np.array([np.nan], dtype=np.float32))
    assert empty.minimum is None and default_mapping(empty) == (0.0, 1.0)
    assert default_mapping(stats) == (0.0, pytest.approx(1 / 3))
    assert default_mapping(stats_of(np.zeros(3))) == (0.0, 1.0)


def test_small_tensors_travel_as_float32_exactly() -> None:
    weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(MODEL)).graph.initializer}
    conv = next(v for v in weights.values() if v.ndim == 4 and v.shape[1] > 1)
    meta, data = describe(conv)
    assert meta["layout"]["kind"] == "tiles" and meta["tiles"] == conv.shape[0] * conv.shape[1]
    assert meta["encoding"]["dtype"] == "float32"
    assert np.array_equal(np.frombuffer(data, np.float32), conv.reshape(-1).astype(np.float32))


def test_a_large_map_travels_as_uint8_within_half_a_step() -> None:
    rng = np.random.default_rng(0)
    values = rng.standard_normal((1, 512, 28, 28)).astype(np.float32)
    values[0, 3, 4, 5] = np.nan
    layout = layout_of(values.shape)
    encoded = encode(values, layout, stats_of(values))
    assert encoded.dtype == "uint8" and len(encoded.data) == 512 * 28 * 28  # 401 KB instead of 1.6 MB
    back = decode(encoded).reshape(values.shape)
    finite = np.isfinite(values)
    assert np.isnan(back[0, 3, 4, 5])
    assert np.abs(back[finite] - values[finite]).max() <= encoded.step / 2 + 1e-6


def test_a_huge_tensor_shows_its_first_whole_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(channel_tiles, "ELEMENT_LIMIT", 100)
    meta, data = describe(np.ones((1, 10, 4, 5), dtype=np.float32))
    assert (meta["shown"], meta["tiles"]) == (5, 10)  # 5 whole tiles of 20 values fit 100
    assert len(data) == 5 * 20 * 4


def test_widget_shows_real_output_and_resets() -> None:
    session = ort.InferenceSession(str(MODEL), providers=["CPUExecutionProvider"])
    feed = {
        i.name: np.random.default_rng(1).random([d if isinstance(d, int) else 1 for d in i.shape], dtype=np.float32)
        for i in session.get_inputs()
    }
    (logits,) = session.run(None, feed)[:1]
    inspector = ChannelInspector(logits, title="<img src=x onerror=alert(1)> output")
    assert inspector.meta["layout"]["kind"] == "strips" and inspector.meta["shape"] == list(logits.shape)
    assert inspector.title == "<img src=x onerror=alert(1)> output"  # drawn with textContent by the page
    assert inspector.scale == pytest.approx(1 / np.abs(logits).max(), rel=1e-6)
    inspector.shift, inspector.scale = 0.5, 3.0
    inspector.reset()
    assert (inspector.shift, inspector.scale) == (0.0, pytest.approx(1 / np.abs(logits).max(), rel=1e-6))
    inspector.clear("Select a node")
    assert inspector.data == b"" and inspector.message == "Select a node"


def test_widget_refuses_unknown_keywords() -> None:
    with pytest.raises(TypeError, match="did you mean 'height'"):
        ChannelInspector(heigth="200px")
