"""Last settings of a run of unsaved edits are the user's model's, not the temporary copy's (issue 41)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from dld_jupyter.activities import profile
from dld_jupyter.activities.cache import SettingsStore


class EditedDocument:
    """Duck-typed like a Document with unsaved edits: save(path) writes a copy and re-targets the document."""

    def __init__(self, path: Path) -> None:
        self.path: Path | None = path
        self.dirty = True

    def save(self, path: str | None = None) -> None:
        assert self.path is not None
        shutil.copy(self.path, path or self.path)
        self.path = Path(path) if path else self.path


def test_settings_of_profiled_unsaved_edits_are_remembered_for_the_users_model(resnet_path: Path) -> None:
    """They were stored under the copy's temporary path: the real model's settings were not recalled and a dead
    key piled up per run."""
    report = profile(EditedDocument(resnet_path), iterations=2, warmup=0, threads=1, seed=7)
    assert report.summary.model_path != str(resnet_path)  # a copy ran
    remembered = SettingsStore().recall(resnet_path, "onnxruntime-profile")
    assert remembered is not None and remembered["iterations"] == 2 and remembered["seed"] == 7
    assert "source_document" not in remembered
    stored = json.loads(SettingsStore().path.read_text(encoding="utf-8"))
    assert list(stored) == [str(resnet_path.resolve())]
