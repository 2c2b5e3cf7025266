"""Inputs out of bounds are bad input (exit 2, said before any run) instead of internal errors, silent choices or
nonsense output (issue 36, item 9).

Before: a 20000×20000 PNG was an internal error and a 12k×12k one took 1.7 GB to feed a 32×32 input;
`--input x=a.npy --input x=zeros` silently used the last; `dld run -o missing/x.npz` ran the model and then failed
to write; `dld diverge` of two unrelated models exited 0 "none past" having compared nothing; `--tolerance nan`,
`--window-mb 0/-1/nan` were accepted or crashed; `dld diverge --input nosuch=…` was dropped; a report with a
kernel of 1e308 ms printed "GPU Utilization inf %", a `pass_index` of 10**12 or a `median_pass` of "x" were
accepted, and so was `--rows -1`; `read_node_data` of deep or huge JSON raised RecursionError / OverflowError.
"""

from __future__ import annotations

import json
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.cli.main import main
from dld_jupyter.model_compare.node_data import read_node_data

ROOT = Path(__file__).resolve().parents[2]
RESNET8 = ROOT / "dld_jupyter" / "models" / "resnet8_cifar.onnx"  # input "input": float32 [1, 3, 32, 32]
MOBILENET = ROOT / "tests" / "data" / "real" / "mobilenet_v3_small_w05.onnx"
KERNELS = ROOT / "tests" / "data" / "kernels" / "resnet50_fp16_b8_h100.dld-report.json"


def png_header(path: Path, width: int, height: int) -> Path:
    """A PNG that declares `width`×`height` RGB pixels and holds one compressed row (a decoder that trusts the
    header allocates the whole image; one that reads the header first refuses it at once)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    row = zlib.compress(b"\0" + b"\0" * (3 * width))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", row) + chunk(b"IEND", b""))
    return path


def refused(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> str:
    text = "".join(capsys.readouterr())
    assert code == 2, text
    assert "Traceback" not in text and "internal error" not in text, text
    for word in words:
        assert word in text, text
    return text


@pytest.mark.parametrize("side", [20_000, 12_000])
def test_a_huge_image_is_refused_from_its_header(side: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = png_header(tmp_path / "big.png", side, side)
    started = time.monotonic()
    code = main(["run", str(RESNET8), "--input", f"input={image}", "-o", str(tmp_path / "o.npz")])
    refused(capsys, code, "than this reads", "resize it first", str(image))
    assert time.monotonic() - started < 20 and not (tmp_path / "o.npz").exists()


def test_an_input_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    npy = tmp_path / "a.npy"
    np.save(npy, np.ones((1, 3, 32, 32), np.float32))
    twice = ["--input", f"input={npy}", "--input", "input=zeros"]
    refused(capsys, main(["run", str(RESNET8), *twice, "-o", str(tmp_path / "o.npz")]), "--input input= is given twice")
    twice[-1] = f"input={npy}"
    refused(capsys, main(["diverge", str(RESNET8), str(RESNET8), *twice]), "--input input= is given twice")


def test_an_output_folder_that_does_not_exist_is_said_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (["run", str(RESNET8), "-o", str(tmp_path / "missing" / "x.npz")],
                 ["diverge", str(RESNET8), str(RESNET8), "--node-data", str(tmp_path / "missing" / "x.json")]):
        started = time.monotonic()
        refused(capsys, main(argv), f"the folder {tmp_path / 'missing'} does not exist", "Nothing was written")
        assert time.monotonic() - started < 5  # nothing ran


def test_diverge_of_unrelated_models_compares_nothing_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, main(["diverge", str(RESNET8), str(MOBILENET)]), "the two models share no node to compare")


@pytest.mark.parametrize(("option", "value"), [("--tolerance", "nan"), ("--tolerance", "inf"), ("--window-mb", "0"),
                                               ("--window-mb", "-1"), ("--window-mb", "nan"), ("--window", "0")])
def test_diverge_refuses_thresholds_and_windows_that_mean_nothing(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["diverge", str(RESNET8), str(RESNET8), option, value])
    assert exit_.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err


def test_the_divergence_api_refuses_them_too() -> None:
    from dld_jupyter.model_compare.divergence import diverge

    for options, words in (({"tolerance": float("nan")}, "tolerance: nan is no threshold"),
                           ({"window_bytes": 0}, "window_bytes: 0 bytes cannot hold a window")):
        with pytest.raises(SpecError, match=words):
            diverge(str(RESNET8), str(RESNET8), **options)  # type: ignore[arg-type]


def test_diverge_names_the_inputs_when_one_is_not_the_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    npy = tmp_path / "a.npy"
    np.save(npy, np.ones((1, 3, 32, 32), np.float32))
    refused(capsys, main(["diverge", str(RESNET8), str(RESNET8), "--input", f"nosuch={npy}"]),
            "inputs: ['nosuch'] are not inputs of the reference model; its inputs are ['input']")


def hostile_report(tmp_path: Path, change: str) -> Path:
    data = json.loads(KERNELS.read_text())
    if change == "duration":
        data["kernels"][0]["duration_ms"] = 1e308
    elif change == "layer":
        data["layers"][0]["median_ms"] = 1e308  # "takes inf% of layer time"
    elif change == "start":
        data["kernels"][0]["start_ms"] = 1e308  # "Idle GPU inf %"
    elif change == "pass_index":
        data["kernels"][0]["pass_index"] = 10**12
    else:
        data["kernel_capture"]["median_pass"] = "x"
    path = tmp_path / "r.dld-report.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("change", "words"), [
    ("duration", "$.kernels[0].duration_ms: must be at most 1e+09, found 1e+308"),
    ("start", "$.kernels[0].start_ms: must be at most 1e+09, found 1e+308"),
    ("layer", "$.layers[0].median_ms: must be at most 1e+09, found 1e+308"),
    ("pass_index", "$.kernels[0].pass_index: is 1000000000000 but there are 60 kernel passes"),
    ("median_pass", "$.kernel_capture.median_pass: must be an integer, found string \"x\""),
])
def test_the_report_reader_bounds_kernel_records(
    change: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(capsys, main(["report", "dashboard", str(hostile_report(tmp_path, change))]), words)


def test_dashboard_rows_must_be_a_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["report", "dashboard", str(KERNELS), "--rows", "-1"])
    assert exit_.value.code == 2 and "argument --rows: -1: give 1 or more" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "words"), [
    ('{"results": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests arrays and objects more than 64 levels"),
    ('{"results": {"a": {"value": 1e400}}}', "beyond the float64 range"),
    ('{"results": {"a": {"value": ' + "9" * 400 + "}}}", "digits"),
])
def test_read_node_data_refuses_deep_and_huge_json(text: str, words: str, tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    path.write_text(text)
    with pytest.raises(SpecError, match=words):
        read_node_data(path)
