"""The Model Inputs window's Play / Pause / Step frame in the kernel (issue 37), driven by the messages the page
sends: Play runs one frame and publishes a tick the page answers with "next", a breakpoint pauses playback with
the frame kept, Step frame finishes that pass without reading a frame, Pause stops between two frames."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests.models import resnet_like

iio = pytest.importorskip("imageio.v3")
pytest.importorskip("av")


@pytest.fixture
def designer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Designer]:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    onnx.save(resnet_like(2), str(tmp_path / "m.onnx"))
    d = open_designer(tmp_path / "m.onnx")
    yield d
    d.stop_analysis()
    d.close()


def test_play_pause_step_frame_messages(designer: Designer, tmp_path: Path) -> None:
    frames = np.stack([np.full((32, 32, 3), 30 * i, dtype=np.uint8) for i in range(5)])
    iio.imwrite(tmp_path / "clip.mp4", frames, fps=10, codec="libx264", plugin="pyav")
    panel = designer.analysis_mode.show_panel()
    inputs = panel.model_inputs
    inputs.set_source("input", str(tmp_path / "clip.mp4"))

    def page(action: str) -> dict[str, Any]:
        inputs._on_msg(inputs, {"kind": "video", "input": "input", "action": action}, [])
        return next(e for e in inputs.inputs if e["name"] == "input")

    entry = page("play")  # launches, then frame 0 runs
    analysis = designer.analysis
    assert analysis is not None and entry["playing"] and entry["frame"] == 0 and entry["tick"] == 1
    feed = panel.video.feeds["input"]
    assert (feed.frames_read, feed.passes) == (1, 1)
    entry = page("next")  # the page's answer to the tick
    assert entry["frame"] == 1 and entry["tick"] == 2 and feed.passes == 2
    assert np.array_equal(inputs.tensors()["input"], analysis.feeds["input"])  # the thumbnail is the frame run

    conv = next(n for n in analysis.execution_order if n.startswith("/layer1/conv1/"))
    analysis.add_breakpoint(conv)
    entry = page("next")
    assert not entry["playing"] and analysis.position == conv  # the breakpoint paused playback
    assert (feed.frames_read, feed.passes, entry["frame"]) == (3, 2, 2)
    assert "Paused at" in panel.status.value
    entry = page("next")  # a late tick answer does nothing while paused
    assert (feed.frames_read, feed.passes) == (3, 2) and analysis.position == conv
    entry = page("step")  # finishes the pass: no frame read
    assert (feed.frames_read, feed.passes) == (3, 3) and analysis.state == "finished"

    analysis.remove_breakpoint(conv)
    entry = page("play")
    assert entry["playing"] and entry["frame"] == 3
    entry = page("pause")  # queued between two frames
    assert not entry["playing"]
    entry = page("next")
    assert entry["frame"] == 3 and (feed.frames_read, feed.passes) == (4, 4)
    assert designer.analysis is analysis  # one analysis throughout: a frame is no relaunch
