"""A video feed in step with the debugger (seed 001 §4.5.2, issue 37), on a short video written with imageio here:
it plays one pass per frame, a breakpoint pauses playback with the frame kept, and a new frame is read only when a
pass starts (frames read never run ahead of the completed passes by more than the pass in progress)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from dld_jupyter.activities.analysis.inputs import default_preset, image_tensor, model_input_specs
from dld_jupyter.frontdoor.analysis import analyse
from tests.models import resnet_like

iio = pytest.importorskip("imageio.v3")
pytest.importorskip("av")
FRAMES = 6


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _video(path: Path) -> Path:
    ramp = np.linspace(0, 255, 32, dtype=np.uint8)
    frames = np.stack([np.stack([np.roll(ramp, 5 * i)[None, :].repeat(32, 0)] * 3, axis=-1) for i in range(FRAMES)])
    iio.imwrite(path, frames, fps=10, codec="libx264", plugin="pyav")
    return path


def _plain(model: onnx.ModelProto, feed: np.ndarray) -> np.ndarray:
    return np.asarray(ort.InferenceSession(model.SerializeToString()).run(["logits"], {"input": feed})[0])


def test_video_plays_pauses_at_a_breakpoint_and_reads_a_frame_per_pass(tmp_path: Path) -> None:
    model = resnet_like(2)
    onnx.save(model, str(tmp_path / "m.onnx"))
    clip = _video(tmp_path / "clip.mp4")
    conv = next(n.name for n in model.graph.node if n.name.startswith("/layer1/conv1/"))
    spec = model_input_specs(model)[0]
    with analyse(tmp_path / "m.onnx", inputs={"input": "zeros"}) as a:
        feed = a.video("input", clip)
        assert feed.length == FRAMES
        assert feed.play(frames=2) is None  # two frames, two completed passes
        assert (feed.frames_read, feed.passes, feed.frame) == (2, 2, 1)
        frame1 = image_tensor(iio.imread(clip, index=1)[..., :3], default_preset(spec, (32, 32)), np.float32)
        assert np.allclose(a.outputs()["logits"], _plain(model, frame1), atol=1e-4)  # that frame was run

        a.add_breakpoint(conv)
        stop = feed.play()
        assert stop is not None and stop.name == conv and not feed.playing  # the breakpoint paused playback
        assert (feed.frames_read, feed.passes) == (3, 2)  # the frame of the pass in progress, no further
        assert feed.step_frame() is None  # finishes that pass: no frame read, the input was
        assert (feed.frames_read, feed.passes) == (3, 3)
        assert feed.step_frame() == stop  # the next frame, paused at the breakpoint again
        assert (feed.frames_read, feed.passes, feed.frame) == (4, 3, 3)

        a.remove_breakpoint(conv)
        assert feed.play() is None and feed.ended  # to the end of the video, one pass per frame
        assert feed.frames_read == FRAMES and feed.passes == FRAMES
        last = image_tensor(iio.imread(clip, index=FRAMES - 1)[..., :3], default_preset(spec, (32, 32)), np.float32)
        assert np.allclose(a.outputs()["logits"], _plain(model, last), atol=1e-4)
        assert feed.step_frame() is None and feed.frames_read == FRAMES  # nothing past the end
