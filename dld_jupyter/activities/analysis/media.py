"""Pixels from files: an image (Pillow) or one frame of a video (imageio's pyav plugin), as uint8 H×W×3 RGB, and
how many frames a video holds. The readers are optional and imported when used: one missing is an UnavailableError
saying what to install. An image's size is read from its header and bounded before any pixel is decoded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dld_jupyter.activities.errors import SpecError, UnavailableError

Array = np.ndarray[Any, Any]
MAX_IMAGE_PIXELS = 50_000_000  # an input image, decoded as 8-bit RGB: 150 MB at most (then resized)


def read_image(path: str) -> Array:
    """The image's pixels as uint8, H×W×3 (RGB), with Pillow."""
    try:
        from PIL import Image
    except ImportError as error:
        raise UnavailableError(f"reading {Path(path).name} needs Pillow: pip install pillow ({error})") from error
    try:
        with Image.open(path) as image:  # reads the header only: the size is known before any pixel is decoded
            width, height = image.size
            if width * height > MAX_IMAGE_PIXELS:
                raise SpecError(f"{path}: {width}×{height} pixels is more than this reads ({MAX_IMAGE_PIXELS:,} "
                                "pixels: a 12k×12k image took 1.7 GB to feed a 32×32 input); resize it first")
            return np.asarray(image.convert("RGB"))
    except Image.DecompressionBombError as error:  # Pillow's own bound, past ours: said from the header too
        raise SpecError(f"{path}: more pixels than this reads ({error}); resize it first") from error
    except OSError as error:
        raise SpecError(f"{path}: not a readable image ({error})") from error


def read_video_frame(path: str, frame: int) -> Array:
    """Frame `frame` of a video as uint8 H×W×3, with imageio's video plugin (pyav)."""
    try:
        import imageio.v3 as iio
    except ImportError as error:
        raise UnavailableError(
            f"reading video {Path(path).name} needs a video reader: pip install 'imageio[pyav]' ({error})"
        ) from error
    try:
        return np.asarray(iio.imread(path, index=frame))[..., :3]
    except (OSError, ValueError, IndexError) as error:
        raise SpecError(f"{path}: frame {frame} cannot be read ({error})") from error


def video_frames(path: str) -> int | None:
    """How many frames the video holds, when a reader can say (None: no reader, or a file it cannot size)."""
    try:
        import imageio.v3 as iio

        return int(iio.improps(path, plugin="pyav").shape[0])
    except Exception:  # the caller says what is missing when it reads a frame
        return None
