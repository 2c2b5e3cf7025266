"""`ModelRef.of(path | Document | designer)`: the file a run reads, the user's own file, the temporary copy of unsaved
edits and its release; and the one builder per spec kind that reads it (issue 35). The designer case is in
tests/widgets/test_profile_copies.py (it needs the notebook Designer)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import onnx
import pytest

from dld_jupyter.activities import SpecError, profile
from dld_jupyter.activities.kinds.export_engine import export_spec
from dld_jupyter.activities.kinds.profile import profile_spec
from dld_jupyter.activities.model_ref import ModelRef, document_of
from dld_jupyter.document import Document


def _temporary_copies() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("dld-profiled-*"))


def _dirty(path: Path) -> Document:
    document = Document.open(path)
    first = next(node for node in document.nodes() if node.kind == "op")
    document.rename_node(first.id, "renamed_first")  # an unsaved edit
    assert document.dirty
    return document


def test_a_path_is_run_as_it_is_and_nothing_is_written(resnet_path: Path) -> None:
    before = set(resnet_path.parent.iterdir())
    with ModelRef.of(resnet_path) as ref:
        assert ref.path == ref.home == ref.user_file == str(resnet_path)
        assert ref.saved and ref.copy_of is None and ref.document is None and ref.origin is None
        assert ref.default_report == str(resnet_path.with_name("resnet.dld-report.json"))
    assert set(resnet_path.parent.iterdir()) == before


def test_a_clean_document_runs_its_own_file(resnet_path: Path) -> None:
    document = Document.open(resnet_path)
    ref = ModelRef.of(document)
    assert ref.path == str(resnet_path) and ref.saved and ref.copy_of is None and ref.document is document
    assert document_of(document) is document and document_of("m.onnx") == "m.onnx"


def test_a_dirty_document_runs_a_temporary_copy_of_its_edits_removed_on_release(resnet_path: Path) -> None:
    document = _dirty(resnet_path)
    before = _temporary_copies()
    with ModelRef.of(document) as ref:
        assert not ref.saved and ref.home == str(resnet_path) and ref.copy_of == str(resnet_path)
        assert _temporary_copies() == before  # nothing is written until the run asks for its file
        copy = Path(ref.path)
        assert copy.parent.name.startswith("dld-profiled-") and copy.name == "resnet.onnx"
        assert "renamed_first" in [node.name for node in onnx.load(str(copy)).graph.node]
        assert ref.temporary == str(copy) and ref.path == str(copy)  # one copy per reference
    assert not copy.parent.exists() and _temporary_copies() == before
    assert document.dirty and document.path == resnet_path  # the document is neither saved nor moved
    ref.release()  # again: nothing


def test_a_kept_copy_goes_beside_the_report_and_stays(resnet_path: Path) -> None:
    with ModelRef.of(_dirty(resnet_path), keep=True) as ref:
        kept = Path(ref.path)
    assert kept == resnet_path.with_name("resnet.profiled.onnx") and kept.is_file()


def test_a_new_document_lives_in_the_working_folder_under_a_safe_name(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    document = Document.new(name="../../etc/x")
    with ModelRef.of(document) as ref:
        assert ref.user_file is None and ref.home == str(tmp_path / "etc_x.onnx")
        assert ref.default_report == str(tmp_path / "etc_x.dld-report.json")
        assert Path(ref.path).parent.name.startswith("dld-profiled-")
    with pytest.raises(SpecError, match="expected a model path, a Document or a designer, got int"):
        ModelRef.of(42)  # type: ignore[arg-type]


def test_profile_of_a_dirty_document_reads_a_copy_removed_after_the_run(resnet_path: Path) -> None:
    """The report goes beside the document's own file and names it; the copy goes with the run (`keep_model`
    keeps it beside the report)."""
    before, folder = _temporary_copies(), set(resnet_path.parent.iterdir())
    report = profile(_dirty(resnet_path), iterations=2, warmup=0, threads=1)
    copy = Path(report.summary.model_path)
    assert copy.parent.name.startswith("dld-profiled-") and not copy.parent.exists()
    assert _temporary_copies() == before
    assert set(resnet_path.parent.iterdir()) - folder == {resnet_path.with_name("resnet.dld-report.json")}
    assert report.summary.settings["source_document"] == str(resnet_path)
    assert "renamed_first" in [layer.name for layer in report.layers] + [
        name for layer in report.layers for name in layer.onnx_nodes]
    kept = profile(_dirty(resnet_path), iterations=2, warmup=0, threads=1, keep_model=True)
    # the second report is resnet-2.dld-report.json (report_names): its kept copy pairs with it
    assert kept.summary.model_path == str(resnet_path.with_name("resnet-2.profiled.onnx"))
    assert Path(kept.summary.model_path).is_file()
    again = profile(_dirty(resnet_path), iterations=2, warmup=0, threads=1, keep_model=True)
    assert again.summary.model_path == str(resnet_path.with_name("resnet-3.profiled.onnx"))  # the first kept stays
    assert Path(kept.summary.model_path).is_file()


def test_a_refused_profile_of_a_dirty_document_leaves_no_copy(resnet_path: Path) -> None:
    before = _temporary_copies()
    with pytest.raises(SpecError, match="batch_size"):
        profile(_dirty(resnet_path), iterations=1, warmup=0, batch_size=0)  # refused by the spec, after the copy
    with pytest.raises(SpecError, match=r"unknown option\(s\) \['iteratons'\]"):
        profile(_dirty(resnet_path), iteratons=3)  # refused before any copy
    assert _temporary_copies() == before


def test_the_builders_put_a_documents_outputs_beside_its_own_file(resnet_path: Path) -> None:
    with ModelRef.of(_dirty(resnet_path)) as ref:
        ort = profile_spec(ref, "onnxruntime", provider="cpu", iterations=3)
        assert ort.model == ref.path and ort.source_document == str(resnet_path)
        assert ort.report_path() == str(resnet_path.with_name("resnet.dld-report.json"))
        trt = profile_spec(ref, "tensorrt", fp16=True, iterations=3)
        assert trt.settings.fp16 and trt.profiler.iterations == 3 and trt.report_path() == ort.report_path()
        engine = export_spec(ref, fp16=True)
        assert engine.engine_path() == str(resnet_path.with_suffix(".engine")) and engine.settings.fp16
        with pytest.raises(SpecError, match="is the input model"):
            profile_spec(ref, "onnxruntime", output=str(resnet_path))  # the report would replace the document's file
    # a path: the default beside it, named by the builder (numbered past existing reports: report_names)
    assert profile_spec(str(resnet_path), "onnxruntime").output == str(resnet_path.with_name("resnet.dld-report.json"))
    with pytest.raises(SpecError, match=r"unknown option\(s\) \['threads'\]"):
        profile_spec(str(resnet_path), "tensorrt", threads=2)
    with pytest.raises(SpecError, match=r"unknown option\(s\) \['iterations'\]"):
        export_spec(str(resnet_path), iterations=2)
    assert os.path.isfile(resnet_path)
