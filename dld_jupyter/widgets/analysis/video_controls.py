"""The Model Inputs window's Play / Pause / Step frame (seed 001 §4.2, §4.5.2; issue 37), bound to a `VideoFeed` of
the Analysis panel's live analysis (frontdoor/analysis_video.py), so the buttons and `a.video(...)` in a cell play
the same way: one pass per frame, a breakpoint pauses playback, a new frame only when a pass starts.

Why the page drives playing: a kernel handles one comm message at a time, so a loop here would never see Pause.
Each frame is one message instead: Play runs one frame and publishes a new `tick`; the page answers each tick with
"next", which runs the next frame while the feed still plays; Pause (queued between two frames) stops it.
"""

from __future__ import annotations

from typing import Any

from dld_jupyter.frontdoor.analysis_video import VideoFeed


class VideoControls:
    """One panel's video feeds, one per video input, made when first played and dropped with the analysis."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.feeds: dict[str, VideoFeed] = {}
        self._analysis: Any = None
        panel.model_inputs.on_video(self.handle)

    def feed(self, name: str) -> VideoFeed | None:
        """The feed of video input `name` on the live analysis (launched if needed); None: the panel says why."""
        analysis = self.panel.launch()
        if analysis is None:
            return None
        if analysis is not self._analysis:  # a new analysis (new inputs, a relaunch): feeds start again
            self.feeds, self._analysis = {}, analysis
        if name not in self.feeds:
            source = self.panel.model_inputs.sources()[name]
            made: VideoFeed | None = self.panel._guard(lambda: VideoFeed(analysis, name, source.path, source.preset))
            if made is None:
                return None
            made.frame = source.frame - 1  # the frame the Model Inputs window shows is the first played
            self.feeds[name] = made
        return self.feeds[name]

    def handle(self, name: str, action: str) -> None:
        """A button (or the page's "next" while playing): play, pause, step, next."""
        self.panel.error.value = ""
        feed = self.feed(name)
        if feed is None:
            return
        if action == "pause":
            feed.pause()
        elif action == "step":
            feed.pause()
            self.panel._quiet(feed.step_frame)
        elif action == "play" or (action == "next" and feed.playing):
            feed.playing = True
            stop = self.panel._quiet(feed.step_frame)
            if stop is not None or feed.ended or self.panel.error.value:
                feed.pause()  # a breakpoint (or an error) pauses playback; the end of the video ends it
        else:
            return
        tensor = self.panel.analysis.feeds.get(name) if self.panel.analysis is not None else None
        self.panel.model_inputs.show_frame(name, feed.frame, tensor, feed.playing)
        self.panel.refresh()
