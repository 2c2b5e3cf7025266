"""A video feeding one input of a live analysis, in step with its debugger (seed 001 §4.2 and §4.5.2, issue 37):
`feed = a.video("input", "clip.mp4")`, then `feed.play()`, `feed.pause()`, `feed.step_frame()`.

Why its own object: the seed's feed is paused while execution is paused, and a new frame is requested from the
video only when execution reaches the input layer, which is at the start of a pass. So playing is passes, frame
after frame: read the next frame, run the model from the start (`Analysis.run`); a breakpoint stops the pass and
playback pauses there, the frame kept; playing (or stepping a frame) again first finishes that pass (`resume`)
without reading a frame, and only a completed pass lets the next frame be read. `frames_read` and `passes` count
both, so a view (and a test) can check the feed never ran ahead of the debugger. The Model Inputs window's
play / pause / step frame buttons drive the same object (widgets/analysis/video_controls.py).
"""

from __future__ import annotations

import os
from typing import Any, Protocol

import numpy as np

from dld_jupyter.activities.analysis.inputs import (
    ImagePreset,
    InputSource,
    default_preset,
    image_tensor,
    model_input_specs,
)
from dld_jupyter.activities.analysis.media import read_video_frame, video_frames
from dld_jupyter.activities.errors import SpecError


class Debugger(Protocol):
    """What a feed needs of `frontdoor.analysis.Analysis` (named so, not imported: that module offers `a.video`)."""

    @property
    def state(self) -> str: ...

    @property
    def activity(self) -> Any: ...

    def run(self) -> Any: ...  # the Stop reached, None at the end

    def resume(self) -> Any: ...

    def set_inputs(self, inputs: Any) -> None: ...


class VideoFeed:
    """One video on one input of `analysis`; see the module docstring. `frame` is the frame being (or last) run,
    -1 before the first; `ended` once the video has no next frame."""

    def __init__(
        self, analysis: Debugger, input_name: str, path: str | os.PathLike[str], preset: ImagePreset | None = None
    ) -> None:
        specs = {spec.name: spec for spec in model_input_specs(analysis.activity.spec.model)}
        if input_name not in specs:
            raise SpecError(f"video: {input_name!r} is not an input of the model; its inputs are {sorted(specs)}")
        source = InputSource.of(path)
        if source.kind != "video":
            raise SpecError(f"video: {os.fspath(path)!r} is not a video file (AVI, MPEG, MKV, WMV, MP4, MOV, WEBM)")
        self.analysis, self.input, self.path = analysis, input_name, str(source.path)
        self.spec = specs[input_name]
        self.preset = preset
        self.length = video_frames(self.path)  # None: the reader cannot say; the end is found by reading
        self.frame = -1
        self.frames_read = 0
        self.passes = 0  # passes completed on a frame of this feed
        self.playing = False
        self.ended = False

    def step_frame(self) -> Any:
        """One frame's worth: finish the pass the debugger is paused in (no frame is read: the input was), else
        read the next frame and run a pass on it. Returns the breakpoint it stopped at, or None (a completed pass,
        or the end of the video: `ended`): a `frontdoor.analysis.Stop`."""
        analysis = self.analysis
        if analysis.state == "paused":
            stop = analysis.resume()
        elif not self._read_next():
            return None
        else:
            stop = analysis.run()
        if stop is None:
            self.passes += 1
        return stop

    def play(self, frames: int | None = None) -> Any:
        """Frame after frame, one pass each, until a breakpoint (returned: playback pauses there), the end of the
        video, `frames` completed passes, or `pause()` (from a listener of the analysis)."""
        self.playing = True
        try:
            start = self.passes
            while self.playing and not self.ended and (frames is None or self.passes - start < frames):
                stop = self.step_frame()
                if stop is not None:
                    return stop
            return None
        finally:
            self.playing = False

    def pause(self) -> None:
        self.playing = False

    def tensor(self, frame: int) -> np.ndarray[Any, Any]:
        """Frame `frame` as the input's tensor (its preset, else the input's default)."""
        pixels = read_video_frame(self.path, frame)
        preset = self.preset or default_preset(self.spec, pixels.shape[:2])
        return image_tensor(pixels, preset, self.spec.dtype)

    def _read_next(self) -> bool:
        following = self.frame + 1
        if self.length is not None and following >= self.length:
            self.ended, self.playing = True, False
            return False
        try:
            tensor = self.tensor(following)
        except SpecError:
            if self.length is None and self.frame >= 0:  # past the last frame of a video the reader cannot size
                self.ended, self.playing = True, False
                return False
            raise
        self.frame, self.frames_read = following, self.frames_read + 1
        self.analysis.set_inputs({self.input: tensor})
        return True

    def __repr__(self) -> str:
        state = "ended" if self.ended else "playing" if self.playing else "paused"
        return f"<VideoFeed {self.input} ← {os.path.basename(self.path)} frame {self.frame} {state}>"


class VideoActions:
    """What an `Analysis` gains: `a.video(input, path)`."""

    def video(self, input_name: str, path: str | os.PathLike[str], preset: ImagePreset | None = None) -> VideoFeed:
        """A video feeding `input_name` in step with the debugger: `.play()`, `.pause()`, `.step_frame()` (a new
        frame is read only when a pass starts; a breakpoint pauses playback)."""
        return VideoFeed(self, input_name, path, preset)  # type: ignore[arg-type]  # an Analysis is a Debugger
