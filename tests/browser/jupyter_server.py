"""A real JupyterLab server on a free loopback port, for browser tests (see ../shared/BROWSER.md)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

NEWS_OFF = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class JupyterServer:
    url: str
    token: str
    root_dir: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def api(self, path: str, method: str = "GET", body: object | None = None) -> object:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def delete_sessions(self, notebook_path: str | None = None) -> None:
        """Stop kernels of earlier runs so a reopened notebook never renders stale widgets."""
        sessions = self.api("/api/sessions")
        assert isinstance(sessions, list)
        for session in sessions:
            if notebook_path is None or session.get("path") == notebook_path:
                try:
                    self.api(f"/api/sessions/{session['id']}", method="DELETE")
                except urllib.error.HTTPError as error:  # gone with a kernel it shared (a report beside its designer)
                    if error.code != 404:
                        raise

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_server(
    root_dir: Path,
    log_dir: Path,
    python: str = sys.executable,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    warm_kernel: bool = False,
) -> JupyterServer:
    """Start `jupyter lab` from `python`'s environment (this interpreter's by default; another venv for the support
    matrix, tests/browser/test_support_matrix.py) with extra `args` and `env`, and wait until its API answers.

    `warm_kernel`: the extension's spare kernel (setting warmKernel, js/src/lab/warm_kernel.ts) keeps its default
    (on); else it defaults to off on this server, so that tests counting kernels and 2-core runners see only the
    kernels their tests start (tests/browser/test_warm_kernel.py covers it, on a server of its own). A user
    setting still wins over this default."""
    root_dir.mkdir(parents=True, exist_ok=True)
    settings_dir = log_dir / "lab-settings"
    settings_dir.mkdir(parents=True, exist_ok=True)
    (settings_dir / "overrides.json").write_text(json.dumps(NEWS_OFF))
    port, token = free_port(), secrets.token_hex(16)
    log_path = log_dir / f"jupyter-{port}.log"
    env = {**os.environ, **(env or {})}
    env["JUPYTERLAB_SETTINGS_DIR"] = str(log_dir / "user-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(log_dir / "workspaces")
    env.pop("JUPYTER_TOKEN", None)
    config_dir = log_dir / f"config-warm-{'on' if warm_kernel else 'off'}"  # <config dir>/labconfig: defaults
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    overrides = {} if warm_kernel else {"dld-jupyter:plugin": {"warmKernel": False}}
    (config_dir / "labconfig" / "default_setting_overrides.json").write_text(json.dumps(overrides))
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(config_dir), env.get("JUPYTER_CONFIG_PATH")) if p)
    # overrides.json is read from <app dir>/settings; point the app dir's settings at ours via a copy.
    app_settings = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
    app_settings.mkdir(parents=True, exist_ok=True)
    shutil.copy(settings_dir / "overrides.json", app_settings / "overrides.json")
    command = [
        python,
        "-m",
        "jupyterlab",  # this venv's JupyterLab (`-m jupyter lab` may run another venv's jupyter-lab from PATH)
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        "--LabApp.expose_app_in_browser=True",
        "--JupyterNotebookApp.expose_app_in_browser=True",
        *args,
    ]
    log = log_path.open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root_dir)
    server = JupyterServer(f"http://127.0.0.1:{port}", token, root_dir, process, log_path)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited early; see {log_path}:\n{log_path.read_text()[-3000:]}")
        try:
            server.api("/api/status")
            return server
        except OSError:
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"jupyter lab did not answer within 90 s; see {log_path}")
