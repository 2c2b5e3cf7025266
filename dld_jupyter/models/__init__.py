"""Models shipped with the package, for the quickstart and for trying the tool without a model of your own."""

from __future__ import annotations

from pathlib import Path

SAMPLE_MODEL = Path(__file__).resolve().parent / "resnet8_cifar.onnx"


def sample_model(copy_to: str | Path | None = None) -> Path:
    """The bundled CIFAR ResNet-8 (seeded random weights); with `copy_to`, a writable copy there."""
    if copy_to is None:
        return SAMPLE_MODEL
    target = Path(copy_to)
    if not target.exists():
        target.write_bytes(SAMPLE_MODEL.read_bytes())
    return target
