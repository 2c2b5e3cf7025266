"""Manage Remote Connections (seed 000 "Connection Management"): the saved SSH connections with Remove, a form for
a new one, and Test connection with the host key question.

The form is the seed's dialog: host, port (22), user, authentication (password; private key path + passphrase;
SSH agent; keyboard-interactive), deployment directory and a name defaulting to `user@host:port`. A password or
passphrase typed here goes to the process's `Secrets` (memory, this kernel only) and never into the saved file.
Test connection connects through the same `ssh_session.connect` as a run; an unknown host key is shown with its
SHA256 fingerprint and Accept / Reject (Accept connects again accepting exactly that fingerprint, which
`host_keys` then adds to known_hosts); a changed key shows OpenSSH's warning and offers nothing to accept.
A connection that tested well is saved; `on_saved(name)` lets a run panel's chooser offer it at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w

from dld_jupyter.activities.targets.connections import DEFAULT_DEPLOY_DIR, SECRETS, Connection, ConnectionStore, Secrets
from dld_jupyter.formats.html_text import bold, code, join, small, tag
from dld_jupyter.widgets.widget_base import DldVBox

AUTH_CHOICES = (("Password", "password"), ("Private key", "key"), ("SSH agent", "agent"),
                ("Keyboard-interactive", "keyboard-interactive"))


def _error(message: object) -> str:
    return tag("div", message, class_="dld-connection-error", style="color:#b91c1c; white-space:pre-wrap")


class ConnectionsPanel(DldVBox, css="dld-tool-dialog dld-connections-panel"):
    """See the module docstring. `known_hosts`: the file checked and added to (default ~/.ssh/known_hosts)."""

    def __init__(self, on_saved: Callable[[str], None] | None = None, known_hosts: str | Path | None = None,
                 secrets: Secrets | None = None, store: ConnectionStore | None = None) -> None:
        self.on_saved = on_saved
        self.known_hosts = Path(known_hosts) if known_hosts is not None else None
        self.secrets = secrets or SECRETS
        self.store = store or ConnectionStore()
        self.fingerprint: str | None = None  # the unknown host key shown, waiting for Accept / Reject
        wide = w.Layout(width="340px")
        self.saved_box = w.VBox([])
        self.host = w.Text(description="Host", placeholder="gpu-box or an ~/.ssh/config alias", layout=wide)
        self.port = w.BoundedIntText(value=22, min=1, max=65535, description="Port", layout=w.Layout(width="180px"))
        self.user = w.Text(description="User", layout=wide)
        self.auth = w.Dropdown(options=AUTH_CHOICES, value="key", description="Auth", layout=wide)
        self.identity = w.Text(description="Key file", placeholder="~/.ssh/id_ed25519", layout=wide)
        self.secret = w.Password(description="Passphrase", layout=wide)
        self.deploy_dir = w.Text(value=DEFAULT_DEPLOY_DIR, description="Deploy dir", layout=wide)
        self.name = w.Text(description="Name", placeholder="user@host:port", layout=wide)
        for field in (self.host, self.port, self.user):
            field.observe(lambda _c: self._name_hint(), "value")
        self.auth.observe(lambda _c: self._auth_fields(), "value")
        self.test_button = w.Button(description="Test connection", icon="plug", button_style="primary")
        self.test_button.on_click(lambda _b: self._in_thread(self.test_connection))
        self.save_button = w.Button(description="Save", icon="save")
        self.save_button.on_click(lambda _b: self.save())
        self.accept_button = w.Button(description="Accept", icon="check", button_style="warning")
        self.accept_button.on_click(lambda _b: self._in_thread(self.accept_host_key))
        self.reject_button = w.Button(description="Reject", icon="times")
        self.reject_button.on_click(lambda _b: self.reject_host_key())
        self.host_key = w.HBox([], layout=w.Layout(flex_flow="row wrap"))
        self.status = w.HTML("")
        close = w.Button(description="Close", icon="times", layout=w.Layout(width="auto"))
        close.on_click(lambda _b: self.close())
        self.test_thread: threading.Thread | None = None
        super().__init__([w.HTML(bold("Remote Connections")), self.saved_box, w.HTML(bold("New connection")),
                          self.host, self.port, self.user, self.auth, self.identity, self.secret, self.deploy_dir,
                          self.name, w.HBox([self.test_button, self.save_button, close]), self.host_key, self.status],
                         layout=w.Layout(width="100%", border="1px solid var(--jp-border-color2)", padding="6px"))
        self._auth_fields()
        self.refresh()

    # -- the saved list ----------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        try:
            saved = self.store.load()
        except Exception as error:  # an unreadable settings file: say so, the form still works
            self.saved_box.children = (w.HTML(_error(error)),)
            return
        if not saved:
            self.saved_box.children = (w.HTML(small("No saved connections yet.")),)
            return
        rows = []
        for name, connection in sorted(saved.items()):
            where = connection.where()
            label = w.HTML(join([bold(name), " ", code(where), " ", small(connection.deploy_dir, " · ",
                                                                           connection.auth)]))
            label.add_class("dld-connection-row")
            remove = w.Button(description="Remove", icon="trash", layout=w.Layout(width="auto"))
            remove.on_click(lambda _b, n=name: self.remove(n))
            rows.append(w.HBox([remove, label]))
        self.saved_box.children = tuple(rows)

    def remove(self, name: str) -> None:
        from dld_jupyter.activities.targets.ssh_session import forget

        self.store.remove(name)
        forget(name)
        self.refresh()
        if self.on_saved is not None:
            self.on_saved("")

    # -- the form ----------------------------------------------------------------------------------------------------
    def _auth_fields(self) -> None:
        auth = self.auth.value
        self.identity.layout.display = "" if auth == "key" else "none"
        self.secret.layout.display = "none" if auth == "agent" else ""
        self.secret.description = "Passphrase" if auth == "key" else "Password"

    def _name_hint(self) -> None:
        user = f"{self.user.value.strip()}@" if self.user.value.strip() else ""
        self.name.placeholder = f"{user}{self.host.value.strip() or 'host'}:{self.port.value}"

    def connection(self) -> Connection:
        """The form's connection (SpecError saying which field is wrong)."""
        identity = self.identity.value.strip() if self.auth.value == "key" else ""
        return Connection(host=self.host.value.strip(), port=int(self.port.value), user=self.user.value.strip() or None,
                          auth=str(self.auth.value), identity=identity or None,
                          deploy_dir=self.deploy_dir.value.strip() or DEFAULT_DEPLOY_DIR, name=self.name.value.strip())

    def save(self) -> Connection | None:
        try:
            connection = self.store.add(self.connection(), replace=True)
        except Exception as error:
            self.status.value = _error(error)
            return None
        self.refresh()
        if self.on_saved is not None:
            self.on_saved(connection.name)
        return connection

    # -- testing -----------------------------------------------------------------------------------------------------
    def _in_thread(self, work: Callable[[], Any]) -> None:
        """A connection may take seconds: off the kernel's message loop (ipykernel sends updates from any thread)."""
        self.test_thread = threading.Thread(target=work, name="dld-connection-test", daemon=True)
        self.test_thread.start()

    def test_connection(self, accept: str | None = None) -> bool:
        """Connect with the form's settings; True when it connected (then it is saved)."""
        from dld_jupyter.activities.targets.host_keys import HostKeyChanged, HostKeyPolicy, HostKeyUnknown
        from dld_jupyter.activities.targets.ssh_session import connect

        self.host_key.children = ()
        try:
            connection = self.connection()
        except Exception as error:
            self.status.value = _error(error)
            return False
        if self.secret.value and self.auth.value != "agent":
            self.secrets.give(connection.name, self.secret.value)  # this process only, never saved
        self.secret.value = ""
        policy = HostKeyPolicy(accept=accept) if self.known_hosts is None else HostKeyPolicy(self.known_hosts, accept)
        self.status.value = small("connecting to ", connection.name, "…")
        self.test_button.disabled = True
        try:
            session = connect(connection, policy, self.secrets)
            code_, out, err = session.run("uname -nsrm", timeout=30)
        except HostKeyUnknown as unknown:
            self.fingerprint = unknown.fingerprint
            self.status.value = join([
                tag("div", "The authenticity of ", "the jump host " if unknown.jump else "", "host ",
                    code(f"{unknown.host}:{unknown.port}"),
                    " can't be established. Its key fingerprint is:"),
                tag("div", code(unknown.fingerprint), class_="dld-host-fingerprint", style="word-break:break-all"),
                small("Check it with the host's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the "
                      "host) before accepting it: Accept adds it to known_hosts."),
            ])
            self.host_key.children = (self.accept_button, self.reject_button)
            return False
        except HostKeyChanged as changed:
            self.fingerprint = None
            self.status.value = _error(changed)
            return False
        except Exception as error:
            self.status.value = _error(error)
            return False
        finally:
            self.test_button.disabled = False
        self.fingerprint = None
        if self.save() is None:
            return False
        machine = (out if code_ == 0 else err).strip()
        self.status.value = join([tag("span", "connected: ", machine, style="color:#15803d"),
                                  small(" — saved as ", bold(connection.name))])
        return True

    def accept_host_key(self) -> bool:
        """Accept the fingerprint shown (and only it) and test again."""
        fingerprint, self.fingerprint = self.fingerprint, None
        if fingerprint is None:
            return False
        return self.test_connection(accept=fingerprint)

    def reject_host_key(self) -> None:
        self.fingerprint = None
        self.host_key.children = ()
        self.status.value = _error("host key rejected: nothing was added to known_hosts; nothing saved")
