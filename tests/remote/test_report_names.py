"""A remote and a local profile of one model keep both reports (issue 42), on the real loopback sshd: the remote run
with the default report name silently replaced the local report. Each report says where it ran: the remote one
its target's name and host, the local one "local", in `dld report show`."""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest

from dld_jupyter.activities import profile
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.cli.main import main
from dld_jupyter.report_format.io import load_report
from tests.remote.test_ssh_target import BUNDLED

FAST = {"iterations": 3, "warmup": 1, "threads": 1}


def test_a_remote_and_a_local_profile_of_one_model_keep_both_reports(
    deployed: SshTarget, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "mine.onnx"
    shutil.copyfile(BUNDLED, model)
    profile(model, seed=1, **FAST)
    local = tmp_path / "mine.dld-report.json"
    kept = local.read_bytes()
    remote_report = profile(model, target=deployed, seed=2, **FAST)
    remote = tmp_path / "mine-2.dld-report.json"
    assert local.read_bytes() == kept, "the remote run replaced the local report"
    assert remote.is_file() and load_report(remote).summary.settings["seed"] == 2
    assert remote_report.system["target"] == deployed.name and "target" not in load_report(local).system
    assert remote_report.summary.model_path == str(model)  # the local model, not the target's copy

    host = socket.gethostname()  # the "remote" is this machine
    assert main(["report", "show", str(remote)]) == 0
    shown = capsys.readouterr().out
    assert re.search(rf"Target\s+{re.escape(deployed.name)} \(remote, host {re.escape(host)}\)", shown), shown
    assert main(["report", "show", str(local)]) == 0
    assert re.search(rf"Target\s+local \(host {re.escape(host)}\)", capsys.readouterr().out)

    remote_bytes = remote.read_bytes()
    profile(model, **FAST)  # and the next local run replaces neither
    assert remote.read_bytes() == remote_bytes and local.read_bytes() == kept
    assert (tmp_path / "mine-3.dld-report.json").is_file()
