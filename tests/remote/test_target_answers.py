"""A target whose answers cannot be trusted (issue 36, item 6), on the real loopback sshd: the deployment check's
answer (empty, not JSON, trailing text, missing keys) is a clear exit 3 quoting what the target printed; a worker
there that names artifacts it was not asked to write, or writes a report too big or not a report, or layer
information that is not, fails the run with nothing fetched and the previous files kept."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.activities.result import ActivityStatus
from dld_jupyter.activities.runtimes.onnxruntime.spec import OrtProfileSpec
from dld_jupyter.activities.runtimes.tensorrt.spec import TrtBuildSpec
from dld_jupyter.activities.scheduler import run_activity
from dld_jupyter.activities.targets import ssh_session
from dld_jupyter.activities.targets.deploy import TargetInfo
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.cli.main import main
from tests.remote.conftest import Sshd, _served
from tests.remote.test_ssh_target import BUNDLED

NOT_ASKED = "the target named an artifact it was not asked to write"
HOSTILE = Path(__file__).resolve().parents[1] / "activities" / "hostile_worker.py"


@pytest.fixture(scope="module")
def answering(tmp_path_factory: pytest.TempPathFactory, ssh_keys: Path) -> Iterator[tuple[Sshd, Path]]:
    """A target whose SSH server answers the deployment check (`python3 -c …`) with the file `answer` (whatever a
    test writes there) and runs every other command as asked (sshd's ForceCommand)."""
    folder = tmp_path_factory.mktemp("answering")
    answer, command = folder / "answer", folder / "answer.sh"
    command.write_text(
        '#!/bin/sh\ncase "$SSH_ORIGINAL_COMMAND" in\n'
        f'  "python3 -c "*) cat {shlex.quote(str(answer))} ;;\n'
        '  *) exec /bin/sh -c "$SSH_ORIGINAL_COMMAND" ;;\nesac\n'
    )
    command.chmod(0o755)
    for server in _served(tmp_path_factory, "answering", ssh_keys, extra=f"ForceCommand {command}\n"):
        yield server, answer


PROBE_ANSWER = {
    "python": [3, 11, 2], "executable": "/usr/bin/python3", "platform": "linux-x86_64", "glibc": "2.36",
    "machine": "x86_64", "host": "h", "nvidia": False, "deploy": "/tmp/d", "cache": "/tmp/c",
}  # fmt: skip


@pytest.mark.parametrize(
    ("printed", "why"),
    [
        ("", "it printed nothing"),
        ("Segmentation fault\n", "its last line is not JSON"),
        (json.dumps(PROBE_ANSWER) + " and more\n", "its last line is not JSON"),
        (json.dumps(PROBE_ANSWER) + "\nbye\n", "its last line is not JSON"),
        ("[1, 2]\n", "its last line is not a JSON object"),
        (json.dumps({k: v for k, v in PROBE_ANSWER.items() if k != "cache"}) + "\n", "missing or wrong: cache"),
        (json.dumps({**PROBE_ANSWER, "python": ["3", 11, 2]}) + "\n", "missing or wrong: python"),
    ],
)
def test_an_unusable_deployment_check_answer_exits_3_quoting_it(
    answering: tuple[Sshd, Path], printed: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    server, answer = answering
    answer.write_text(printed)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    url = f"ssh://{server.connection().user}@127.0.0.1:{server.port}"
    args = ["targets", "check", url, "--identity", str(server.client_key), "--accept-host-key", server.fingerprint]
    try:
        assert main(args) == 3
    finally:
        ssh_session.forget(server.connection().default_name())
    err = capsys.readouterr().err
    assert "the deployment check's answer is unusable" in err and why in err, err
    assert repr(printed[:300]) in err and "Traceback" not in err


class HostileSshTarget(SshTarget):
    """The loopback target with `hostile_worker.py MODE REPORT` started where the launcher would be."""

    mode, report = "", ""

    def worker_command(self, info: TargetInfo) -> str:
        q = shlex.quote
        return f"DLD_HOSTILE_REMOTE=1 exec {q(sys.executable)} {q(str(HOSTILE))} {q(self.mode)} {q(self.report)}"


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ('done:{"report": "/etc/shadow"}', NOT_ASKED),
        ('done:{"report": "{report}/../../../../tmp/x.json"}', NOT_ASKED),
        ('done:{"report": "{report}", "surprise": "/etc/passwd"}', NOT_ASKED),
        ("big-report", "MiB on"),
        ("random-report", "is not a valid report"),
    ],
)
def test_hostile_answers_of_a_remote_worker_keep_nothing(
    deployed: SshTarget, mode: str, message: str, tmp_path: Path
) -> None:
    previous = tmp_path / "previous.json"
    good = run_activity(
        OrtProfileSpec(model=str(BUNDLED), iterations=2, warmup=0, output=str(previous)), remember=False
    )
    assert good.ok, good.error
    output = tmp_path / "out.json"
    output.write_bytes(previous.read_bytes())
    target = HostileSshTarget(deployed.connection, deployed.policy, deployed.secrets)
    target.mode, target.report = mode, str(previous)
    result = run_activity(OrtProfileSpec(model=str(BUNDLED), output=str(output)), target=target, remember=False)
    assert result.status is ActivityStatus.FAILED and result.artifacts == {}
    assert message in (result.error or ""), result.error
    assert output.read_bytes() == previous.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "previous.json"]  # no partial file


def test_junk_layer_information_from_a_target_replaces_nothing(deployed: SshTarget, tmp_path: Path) -> None:
    engine, layer_info = tmp_path / "net.engine", tmp_path / "net.trt.json"
    engine.write_bytes(b"the previous engine")
    layer_info.write_text('{"Layers": [], "Bindings": []}')
    target = HostileSshTarget(deployed.connection, deployed.policy, deployed.secrets)
    target.mode = "junk-layer-info"
    spec = TrtBuildSpec(model=str(BUNDLED), engine=str(engine), metadata=str(layer_info))
    result = run_activity(spec, target=target, remember=False)
    assert result.status is ActivityStatus.FAILED and result.artifacts == {}
    assert "the run's layer information is not valid" in (result.error or ""), result.error
    assert engine.read_bytes() == b"the previous engine"  # every artifact is checked before any is placed
    assert layer_info.read_text() == '{"Layers": [], "Bindings": []}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.engine", "net.trt.json"]
