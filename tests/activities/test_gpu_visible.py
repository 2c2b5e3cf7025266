"""CUDA device index -> NVML index through CUDA_VISIBLE_DEVICES (issue 26, item 5): metrics, clocks and device facts
read the GPU the run uses, and a GPU the host lacks is named with the count, not ORT's "could not be used"."""

from __future__ import annotations

import sys

import pytest

from dld_jupyter.activities.errors import UnavailableError
from dld_jupyter.activities.gpu import visible
from dld_jupyter.activities.gpu.nvml import MetricsSampler, device_info, device_problem, nvml_index
from tests.activities.test_nvml import fake_pynvml

UUIDS = ["GPU-0aaaa-1111", "GPU-1bbbb-2222", "GPU-2cccc-3333", "GPU-3dddd-4444"]


@pytest.mark.parametrize(
    ("listed", "order"),
    [
        (None, [0, 1, 2, 3]),
        ("2,0", [2, 0]),
        ("3", [3]),
        (" 1 , 3 ", [1, 3]),
        ("GPU-2cccc", [2]),  # a UUID prefix, as CUDA takes it
        ("GPU-1bbbb-2222,0", [1, 0]),
        ("1,7,2", [1]),  # CUDA stops at the first entry it cannot resolve
        ("1,1", [1]),
        ("", []),  # set but empty: no GPU
        ("-1", []),
    ],
)
def test_cuda_order(listed: str | None, order: list[int]) -> None:
    assert visible.cuda_order(listed, UUIDS) == order


def test_nvml_index_and_what_a_missing_gpu_says() -> None:
    assert visible.nvml_index(0, "2,0", UUIDS) == 2
    assert visible.nvml_index(1, "GPU-3dddd,GPU-0a", UUIDS) == 0
    with pytest.raises(UnavailableError, match=r"GPU 1 requested, this host has 1 GPU \(0\); choose a device below 1"):
        visible.nvml_index(1, None, UUIDS[:1])
    with pytest.raises(UnavailableError, match=r"GPU 4 requested, this host has 4 GPUs \(0, 1, 2, 3\)"):
        visible.nvml_index(4, None, UUIDS)
    with pytest.raises(UnavailableError, match="this host has no GPU"):
        visible.nvml_index(0, None, [])
    with pytest.raises(UnavailableError) as error:
        visible.nvml_index(1, "3", UUIDS)
    assert "CUDA_VISIBLE_DEVICES='3' makes 1 of this host's 4 GPUs visible (0: NVML GPU 3)" in str(error.value)


def test_nvml_readers_follow_cuda_visible_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_pynvml()  # two GPUs: gpu0, gpu1
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert nvml_index(0) == 1 and device_info(0)["gpu_index"] == 1
    sampler = MetricsSampler(0)
    sampler.start()
    sampler.stop()
    assert sampler._handle == "gpu1"  # the run's GPU, not NVML's GPU 0
    assert device_problem(0) is None
    assert device_problem(1) == (
        "GPU 1 requested, CUDA_VISIBLE_DEVICES='1' makes 1 of this host's 2 GPUs visible (0: NVML GPU 1); "
        "choose a device below 1 or change CUDA_VISIBLE_DEVICES"
    )
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert device_problem(2) == "GPU 2 requested, this host has 2 GPUs (0, 1); choose a device below 2"


def test_narrow_keeps_the_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml())
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,0")
    monkeypatch.setattr(visible, "_narrowed", [])
    visible.narrow(1)  # a TensorRT worker leaves CUDA only NVML's GPU 0
    assert visible.listing() == "1,0" and nvml_index(1) == 0
    with pytest.raises(UnavailableError, match="GPU 2 requested, CUDA_VISIBLE_DEVICES='1,0' lists 2"):
        visible.narrow(2)
