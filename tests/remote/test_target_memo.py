"""A new process finds a deployed target from what an earlier one checked (`target_memo`), in one remote command,
and checks in full again when the deployment is gone or is another version (issue 40: every CLI call paid the full
check)."""

from __future__ import annotations

import pytest

from dld_jupyter.activities.targets import deploy, ssh, ssh_session, target_memo
from dld_jupyter.activities.targets.ssh import SshTarget


def _new_process(deployed: SshTarget) -> SshTarget:
    """A target as a new process sees it: no connection kept, no check made in this process."""
    ssh_session.forget(deployed.connection.name)
    ssh._CHECKED.clear()
    return SshTarget(deployed.connection, deployed.policy, deployed.secrets)


def test_a_new_process_recalls_the_check_and_checks_again_when_it_no_longer_holds(
    deployed: SshTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert deployed.info is not None
    target_memo.remember(deployed.connection, deployed.info)
    probes: list[str] = []
    real_check = ssh.check_target

    def counted(session: ssh_session.SshSession, deploy_dir: str) -> deploy.TargetInfo:
        probes.append(deploy_dir)
        return real_check(session, deploy_dir)

    monkeypatch.setattr(ssh, "check_target", counted)
    assert _new_process(deployed).ensure_deployed() == deployed.info
    assert probes == []  # recalled: no probe ran on the target

    # The deployment lost its completion mark there (removed, half rebuilt): the memo is not trusted.
    session = deployed.session()
    mark = f"{deployed.info.folder}/.complete"
    session.check(f"mv {mark} {mark}.away", "hiding the mark")
    try:
        assert target_memo.recall(_new_process(deployed).session(), deployed.connection) is None
    finally:
        deployed.session().check(f"mv {mark}.away {mark}", "restoring the mark")

    # Another version of this package is another deployment: checked in full, not recalled.
    monkeypatch.setattr(deploy, "_HASH", "another-version-of-the-package")
    assert target_memo.recall(_new_process(deployed).session(), deployed.connection) is None
