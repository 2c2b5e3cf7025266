"""The kernel-records switch (issue 32) reaches the spec from every front door: the CLI flag, the notebook panel's
checkbox and `dld.profile(..., kernel_records=False)`; CPU runs never record, whatever it says."""

from __future__ import annotations

import argparse
from pathlib import Path

from dld_jupyter.activities.runtimes.onnxruntime.session import OrtSession
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.cli.profile import add_profile_options, spec_from_args
from dld_jupyter.widgets.designer.profile_panel import ProfilePanel

MODEL = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def _cli(*flags: str) -> OrtProfileSpec:
    parser = argparse.ArgumentParser()
    add_profile_options(parser)
    spec = spec_from_args(parser.parse_args([str(MODEL), "--provider", "cuda", *flags]))
    assert isinstance(spec, OrtProfileSpec)
    return spec


def test_cli_flag_turns_kernel_records_off() -> None:
    assert _cli().kernel_records is True
    assert _cli("--no-kernel-records").kernel_records is False


def test_panel_checkbox_builds_the_spec() -> None:
    panel = ProfilePanel(str(MODEL), provider="cuda")
    assert panel.spec(str(MODEL)).kernel_records is True
    panel.fields["kernel_records"].value = False
    assert panel.spec(str(MODEL)).kernel_records is False


def test_gpu_only_settings_are_greyed_out_for_the_cpu_and_given_back() -> None:
    panel = ProfilePanel(str(MODEL), provider="cuda", gpu_metrics=True, kernel_records=True)
    panel.fields["provider"].value = "cpu"
    for name in ("gpu_metrics", "kernel_records", "lock_clocks", "device", "hide_non_compute"):
        assert panel.fields[name].disabled, name
    spec = panel.spec(str(MODEL))
    assert (spec.gpu_metrics, spec.kernel_records) == (False, False)  # nothing ticked that will not run
    panel.fields["provider"].value = "cuda"
    assert not panel.fields["kernel_records"].disabled
    assert (panel.fields["gpu_metrics"].value, panel.fields["kernel_records"].value) == (True, True)


def test_a_cpu_profile_starts_no_recorder(tmp_path: Path) -> None:
    class Quiet:
        def progress(self, fraction: float, phase: str) -> None: ...

        def log(self, message: str, level: str = "info") -> None: ...

    session = OrtSession(OrtProfileSpec(model=str(MODEL), iterations=1, warmup=0), Quiet(), tmp_path)
    passes = [session.run(None, True)]
    assert session.record_kernels(True) is False  # so the profile kind runs no kernel passes on the CPU
    table = session.layers(passes, 0)
    assert session._recorder is None and table.kernels == [] and table.kernel_capture == {}
