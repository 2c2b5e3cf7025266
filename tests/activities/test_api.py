from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dld_jupyter.activities import ActivityFailed, SpecError, UnavailableError, profile
from dld_jupyter.activities.result import Progress


def test_profile_a_path_returns_the_report(resnet_path: Path) -> None:
    seen: list[Progress] = []
    report = profile(resnet_path, iterations=3, warmup=0, threads=1, on_progress=seen.append)
    assert report.summary.passes == 3 and report.layers
    assert resnet_path.with_name("resnet.dld-report.json").is_file()
    assert seen and seen[-1].fraction == 1.0


class FakeDocument:
    """Duck-typed like dld_jupyter.document.Document: save(path) is "save as" and re-targets the document."""

    def __init__(self, path: Path, dirty: bool) -> None:
        self.path: Path | None = path
        self.dirty = dirty
        self.saved_to: list[str] = []

    def save(self, path: str | None = None) -> None:
        assert self.path is not None
        shutil.copy(self.path, path or self.path)
        self.saved_to.append(str(path))
        self.path = Path(path) if path else self.path


def test_a_dirty_document_is_profiled_from_a_temporary_copy_removed_after_the_run(resnet_path: Path) -> None:
    """Issue 26, item 6: a full `<model>.profiled.onnx` stayed beside every report. The copy of the unsaved edits
    now lives in a private temporary folder that the run's end removes; the report names the document it came from
    (its links open that); `keep_model=True` keeps the copy beside the report."""
    before = set(resnet_path.parent.iterdir())
    document = FakeDocument(resnet_path, dirty=True)
    report = profile(document, iterations=2, warmup=0, threads=1)
    (copy,) = document.saved_to
    assert Path(copy).parent.name.startswith("dld-profiled-") and not Path(copy).parent.exists()
    assert document.path == resnet_path  # pointed back at its own file
    report_path = resnet_path.with_name("resnet.dld-report.json")
    assert set(resnet_path.parent.iterdir()) - before == {report_path}  # the report alone, beside the document
    assert report.summary.model == "resnet" and report.summary.model_path == copy
    assert report.summary.settings["source_document"] == str(resnet_path)
    kept = profile(FakeDocument(resnet_path, dirty=True), iterations=2, warmup=0, threads=1, keep_model=True)
    assert kept.summary.model_path == str(resnet_path.with_name("resnet.profiled.onnx"))
    assert Path(kept.summary.model_path).is_file()


def test_a_failed_profile_of_a_dirty_document_leaves_no_copy(resnet_path: Path) -> None:
    document = FakeDocument(resnet_path, dirty=True)
    with pytest.raises(SpecError):
        profile(document, iterations=1, warmup=0, batch_size=0)  # refused by the spec, after the copy was made
    (copy,) = document.saved_to
    assert not Path(copy).parent.exists()


def test_a_clean_document_is_profiled_in_place(resnet_path: Path) -> None:
    document = FakeDocument(resnet_path, dirty=False)
    report = profile(document, iterations=2, warmup=0, threads=1)
    assert document.saved_to == [] and report.summary.model_path == str(resnet_path)


def test_errors_are_typed(resnet_path: Path, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="unknown option"):
        profile(resnet_path, iteratons=3)
    with pytest.raises(UnavailableError, match="backend 'openvino'"):
        profile(resnet_path, backend="openvino")
    with pytest.raises(SpecError, match=r"unknown option\(s\) \['threads'\]"):
        profile(resnet_path, backend="tensorrt", threads=2)
    with pytest.raises(SpecError, match="does not exist"):
        profile(tmp_path / "missing.onnx")
    with pytest.raises(SpecError, match="expected a model path"):
        profile(42)
    try:
        profile(resnet_path, provider="cuda", iterations=1)
    except UnavailableError as error:
        assert "CPUExecutionProvider" in str(error)
    except ActivityFailed:  # pragma: no cover - a GPU host whose CUDA provider fails
        pass
