"""What the batch-modification verbs (`convert-fp16`, `sanitize`, `convert-tensors`) share: opening the model,
progress on stderr, the status printed as text or `--json`, and one mapping of failures to exit codes.

Exit codes: 0 done (the file is written); 1 the run failed (converter error, Ctrl-C, a result that fails the full
checker or onnxruntime's load: refused, nothing written; or a model that failed them before and still does);
2 bad input (unreadable model, bad option); 3 unavailable (Polygraphy, onnxconverter-common or onnx-graphsurgeon
missing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dld_jupyter.cli.exit_codes import ExitCode
from dld_jupyter.formats.terminal_text import echo


def progress_to_stderr(verb: str) -> Callable[[float | None, str], None]:
    def report(fraction: float | None, message: str) -> None:
        percent = f"{fraction:4.0%} " if fraction is not None else ""
        echo(f"dld {verb}: {percent}{message}", err=True)

    return report


def run_batch(verb: str, as_json: bool, work: Callable[[], Any], failed: Callable[[Any], str | None]) -> int:
    """Run `work()` (returns a result with `to_dict()` and `log`), print its status, return the exit code;
    `failed(result)` says why a finished run still counts as failed (None: it does not); the output path was
    checked before (the verb declares it: cli/file_options.py)."""
    from dld_jupyter.document import DocumentError
    from dld_jupyter.transforms.batch_errors import BadOption, Unavailable
    from dld_jupyter.transforms.progress import Cancelled

    try:
        result = work()
    except Unavailable as error:
        return _fail(verb, as_json, str(error), ExitCode.UNAVAILABLE)
    except (Cancelled, KeyboardInterrupt):
        return _fail(verb, as_json, "cancelled; nothing was written.", ExitCode.FAILED)
    except DocumentError as error:
        code = ExitCode.BAD_INPUT if isinstance(error, BadOption) or error.what.startswith("Open ") else ExitCode.FAILED
        return _fail(verb, as_json, str(error), code)
    reason = failed(result)
    if as_json:
        echo(json.dumps({"ok": reason is None, "error": reason, **result.to_dict()}, indent=2, default=str))
    else:
        echo("\n".join(result.log))
        if reason:
            echo(f"dld {verb}: {reason}")
    return int(ExitCode.OK if reason is None else ExitCode.FAILED)


def _fail(verb: str, as_json: bool, message: str, code: ExitCode) -> int:
    if as_json:
        echo(json.dumps({"ok": False, "error": message}, indent=2))
    else:
        echo(f"dld {verb}: {message}", err=True)
    return int(code)


def comparison_failure(result: Any) -> str | None:
    """A written model that is no valid model, or that onnxruntime cannot run, is a failed run."""
    failure = verdict_failure(result)
    if failure:
        return failure
    comparison = getattr(result, "comparison", None)
    if comparison is not None and comparison.error:
        return str(comparison.error)
    return None


def verdict_failure(result: Any) -> str | None:
    """The post-condition's problems of a written model (the transform refuses new ones; these the input had)."""
    verdict = getattr(result, "verdict", None)
    if verdict is None or not verdict.problems:
        return None
    problems = "; ".join(f"{check}: {message}" for check, message in verdict.problems)
    return f"the written model is not valid, and neither was the input (same check): {problems}"
