"""Every run kind's command line parses back, through the `dld` parser itself, to the run it came from.

The runs list's Copy button hands the user `spec.command_line()`; a line that the CLI reads differently (a flag spelt
another way, a default assumed wrongly, a field left out) would reproduce another run. Each kind is round-tripped
with its defaults and with every field changed from them; what the CLI cannot express is said in `unsaid`, and the
test checks it is said rather than lost.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

import pytest

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.kinds.analysis import OrtAnalysisSpec
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec, OrtSessionSpec
from dld_jupyter.activities.runtimes.tensorrt.settings import ProfilerSettings, TrtSettings
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec, TrtProfileSpec
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.sweep.grid import Settings
from dld_jupyter.activities.sweep.manifest import Manifest
from dld_jupyter.cli import export_engine, profile
from dld_jupyter.cli.main import build_parser

ODD = "/tmp/a dir/it's \"odd\" $HOME;"  # a path the shell would split, expand or end without quoting


def parsed(line: CommandLine) -> object:
    """The argparse namespace of the line, read back from its shell text (the quoting is part of the trip)."""
    words = shlex.split(line.text)
    assert words[0] == "dld"
    return build_parser().parse_args(words[1:])


def ort_every_field() -> OrtProfileSpec:
    return OrtProfileSpec(
        model=ODD + "m.onnx", iterations=7, warmup=0, provider="cuda", optimize=False, random_inputs=False,
        input_folder=ODD + "inputs", batch_size=8, device=1, output=ODD + "r.json", seed=3, threads=2,
        gpu_metrics=False, lock_clocks=True, sampling_ms=150.5, kernel_records=False, hide_non_compute=True,
    )


@pytest.mark.parametrize("spec", [OrtProfileSpec("m.onnx"), ort_every_field()], ids=["defaults", "every field"])
def test_onnxruntime_profile_round_trips(spec: OrtProfileSpec) -> None:
    line = spec.resolved().command_line()
    assert line.argv[:2] == ("dld", "profile") and line.unsaid == ()
    assert profile.spec_from_args(parsed(line)).resolved() == spec.resolved()  # type: ignore[arg-type]


def test_defaults_stay_off_the_line() -> None:
    line = OrtProfileSpec("m.onnx").resolved().command_line()
    assert len(line.argv) == 5, line.text  # dld profile MODEL -o REPORT


def test_a_copy_of_unsaved_edits_is_said_not_dropped() -> None:
    spec = OrtProfileSpec("/tmp/copy.onnx", source_document="/home/u/model.onnx").resolved()
    line = spec.command_line()
    assert any("/home/u/model.onnx" in note and "unsaved" in note for note in line.unsaid)
    again = profile.spec_from_args(parsed(line))  # type: ignore[arg-type]
    assert again.resolved() == dataclasses.replace(spec, source_document=None)


def trt_settings_every_field() -> TrtSettings:
    return TrtSettings(
        tensorrt="trtexec", tensorrt_path=ODD + "trtexec", save_metadata=False, device=2,
        plugins=(ODD + "a.so", "/b.so"), typing="obey", tf32=False, fp16=True, bf16=True, int8=True, fp8=False,
        sparsity=True, cudnn_cublas=True, native_instancenorm=False, optimization_level=5, max_aux_streams=0,
        batch_size=4, hardware_compatible=True, workspace_mib=512, calibration_cache=ODD + "c.cache", refit="strip",
        version_compatible=True,
    )


def test_every_tensorrt_setting_has_an_option() -> None:
    """A TrtSettings field added without its option would be lost by both TensorRT lines: the every-field spec
    must change every field from its default."""
    every, default = trt_settings_every_field(), TrtSettings()
    same = [f.name for f in dataclasses.fields(TrtSettings) if getattr(every, f.name) == getattr(default, f.name)]
    assert same == ["fp8"]  # exclusive with int8, round-tripped on its own below


@pytest.mark.parametrize(
    "spec",
    [
        TrtProfileSpec("m.onnx"),
        TrtProfileSpec(ODD + "m.onnx", settings=trt_settings_every_field(), output=ODD + "r.json",
                       profiler=ProfilerSettings(iterations=3, warmup=0, sampling_ms=250.0, gpu_metrics=False,
                                                 lock_clocks=True, hide_non_compute=True,
                                                 prebuilt_engine=ODD + "e.engine", seed=9)),
        TrtProfileSpec("m.onnx", settings=TrtSettings(fp8=True)),
    ],
    ids=["defaults", "every field", "fp8"],
)
def test_tensorrt_profile_round_trips(spec: TrtProfileSpec) -> None:
    line = spec.resolved().command_line()
    assert line.argv[:2] == ("dld", "profile") and "tensorrt" in line.argv and line.unsaid == ()
    assert profile.spec_from_args(parsed(line)).resolved() == spec.resolved()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spec",
    [
        TrtBuildSpec("m.onnx"),
        TrtBuildSpec(ODD + "m.onnx", settings=trt_settings_every_field(), engine=ODD + "m.plan"),
        TrtBuildSpec("m.onnx", engine="e.engine", metadata=ODD + "m.trt.json"),
    ],
    ids=["defaults", "every field", "metadata"],
)
def test_engine_export_round_trips(spec: TrtBuildSpec) -> None:
    line = spec.resolved().command_line()
    assert line.argv[:2] == ("dld", "export-engine") and line.unsaid == ()
    assert export_engine.spec_from_args(parsed(line)).resolved() == spec.resolved()  # type: ignore[arg-type]


def test_opening_the_layer_information_afterwards_is_said() -> None:
    spec = TrtBuildSpec("m.onnx", metadata="m.trt.json", open_metadata=True).resolved()
    line = spec.command_line()
    assert any("engine graph" in note for note in line.unsaid)
    again = export_engine.spec_from_args(parsed(line))  # type: ignore[arg-type]
    assert again.resolved() == dataclasses.replace(spec, open_metadata=False)


def test_a_session_says_no_command_runs_it() -> None:
    line = OrtSessionSpec("m.onnx").command_line()
    assert line.argv == () and line.text == "" and line.unsaid


def test_every_registered_kind_has_its_own_line() -> None:
    """A new kind inherits the base's "no command": this lists the kinds that have one, so adding a kind makes
    its author decide (and add its round trip here)."""
    import dld_jupyter.model_compare.divergence_kind  # noqa: F401  (a kind of a higher layer: known once imported)
    from dld_jupyter.activities.spec import _KINDS

    own = sorted(kind for kind, cls in _KINDS.items() if cls.command_line is not ActivitySpec.command_line)
    assert own == sorted(["onnxruntime-profile", "onnxruntime-session", "onnxruntime-analysis", "tensorrt-build",
                          "tensorrt-profile", "onnxruntime-diverge"])
    assert OrtAnalysisSpec.command_line is not OrtSessionSpec.command_line


def test_quoting_survives_a_real_shell(tmp_path: Path) -> None:
    """The text pasted into bash gives the program the same words."""
    import subprocess
    import sys

    line = ort_every_field().resolved().command_line()
    echo = [sys.executable, "-c", "import json,sys; print(json.dumps(sys.argv[1:]))"]
    out = subprocess.run(["bash", "-c", shlex.join(echo) + " " + shlex.join(line.argv[1:])],
                         capture_output=True, text=True, check=True).stdout
    import json

    assert json.loads(out) == list(line.argv[1:])


def test_an_analysis_is_run_by_dld_analyze_on_its_inputs(tmp_path: Path) -> None:
    """`dld analyze` starts an analysis with what the line says: the model, provider, seed, device, threads and the
    analysis's own inputs (an .npz), every array of it; the interactive part (breakpoints, overrides) is said."""
    import numpy as np

    from dld_jupyter.cli.run import analysis_arguments

    inputs = tmp_path / "it's inputs.npz"
    np.savez(inputs, x=np.arange(6, dtype=np.float32).reshape(2, 3))
    spec = OrtAnalysisSpec(ODD + "m.onnx", provider="cuda", seed=4, device=1, threads=3, inputs=str(inputs),
                           window=2).resolved()
    line = spec.command_line()
    assert line.argv[:2] == ("dld", "analyze")
    given = analysis_arguments(parsed(line))  # type: ignore[arg-type]
    assert {k: v for k, v in given.items() if k != "inputs"} == {
        "model": spec.model, "provider": "cuda", "seed": 4, "device": 1, "threads": 3}
    assert list(given["inputs"]) == ["x"] and given["inputs"]["x"].tolist() == [[0, 1, 2], [3, 4, 5]]
    notes = " ".join(line.unsaid)
    assert "breakpoints" in notes and "window=2" in notes and "removed when the analysis stops" in notes
    assert parsed(line).dump.endswith("m.analysis")  # type: ignore[attr-defined]


def sweep_manifest(settings: Settings, **grid: object) -> Manifest:
    axes: dict[str, object] = {"models": ["/m/a.onnx", ODD + "b.onnx"], "batch": [1, 8, 32],
                               "provider": ["cpu", "cuda"], "precision": ["fp32", "fp16"],
                               "targets": ["localhost", "gpu box"], **grid}
    return Manifest(Path(ODD + "sweep").resolve(), settings=settings, points=[], **axes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "manifest",
    [
        sweep_manifest(Settings(), batch=[1], provider=["cpu"], precision=["fp32"], targets=["localhost"]),
        sweep_manifest(Settings(iterations=3, warmup=0, optimize=False, threads=2, seed=5, gpu_metrics=True,
                                lock_clocks=True, foreign="wait", foreign_wait_s=12.5, gpus=(0, 3))),
    ],
    ids=["defaults", "every field"],
)
def test_sweep_round_trips(manifest: Manifest) -> None:
    """The grid, the folder and every shared setting come back; --rerun measures again what the folder holds."""
    from dld_jupyter.cli.sweep import sweep_arguments

    every = set(Settings.__dataclass_fields__)
    changed = {k for k in every if getattr(manifest.settings, k) != getattr(Settings(), k)}
    assert changed in (set(), every), "the every-field case must change every setting"
    line = manifest.command_line()
    assert line.argv[:2] == ("dld", "sweep") and line.argv[-1] == "--rerun" and line.unsaid == ()
    given = sweep_arguments(parsed(line))  # type: ignore[arg-type]
    grid = {k: given.pop(k) for k in ("models", "batch", "provider", "precision", "targets")}
    assert grid == manifest.grid()
    assert given.pop("out") == str(manifest.folder) and given.pop("rerun") is True and given.pop("executor") is None
    assert Settings.from_dict(given) == manifest.settings


def test_a_sweep_on_dask_keeps_its_executor() -> None:
    manifest = sweep_manifest(Settings())
    from dld_jupyter.cli.sweep import sweep_arguments

    assert sweep_arguments(parsed(manifest.command_line("dask://h:8786")))["executor"] == "dask://h:8786"  # type: ignore[arg-type]
    said = manifest.command_line(object()).unsaid
    assert said and "--executor" in said[0]


@pytest.mark.parametrize(
    "options",
    [{}, {"metric": "cosine", "tolerance": 0.995, "reference_provider": "cuda", "candidate_provider": "cuda",
          "window": 7, "seed": 2, "window_bytes": 3 << 19}],
    ids=["defaults", "every option"],
)
def test_divergence_round_trips(options: dict[str, object]) -> None:
    from dld_jupyter.cli.diverge import diverge_arguments
    from dld_jupyter.model_compare.divergence import diverge
    from dld_jupyter.model_compare.divergence_command import divergence_command

    line = divergence_command(ODD + "a.onnx", "b.onnx", **options)  # type: ignore[arg-type]
    assert line.argv[:2] == ("dld", "diverge") and line.unsaid == ()
    given = diverge_arguments(parsed(line))  # type: ignore[arg-type]
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(diverge).parameters.items()
                if p.default is not inspect.Parameter.empty and k not in ("progress", "cancel")}
    assert set(given) - {"reference", "candidate"} == set(defaults)  # a diverge option without a CLI option fails
    assert given == {**defaults, "reference": ODD + "a.onnx", "candidate": str(Path("b.onnx").resolve()), **options}


def test_a_divergence_runs_line_round_trips() -> None:
    """The worker run's spec writes the same line as the front door's `divergence_command`; where its table went (the
    CLI prints it with --json) and an NPZ of inputs (the arrays a front door was given) are said in words."""
    from dld_jupyter.cli.diverge import diverge_arguments
    from dld_jupyter.model_compare.divergence_kind import OrtDivergeSpec

    spec = OrtDivergeSpec(model=ODD + "a.onnx", candidate="b.onnx", metric="sqnr", tolerance=30.0, window=5, seed=4,
                          window_bytes=1 << 20, node_data="nd.json")
    line = spec.command_line()
    given = diverge_arguments(parsed(line))  # type: ignore[arg-type]
    assert given["metric"] == "sqnr" and given["tolerance"] == 30.0 and given["seed"] == 4
    assert given["window"] == 5 and given["window_bytes"] == 1 << 20 and parsed(line).node_data == "nd.json"
    assert line.unsaid == (f"the per-node table went to {spec.table_path()}: the command prints it with --json "
                           "(add --json > FILE)",)
    with_inputs = dataclasses.replace(spec, inputs="/tmp/x/inputs.npz").command_line()
    assert with_inputs.argv == line.argv and "inputs.npz" in with_inputs.unsaid[1]


def test_a_divergence_of_what_no_file_holds_is_said(tmp_path: Path) -> None:
    import numpy as np
    import onnx

    from dld_jupyter.document import Document
    from dld_jupyter.model_compare.divergence_command import divergence_command
    from tests import models

    path = tmp_path / "saved.onnx"
    onnx.save(models.resnet_like(blocks=1), str(path))
    edited = Document.open(path)
    edited.add_node("Relu")
    line = divergence_command(str(path), edited, inputs={"x": np.zeros(1)})
    assert line.argv[2:4] == (str(path), str(path))
    notes = " ".join(line.unsaid)
    assert "candidate had unsaved edits" in notes and "--input x=FILE.npy" in notes
    proto = divergence_command(models.resnet_like(blocks=1), str(path))
    assert "in-memory ModelProto" in proto.unsaid[0]

