"""Model inputs of an analysis on real exports: presets from the input's shape and dtype, images, NPY checks."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dld_jupyter.activities.analysis.inputs import (
    IMAGENET_MEAN,
    IMAGENET_STD,
    InputSource,
    InputSpec,
    image_presets,
    load_inputs,
    model_input_specs,
    thumbnail,
)
from dld_jupyter.activities.errors import SpecError, UnavailableError

REAL = Path(__file__).resolve().parents[2] / "data" / "real"


def _png(path: Path, width: int = 120, height: int = 80) -> Path:
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    pixels[..., 0] = 255  # pure red
    pixels[:, : width // 2, 2] = 255  # left half magenta
    Image.fromarray(pixels).save(path)
    return path


def test_presets_follow_shape_and_dtype_of_real_inputs() -> None:
    [image] = model_input_specs(REAL / "mobilenet_v3_small_w05.onnx")
    presets = image_presets(image)
    assert list(presets) == ["imagenet", "unit", "raw"]
    assert (presets["imagenet"].layout, presets["imagenet"].height, presets["imagenet"].width) == ("NCHW", 96, 96)
    assert presets["imagenet"].mean == IMAGENET_MEAN
    ids, _mask = model_input_specs(REAL / "bert_tiny.onnx")
    assert image_presets(ids) == {}  # token ids are no image
    assert list(image_presets(InputSpec("u8", np.dtype(np.uint8), (1, 64, 64, 3)))) == ["raw"]


def test_png_becomes_normalized_nchw_tensor(tmp_path: Path) -> None:
    [spec] = model_input_specs(REAL / "mobilenet_v3_small_w05.onnx")
    tensor = InputSource.of(str(_png(tmp_path / "cat.png"))).load(spec)
    assert tensor.shape == (1, 3, 96, 96) and tensor.dtype == np.float32
    red = (1.0 - IMAGENET_MEAN[0]) / IMAGENET_STD[0]
    green = (0.0 - IMAGENET_MEAN[1]) / IMAGENET_STD[1]
    assert np.allclose(tensor[0, 0], red, atol=1e-5) and np.allclose(tensor[0, 1], green, atol=1e-5)
    blue = tensor[0, 2]  # crop keeps the centre: left columns magenta, right columns red
    assert blue[:, 0].mean() > blue[:, -1].mean()
    bgr = InputSource(
        "image",
        path=str(tmp_path / "cat.png"),
        preset=image_presets(spec)["raw"].replace(channels="BGR", layout="NCHW", resize="stretch"),
    )
    raw = bgr.load(spec)
    assert np.allclose(raw[0, 2], 255.0) and np.allclose(raw[0, 1], 0.0)  # red went last


def test_npy_is_checked_for_dtype_and_shape(tmp_path: Path) -> None:
    ids, _mask = model_input_specs(REAL / "bert_tiny.onnx")
    good = tmp_path / "ids.npy"
    np.save(good, np.arange(8, dtype=np.int64).reshape(1, 8))
    assert np.array_equal(InputSource.of(good).load(ids), np.arange(8).reshape(1, 8))
    np.save(tmp_path / "f.npy", np.zeros((1, 8), dtype=np.float32))
    with pytest.raises(SpecError, match=r"float32 data but input 'input_ids' expects int64.*astype"):
        InputSource.of(tmp_path / "f.npy").load(ids)
    [image] = model_input_specs(REAL / "mobilenet_v3_small_w05.onnx")
    np.save(tmp_path / "s.npy", np.zeros((1, 3, 64, 64), dtype=np.float32))
    with pytest.raises(SpecError, match=r"shape \[1, 3, 64, 64\] does not fit input 'input' \[\?, 3, 96, 96\]"):
        InputSource.of(tmp_path / "s.npy").load(image)


def test_load_inputs_random_zeros_and_unknown_names() -> None:
    specs = model_input_specs(REAL / "gru_scripted.onnx")
    feeds = load_inputs(specs, {"h0": "zeros"})
    assert set(feeds) == {"x", "mask", "h0"} and feeds["x"].shape == (1, 1, 8) and not feeds["h0"].any()
    assert np.array_equal(load_inputs(specs)["x"], load_inputs(specs)["x"])  # seeded
    with pytest.raises(SpecError, match=r"\['images'\] are not inputs of the model; its inputs are"):
        load_inputs(specs, {"images": "zeros"})
    with pytest.raises(SpecError, match="no such file"):
        InputSource.of("missing.png")
    with pytest.raises(SpecError, match=r"not an \.npy, an image"):
        InputSource.of("notes.txt")


def test_thumbnail_of_an_npy_image() -> None:
    data = np.zeros((1, 3, 4, 5), dtype=np.float32)
    data[0, 1] = 2.0
    pixels = thumbnail(data)
    assert pixels is not None and pixels.shape == (4, 5, 3) and pixels.dtype == np.uint8
    assert (pixels[..., 1] == 255).all() and (pixels[..., 0] == 0).all()
    assert thumbnail(np.zeros((1, 8), dtype=np.int64)) is None


def test_video_without_a_reader_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\0" * 64)
    monkeypatch.setitem(sys.modules, "imageio.v3", None)  # no video reader installed: its import fails
    monkeypatch.setitem(sys.modules, "imageio", None)
    [spec] = model_input_specs(REAL / "mobilenet_v3_small_w05.onnx")
    source = InputSource.of(clip)
    assert source.kind == "video" and source.describe() == "clip.mp4 frame 0"
    with pytest.raises(UnavailableError, match=r"needs a video reader: pip install 'imageio\[pyav\]'"):
        source.load(spec)
