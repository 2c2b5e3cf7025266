"""Kernel records tied to passes and layers (issue 32), on hand-built CUPTI-like records: no GPU needed.

The clock offset between CUPTI and the host is part of every case: records are written in a "CUPTI clock" that is
`OFFSET` behind the host's, as on a real machine.
"""

from __future__ import annotations

from dld_jupyter.activities.gpu.kernel_link import (
    ApiCall,
    GpuActivity,
    HostWindow,
    PassWindow,
    keep_passes,
    link_activities,
)
from dld_jupyter.activities.gpu.tensor_core_names import demangle, is_tensor_core_kernel, tensor_core_check

OFFSET = 1_700_000_000_000_000_000  # host ns minus CUPTI ns
US = 1_000


def _pass(start_us: int, nodes: list[tuple[int, int, int]], before: int = 0, after: int = 9) -> PassWindow:
    """A pass starting at `start_us` (host µs) with (layer, start µs, end µs) node windows relative to it."""
    base = OFFSET + start_us * US
    windows = [HostWindow(layer, base + s * US, base + e * US) for layer, s, e in nodes]
    return PassWindow(base, base + 1_000 * US, windows, before, after)


def _launch(cid: int, host_us: int) -> ApiCall:
    return ApiCall(cid, host_us * US, host_us * US + 3 * US, thread=7)


def _kernel(cid: int, gpu_us: int, dur_us: int, name: str = "sm90_kernel") -> GpuActivity:
    return GpuActivity("kernel", name, gpu_us * US, (gpu_us + dur_us) * US, cid, stream=13, grid=(4, 1, 1),
                       block=(128, 1, 1), registers=40, shared_memory_bytes=2048)


def test_kernels_link_to_the_node_whose_host_window_holds_their_launch() -> None:
    passes = [_pass(0, [(1, 10, 50), (2, 60, 90)]), _pass(2_000, [(1, 10, 50), (2, 60, 90)])]
    calls = [_launch(1, 20), _launch(2, 70), _launch(3, 2_030), _launch(4, 2_075), _launch(5, 2)]
    activities = [
        _kernel(1, 100, 30, "nvjet_sm90_hsh_128x256_64x4_1x2_h_bz_coopA_NNN"),
        _kernel(2, 140, 20),
        _kernel(3, 2_100, 30),
        _kernel(4, 2_140, 20),
        GpuActivity("memcpy", "Memcpy HtoD", 5 * US, 8 * US, 5, stream=13, bytes=4096, copy_kind="HtoD"),
    ]
    records, counts = link_activities(activities, calls, passes, OFFSET, refine=False)
    by_id = {r.correlation_id: r for r in records}
    assert [by_id[i].layer for i in (1, 2, 3, 4)] == [1, 2, 1, 2]
    assert [by_id[i].pass_index for i in (1, 2, 3, 4, 5)] == [0, 0, 1, 1, 0]
    assert by_id[5].layer == 0  # launched before the first node: the input-copy row
    assert by_id[3].start_ms == 0.1 and by_id[3].launch_ms == 0.03  # relative to its own pass
    assert by_id[1].tensor_core and not by_id[2].tensor_core
    assert by_id[1].grid == [4, 1, 1] and by_id[1].registers == 40 and by_id[1].shared_memory_bytes == 2048
    assert counts["linked"] == 4 and counts["unlinked"] == 0 and counts["copies_linked"] == 1


def test_launches_between_nodes_or_in_overlapping_windows_are_counted_not_guessed() -> None:
    passes = [_pass(0, [(1, 10, 50), (2, 40, 90), (3, 200, 300)])]
    calls = [_launch(1, 45), _launch(2, 150), _launch(3, 250)]
    records, counts = link_activities(
        [_kernel(1, 100, 5), _kernel(2, 160, 5), _kernel(3, 260, 5)], calls, passes, OFFSET, refine=False
    )
    assert [r.layer for r in sorted(records, key=lambda r: r.correlation_id)] == [-1, -1, 3]
    assert (counts["linked"], counts["ambiguous"], counts["unlinked"]) == (1, 1, 1)


def test_warm_up_activity_outside_the_measured_passes_is_dropped() -> None:
    passes = [_pass(10_000, [(1, 10, 50)])]
    records, counts = link_activities([_kernel(1, 100, 5), _kernel(2, 10_100, 5)],
                                      [_launch(1, 20), _launch(2, 10_020)], passes, OFFSET, refine=False)
    assert [r.correlation_id for r in records] == [2] and counts["kernels"] == 1


def test_refinement_corrects_a_clock_offset_a_few_microseconds_off() -> None:
    """Launches 2 µs after their node starts: an alignment 5 µs late would put them before every window."""
    nodes = [(layer, 10 + 20 * layer, 10 + 20 * layer + 8) for layer in range(1, 30)]
    passes = [_pass(0, nodes)]
    calls = [_launch(layer, 12 + 20 * layer) for layer in range(1, 30)]
    activities = [_kernel(layer, 1_000 + 10 * layer, 5) for layer in range(1, 30)]
    off = OFFSET - 5 * US
    _, unrefined = link_activities(activities, calls, passes, off, refine=False)
    records, refined = link_activities(activities, calls, passes, off, refine=True)
    assert unrefined["linked"] == 0
    assert refined["linked"] == 29 and [r.layer for r in records] == list(range(1, 30))
    assert 3 * US <= refined["clock_refinement_ns"] <= 7 * US


def test_keep_passes_keeps_whole_passes_nearest_the_median() -> None:
    passes = [_pass(i * 2_000, [(1, 10, 50)]) for i in range(5)]
    calls = [_launch(i, i * 2_000 + 20) for i in range(5)]
    records, _ = link_activities([_kernel(i, i * 2_000 + 100, 5) for i in range(5)], calls, passes, OFFSET)
    kept, indexes = keep_passes(records, median=3, limit=3)
    assert indexes == [2, 3, 4] and {r.pass_index for r in kept} == {2, 3, 4}


def test_tensor_core_names_of_hopper_libraries() -> None:
    yes = [
        "nvjet_sm90_hsh_256x128_64x4_2x1_v_bz_coopA_TNT",  # cuBLAS on H100
        "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1"
        "_tensor16x8x16_kernel_trt",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_h161616gemm_32x32_128x2_tn_align8>(Params)",
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
        "__5x_cublas",
        "volta_h884gemm_64x64_ldg8_nn",
        "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn",
        "ampere_fp16_s16816gemm_fp16_64x64_ldg8_f2f_stages_64x5_nn",
        "void wgmma_kernel<half>(...)",
        # seen on the H100: TF32 and FP16 tensor-op kernels of cuDNN, cuBLAS and CUTLASS
        "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tens",
        "_ZN7cutlass7Kernel2I50cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4EEvNT_6ParamsE",
        "_ZN17cutlass__5x_cudnn6KernelI70cutlass_tensorop_f16_s16816fprop_optimized_f16_64x128_32x6_nhwc_align8EEvNT_6P",
        "nvjet_sm90_hsh_448x64_64x2_1x2_h_ssched_bz_coopB_NNN",
    ]
    no = [
        "void onnxruntime::cuda::_BinaryElementWise<float, float, float, onnxruntime::cuda::OP_Add<float>>(...)",
        "void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, bool=1, int=1>(...)",
        "void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, bool=1>(...)",
        "ampere_sgemm_128x64_nn",
        # seen on the H100 (FP32 ResNet-18 and BERT): xmma-named FP32 FMA kernels
        "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel",
        "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x32x8_stage3_warpsize2x2x1_g1_ffma_al",
        "_ZN7cutlass7Kernel2I39cutlass_80_simt_sgemm_128x64_8x5_nn_align1EEvNT_6ParamsE",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(...)",
    ]
    assert [n for n in yes if not is_tensor_core_kernel(n)] == []
    assert [n for n in no if is_tensor_core_kernel(n)] == []


def test_tensor_core_check_against_gpm() -> None:
    tc = [("kernel", 0.5, True), ("kernel", 0.2, False), ("memcpy", 1.0, False)]
    assert tensor_core_check(tc, [0.0, 12.5, 3.0])["agrees"] is True
    missing = tensor_core_check([("kernel", 0.5, False)], [0.0, 12.5])
    assert missing["agrees"] is False and "missing from" in missing["note"]
    assert tensor_core_check(tc, None)["agrees"] is None
    assert tensor_core_check(tc, [1.0])["tensor_core_ms"] == 0.5


def test_kernel_names_demangle_as_nsight_shows_them() -> None:
    """Mangled names as CUPTI gave them on the H100; a name that is no mangled C++ stays as it is."""
    relu = "_ZN11onnxruntime4cuda17_UnaryElementWiseI6__halfS2_NS0_7OP_ReluIS2_EELi256ELi4EEEvPKT_PT0_T1_l"
    assert demangle(relu) == (
        "void onnxruntime::cuda::_UnaryElementWise<__half, __half, onnxruntime::cuda::OP_Relu<__half>, 256, 4>"
        "(__half const*, __half*, onnxruntime::cuda::OP_Relu<__half>, long)"
    )
    gemm = "_ZN7cutlass7Kernel2I50cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4EEvNT_6ParamsE"
    assert demangle(gemm).startswith("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(")
    assert is_tensor_core_kernel(demangle(gemm))
    for plain in ("nvjet_sm90_hsh_96x128_64x6_1x2_h_ssched_bz_NNN", "Memcpy HtoD", "_Znot_a_mangled_name", ""):
        assert demangle(plain) == plain
