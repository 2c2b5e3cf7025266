"""Model inputs for an analysis (seed 001 §4.2 "Model Inputs"): what each graph input expects, where its data comes
from (an image, an NPY file, an array, random or zeros) and the image presets derived from the input's shape and dtype.

Why a module of its own: the notebook API (`d.analyse(inputs=...)`), the CLI (`dld run --input NAME=FILE`) and the
Model Inputs window all turn a user's choice into the same tensor, with the same checks and the same error texts.
Images need Pillow (imported lazily; `pip install pillow`); a video source needs imageio with a video plugin
(`pip install imageio[pyav]`); without them the source says what to install. An NPY is passed as-is after its dtype
and shape are checked against the input; an image is resized (stretched, or the shorter side resized and the centre
cropped), put in the input's channel order and layout, then scaled and normalized as its `ImagePreset` says.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import onnx
from onnx import helper

from dld_jupyter.activities.analysis.media import read_image, read_video_frame
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.runtimes.random_inputs import input_seed, random_array

Array = np.ndarray[Any, Any]
Dim = int | str | None  # fixed, symbolic, unknown
SourceKind = Literal["image", "npy", "array", "random", "zeros", "video"]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp", ".tif", ".tiff")
VIDEO_SUFFIXES = (".avi", ".mp4", ".mpeg", ".mpg", ".mkv", ".wmv", ".mov", ".webm")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
DEFAULT_SIDE = 224  # an image input with free height/width gets this size


@dataclass(frozen=True)
class InputSpec:
    """One graph input that needs data: its name, element type and declared shape."""

    name: str
    dtype: np.dtype[Any]
    shape: tuple[Dim, ...]

    def concrete_shape(self) -> list[int]:
        """Free dimensions become 1."""
        return [d if isinstance(d, int) and d > 0 else 1 for d in self.shape]

    def image_layout(self) -> Literal["NCHW", "NHWC", "CHW", "HWC"] | None:
        """Where the channels are, when the input looks like an image (1 or 3 channels), else None."""
        dims = self.shape
        if len(dims) == 4:
            if dims[1] in (1, 3):
                return "NCHW"
            if dims[3] in (1, 3):
                return "NHWC"
        if len(dims) == 3:
            if dims[0] in (1, 3):
                return "CHW"
            if dims[2] in (1, 3):
                return "HWC"
        return None


@dataclass(frozen=True)
class ImagePreset:
    """How an image becomes this input's tensor: pixel values 0..255 are multiplied by `scale`, then each channel
    has `mean` subtracted and is divided by `std` (in the input's channel order)."""

    name: str  # "imagenet", "unit", "raw"
    layout: Literal["NCHW", "NHWC", "CHW", "HWC"]
    height: int
    width: int
    channels: Literal["RGB", "BGR", "GRAY"] = "RGB"
    resize: Literal["stretch", "crop"] = "crop"
    scale: float = 1.0 / 255.0
    mean: tuple[float, ...] = (0.0,)
    std: tuple[float, ...] = (1.0,)

    def replace(self, **changes: Any) -> ImagePreset:
        """The same preset with some fields changed (what the Model Inputs window edits)."""
        return dataclasses.replace(self, **changes)


def model_input_specs(model: onnx.ModelProto | str | os.PathLike[str]) -> list[InputSpec]:
    """The inputs of `model` that need data (graph inputs without an initializer of the same name)."""
    from dld_jupyter.activities.runtimes.onnxruntime.model_file import (
        read_model,  # a skeleton: bounded memory, weights unread
    )

    proto = model if isinstance(model, onnx.ModelProto) else read_model(model)
    graph = proto.graph
    initialized = {init.name for init in graph.initializer}
    specs = []
    for value in graph.input:
        if value.name in initialized:
            continue
        if value.type.WhichOneof("value") != "tensor_type":
            raise SpecError(f"input {value.name!r}: only tensor inputs can be fed in an analysis")
        tensor = value.type.tensor_type
        dims: list[Dim] = []
        for d in tensor.shape.dim:
            dims.append(d.dim_value if d.HasField("dim_value") else (d.dim_param or None))
        specs.append(InputSpec(value.name, np.dtype(helper.tensor_dtype_to_np_dtype(tensor.elem_type)), tuple(dims)))
    return specs


def image_presets(spec: InputSpec, image_size: tuple[int, int] | None = None) -> dict[str, ImagePreset]:
    """The presets that fit `spec` (empty when it is no image input), first the default: float inputs get
    "imagenet" (3 channels), "unit" (0..1) and "raw" (0..255); integer inputs get "raw". Free height/width take
    `image_size` (height, width) when given, else 224."""
    layout = spec.image_layout()
    if layout is None:
        return {}
    h_axis, w_axis, c_axis = {"NCHW": (2, 3, 1), "NHWC": (1, 2, 3), "CHW": (1, 2, 0), "HWC": (0, 1, 2)}[layout]
    fallback = image_size or (DEFAULT_SIDE, DEFAULT_SIDE)
    height, width = spec.shape[h_axis], spec.shape[w_axis]
    height = height if isinstance(height, int) and height > 0 else fallback[0]
    width = width if isinstance(width, int) and width > 0 else fallback[1]
    gray = spec.shape[c_axis] == 1
    base = ImagePreset("raw", layout, height, width, "GRAY" if gray else "RGB", scale=1.0)
    if spec.dtype.kind != "f":
        return {"raw": base}
    unit = base.replace(name="unit", scale=1.0 / 255.0)
    presets = {"unit": unit, "raw": base}
    if not gray:
        presets = {"imagenet": unit.replace(name="imagenet", mean=IMAGENET_MEAN, std=IMAGENET_STD), **presets}
    return presets


def default_preset(spec: InputSpec, image_size: tuple[int, int] | None = None) -> ImagePreset:
    """The first preset of `image_presets`; SpecError when `spec` is no image input."""
    presets = image_presets(spec, image_size)
    if not presets:
        raise SpecError(
            f"input {spec.name!r}: shape {_shown(spec.shape)} is no image (1 or 3 channels first or last); "
            "give an NPY file, an array, 'random' or 'zeros'"
        )
    return next(iter(presets.values()))


@dataclass(frozen=True)
class InputSource:
    """Where one input's data comes from. Build it with `InputSource.of(value)` from what a user passes: a path
    (.npy, an image, a video), an array, "random" or "zeros"."""

    kind: SourceKind
    path: str | None = None
    array: Array | None = dataclasses.field(default=None, compare=False)
    preset: ImagePreset | None = None  # images and video frames; None: the input's default preset
    frame: int = 0  # video frames
    seed: int = 0  # random

    @classmethod
    def of(cls, value: InputSource | str | os.PathLike[str] | Array) -> InputSource:
        if isinstance(value, InputSource):
            return value
        if isinstance(value, np.ndarray):
            return cls("array", array=value)
        text = os.fspath(value)
        if text in ("random", "zeros"):
            return cls(text)  # type: ignore[arg-type]
        suffix = Path(text).suffix.lower()
        kind: SourceKind
        if suffix == ".npy":
            kind = "npy"
        elif suffix in IMAGE_SUFFIXES:
            kind = "image"
        elif suffix in VIDEO_SUFFIXES:
            kind = "video"
        else:
            raise SpecError(
                f"input source {text!r}: not an .npy, an image ({', '.join(IMAGE_SUFFIXES)}), a video "
                f"({', '.join(VIDEO_SUFFIXES)}), 'random' or 'zeros'"
            )
        if not os.path.isfile(text):
            raise SpecError(f"input source {text}: no such file; give the path of an existing file")
        return cls(kind, path=os.path.abspath(text))

    def load(self, spec: InputSpec) -> Array:
        """This source's tensor for `spec`, checked against its dtype and fixed dimensions."""
        if self.kind == "random":
            return random_tensor(spec, self.seed)
        if self.kind == "zeros":
            return np.zeros(spec.concrete_shape(), dtype=spec.dtype)
        if self.kind == "array":
            assert self.array is not None
            return check_tensor(spec, np.asarray(self.array), "the array")
        assert self.path is not None
        if self.kind == "npy":
            try:
                array = np.load(self.path, allow_pickle=False)
            except (OSError, ValueError) as error:
                raise SpecError(f"{self.path}: not a readable NPY file ({error})") from error
            return check_tensor(spec, array, self.path)
        pixels = read_image(self.path) if self.kind == "image" else read_video_frame(self.path, self.frame)
        preset = self.preset or default_preset(spec, pixels.shape[:2])
        return check_tensor(spec, image_tensor(pixels, preset, spec.dtype), self.path)

    def describe(self) -> str:
        """A short label for the source (shown in the Model Inputs window and the CLI log)."""
        if self.kind in ("random", "zeros"):
            return self.kind
        if self.kind == "array":
            return "array"
        label = Path(self.path or "").name
        return f"{label} frame {self.frame}" if self.kind == "video" else label


def random_tensor(spec: InputSpec, seed: int = 0) -> Array:
    """Random data of the input's type, by the one rule every runtime follows (`runtimes/random_inputs.py`)."""
    return random_array(spec.name, spec.concrete_shape(), spec.dtype, seed, "give an NPY file or an array")


def check_tensor(spec: InputSpec, array: Array, source: str) -> Array:
    """`array` when its dtype and shape fit `spec` (free dimensions take any size); SpecError saying what differs."""
    if array.dtype != spec.dtype:
        raise SpecError(
            f"{source}: holds {array.dtype} data but input {spec.name!r} expects {spec.dtype}; "
            f"convert it (array.astype(np.{spec.dtype.name}))"
        )
    fixed = [d if isinstance(d, int) and d > 0 else None for d in spec.shape]
    if len(fixed) != array.ndim or any(d is not None and d != s for d, s in zip(fixed, array.shape, strict=False)):
        raise SpecError(
            f"{source}: shape {list(array.shape)} does not fit input {spec.name!r} {_shown(spec.shape)} "
            "(? is a free dimension)"
        )
    return array


def image_tensor(pixels: Array, preset: ImagePreset, dtype: np.dtype[Any] | type = np.float32) -> Array:
    """H×W×3 uint8 pixels → the tensor `preset` describes, of `dtype`."""
    resized = _resize(pixels, preset)
    data = resized.astype(np.float64)
    if preset.channels == "GRAY":
        data = (data @ np.array([0.299, 0.587, 0.114]))[..., None]
    elif preset.channels == "BGR":
        data = data[..., ::-1]
    mean = np.asarray(preset.mean, dtype=np.float64)
    std = np.asarray(preset.std, dtype=np.float64)
    data = (data * preset.scale - mean) / std
    if preset.layout in ("NCHW", "CHW"):
        data = np.transpose(data, (2, 0, 1))
    if preset.layout in ("NCHW", "NHWC"):
        data = data[None]
    target = np.dtype(dtype)
    if target.kind in "iu":
        info = np.iinfo(target)
        data = np.clip(np.rint(data), info.min, info.max)
    return np.ascontiguousarray(data.astype(target))


def _resize(pixels: Array, preset: ImagePreset) -> Array:
    from PIL import Image  # present: the pixels were read with it, or came as an array a caller resizes here

    image = Image.fromarray(np.ascontiguousarray(pixels.astype(np.uint8)))
    if preset.resize == "crop":
        ratio = max(preset.width / image.width, preset.height / image.height)
        size = (max(preset.width, round(image.width * ratio)), max(preset.height, round(image.height * ratio)))
        image = image.resize(size, Image.Resampling.BILINEAR)
        left, top = (image.width - preset.width) // 2, (image.height - preset.height) // 2
        image = image.crop((left, top, left + preset.width, top + preset.height))
    else:
        image = image.resize((preset.width, preset.height), Image.Resampling.BILINEAR)
    return np.asarray(image)


def thumbnail(array: Array, layout: str | None = None) -> Array | None:
    """An NCHW/NHWC/CHW/HWC tensor of 1 or 3 channels as uint8 H×W×3 pixels (min..max stretched), or None when
    it is no image: how the Model Inputs window shows an NPY that is an image."""
    data = np.asarray(array)
    if layout is None:
        spec = InputSpec("", data.dtype, tuple(int(d) for d in data.shape))
        layout = spec.image_layout()
    if layout is None or data.size == 0:
        return None
    if layout in ("NCHW", "NHWC"):
        data = data[0]
    if layout in ("NCHW", "CHW"):
        data = np.transpose(data, (1, 2, 0))
    values = data.astype(np.float64)
    low, high = float(values.min()), float(values.max())
    scaled = (values - low) / (high - low) * 255.0 if high > low else np.zeros_like(values)
    pixels = np.rint(scaled).astype(np.uint8)
    return np.repeat(pixels, 3, axis=2) if pixels.shape[2] == 1 else pixels


def load_inputs(
    specs: Sequence[InputSpec],
    sources: Mapping[str, InputSource | str | os.PathLike[str] | Array] | None = None,
    seed: int = 0,
    only_given: bool = False,
) -> dict[str, Array]:
    """A tensor for every input of `specs`: from `sources` by input name, random (seeded) for any not given (none
    with `only_given`). SpecError for a source naming no input of the model."""
    given = dict(sources or {})
    known = {spec.name for spec in specs}
    unknown = sorted(set(given) - known)
    if unknown:
        raise SpecError(f"inputs: {unknown} are not inputs of the model; its inputs are {sorted(known)}")
    feeds = {}
    for index, spec in enumerate(specs):
        value = given.get(spec.name)
        if value is None and only_given:
            continue
        source = InputSource.of(value) if value is not None else InputSource("random", seed=input_seed(seed, index))
        feeds[spec.name] = source.load(spec)
    return feeds


def _shown(shape: Sequence[Dim]) -> str:
    return "[" + ", ".join("?" if not isinstance(d, int) or d <= 0 else str(d) for d in shape) + "]"
