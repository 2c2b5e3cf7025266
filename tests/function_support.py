"""Shared by the local-function tests: the real ShuffleNetV2 export with functions, and running a document's
model in onnxruntime (a saved copy, the document's file untouched)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort

from dld_jupyter.document import Document

SHUFFLENET = Path(__file__).parent / "data" / "real" / "shufflenet_functions_small.onnx"
IMAGE = np.random.default_rng(19).standard_normal((1, 3, 64, 64)).astype(np.float32)
BLOCK = ("InvertedResidual", "torchvision.models.shufflenetv2")  # 3 instances, group/shape parameters
BLOCK_1 = ("InvertedResidual.1", "torchvision.models.shufflenetv2")  # 13 instances


def run_file(path: Path, feeds: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    result: list[np.ndarray] = session.run(None, feeds if feeds is not None else {"input": IMAGE})
    return result


def run(doc: Document, folder: Path, feeds: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    path = folder / f"run_{doc.history_index}_{len(list(folder.iterdir()))}.onnx"
    doc.save_copy(path)
    return run_file(path, feeds)
