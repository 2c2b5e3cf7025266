"""Every `dld` verb that writes refuses an output that would destroy an input or cannot be written (issue 31,
finding 4): the model itself (also through a symlink or a hard link), its external data file, two outputs that are
one file, a folder, a device (`/dev/full`), a FIFO, an unwritable folder. Exit 2, a message naming the output and
what it collides with, no traceback, and the model and its weights unchanged. Before the guard,
`dld profile m.onnx -o m.onnx` replaced the model with the report and exited 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.cli.main import main
from dld_jupyter.cli.prof import main as prof_main

RESNET8 = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def external_model(folder: Path) -> tuple[Path, Path]:
    """A model whose weight lives in `m.onnx.data` beside it."""
    weight = numpy_helper.from_array(np.ones((4, 4), np.float32), "w")
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path = folder / "m.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, location="m.onnx.data", size_threshold=0)
    return path, folder / "m.onnx.data"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "m.onnx"
    path.write_bytes(RESNET8.read_bytes())
    return path


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in (root may write anywhere except such kernel folders)."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o555)
        return folder
    assert not os.access("/proc/sys", os.W_OK)
    return Path("/proc/sys")


def refused(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> str:
    out, err = capsys.readouterr()
    text = out + err
    assert code == 2, text
    assert "Traceback" not in text and "internal error" not in text
    assert "Nothing was written" in text
    for word in words:
        assert word in text, text
    return text


def outputs_to_refuse(tmp_path: Path, model: Path) -> list[tuple[str, str]]:
    """(output path, words of the message) for each way an output can be wrong."""
    link = tmp_path / "link.onnx"
    link.symlink_to(model)
    hard = tmp_path / "hard.onnx"
    os.link(model, hard)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return [
        (str(model), "is the input model"),
        (str(link), "is the input model"),
        (str(hard), "is the input model"),
        ("/dev/full", "not a regular file"),
        (str(fifo), "not a regular file"),
        (str(tmp_path), "is a folder"),
        (str(tmp_path / "m.onnx" / "r.json"), "is a file, not a folder"),
        (str(unwritable_folder(tmp_path) / "out.json"), "is not writable"),
    ]


def test_profile_and_dld_prof_refuse_every_bad_report_path(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = model.read_bytes()
    for output, words in outputs_to_refuse(tmp_path, model):
        code = main(["profile", str(model), "-o", output, "-n", "1", "--warmup", "0", "--json"])
        refused(capsys, code, words)
        refused(capsys, prof_main([str(model), "-o", output, "-n", "1", "--warmup", "0", "-q"]), words)
    assert model.read_bytes() == before


def test_profile_json_outcome_names_the_collision(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", str(model), "-o", str(model), "--json"]) == 2
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["error_kind"] == "bad_input" and outcome["exit_code"] == 2
    assert f"the report {model} is the input model {model}" in outcome["error"]


def test_export_engine_refuses_outputs_equal_to_the_model_or_each_other(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = str(tmp_path / "m.engine")
    cases = [
        (["-o", str(model)], "the engine"),
        (["--metadata", str(model)], "the metadata"),
        (["-o", engine, "--metadata", engine], "the engine and the metadata are the same file"),
        (["--report", str(tmp_path / "r.json")], "--report: an engine export measures nothing"),
        (["-o", "/dev/full"], "not a regular file"),
        (["-o", str(tmp_path)], "is a folder"),
    ]
    before = model.read_bytes()
    for options, words in cases:
        for dry in (["--dry-run"], []):  # the dry run shows no command that would overwrite the model either
            refused(capsys, main(["export-engine", str(model), *options, *dry]), words)
    refused(capsys, main(["export-engine", "--dry-run", "--json", str(model), "-o", str(model)]), "the engine")
    assert model.read_bytes() == before


def test_an_output_onto_the_external_data_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, data = external_model(tmp_path)
    weights = data.read_bytes()
    words = "is the input model's external data"
    refused(capsys, main(["profile", str(path), "-o", str(data)]), words)
    refused(capsys, main(["convert-fp16", str(path), "-o", str(data)]), words)
    refused(capsys, main(["report", "import-trtexec", "p.json", "--model", str(path), "-o", str(data)]), words)
    assert data.read_bytes() == weights


@pytest.mark.parametrize(
    "verb",
    [
        ["convert-fp16"],
        ["sanitize"],
        ["convert-tensors", "--to", "float16", "--initializers", "."],
        ["extract-subgraph", "--slot", "/Loop:body"],
    ],
)
def test_model_writing_verbs_refuse_every_bad_output(
    verb: list[str], tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = model.read_bytes()
    for output, words in outputs_to_refuse(tmp_path, model):
        refused(capsys, main([verb[0], str(model), *verb[1:], "-o", output]), words)
    if verb[0] != "extract-subgraph":  # the only one without --json
        code = main([verb[0], str(model), *verb[1:], "-o", str(model), "--json"])
        status = json.loads(capsys.readouterr().out)
        assert code == 2 and not status["ok"] and "is the input model" in status["error"]
    assert model.read_bytes() == before


def test_report_verbs_refuse_writing_over_their_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.dld-report.json"
    report.write_text('{"format": "dld-report"}')
    profile, layers, trace = (tmp_path / name for name in ("p.json", "l.json", "t.json"))
    for file in (profile, layers, trace):
        file.write_text("[]")
    for verb in ("csv", "html", "trace"):
        refused(capsys, main(["report", verb, str(report), "-o", str(report)]), "is the report")
        refused(capsys, main(["report", verb, str(report), "-o", "/dev/full"]), "not a regular file")
    trtexec = ["report", "import-trtexec", str(profile), "--layers", str(layers)]
    refused(capsys, main([*trtexec, "-o", str(profile)]), "is the profile")
    refused(capsys, main([*trtexec, "-o", str(layers)]), "is the layer information")
    refused(capsys, main(["report", "import-ort", str(trace), "-o", str(trace)]), "is the trace")
    assert report.read_text() == '{"format": "dld-report"}' and profile.read_text() == "[]"
