"""The TensorRT installations of an SSH target, each with its version, for the forms when a run goes there (seed 000
"Selecting a Version": the system-installed TensorRT on the target, or a custom path, relative to the deployment
directory on the target).

The discovery of installs.py runs on the target, in its deployment (its venv's `tensorrt` is the module the worker
imports there; trtexec on the target's PATH; the paths kept here for that target, relative ones from the deployment
folder), and answers JSON. Asking deploys the target when it is not deployed yet, as a run would.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from dld_jupyter.activities.errors import ActivityError, SpecError
from dld_jupyter.activities.runtimes.tensorrt.installs import InstallStore, TrtInstall, choose
from dld_jupyter.activities.targets.ssh import SshTarget

MODULE = "dld_jupyter.activities.runtimes.tensorrt.installs"
TIMEOUT_S = 120.0


def target_installs(target: SshTarget, paths: Sequence[str]) -> list[TrtInstall]:
    """What `target` has: its deployment's module, trtexec on its PATH, and `paths` there."""
    info = target.ensure_deployed()
    q = shlex.quote
    command = (f"cd {q(info.folder)} && PYTHONPATH={q(info.folder + '/lib')} venv/bin/python -m {MODULE} "
               + " ".join(q(path) for path in paths))
    code, out, err = target.session().run(command, timeout=TIMEOUT_S)
    if code != 0:
        raise ActivityError(f"target {target.name}: listing TensorRT failed ({err.strip()[-300:] or code})")
    try:
        return [TrtInstall(**entry) for entry in json.loads(out)]
    except (ValueError, TypeError) as error:
        raise ActivityError(f"target {target.name}: an unreadable TensorRT list ({error}): {out[:200]!r}") from error


def target_path_install(target: SshTarget, path: str) -> TrtInstall:
    """What `path` is on the target (checked there); SpecError saying why when it is no TensorRT."""
    found = target_installs(target, [path])  # the module, trtexec on its PATH, then this path (the same: once)
    install = found[-1] if found and found[-1].source != "python" else None
    if install is None or install.problem is not None:
        why = install.problem if install is not None else "found nothing there"
        raise SpecError(f"TensorRT path {path} on {target.name}: {why}")
    return install


def add_target_path(target: SshTarget, path: str, store: InstallStore) -> TrtInstall:
    """Check `path` on the target and keep it for that target; SpecError saying why when it is no TensorRT."""
    install = target_path_install(target, path)
    store.keep(install.path or path)
    return install


def choose_on_target(target: SshTarget, choice: str) -> TrtInstall:
    """The install a `--trt` value names on `target`: a version found there, or a path checked there."""
    installs = target_installs(target, InstallStore(target=target.name).paths())
    return choose(choice, installs, lambda path: target_path_install(target, path))
