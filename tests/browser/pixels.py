"""Read the pixels of a screenshot (PNG, decoded with the standard library's zlib: no imaging package here) and
judge colours as a user sees them: the dominant colour of a region and its brightest text-like pixels."""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    rgb: list[tuple[int, int, int]]  # row-major

    def region(self, x0: int, y0: int, x1: int, y1: int) -> list[tuple[int, int, int]]:
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.width, x1), min(self.height, y1)
        return [self.rgb[y * self.width + x] for y in range(y0, y1) for x in range(x0, x1)]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def read_png(path: Path) -> Image:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are read (got {depth=} {colour=})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    prev = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif kind == 4:
                line[i] = (line[i] + _paeth(a, b, c)) & 255
        pixels.extend((line[x], line[x + 1], line[x + 2]) for x in range(0, stride, bpp))
        prev = line
    return Image(width, height, pixels)


def luminance(rgb: tuple[int, int, int]) -> float:
    """Relative luminance 0 (black) … 1 (white), WCAG's formula."""

    def lin(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def dominant(pixels: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The most frequent colour (a background or a glyph's fill)."""
    return Counter(pixels).most_common(1)[0][0]


def brightest(pixels: list[tuple[int, int, int]], share: float = 0.02) -> float:
    """Mean luminance of the brightest `share` of the pixels (anti-aliased text: its core pixels)."""
    values = sorted((luminance(p) for p in pixels), reverse=True)
    top = values[: max(1, int(len(values) * share))]
    return sum(top) / len(top)


def darkest(pixels: list[tuple[int, int, int]], share: float = 0.02) -> float:
    values = sorted(luminance(p) for p in pixels)
    top = values[: max(1, int(len(values) * share))]
    return sum(top) / len(top)
