"""`dld analyze --target` (issue 37) against the loopback sshd (fixtures in conftest): the real `dld` process runs
the analysis worker in the target's deployment, stops at the same nodes and dumps the same values, byte for byte,
as the same command line run here (the GPT-2 export, a three-output Split and the logits among them)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from dld_jupyter.activities.targets.ssh import SshTarget
from tests.cli.test_analyze_cli import GPT2, break_options, dld, gpt2_case, plain_ort
from tests.remote.conftest import Sshd


def test_analyze_on_the_target_dumps_the_local_values(deployed: SshTarget, sshd: Sshd, tmp_path: Path) -> None:
    inputs, feeds, breaks, files = gpt2_case(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "DLD_CONFIG_DIR": str(home / "config")}  # no saved key, no known host
    url = f"ssh://{deployed.connection.user}@127.0.0.1:{sshd.port}"
    remote = ["--target", url, "--identity", str(sshd.client_key), "--deploy-dir", deployed.connection.deploy_dir,
              "--accept-host-key", sshd.fingerprint]
    runs = {}
    for where, extra in (("local", []), ("remote", remote)):
        out = tmp_path / where
        done = dld("analyze", str(GPT2), "--inputs", str(inputs), *break_options(breaks), "--dump", str(out), *extra,
                   env=env)
        assert done.returncode == 0, done.stderr
        assert ("staging gpt2_tiny.onnx" in done.stderr) == (where == "remote"), done.stderr  # ran there
        assert f"2 stop(s) on {deployed.connection.user}@127.0.0.1:{sshd.port}" in done.stderr or where == "local"
        runs[where] = (done.stdout.replace(str(out), "DIR"), {name: np.load(out / name) for name in files.values()})
    assert runs["local"][0] == runs["remote"][0]  # the same stops, values, shapes and files
    assert [line for line in runs["remote"][0].splitlines() if line.startswith("stop ")] == [
        "stop 1: node_Split_238 (Split, #7 in execution order)",
        "stop 2: node_transpose_1 (Transpose, #10 in execution order)"]
    expected = plain_ort(GPT2, list(files), feeds)
    for value, name in files.items():
        assert np.array_equal(runs["remote"][1][name], runs["local"][1][name]), value
        assert np.array_equal(runs["remote"][1][name], expected[value]), value
