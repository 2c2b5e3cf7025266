"""The Analysis Output's readings on real ORT outputs: MobileNetV3's logits as a top-5 table (softmax applied and
equal to a softmax computed here), probabilities kept as they are, an image tensor (NCHW in [0, 1], HWC in [0, 255],
a normalised one stretched) as RGBA pixels, BERT's hidden states as statistics with a histogram; names kept as data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from dld_jupyter.widgets.analysis.output_kinds import histogram, image_planes, read_output, to_rgba
from dld_jupyter.widgets.analysis.output_view import AnalysisOutput

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def run(model: str, feed_of: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(str(REAL / model), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feed_of), strict=True))


def test_logits_read_as_a_top_k_table() -> None:
    image = np.random.default_rng(0).random((1, 3, 96, 96), dtype=np.float32)
    session = ort.InferenceSession(str(REAL / "mobilenet_v3_small_w05.onnx"), providers=["CPUExecutionProvider"])
    outputs = run("mobilenet_v3_small_w05.onnx", {session.get_inputs()[0].name: image})
    name, logits = next(iter(outputs.items()))
    entry, pixels = read_output(name, logits)
    assert entry["kind"] == "classes" and entry["softmax"] and pixels == b""
    row = logits[0].astype(np.float64)  # this export's logits differ by ~1e-8: ranked in float64 as the view does
    probs = np.exp(row - row.max())
    probs /= probs.sum()
    best = np.argsort(-probs, kind="stable")[:5]
    assert [r["index"] for r in entry["rows"][0]] == best.tolist()
    assert [r["probability"] for r in entry["rows"][0]] == pytest.approx(probs[best].tolist(), rel=1e-5)
    kept, _ = read_output("p", probs[None])
    assert not kept["softmax"] and kept["rows"][0][0]["probability"] == pytest.approx(float(probs[best[0]]))


def test_images_read_as_pixels() -> None:
    nchw = np.random.default_rng(1).random((2, 3, 16, 12), dtype=np.float32)
    entry, pixels = read_output("denoised", nchw)
    assert entry["kind"] == "image" and (entry["images"], entry["height"], entry["width"]) == (2, 16, 12)
    rgba = np.frombuffer(pixels, np.uint8).reshape(2, 16, 12, 4)
    assert np.array_equal(rgba[..., :3], np.clip(np.moveaxis(nchw, 1, -1) * 255, 0, 255).astype(np.uint8))
    hwc = (np.arange(16 * 16 * 3) % 256).reshape(16, 16, 3).astype(np.float32)
    planes = image_planes(hwc)
    assert planes is not None and np.array_equal(to_rgba(planes)[0, ..., :3], hwc)
    normalised = image_planes(np.linspace(-2, 2, 3 * 8 * 8, dtype=np.float32).reshape(1, 3, 8, 8))
    assert normalised is not None
    stretched = to_rgba(normalised)
    assert stretched[..., :3].min() == 0 and stretched[..., :3].max() == 255
    assert read_output("small", np.zeros((1, 3, 4, 4), np.float32))[0]["kind"] == "stats"  # too small to be a picture


def test_other_tensors_read_as_statistics_and_histogram() -> None:
    session = ort.InferenceSession(str(REAL / "bert_tiny.onnx"), providers=["CPUExecutionProvider"])
    feed = {
        i.name: np.ones([d if isinstance(d, int) else 8 for d in i.shape], dtype=np.int64) for i in session.get_inputs()
    }
    hidden = next(v for v in run("bert_tiny.onnx", feed).values() if v.ndim == 3)
    entry, _ = read_output("last_hidden_state", hidden)
    assert entry["kind"] == "stats" and entry["stats"]["count"] == hidden.size
    assert sum(entry["histogram"]["counts"]) == hidden.size
    assert entry["stats"]["mean"] == pytest.approx(float(hidden.astype(np.float64).mean()))
    with_nan = np.array([1.0, np.nan, 3.0], dtype=np.float32)
    assert sum(histogram(with_nan)["counts"]) == 2 and histogram(np.array([np.nan]))["counts"] == []


def test_widget_concatenates_image_pixels_and_keeps_names_as_data() -> None:
    view = AnalysisOutput({"<b>a</b>": np.zeros((1, 3, 8, 8)), "b": np.ones((1, 1, 9, 9)), "c": np.arange(3.0)}, "done")
    a, b, c = view.outputs
    assert a["name"] == "<b>a</b>" and (a["offset"], b["offset"]) == (0, 8 * 8 * 4)
    assert len(view.pixels) == 8 * 8 * 4 + 9 * 9 * 4 and c["kind"] == "classes"
    view.clear("stopped")
    assert view.outputs == [] and view.message == "stopped"
