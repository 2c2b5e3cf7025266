"""`dld analyze` (issue 37), as a user runs it: the real `dld` process on the real GPT-2 export stops at each
--break node in execution order (whatever the order given), prints each stop, and the .npy files it dumps (every
output of a three-output Split, a later node's output, the logits at the end) equal a plain ONNX Runtime run of the
same model with those inner values exposed as outputs; an unknown node name is exit 2 with a clear message, no
traceback and no folder made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
GPT2 = REAL / "gpt2_tiny.onnx"


def dld(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real command line, in a process of its own."""
    return subprocess.run([sys.executable, "-m", "dld_jupyter.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def plain_ort(path: Path, names: list[str], feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`names` from one ONNX Runtime session of the model with them added as outputs (no analysis machinery)."""
    model = onnx.load(str(path))
    declared = {o.name for o in model.graph.output}
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in names if n not in declared)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    values = ort.InferenceSession(model.SerializeToString(), options).run(names, feeds)
    return dict(zip(names, values, strict=True))


def gpt2_case(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray], list[str], dict[str, str]]:
    """The inputs (.npz), the two breakpoints, and the value each dumped file must hold."""
    ids = np.random.default_rng(3).integers(0, 100, (1, 16), dtype=np.int64)
    inputs = tmp_path / "ids.npz"
    np.savez(inputs, input_ids=ids)
    nodes = {n.name: n for n in onnx.load(str(GPT2), load_external_data=False).graph.node}
    split, later = nodes["node_Split_238"], nodes["node_transpose_1"]
    files = {name: name + ".npy" for name in [*split.output, *later.output, "logits"]}
    return inputs, {"input_ids": ids}, [later.name, split.name], files


def break_options(breaks: list[str]) -> list[str]:
    return [word for name in breaks for word in ("--break", name)]


def test_the_real_process_stops_at_each_breakpoint_and_dumps_what_ort_computes(tmp_path: Path) -> None:
    inputs, feeds, breaks, files = gpt2_case(tmp_path)
    out = tmp_path / "dump"
    # the model named after the --break options: each takes one name, so none swallows it
    done = dld("analyze", "--inputs", str(inputs), *break_options(breaks), str(GPT2), "--dump", str(out))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    stops = [line for line in lines if line.startswith("stop ")]
    assert stops == ["stop 1: node_Split_238 (Split, #7 in execution order)",
                     "stop 2: node_transpose_1 (Transpose, #10 in execution order)"]
    assert "end: ran to the end, 1 model output(s)" in lines
    assert f"  split_split_1\t[1, 16, 64] float32\t-> {out / 'split_split_1.npy'}" in lines
    assert sorted(p.name for p in out.iterdir()) == sorted(files.values())
    expected = plain_ort(GPT2, list(files), feeds)
    for value, name in files.items():
        assert np.array_equal(np.load(out / name), expected[value]), value
    assert "2 stop(s); 5 .npy file(s)" in done.stderr


def test_an_unknown_node_name_is_bad_input(tmp_path: Path) -> None:
    inputs, _feeds, _breaks, _files = gpt2_case(tmp_path)
    out = tmp_path / "dump"
    done = dld("analyze", str(GPT2), "--inputs", str(inputs), "--break", "node_Split_23", "--dump", str(out))
    assert done.returncode == 2
    assert "--break 'node_Split_23' (did you mean 'node_Split_243', 'node_Split_238'" in done.stderr
    assert "no node of" in done.stderr and "Traceback" not in done.stderr + done.stdout
    assert not out.exists()


def test_without_dump_it_prints_the_stops_and_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    from dld_jupyter.cli.analyze import file_name
    from dld_jupyter.cli.main import main

    assert main(["analyze", str(REAL / "mobilenet_v3_small_w05.onnx"), "--input", "input=zeros"]) == 0
    assert capsys.readouterr().out.splitlines() == ["end: ran to the end, 1 model output(s)",
                                                     "  logits\t[1, 10] float32"]
    taken: set[str] = set()
    assert [file_name(v, taken) for v in ("/a/b:0", "a_b_0", "..", "#3")] == ["a_b_0.npy", "a_b_0-2.npy",
                                                                              "value.npy", "3.npy"]
