"""Last settings of a run of unsaved edits are the user's model's, not the temporary copy's (issue 41)."""

from __future__ import annotations

import json
from pathlib import Path

from dld_jupyter.activities import profile
from dld_jupyter.activities.cache import SettingsStore
from dld_jupyter.document import Document


def _edited(path: Path) -> Document:
    """A real document with an unsaved edit (a node renamed): profiling it runs a temporary copy of the edits."""
    document = Document.open(path)
    first = next(node for node in document.nodes() if node.kind == "op")
    document.rename_node(first.id, "renamed_first")
    assert document.dirty
    return document


def test_settings_of_profiled_unsaved_edits_are_remembered_for_the_users_model(resnet_path: Path) -> None:
    """They were stored under the copy's temporary path: the real model's settings were not recalled and a dead
    key piled up per run."""
    report = profile(_edited(resnet_path), iterations=2, warmup=0, threads=1, seed=7)
    assert report.summary.model_path != str(resnet_path)  # a copy ran
    remembered = SettingsStore().recall(resnet_path, "onnxruntime-profile")
    assert remembered is not None and remembered["iterations"] == 2 and remembered["seed"] == 7
    assert "source_document" not in remembered
    stored = json.loads(SettingsStore().path.read_text(encoding="utf-8"))
    assert list(stored) == [str(resnet_path.resolve())]
