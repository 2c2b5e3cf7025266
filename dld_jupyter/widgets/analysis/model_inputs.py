"""The Model Inputs window (seed 001 §4.2): for each graph input, where its data comes from, shown as it will be fed.

Python half of js/src/widgets/analysis/model_inputs.ts; the loading itself is activities/analysis/inputs.py (the
same checks and error texts as ``d.analyse(inputs=...)`` and ``dld run --input``). Synced state: ``inputs``, one
entry per input (name, dtype, shape, the chosen source, its image preset with every field visible and editable, the
presets that fit, the video frame, a label, the error if loading failed, a statistics line, and where its thumbnail
lies in ``thumbs``), and ``thumbs`` (RGBA thumbnails of at most ``THUMB_SIDE`` px, one binary trait). The page asks
for changes with messages (``source``, ``preset``, ``frame``; ``video`` play / pause / step / next goes to the
``on_video`` listener: the Analysis panel's video_controls.py); each is loaded at once, so a wrong dtype or shape is
said next to the input, and the listeners (``on_change``: the designer restarts its analysis) get the new sources.
State the page keeps alone: the text being typed in a field until it is committed.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import traitlets

from dld_jupyter.activities.analysis.inputs import (
    ImagePreset,
    InputSource,
    InputSpec,
    default_preset,
    image_presets,
    thumbnail,
)
from dld_jupyter.activities.analysis.media import video_frames
from dld_jupyter.activities.errors import SpecError, UnavailableError
from dld_jupyter.widgets.analysis.channel_tiles import stats_of
from dld_jupyter.widgets.widget_base import DldWidget

THUMB_SIDE = 128
KINDS = ("image", "npy", "random", "zeros", "video")
VIDEO_HINT = "Video sources need a video reader: pip install 'imageio[pyav]', then restart the kernel."


def video_reader() -> bool:
    """Whether frames of a video file can be read here (imageio with its pyav plugin)."""
    return importlib.util.find_spec("imageio") is not None and importlib.util.find_spec("av") is not None


def preset_fields(preset: ImagePreset) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(preset).items()}


def preset_from(fields: dict[str, Any]) -> ImagePreset:
    """An ImagePreset from the page's fields; SpecError naming the field that is wrong."""
    try:
        preset = ImagePreset(
            name=str(fields["name"]),
            layout=fields["layout"],
            height=int(fields["height"]),
            width=int(fields["width"]),
            channels=fields["channels"],
            resize=fields["resize"],
            scale=float(fields["scale"]),
            mean=tuple(float(v) for v in fields["mean"]),
            std=tuple(float(v) for v in fields["std"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise SpecError(f"image preset: {error}; give whole sizes and numbers (mean/std: one per channel)") from error
    if preset.height <= 0 or preset.width <= 0 or 0.0 in preset.std:
        raise SpecError("image preset: height and width must be > 0 and no std may be 0")
    if preset.channels not in ("RGB", "BGR", "GRAY") or preset.resize not in ("crop", "stretch"):
        raise SpecError("image preset: channels is RGB, BGR or GRAY and resize is crop or stretch")
    return preset


def source_value(source: InputSource) -> Any:
    """What ``InputSource.of`` takes back to build ``source`` again (its path, its array or its kind)."""
    if source.kind == "array":
        return source.array
    return source.path or source.kind


def thumb_pixels(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """The tensor as an RGBA thumbnail of at most THUMB_SIDE px a side, or None when it is no image."""
    pixels = thumbnail(array)
    if pixels is None:
        return None
    stride = max(1, -(-max(pixels.shape[:2]) // THUMB_SIDE))
    small = np.ascontiguousarray(pixels[::stride, ::stride, :3])
    alpha = np.full((*small.shape[:2], 1), 255, dtype=np.uint8)
    return np.concatenate([small, alpha], axis=-1)


class ModelInputs(DldWidget, bundle="model_inputs"):
    """``sources()`` is what ``analyse(inputs=...)`` takes; ``tensors()`` the loaded arrays; ``set_source(name,
    value, preset=None, frame=0)`` the same change as the page's; ``on_change(callback)`` called after each one."""

    keywords = ("layout",)

    inputs: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    thumbs = traitlets.Bytes(b"").tag(sync=True)
    video_hint = traitlets.Unicode("").tag(sync=True)

    def __init__(self, specs: Sequence[InputSpec], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.specs = {spec.name: spec for spec in specs}
        self._sources: dict[str, InputSource] = {spec.name: InputSource("random") for spec in specs}
        self._tensors: dict[str, np.ndarray[Any, Any]] = {}
        self._errors: dict[str, str] = {}
        self._listeners: list[Callable[[dict[str, InputSource]], object]] = []
        self._video: list[Callable[[str, str], object]] = []
        self._playing: dict[str, tuple[bool, int]] = {}  # per input: playing, and the tick the page answers
        self.video_hint = "" if video_reader() else VIDEO_HINT
        for name in self.specs:
            self._load(name)
        self._publish()
        self.on_msg(self._on_msg)

    def sources(self) -> dict[str, InputSource]:
        return dict(self._sources)

    def tensors(self) -> dict[str, np.ndarray[Any, Any]]:
        """Every input's tensor; SpecError naming the inputs whose source does not load."""
        if self._errors:
            raise SpecError("; ".join(f"input {name!r}: {text}" for name, text in self._errors.items()))
        return dict(self._tensors)

    def on_change(self, callback: Callable[[dict[str, InputSource]], object]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def on_video(self, callback: Callable[[str, str], object]) -> Callable[[], None]:
        """`callback(input name, action)` for the video buttons: "play", "pause", "step", "next" (one more frame)."""
        self._video.append(callback)
        return lambda: self._video.remove(callback) if callback in self._video else None

    def show_frame(self, name: str, frame: int, tensor: np.ndarray[Any, Any] | None, playing: bool) -> None:
        """A video input now at `frame` (its tensor as the analysis was fed it: the file is not read again) and
        whether it plays; no listener of ``on_change`` is told (the live analysis already has it). A playing
        input's tick moves on, so the page asks for the next frame once."""
        source = self._sources[name]
        self._sources[name] = dataclasses.replace(source, frame=max(0, frame))
        if tensor is not None:
            self._errors.pop(name, None)
            self._tensors[name] = tensor
        self._playing[name] = (playing, self._playing.get(name, (False, 0))[1] + 1)
        self._publish()

    def set_source(self, name: str, value: Any, preset: ImagePreset | None = None, frame: int = 0) -> None:
        """Feed input ``name`` from ``value`` (a path, an array, "random" or "zeros"); errors are shown, not raised."""
        if name not in self.specs:
            raise SpecError(f"{name!r} is not an input of the model; its inputs are {sorted(self.specs)}")
        try:
            source = InputSource.of(value)
            source = dataclasses.replace(source, preset=preset, frame=max(0, int(frame)))
        except (SpecError, UnavailableError) as error:
            self._errors[name] = str(error)
            self._publish()
            return
        self._sources[name] = source
        self._load(name)
        self._publish()
        for listener in list(self._listeners):
            listener(self.sources())

    def _load(self, name: str) -> None:
        self._errors.pop(name, None)
        self._tensors.pop(name, None)
        try:
            self._tensors[name] = self._sources[name].load(self.specs[name])
        except (SpecError, UnavailableError) as error:
            self._errors[name] = str(error)

    def _entry(self, spec: InputSpec, thumbs: list[bytes], offset: int) -> tuple[dict[str, Any], int]:
        source = self._sources[spec.name]
        presets = image_presets(spec)
        preset = source.preset or (default_preset(spec) if presets else None)
        tensor = self._tensors.get(spec.name)
        entry: dict[str, Any] = {
            "name": spec.name,
            "dtype": str(spec.dtype),
            "shape": ["?" if not isinstance(d, int) or d <= 0 else d for d in spec.shape],
            "kind": source.kind,
            "path": source.path or "",
            "label": source.describe(),
            "frame": source.frame,
            "frames": video_frames(source.path) if source.kind == "video" and source.path and video_reader() else None,
            "preset": preset_fields(preset) if preset else None,
            "presets": {key: preset_fields(p) for key, p in presets.items()},
            "error": self._errors.get(spec.name, ""),
            "stats": "",
            "thumb": None,
            "playing": self._playing.get(spec.name, (False, 0))[0],
            "tick": self._playing.get(spec.name, (False, 0))[1],
        }
        if tensor is not None:
            s = stats_of(tensor)
            entry["stats"] = (
                f"{tensor.dtype} {list(tensor.shape)} · min {s.minimum:.4g} · max {s.maximum:.4g}"
                if (s.minimum is not None and s.maximum is not None)
                else f"{tensor.dtype} {list(tensor.shape)}"
            )
            pixels = thumb_pixels(tensor)
            if pixels is not None:
                entry["thumb"] = {"offset": offset, "height": int(pixels.shape[0]), "width": int(pixels.shape[1])}
                thumbs.append(pixels.tobytes())
                offset += pixels.size
        return entry, offset

    def _publish(self) -> None:
        thumbs: list[bytes] = []
        entries, offset = [], 0
        for spec in self.specs.values():
            entry, offset = self._entry(spec, thumbs, offset)
            entries.append(entry)
        with self.hold_sync():
            self.thumbs = b"".join(thumbs)
            self.inputs = entries

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("input") not in self.specs:
            return
        name = str(content["input"])
        current = self._sources[name]
        kind = content.get("kind")
        try:
            if kind == "source":
                chosen = str(content.get("source", ""))
                value = chosen if chosen in ("random", "zeros") else str(content.get("path", ""))
                self.set_source(name, value, frame=int(content.get("frame", 0)))
            elif kind == "preset":
                self.set_source(name, source_value(current), preset_from(dict(content.get("fields", {}))))
            elif kind == "frame":
                self.set_source(name, source_value(current), current.preset, int(content.get("frame", 0)))
            elif kind == "video" and current.kind == "video":
                for listener in list(self._video):
                    listener(name, str(content.get("action", "")))
        except (SpecError, ValueError, TypeError) as error:
            self._errors[name] = str(error)
            self._publish()
