"""The local target: the worker is a child process of the caller on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.spec import ActivitySpec

WORKER_MODULE = "dld_jupyter.activities.worker"


class LocalTarget:
    name = "localhost"

    def prepare(self, spec: ActivitySpec) -> None:
        if not os.path.isfile(spec.model):
            raise SpecError(f"model: {spec.model} does not exist or is not a file")
        for option, folder in spec.input_folders():
            if not os.path.isdir(folder):
                raise SpecError(f"{option}: {folder} is not a directory")
        spec.check_inputs()  # a prebuilt engine or calibration cache that is not there
        spec.check_outputs()  # no output replaces the model, another input or another output
        out_dir = Path(spec.report_path()).parent
        if not out_dir.is_dir():
            raise SpecError(f"output: the folder {out_dir} does not exist")

    def stage(self, spec: ActivitySpec) -> ActivitySpec:
        # Files are already here; only the report goes to a private partial file (renamed into place once checked).
        final = Path(spec.report_path())
        partial = final.with_name(f".{final.name}.{uuid.uuid4().hex[:8]}.partial")
        return spec.with_output(str(partial))

    def launch(self, staged: ActivitySpec) -> subprocess.Popen[str]:
        env = dict(os.environ)
        # The worker must import this very package, installed or not (running from a checkout).
        root = str(Path(__file__).resolve().parents[3])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env["DLD_PARENT_PID"] = str(os.getpid())  # the worker ends with this process (worker.die_with_parent)
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER_MODULE, "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,  # a Ctrl-C in the caller's terminal is the engine's to handle, not the worker's
        )
        assert process.stdin is not None
        process.stdin.write(json.dumps(staged.to_dict()) + "\n")  # one line: requests may follow (session kinds)
        process.stdin.flush()
        return process

    def fetch(self, staged: ActivitySpec, artifacts: Mapping[str, str]) -> dict[str, str]:
        return dict(artifacts)  # already here: the report in its partial file, the other outputs in place

    def cleanup(self, staged: ActivitySpec) -> None:
        Path(staged.report_path()).unlink(missing_ok=True)
