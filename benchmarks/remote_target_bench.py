"""Wall time of a profile on an SSH target vs locally (issue 27): the bundled model on a loopback OpenSSH server.

`python benchmarks/remote_target_bench.py [--iterations N] [--model M.onnx ...]` starts its own sshd on a free port of
127.0.0.1 (as the tests do), then times, for each model (the bundled one by default; the issue also asks for a
ResNet-18 export: `scripts/export_real_models.py`): a local run; the first run on the target with a fresh deployment
folder (environment build, package files, model staging); a second run in the same process (kept connection,
nothing sent); and a run from a new process's point of view (connection made again, deployment found, model already
staged). Prints one JSON line per model; the first model's first run pays the deployment, a later one its staging.

`--cli` times what a user of the CLI pays instead (issue 40: "the second CLI profile within 1.5 s of local"): each
run is its own `dld profile` process, local and on the target interleaved for `--rounds` rounds after one deploying
run, with `DLD_TIMING=1` so each run prints where its seconds went (stderr lines `dld-timing <phase> <s>`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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


def cli_run(args: list[str], env: dict[str, str]) -> tuple[float, dict[str, float]]:
    """One `dld` process: its wall time and the phases it reported (DLD_TIMING)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "dld_jupyter.cli.main", *args], env=env, capture_output=True,
                          text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"dld {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    phases: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if line.startswith("dld-timing "):
            _, phase, seconds = line.split()
            phases[phase] = phases.get(phase, 0.0) + float(seconds)
    return wall, phases


def cli_rounds(server: object, folder: Path, models: list[Path], iterations: int, rounds: int) -> None:
    home = folder / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "DLD_CONFIG_DIR": str(home / "config"), "DLD_TIMING": "1",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    connection = server.connection(deploy_dir=str(folder / "deploy"))  # type: ignore[attr-defined]
    url = f"ssh://{connection.user}@127.0.0.1:{connection.port}"
    common = ["--identity", connection.identity, "--deploy-dir", connection.deploy_dir]
    for model in models:
        base = ["profile", str(model), "-n", str(iterations), "--warmup", "2", "-o", str(folder / "r.json")]
        remote = [*base, "--target", url, *common]
        first, _ = cli_run([*remote, "--accept-host-key", server.fingerprint], env)  # type: ignore[attr-defined]
        local_s: list[float] = []
        target_s: list[float] = []
        target_phases: list[dict[str, float]] = []
        for _ in range(rounds):  # interleaved: whatever else the machine does falls on both alike
            local_s.append(cli_run(base, env)[0])
            wall, phases = cli_run(remote, env)
            target_s.append(wall)
            target_phases.append(phases)
        extra = [t - loc for t, loc in zip(target_s, local_s, strict=True)]
        print(json.dumps({
            "model": model.name, "mb": round(model.stat().st_size / 1e6, 1), "iterations": iterations,
            "target_first_cli_s": round(first, 2), "local_cli_s": [round(x, 2) for x in local_s],
            "target_cli_s": [round(x, 2) for x in target_s], "extra_s": [round(x, 2) for x in extra],
            "extra_median_s": round(statistics.median(extra), 2),
            "target_phases_median_s": {k: round(statistics.median(p.get(k, 0.0) for p in target_phases), 3)
                                       for k in target_phases[0]},
        }), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--model", type=Path, action="append", help="an ONNX model (repeat; default: the bundled one)")
    parser.add_argument("--cli", action="store_true", help="time separate `dld profile` processes, interleaved")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dld-remote-bench-"))
    server = start_sshd(folder / "sshd", keygen(folder / "id_ed25519", "bench"))
    try:
        if args.cli:
            cli_rounds(server, folder, args.model or [BUNDLED], args.iterations, args.rounds)
            return
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
