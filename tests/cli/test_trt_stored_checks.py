"""TensorRT attributes stored in a model and TensorRT options are checked before anything reaches trtexec or the
builder (issue 31, finding 7).

A model written by another tool used to pass its stored attributes on unchecked: a layer named `a,*` became the
trtexec wildcard (`--layerPrecisions=a,*:fp16` constrains every layer), names with `:` went unquoted, a stored
`FP16` ended in a KeyError traceback and a profile with min > max was passed to the build. The options took a
workspace of 10**30 MiB, NaN or infinite sampling intervals, 2**70 aux streams and a prebuilt engine that does not
exist. trtexec's own parser (samples/common/sampleOptions.cpp) splits these lists on every "," before looking at
quotes and reads an item with two single quotes as 'name':value, so ":" names are quoted and "," names are left to
the Python API with a note.
"""

from __future__ import annotations

import json
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from dld_jupyter.cli.main import main
from dld_jupyter.formats.trt_metadata import INFERRED_BATCH_KEY, PROFILES_KEY, TRT_PRECISION_KEY

NODES = ("a,*", "b:c", "plain", "q'uote")


@pytest.fixture(autouse=True)
def _no_standin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DLD_TENSORRT_RUNTIME", raising=False)
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))


def write_model(
    path: Path, precisions: dict[str, str], profiles: object = None, batch: str | None = None, inputs: tuple = ()
) -> Path:
    """Four Relu nodes named NODES on dynamic inputs, with TensorRT metadata written as another tool would: raw."""
    names = inputs or ("in:0",)
    nodes = []
    for i, name in enumerate(NODES):
        node = helper.make_node("Relu", [names[0] if i == 0 else f"t{i - 1}"], [f"t{i}"], name=name)
        if name in precisions:
            node.metadata_props.add(key=TRT_PRECISION_KEY, value=precisions[name])
        nodes.append(node)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 4]) for n in names],
        [helper.make_tensor_value_info(f"t{len(NODES) - 1}", TensorProto.FLOAT, ["N", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    if profiles is not None:
        text = profiles if isinstance(profiles, str) else json.dumps({"version": 1, "inputs": profiles})
        model.metadata_props.add(key=PROFILES_KEY, value=text)
    if batch is not None:
        model.metadata_props.add(key=INFERRED_BATCH_KEY, value=batch)
    onnx.save(model, str(path))
    return path


def dry_run(capsys: pytest.CaptureFixture[str], model: Path, *options: str) -> tuple[int, dict]:
    code = main(["export-engine", str(model), "--typing", "obey", *options, "--dry-run", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    return code, json.loads(out)


PROFILE = {"in:0": {"min": [1, 4], "opt": [4, 4], "max": [8, 4]}}


def test_names_are_quoted_as_trtexec_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    precisions = {"a,*": "fp16", "b:c": "fp16", "plain": "FP16", "q'uote": "int8"}
    code, data = dry_run(capsys, write_model(tmp_path / "m.onnx", precisions, PROFILE))
    assert code == 0, data
    argv = data["trtexec"]["argv"]
    layers = next(a for a in argv if a.startswith("--layerPrecisions="))
    assert layers == "--layerPrecisions='b:c':fp16,plain:fp16"  # no "*": no layer but the named ones
    assert "--minShapes='in:0':1x4" in argv and "--maxShapes='in:0':8x4" in argv
    assert any("'a,*'" in note and '"q\'uote"' in note for note in data["trtexec"]["notes"])
    assert data["model"]["layer_precisions"]["plain"] == "fp16"  # a stored FP16 was a KeyError traceback
    assert data["build"]["SetLayerPrecisions"] == {
        "a,*": "trt.DataType.HALF",  # the Python API names every layer exactly
        "b:c": "trt.DataType.HALF",
        "plain": "trt.DataType.HALF",
        "q'uote": "trt.DataType.INT8",
    }


def test_an_input_trtexec_cannot_name_is_left_to_the_python_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profiles = {"x,y": {"min": [1, 4], "opt": [2, 4], "max": [2, 4]}}
    code, data = dry_run(capsys, write_model(tmp_path / "m.onnx", {}, profiles, inputs=("x,y",)))
    assert code == 0 and not any("Shapes=" in a for a in data["trtexec"]["argv"])
    assert any("cannot name the input(s) 'x,y'" in note for note in data["trtexec"]["notes"])
    assert data["build"]["Profile.add"] == {"x,y": {"min": [1, 4], "opt": [2, 4], "max": [2, 4]}}


@pytest.mark.parametrize(
    ("stored", "words"),
    [
        ({"precisions": {"plain": "fp64"}}, "layer precision of node 'plain'"),
        ({"profiles": {"in:0": {"min": [8, 4], "opt": [4, 4], "max": [1, 4]}}}, "min 8 <= opt 4 <= max 1"),
        ({"profiles": {"in:0": {"min": [1], "opt": [1], "max": [1]}}}, "has rank 1"),
        ({"profiles": {"in:0": {"min": [1, 5], "opt": [1, 5], "max": [1, 5]}}}, "axis 1 of input 'in:0' is static"),
        ({"profiles": {"in:0": {"min": [1, 4], "opt": [2, 4]}}}, "has no max shape"),
        ({"profiles": {"other": PROFILE["in:0"]}}, "names the input 'other'"),
        ({"profiles": "{not json"}, "are not"),
        # issue 36, item 10: 10**20 reached the trtexec line (--maxShapes=in:0:100000000000000000000x4)
        ({"profiles": {"in:0": {"min": [1, 4], "opt": [1, 4], "max": [10**20, 4]}}}, "more than TensorRT's int32"),
        ({"profiles": {"in:0": {"min": [1, 4], "opt": [1, 4], "max": [2**31, 4]}}}, "Give sizes up to 2147483647"),
        ({"profiles": '{"inputs": ' + "[" * 100_000 + "]" * 100_000 + "}"}, "are not"),
        ({"batch": "0"}, "inferred batch size"),
        ({"batch": "eight"}, "inferred batch size"),
    ],
)
def test_stored_attributes_the_dialogs_refuse_are_bad_input(
    stored: dict, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = write_model(
        tmp_path / "m.onnx", stored.get("precisions", {}), stored.get("profiles", PROFILE), stored.get("batch")
    )
    code, data = dry_run(capsys, model)
    assert code == 2 and data["error_kind"] == "bad_input"
    assert words in data["error"] and "stored" in data["error"] and "Fix:" in data["error"]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--workspace-mib", str(10**30)], "settings.workspace_mib: must be at most 2,147,483,647"),
        (["--workspace-mib", str(10**8)], "more than any GPU has"),
        (["--max-aux-streams", str(2**70)], "settings.max_aux_streams: must be at most"),
        (["--backend", "tensorrt", "--sampling-ms", "nan"], "profiler.sampling_ms: must be a finite number"),
        (["--backend", "tensorrt", "--sampling-ms", "inf"], "profiler.sampling_ms: must be a finite number"),
        (["--backend", "tensorrt", "--prebuilt-engine", "missing.engine"], "prebuilt engine: "),
        (["--int8", "--calibration-cache", "missing.cache"], "calibration cache: "),
        (["--sampling-ms", "nan"], "sampling_ms: must be a positive, finite number"),  # ONNX Runtime too
        (["--backend", "tensorrt", "--sampling-ms", "1e308"], "profiler.sampling_ms: must be a positive, finite number "
         "of ms, at most 60000; got 1e+308"),  # issue 36, item 10: accepted before
        (["--sampling-ms", "1e308"], "sampling_ms: must be a positive, finite number of ms, at most 60000"),
    ],
)
def test_trt_options_out_of_bounds_exit_2(
    options: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = write_model(tmp_path / "m.onnx", {}, PROFILE)
    profile = "--backend" in options or "--sampling-ms" in options
    verb = ["profile", str(model)] if profile else ["export-engine", str(model)]
    dry = ["--dry-run"] if "tensorrt" in options or not profile else []
    code = main([*verb, *options, *dry, "-o", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err
