"""Kernel recording without a GPU (issue 32): CUPTI's records mapped to plain ones (fields as cupti-python 13.0.1
showed them on the H100), the clock pairing, and ONNX Runtime's node windows on the host wall clock (a real CPU
session: the clock CUPTI's timestamps are moved onto must be the one ORT's profiler times are on)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import onnxruntime as ort

from dld_jupyter.activities.gpu.kernel_link import ApiCall, GpuActivity
from dld_jupyter.activities.gpu.kernel_records import activity_from, clock_offset_ns
from dld_jupyter.activities.runtimes.onnxruntime.kernels import pass_windows
from dld_jupyter.activities.runtimes.onnxruntime.report import ort_layers
from dld_jupyter.activities.runtimes.onnxruntime.trace import parse_profile

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
# ActivityKind values cupti-python 13.0.1 reported for these records on the H100 (kernel 10, memcpy 1, memset 2,
# runtime 4, driver 5); KERNEL (3) is the serialized-kernel kind.
KINDS = SimpleNamespace(KERNEL=3, CONCURRENT_KERNEL=10, MEMCPY=1, MEMSET=2, RUNTIME=4, DRIVER=5)
CUPTI = SimpleNamespace(ActivityKind=KINDS)


def test_cupti_records_become_plain_records() -> None:
    kernel = SimpleNamespace(
        kind=10, name="nvjet_sm90_hsh_96x128_64x6_1x2_h_ssched_bz_NNN", start=1_000, end=3_500, correlation_id=7,
        stream_id=278, grid_x=2, grid_y=1, grid_z=64, block_x=256, block_y=1, block_z=1, registers_per_thread=32,
        static_shared_memory=2_048, dynamic_shared_memory=64, completed=0,
    )
    copy = SimpleNamespace(kind=1, start=10, end=20, correlation_id=8, stream_id=278, copy_kind=1, bytes=4_816_896)
    fill = SimpleNamespace(kind=2, start=30, end=31, correlation_id=9, stream_id=278, bytes=512, value=0)
    call = SimpleNamespace(kind=5, start=900, end=950, correlation_id=7, thread_id=12345, cbid=307, process_id=1)
    assert activity_from(CUPTI, kernel) == GpuActivity(
        "kernel", kernel.name, 1_000, 3_500, 7, 278, (2, 1, 64), (256, 1, 1), 32, 2_112
    )
    mangled = SimpleNamespace(**{**vars(kernel), "name": "_ZN5cudnn20pooling_fw_4d_kernelI6__halffEEvv"})
    assert activity_from(CUPTI, mangled).name == "void cudnn::pooling_fw_4d_kernel<__half, float>()"
    assert activity_from(CUPTI, copy) == GpuActivity("memcpy", "Memcpy HtoD", 10, 20, 8, 278, bytes=4_816_896,
                                                     copy_kind="HtoD")
    assert activity_from(CUPTI, fill) == GpuActivity("memset", "Memset", 30, 31, 9, 278, bytes=512)
    assert activity_from(CUPTI, call) == ApiCall(7, 900, 950, 12345)
    assert activity_from(CUPTI, SimpleNamespace(kind=99)) is None


def test_clock_offset_from_paired_reads() -> None:
    behind = 123_456_789  # a GPU clock that many ns behind the host wall clock
    offset = clock_offset_ns(lambda: time.time_ns() - behind)
    assert abs(offset - behind) < 2_000_000  # within the tightest read's width on a loaded 2-core machine


def test_ort_node_windows_are_on_the_host_wall_clock(tmp_path: Path) -> None:
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "p")
    session = ort.InferenceSession(str(MODEL), options, providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: np.zeros((1, 3, 32, 32), np.float32)}
    before = time.time_ns()
    for _ in range(2):
        session.run(None, feed)
    after = time.time_ns()
    start_ns = session.get_profiling_start_time_ns()
    runs = parse_profile(session.end_profiling())[-2:]
    records, _ = ort_layers(runs, 1, lambda name: [name])
    windows = pass_windows(runs, start_ns, records, lambda name: name)
    assert len(windows) == 2
    for window, run in zip(windows, runs, strict=True):
        assert before <= window.start_ns <= window.end_ns <= after  # ORT's times are time.time_ns()'s clock
        names = [records[w.layer].name for w in window.windows]
        assert sorted(names) == sorted(node.name for node in run.nodes)
        assert all(window.start_ns <= w.start_ns <= w.end_ns <= window.end_ns + 1_000 for w in window.windows)
