"""Wall time of a profile on an SSH target vs locally (issue 27): the bundled model on a loopback OpenSSH server.

`python benchmarks/remote_target_bench.py [--iterations N] [--model M.onnx ...]` starts its own sshd on a free port of
127.0.0.1 (as the tests do), then times, for each model (the bundled one by default; the issue also asks for a
ResNet-18 export: `scripts/export_real_models.py`): a local run; the first run on the target with a fresh deployment
folder (environment build, package files, model staging); a second run in the same process (kept connection,
nothing sent); and a run from a new process's point of view (connection made again, deployment found, model already
staged). Prints one JSON line per model; the first model's first run pays the deployment, a later one its staging.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec  # noqa: E402
from dld_jupyter.activities.scheduler import run_activity  # noqa: E402
from dld_jupyter.activities.targets import ssh_session  # noqa: E402
from dld_jupyter.activities.targets.connections import Secrets  # noqa: E402
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy  # noqa: E402
from dld_jupyter.activities.targets.ssh import SshTarget  # noqa: E402
from tests.remote.conftest import keygen, start_sshd  # noqa: E402

BUNDLED = REPO / "dld_jupyter" / "models" / "resnet8_cifar.onnx"


def timed(spec: OrtProfileSpec, target: object = None) -> float:
    started = time.monotonic()
    result = run_activity(spec, target=target, remember=False)  # type: ignore[arg-type]
    if not result.ok:
        raise SystemExit(f"run failed: {result.error}")
    return round(time.monotonic() - started, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--model", type=Path, action="append", help="an ONNX model (repeat; default: the bundled one)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dld-remote-bench-"))
    server = start_sshd(folder / "sshd", keygen(folder / "id_ed25519", "bench"))
    try:
        known = folder / "known_hosts"
        known.write_text(server.known_hosts_line)
        connection = server.connection(deploy_dir=str(folder / "deploy"))

        def target() -> SshTarget:
            return SshTarget(connection, HostKeyPolicy(known), Secrets(lambda q: ""))

        for model in args.model or [BUNDLED]:
            spec = OrtProfileSpec(model=str(model), iterations=args.iterations, output=str(folder / "r.json"))
            figures: dict[str, object] = {"model": model.name, "mb": round(model.stat().st_size / 1e6, 1),
                                          "iterations": args.iterations, "local_s": timed(spec)}
            figures["target_first_s"] = timed(spec, target())  # deploys (first model) and stages the model
            figures["target_second_s"] = timed(spec, target())  # same process: connection kept
            ssh_session.forget(connection.name)
            figures["target_new_connection_s"] = timed(spec, target())
            figures["local_again_s"] = timed(spec)
            print(json.dumps(figures), flush=True)
    finally:
        server.process.terminate()


if __name__ == "__main__":
    main()
