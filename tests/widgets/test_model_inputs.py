"""The Model Inputs window's kernel half on real exports: a PNG fed to MobileNetV3's image input (thumbnail, the
default preset visible, a preset edit from the page changing the tensor as inputs.py computes it), an NPY that is an
image shown as one, a wrong dtype said next to the input (and refused by tensors()), BERT's integer inputs as
zeros/random with a statistics line and no thumbnail, and a video chosen without a reader saying what to install."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from dld_jupyter.activities.analysis.inputs import image_tensor, model_input_specs
from dld_jupyter.activities.analysis.media import read_image
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.widgets.analysis import model_inputs
from dld_jupyter.widgets.analysis.model_inputs import ModelInputs, preset_from

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def page_says(widget: ModelInputs, message: dict[str, Any]) -> None:
    widget._on_msg(widget, message, [])  # what a message from the page runs in the kernel


def picture(path: Path) -> Path:
    y, x = np.mgrid[0:120, 0:160]
    Image.fromarray(np.stack([x * 255 // 160, y * 255 // 120, np.full_like(x, 90)], -1).astype(np.uint8)).save(path)
    return path


def test_a_png_feeds_the_image_input_with_editable_presets(tmp_path: Path) -> None:
    widget = ModelInputs(model_input_specs(REAL / "mobilenet_v3_small_w05.onnx"))
    changes: list[dict[str, Any]] = []
    widget.on_change(changes.append)
    (name,) = widget.specs
    png = picture(tmp_path / "cat <b>.png")
    page_says(widget, {"kind": "source", "input": name, "source": "image", "path": str(png)})
    (entry,) = widget.inputs
    assert entry["error"] == "" and entry["kind"] == "image" and entry["label"] == "cat <b>.png"
    assert entry["preset"]["name"] == "imagenet" and (entry["preset"]["height"], entry["preset"]["width"]) == (96, 96)
    assert set(entry["presets"]) == {"imagenet", "unit", "raw"}
    assert entry["thumb"]["height"] == 96 and len(widget.thumbs) == 96 * 96 * 4
    fields = {**entry["presets"]["unit"], "channels": "BGR", "resize": "stretch"}
    page_says(widget, {"kind": "preset", "input": name, "fields": fields})
    expected = image_tensor(read_image(str(png)), preset_from(fields), np.float32)
    assert np.array_equal(widget.tensors()[name], expected) and widget.inputs[0]["preset"]["channels"] == "BGR"
    assert len(changes) == 2 and changes[-1][name].preset == preset_from(fields)
    page_says(widget, {"kind": "preset", "input": name, "fields": {**fields, "std": [0, 1, 1]}})
    assert "no std may be 0" in widget.inputs[0]["error"]


def test_an_npy_image_shows_as_one_and_a_wrong_dtype_is_said(tmp_path: Path) -> None:
    widget = ModelInputs(model_input_specs(REAL / "mobilenet_v3_small_w05.onnx"))
    (name,) = widget.specs
    good = tmp_path / "x.npy"
    np.save(good, np.random.default_rng(0).random((1, 3, 96, 96), dtype=np.float32))
    widget.set_source(name, str(good))
    assert widget.inputs[0]["thumb"] is not None and widget.inputs[0]["preset"] is not None
    bad = tmp_path / "y.npy"
    np.save(bad, np.zeros((1, 3, 96, 96), dtype=np.float64))
    widget.set_source(name, str(bad))
    assert "expects float32" in widget.inputs[0]["error"]
    with pytest.raises(SpecError, match="expects float32"):
        widget.tensors()


def test_integer_inputs_show_statistics_without_a_thumbnail() -> None:
    widget = ModelInputs(model_input_specs(REAL / "bert_tiny.onnx"))
    first = next(iter(widget.specs))
    page_says(widget, {"kind": "source", "input": first, "source": "zeros"})
    entry = widget.inputs[0]
    assert entry["kind"] == "zeros" and entry["thumb"] is None and entry["preset"] is None
    assert entry["stats"].startswith("int64") and "max 0" in entry["stats"]
    assert all(t.dtype == np.int64 for t in widget.tensors().values())


def test_a_video_without_a_reader_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_inputs, "video_reader", lambda: False)
    for module in ("imageio", "imageio.v3"):  # installed with the [analysis] extra: blocked as if it were not
        monkeypatch.setitem(sys.modules, module, None)
    widget = ModelInputs(model_input_specs(REAL / "mobilenet_v3_small_w05.onnx"))
    assert "pip install 'imageio[pyav]'" in widget.video_hint
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"\x00" * 64)
    (name,) = widget.specs
    page_says(widget, {"kind": "source", "input": name, "source": "video", "path": str(video)})
    assert "video reader" in widget.inputs[0]["error"]
