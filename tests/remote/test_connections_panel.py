"""Manage Remote Connections against the real loopback sshd: Test shows an unknown host key's fingerprint, Accept
adds it to known_hosts and the connection is saved, listed and offered by a run panel; a changed key is refused."""

from __future__ import annotations

import getpass
from pathlib import Path

import ipywidgets as w
import pytest

from dld_jupyter.activities.targets.connections import ConnectionStore, Secrets
from dld_jupyter.activities.targets.ssh_session import forget
from dld_jupyter.widgets.runs.connections import ConnectionsPanel
from dld_jupyter.widgets.runs.panel import RunPanel
from dld_jupyter.widgets.runs.targets import NEW_CONNECTION
from tests.remote.conftest import Sshd, keygen
from tests.remote.test_ssh_auth import PASSWORD, _PasswordOnly, server  # noqa: F401 (asyncssh's password server)


def _fill(panel: ConnectionsPanel, sshd: Sshd, name: str) -> None:
    panel.host.value, panel.port.value, panel.user.value = "127.0.0.1", sshd.port, getpass.getuser()
    panel.auth.value, panel.identity.value = "key", str(sshd.client_key)
    panel.deploy_dir.value, panel.name.value = str(sshd.folder.parent / "deploy"), name


def test_new_connection_tested_accepted_saved_and_offered(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    known = tmp_path / "known_hosts"
    run_panel = RunPanel("model.onnx", w.HTML("Profile"), [], "Run", "play")
    assert run_panel.target.options[-1] == NEW_CONNECTION
    run_panel.target.value = NEW_CONNECTION  # opens the panel under the chooser (no designer here)
    assert run_panel.target.value == "Local" and isinstance(run_panel.connections, ConnectionsPanel)
    panel = run_panel.connections
    panel.known_hosts = known
    panel.secrets = Secrets(lambda q: "")
    _fill(panel, sshd, "<b>lab</b> gpu")
    assert not panel.test_connection()
    assert panel.fingerprint == sshd.fingerprint and sshd.fingerprint in panel.status.value
    assert [b.description for b in panel.host_key.children] == ["Accept", "Reject"]
    assert not known.exists() and ConnectionStore().load() == {}  # nothing trusted or saved before Accept
    assert panel.accept_host_key()
    assert known.read_text() == sshd.known_hosts_line
    assert "connected" in panel.status.value and "&lt;b&gt;lab&lt;/b&gt; gpu" in panel.status.value
    assert list(ConnectionStore().load()) == ["<b>lab</b> gpu"]
    listed = panel.saved_box.children[0].children[1].value
    assert "&lt;b&gt;lab&lt;/b&gt;" in listed and f"127.0.0.1:{sshd.port}" in listed and "<b>lab</b>" not in listed
    assert run_panel.target.value == "<b>lab</b> gpu"  # offered and chosen at once
    panel.saved_box.children[0].children[0].click()  # Remove
    assert ConnectionStore().load() == {} and run_panel.target.value == "Local"
    forget("<b>lab</b> gpu")


def test_changed_host_key_is_refused_without_accept(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    other = keygen(tmp_path / "other_host", "another host").with_suffix(".pub").read_text().split()
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd.port} {other[0]} {other[1]}\n")
    panel = ConnectionsPanel(known_hosts=known, secrets=Secrets(lambda q: ""))
    _fill(panel, sshd, "changed")
    assert not panel.test_connection()
    assert "REMOTE HOST IDENTIFICATION HAS CHANGED" in panel.status.value
    assert panel.host_key.children == () and panel.fingerprint is None  # nothing to accept
    assert not panel.accept_host_key()
    assert ConnectionStore().load() == {} and known.read_text().count("\n") == 1


def test_front_doors_open_the_panel_in_the_designer_dock(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnx

    import dld_jupyter as dld
    from dld_jupyter.frontdoor.operations import operations
    from tests.models import resnet_like

    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    assert isinstance(dld.targets.manage(), ConnectionsPanel)  # a notebook cell
    onnx.save(resnet_like(1), tmp_path / "m.onnx")
    designer = dld.open(str(tmp_path / "m.onnx"))
    opened = operations.get("dld:manage-connections")(designer)  # the Lab command / palette entry
    assert isinstance(opened, ConnectionsPanel) and designer.tools.children == (opened,)
    run_panel = designer.profile_panel()
    run_panel.target.value = NEW_CONNECTION
    panel = designer.tools.children[0]  # the run panel's chooser opened it in the dock, not under itself
    assert isinstance(panel, ConnectionsPanel) and panel is run_panel.connections and panel is not opened
    _fill(panel, sshd, "dock gpu")
    assert panel.save() is not None
    assert run_panel.target.value == "dock gpu" and "dock gpu" in run_panel.target.options
    designer.close()


@pytest.mark.parametrize("server", [_PasswordOnly], indirect=True)
def test_a_typed_password_is_used_for_this_process_only(
    server: tuple[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path / "config"))
    port, known = server

    def no_prompt(question: str) -> str:
        raise AssertionError(f"asked {question!r} although the password was typed in the panel")

    panel = ConnectionsPanel(known_hosts=known, secrets=Secrets(no_prompt))
    panel.host.value, panel.port.value, panel.user.value, panel.auth.value = "127.0.0.1", port, "alice", "password"
    panel.name.value, panel.secret.value = "pw panel", "wrong"
    assert not panel.test_connection() and "permission denied" in panel.status.value
    panel.secret.value = PASSWORD
    assert panel.test_connection() and panel.secret.value == ""  # the field is emptied, the secret kept in memory
    assert panel.secrets.get("pw panel", "password", "again?") == PASSWORD  # this process: not asked again
    saved = (tmp_path / "config" / "targets.json").read_text()
    assert PASSWORD not in saved and "wrong" not in saved and '"auth": "password"' in saved
    forget("pw panel")
