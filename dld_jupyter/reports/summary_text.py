"""The summary's median and profiling overhead in words, the same in the CLI, `dld-prof` and the HTML export,
the summary rows that only some reports have (`optional_rows`), the same in the text and the HTML summary, and
where the run ran (`ran_on`: the target and the device), the same in the viewer's header, the HTML export and
`dld report show`.

A median alone hides whether two runs differ; its confidence interval says it. A profiling overhead whose two
medians' intervals overlap is noise, and was printed as it came (-6.9 ms, -18.2 ms): it is now said to be within
noise, with the figure beside it in parentheses.
"""

from __future__ import annotations

from dld_jupyter.report_format.capabilities import PROVIDER
from dld_jupyter.report_format.model import Report, Summary


def interval_text(ci: list[float] | None, digits: int) -> str:
    return f"95% CI {ci[0]:.{digits}f}-{ci[1]:.{digits}f}" if ci else "too few passes for a 95% CI"


def median_text(s: Summary, digits: int = 4) -> str:
    """`1.2345 ms (95% CI 1.2001-1.2702)`."""
    return f"{s.median_ms:.{digits}f} ms ({interval_text(s.median_ci_ms, digits)})"


def overhead_text(s: Summary, digits: int = 4) -> str | None:
    """The per-node profiling overhead, or None when the report has none (imports, TensorRT)."""
    if s.profiling_overhead_ms is None:
        return None
    figure = f"{s.profiling_overhead_ms:+.{digits}f} ms"
    if s.overhead_within_noise:
        return f"within noise ({figure}; the two medians' 95% intervals overlap)"
    if s.overhead_within_noise is None:
        return f"{figure} (too few passes to tell it from noise)"
    return figure


def optional_rows(s: Summary) -> list[tuple[str, object]]:
    """The summary's (field, value) rows that some reports lack: device memory, profiling overhead, timeline."""
    rows: list[tuple[str, object]] = []
    if s.device_memory_bytes is not None:
        rows.append(("Device Memory Required", f"{s.device_memory_bytes / 2**20:.1f} MiB"))
    overhead = overhead_text(s)
    if overhead is not None:
        rows.append(("Profiling Overhead", overhead))
    if "timeline" in s.settings:
        rows.append(("Timeline", s.settings["timeline"]))
    return rows


def target_text(report: Report) -> str | None:
    """Where the run ran: `local (host vm)`, `gpu-box (remote, host h200-3)`; None when the report does not say (an
    imported trtexec profile). A remote run's report carries its target's name (`system.target`: set by the SSH
    target's launcher, and again when its report comes home); `system.host` is the machine's own name."""
    name, host = report.system.get("target"), report.system.get("host")
    if name:
        return f"{name} (remote, host {host})" if host and host != name else f"{name} (remote)"
    return f"local (host {host})" if host else None


def ran_on(report: Report) -> list[tuple[str, str]]:
    """The rows that say where the run ran, after the backend's: ("Inference Device", ...) for TensorRT or
    ("Execution Provider", ...) and ("Device", ...) for ONNX Runtime, then ("Target", ...) when the report knows it.
    A remote report and a local one of one model read the same without them (issue 42)."""
    s = report.summary
    providers = report.capabilities.has(PROVIDER)
    rows = [("Execution Provider", s.provider)] if providers else [("Inference Device", s.device)]
    if providers and s.device:
        rows.append(("Device", s.device))
    target = target_text(report)
    if target:
        rows.append(("Target", target))
    return rows
