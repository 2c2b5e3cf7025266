"""A divergence is a run (issue 30 on issue 25's seam; in the activity worker since issue 35): progress per window
that only rises and reaches the total, a cancel that stops within one window and leaves no private copy behind,
`dld.diverge` as a registered run of the worker that raises what the run ended with, and `dld diverge` printing its
progress on stderr only."""

from __future__ import annotations

import json
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import pytest

import dld_jupyter as dld
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.run import Run
from dld_jupyter.activities.spec import spec_from_json
from dld_jupyter.cli.main import main
from dld_jupyter.frontdoor.compare_runs import divergence_of, start_divergence
from dld_jupyter.frontdoor.runs import track
from dld_jupyter.model_compare.divergence import diverge
from dld_jupyter.transforms.progress import Cancelled, CancelToken
from tests import models
from tests.model_compare.test_structural_diff import with_weight

FEEDS = {"input_ids": np.random.default_rng(0).integers(0, 128, (1, 16))}


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the private copies go (tempfile's folder, here and in the worker), so a test can see that none is
    left."""
    root = tmp_path / "temp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))  # the worker's
    return root


def ours(root: Path) -> list[Path]:
    """What dld_jupyter left in `root` (its folders and files are named dld-…; a shell may put its own there)."""
    return [path for path in root.iterdir() if path.name.startswith("dld-")]


def _emptied(root: Path, within: float = 5.0) -> bool:
    """Whether nothing of ours is in `root` within `within` seconds (a run's copies go in its end listeners)."""
    deadline = time.monotonic() + within
    while ours(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not ours(root)


def test_progress_rises_window_by_window_and_reaches_the_total(temp_root: Path) -> None:
    model = models.transformer_like(layers=2)
    events: list[tuple[float | None, str]] = []
    result = diverge(model, with_weight(model, "/layers.1/mlp/up.weight", 0.5), inputs=FEEDS, window=8,
                     progress=lambda fraction, message: events.append((fraction, message)))
    fractions = [f for f, _ in events if f is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    windows = [m for _, m in events if m.startswith("window ")]
    assert [m.split(":")[0] for m in windows] == [f"window {k}/{result.windows}" for k in range(1, result.windows + 1)]
    assert "/layers.0/" in windows[1] or "/layers.0/" in windows[2]  # the window's first node, by its ONNX name
    assert events[-1][1].startswith(f"{result.windows}/{result.windows} windows: first past max_abs")
    assert not ours(temp_root)


def test_a_cancel_stops_within_one_window_and_removes_both_private_copies(temp_root: Path) -> None:
    model = models.transformer_like(layers=2)
    token = CancelToken()
    seen: list[str] = []
    copies: list[list[str]] = []

    def progress(_fraction: float | None, message: str) -> None:
        seen.append(message)
        copies.append(sorted(p.name for p in ours(temp_root)))
        if message.startswith("window 3/"):
            token.cancel()  # while window 3 is about to run: its ORT run is refused through RunOptions.terminate

    with pytest.raises(Cancelled, match="Divergence: cancelled"):
        diverge(model, model, inputs=FEEDS, window=8, progress=progress, cancel=token)
    assert seen[-1].startswith("window 3/") and not any(m.startswith("window 4/") for m in seen)
    assert len(copies[-1]) == 2 and all(name.startswith("dld-diverge-") for name in copies[-1])  # both were there
    assert not ours(temp_root)  # and both are gone


def test_a_cancel_while_the_copies_are_written_leaves_nothing(temp_root: Path) -> None:
    model = models.transformer_like(layers=1)
    token = CancelToken()

    def progress(_fraction: float | None, message: str) -> None:
        if message.startswith("writing the candidate"):
            token.cancel()

    with pytest.raises(Cancelled):
        diverge(model, model, inputs=FEEDS, progress=progress, cancel=token)
    assert not ours(temp_root)


def test_a_worker_run_cancelled_from_the_registry_ends_within_seconds_and_leaves_nothing(temp_root: Path) -> None:
    """Cancel from another thread (the runs list, a Cancel button) while the worker runs windows of ~4 s per side
    (100 MatMuls of 1024x1024, 2 cores): the run ends CANCELLED within 2 s, as the worker's SIGTERM ends ONNX
    Runtime's window in flight (a worker that heard it only once the window returned took the rest of it, 3.5 s);
    both private copies (the worker's) and the front door's files are gone."""
    started = threading.Event()

    def heard(progress: object) -> None:
        if str(getattr(progress, "phase", "")).startswith("window 1/"):
            started.set()

    chain = _slow_chain(depth=100)
    run = start_divergence(chain, chain, inputs={"t0": np.ones((1024, 1024), np.float32)}, window=4,
                           on_progress=heard)
    assert isinstance(run, Run) and track().find(run.id) is run and run.spec.KIND == "onnxruntime-diverge"
    assert run.command_line().argv[:2] == ("dld", "diverge")
    assert started.wait(60)
    time.sleep(0.5)  # inside the first window's ORT run
    cancelled = time.monotonic()
    track().cancel(run.id)
    assert run.wait(30) is not None
    took = time.monotonic() - cancelled
    assert run.status is ActivityStatus.CANCELLED and took < 2.0, took
    with pytest.raises(Cancelled):
        divergence_of(run)
    assert _emptied(temp_root), list(temp_root.rglob("*"))


def test_dld_diverge_is_a_worker_run_with_on_progress_and_raises_the_runs_error(temp_root: Path) -> None:
    model = models.transformer_like(layers=1)
    heard: list[float] = []
    before = {run.id for run in track().list()}
    result = dld.diverge(model, model, inputs=FEEDS, window=16, on_progress=lambda p: heard.append(p.fraction))
    assert result.first is None and heard[-1] == 1.0 and heard == sorted(heard)
    [new] = [run for run in track().list() if run.id not in before]
    assert new.status is ActivityStatus.SUCCEEDED and isinstance(new, Run) and new.pid is not None
    assert new.result is not None and set(new.result.artifacts) == {"divergence"}
    assert json.loads(Path(new.result.artifacts["divergence"]).read_text())["rows"] == result.to_dict()["rows"]
    def kept() -> list[str]:
        return [p.name for folder in ours(temp_root) for p in folder.rglob("*") if p.is_file()]

    deadline = time.monotonic() + 5.0  # the copies go in the run's end listeners, just after it ends
    while kept() != ["divergence.json"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert kept() == ["divergence.json"]  # the copies are gone, the table stays until the process exits
    with pytest.raises(SpecError, match="metric"):
        dld.diverge(model, model, metric="bogus")
    with pytest.raises(SpecError, match=r"its options are .*'tolerance'"):  # refused before any run starts
        start_divergence(model, model, tolerence=0.1)


def test_the_worker_gives_the_same_table_as_the_kernel_on_a_real_export(tmp_path: Path) -> None:
    """The real BERT export against its FP16 copy: the worker's table (read back from its JSON) equals the one
    `diverge` computes in this process, row for row; its node data is written by the worker."""
    from dld_jupyter.transforms.fp16 import convert_proto

    model = onnx.load(str(Path(__file__).parents[1] / "data" / "real" / "bert_tiny.onnx"))
    fp16, _ = convert_proto(model, compare=False)
    onnx.save(fp16, str(tmp_path / "fp16.onnx"))
    feeds = {"input_ids": np.arange(7, dtype=np.int64).reshape(1, 7) * 97 % 1000,
             "attention_mask": np.ones((1, 7), dtype=np.int64)}
    here = diverge(model, fp16, inputs=feeds, window=16)
    there = dld.diverge(model, str(tmp_path / "fp16.onnx"), inputs=feeds, window=16,
                        node_data=str(tmp_path / "nd.json"))
    assert there.to_dict() == here.to_dict() and there.first is not None and len(there.rows) > 200
    assert json.loads((tmp_path / "nd.json").read_text())["results"]
    before = (tmp_path / "fp16.onnx").read_bytes()
    with pytest.raises(SpecError, match="node data"):  # refused before the worker writes anything
        dld.diverge(model, str(tmp_path / "fp16.onnx"), node_data=str(tmp_path / "fp16.onnx"))
    with pytest.raises(SpecError, match="tolerance"):
        dld.diverge(model, str(tmp_path / "fp16.onnx"), tolerance=float("nan"))
    assert (tmp_path / "fp16.onnx").read_bytes() == before


def test_cli_progress_goes_to_stderr_and_json_stays_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = models.transformer_like(layers=1)
    onnx.save(model, str(tmp_path / "a.onnx"))
    np.save(tmp_path / "ids.npy", FEEDS["input_ids"])
    code = main(["diverge", str(tmp_path / "a.onnx"), str(tmp_path / "a.onnx"), "--input",
                 f"input_ids={tmp_path / 'ids.npy'}", "--window", "16", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["windows"] == 3
    lines = [line for line in err.splitlines() if line.startswith("dld diverge: ")]
    assert [line for line in lines if "window " in line][-1].startswith("dld diverge:  67% window 3/3")
    assert lines[-1] == "dld diverge: 100% 3/3 windows: 36 tensors compared, none past max_abs 0.001"
    main(["diverge", str(tmp_path / "a.onnx"), str(tmp_path / "a.onnx"), "--input", f"input_ids={tmp_path / 'ids.npy'}",
          "--window", "16", "--window-mb", "0.01", "--json"])
    small = json.loads(capsys.readouterr().out)
    assert small["windows"] > 3 and len(small["rows"]) == 36


def _slow_chain(size: int = 1024, depth: int = 40) -> onnx.ModelProto:
    """`depth` MatMuls of size x size (seconds of ORT work on this machine's cores)."""
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.eye(size, dtype=np.float32), "w")
    nodes = [helper.make_node("MatMul", [f"t{i}", "w"], [f"t{i + 1}"], name=f"mm{i}") for i in range(depth)]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [size, size])],
                              [helper.make_tensor_value_info(f"t{depth}", TensorProto.FLOAT, [size, size])], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_a_cancel_during_a_windows_ort_run_abandons_it(temp_root: Path) -> None:
    """The token ends the ORT run in flight (RunOptions.terminate): Cancelled within a node or two, not after the
    window's whole pass."""
    import time

    from dld_jupyter.activities.runtimes.onnxruntime.windows import Windows
    from dld_jupyter.model_compare.structural_diff import as_model

    token = CancelToken()
    feeds = {"t0": np.ones((1024, 1024), np.float32)}
    with Windows(as_model(_slow_chain()), "cpu", "the reference") as side:
        started = time.perf_counter()
        side.run(["t40"], feeds)  # the whole pass, uncancelled
        whole = time.perf_counter() - started
        timer = threading.Timer(0.1 * whole, token.cancel)
        timer.start()
        started = time.perf_counter()
        with pytest.raises(Cancelled):
            side.run(["t40"], feeds, cancel=token)
        took = time.perf_counter() - started
        timer.join()
    assert took < 0.5 * whole, (took, whole)
    assert not ours(temp_root)


def test_windows_are_sized_by_activation_bytes_as_well_as_tensor_count(temp_root: Path) -> None:
    """Shape inference on the weightless copy sizes every tensor exactly for the feeds; a byte cap then splits the
    windows so that no window holds more than the cap (a tensor above it alone), while the count cap still holds."""
    from dld_jupyter.activities.runtimes.onnxruntime.windows import Windows
    from dld_jupyter.model_compare.divergence import windows
    from dld_jupyter.model_compare.structural_diff import as_model

    model = models.transformer_like(layers=2)
    names = [output for node in model.graph.node for output in node.output]
    with Windows(as_model(model), "cpu", "the reference") as side:
        estimated = side.tensor_bytes(FEEDS)
        actual = side.run(names, FEEDS)
    assert {name: estimated.get(name) for name in names} == {name: value.nbytes for name, value in actual.items()}
    assert windows([4, 4, 9, 1, 1, 1], most=64, cap=8) == [(0, 2), (2, 3), (3, 6)]
    assert windows([1] * 5, most=2, cap=100) == [(0, 2), (2, 4), (4, 5)]
    cap = 20_000
    result = diverge(model, model, inputs=FEEDS, window=64, window_bytes=cap)
    largest = max(actual.values(), key=lambda value: value.nbytes).nbytes
    assert result.windows > 2 and result.largest_window_bytes <= max(cap, largest)
    assert len(result.rows) == len(names) and result.first is None


def test_a_fresh_worker_knows_the_kind_from_its_spec_alone() -> None:
    """The activities import nothing above them: the spec's JSON names the module of its kind, which the worker's
    spec_from_json imports (registering the kind's runner); a module outside the package is never imported."""
    import subprocess
    import sys

    from dld_jupyter.model_compare.divergence_kind import OrtDivergeSpec

    text = OrtDivergeSpec(model="a.onnx", candidate="b.onnx", metric="cosine").to_json()
    probe = ("import sys; from dld_jupyter.activities.spec import spec_from_json; from dld_jupyter.activities.kinds "
             "import kind_runner; assert 'dld_jupyter.model_compare' not in sys.modules; s = spec_from_json("
             "sys.stdin.read()); print(type(s).__name__, s.metric, kind_runner(s).__name__)")
    done = subprocess.run([sys.executable, "-c", probe], input=text, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["OrtDivergeSpec", "cosine", "run_diverge"], done.stderr
    with pytest.raises(SpecError, match="not a known activity kind"):
        spec_from_json(json.dumps({**json.loads(text), "kind": "elsewhere", "module": "os"}))
