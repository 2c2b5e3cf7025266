"""The post-condition every model-wide transform passes before its result is called a success (issue 31, finding 5).

FP16 conversion once wrote models onnxruntime refused while its status said "onnx.checker: OK": the checker ran
without `full_check`, which skips type inference, so a float16 scale on DequantizeLinear at opset 17 or a float32
Constant inside a local function fed float16 passed. Here a result is valid when both hold:
1. `onnx.checker.check_model(full_check=True)` (strict type and shape inference, functions included) passes on the
   weightless skeleton the type check list uses (`document.skeleton`: 0.4 s on 50k nodes, whatever the weights);
2. an onnxruntime CPU session loads it (optimizations off, as "compare outputs" runs it): onnxruntime resolves a
   kernel for every node and type, which the checker does not. Weights stay where they are: a protobuf holding them
   is passed as bytes, a document's external tensors are read by onnxruntime from their own folder.
`require_valid(what, result, original)` refuses (`InvalidResult`, nothing written or changed) a result that breaks a
check the original passed; a check the original already failed is kept in the `Verdict` as pre-existing, shown in
the status and never reported as OK. Without onnxruntime the second check is reported as not run, never as passed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import onnx
import onnx.checker
import onnx_ir as ir

from dld_jupyter.document.checks.skeleton import TOKEN_RE, Skeleton
from dld_jupyter.document.files.self_contained import external_tensors, self_contained_proto
from dld_jupyter.transforms.batch_errors import InvalidResult

CHECKER = "onnx.checker (full check)"
RUNTIME = "onnxruntime CPU session"
EXTERNAL_FOLDER = "session.model_external_initializers_file_folder_path"  # onnxruntime's config key


@dataclass(frozen=True)
class Verdict:
    """What the two checks said of a model; `problems` are (check, message) pairs; `preexisting` those the original
    model had already (the transform did not cause them); `not_run` names checks that could not run here."""

    problems: tuple[tuple[str, str], ...] = ()
    preexisting: bool = False
    not_run: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems and not self.not_run

    def lines(self) -> list[str]:
        """The status lines: one verdict, then each problem."""
        if self.ok:
            return [f"verified: {CHECKER} and an {RUNTIME} load: OK"]
        lines = [f"NOT verified: {name} could not run here (pip install onnxruntime)" for name in self.not_run]
        if self.problems:
            why = "the original model already fails it too" if self.preexisting else "the result fails it"
            lines.append(f"NOT a valid model ({why}):")
            lines.extend(f"    {check}: {message}" for check, message in self.problems)
        return lines

    def summary(self) -> str:
        """One line for a status row."""
        return "OK (full check and onnxruntime load)" if self.ok else "; ".join(self.lines())

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": [{"check": c, "message": m} for c, m in self.problems],
            "preexisting": self.preexisting,
            "not_run": list(self.not_run),
        }


Model = onnx.ModelProto | ir.Model


def _ir(model: Model) -> ir.Model:
    return ir.from_proto(model) if isinstance(model, onnx.ModelProto) else model


def checker_problem(model: Model) -> str | None:
    """The full checker's message on the weightless skeleton (node tokens turned back into node names)."""
    skeleton = Skeleton(_ir(model))
    try:
        onnx.checker.check_model(skeleton.proto, full_check=True)
    except Exception as error:  # ValidationError, InferenceError, or what a corrupt model provokes
        text = str(error).split("==> Context:")[0].strip()
        return TOKEN_RE.sub(lambda m: skeleton.label_of(m.group(0)), text) or type(error).__name__
    return None


def cpu_session(data: bytes, external_folder: str | None = None, prepack: bool = True) -> Any:
    """An onnxruntime CPU session on serialized `data`, optimizations off (the model as written); without `prepack`
    kernels keep their weights as they are (a load to verify: 0.6 s instead of 1.4 s on a 528 MB transformer)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    if not prepack:
        options.add_session_config_entry("session.disable_prepacking", "1")
    if external_folder is not None:
        options.add_session_config_entry(EXTERNAL_FOLDER, external_folder)
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def _external_folders(model: ir.Model) -> set[str]:
    """The folders of every external tensor (initializers, Constant values, local functions)."""
    return {os.fspath(tensor.base_dir) for tensor in external_tensors(model)}


def _serialized(model: Model) -> tuple[bytes, str | None]:
    """The bytes onnxruntime loads, and the folder of the external tensors they still refer to."""
    if isinstance(model, onnx.ModelProto):
        return model.SerializeToString(), None
    folders = _external_folders(model)
    if len(folders) > 1:  # tensors from several folders (kept after a Save As): read into memory, each from its own
        return self_contained_proto(model).SerializeToString(), None
    return ir.to_proto(model).SerializeToString(), next(iter(folders), None)


def runtime_problem(model: Model) -> str | None:
    """onnxruntime's message when it cannot load `model`; raises ImportError without onnxruntime."""
    import onnxruntime  # noqa: F401  (ImportError here: the check is reported as not run)

    try:
        data, folder = _serialized(model)
        session = cpu_session(data, folder, prepack=False)
        del session
    except Exception as error:  # onnxruntime's Fail/InvalidGraph/InvalidArgument, a missing external file
        return str(error).strip() or type(error).__name__
    return None


def verify(model: Model) -> Verdict:
    """Both checks on `model` (module docstring)."""
    problems: list[tuple[str, str]] = []
    not_run: list[str] = []
    found = checker_problem(model)
    if found:
        problems.append((CHECKER, found))
    try:
        found = runtime_problem(model)
    except ImportError:
        not_run.append(RUNTIME)
    else:
        if found:
            problems.append((RUNTIME, found))
    return Verdict(tuple(problems), False, tuple(not_run))


def require_valid(what: str, result: Model, original: Callable[[], Model]) -> Verdict:
    """The verdict on `result`; InvalidResult when it fails a check that `original()` passes (asked only then)."""
    return judged(what, verify(result), original)


def judged(what: str, verdict: Verdict, original: Callable[[], Model]) -> Verdict:
    """`verdict` (on a result) kept when it found nothing new; InvalidResult when the result fails a check that
    `original()` passes."""
    if not verdict.problems:
        return verdict
    before = verify(original())
    failed_before = {check for check, _message in before.problems}
    introduced = [(check, message) for check, message in verdict.problems if check not in failed_before]
    if introduced:
        listed = "; ".join(f"{check}: {message}" for check, message in introduced)
        raise InvalidResult(
            what,
            f"the result would not be a valid model, so nothing was written or changed ({listed}).",
            "Keep the model as it is, or fix what the message names first (Check lists it) and run it again.",
        )
    return Verdict(verdict.problems, True, verdict.not_run)
