"""`dld doctor`'s Jupyter lines: the JupyterLab version against the support matrix, our labextension (found where
JupyterLab looks, enabled or disabled in its page config), the widget manager it renders through, and our server
extension (enabled in Jupyter Server's config).

Why apart from the runtimes: the engine runs on GPU hosts where Jupyter is not installed, so nothing here is imported
before it is asked for, and a missing Jupyter is one line saying what works without it, never an error. Files are
read where Jupyter itself reads them (jupyter_core's data and config paths), so the answer is the running server's.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

OURS = "dld-jupyter"  # the labextension's name (js/package.json), also its folder under labextensions/
SERVER = "dld_jupyter"  # the server extension's module key in ServerApp.jpserver_extensions
TESTED = ((4, 1), (4, 6))  # the JupyterLab minors of README's support matrix (oldest, newest), [lab] extra: <4.7
WIDGETS = "@jupyter-widgets/jupyterlab-manager"


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def lab_line(version: str | None) -> str:
    """The JupyterLab version against the support matrix."""
    if version is None:
        return ("JupyterLab: not installed (the engine, the CLI and notebooks' dld.* work without it; the designer "
                "and the sidebar need it: pip install 'dld_jupyter[lab]')")
    try:
        minor = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        minor = TESTED[0]
    tested = f"{TESTED[0][0]}.{TESTED[0][1]} – {TESTED[1][0]}.{TESTED[1][1]}"
    if minor < TESTED[0]:
        return f"JupyterLab {version}: too old, the extension needs {tested} (pip install 'dld_jupyter[lab]')"
    if minor > TESTED[1]:
        return f"JupyterLab {version}: newer than tested ({tested}); it may work, report what does not"
    return f"JupyterLab {version}: supported (tested {tested})"


def _labextension(name: str, data_paths: list[str]) -> Path | None:
    return next((Path(d) / name for d in data_paths if (Path(d) / name / "package.json").is_file()), None)


def _disabled(name: str, config_paths: list[str]) -> bool:
    """Whether JupyterLab's page config disables `name` (the highest-priority setting wins)."""
    state = False
    for folder in reversed(config_paths):  # lowest priority first: a later one overrides
        disabled = _json(Path(folder) / "labconfig" / "page_config.json").get("disabledExtensions", {})
        if isinstance(disabled, dict) and name in disabled:
            state = bool(disabled[name])
        elif isinstance(disabled, list) and name in disabled:
            state = True
    return state


def _server_enabled(config_paths: list[str]) -> bool | None:
    """ServerApp.jpserver_extensions[dld_jupyter] as Jupyter Server reads it (None: said nowhere)."""
    state: bool | None = None
    for folder in reversed(config_paths):
        files = sorted((Path(folder) / "jupyter_server_config.d").glob("*.json"))
        for file in [*files, Path(folder) / "jupyter_server_config.json"]:
            extensions = _json(file).get("ServerApp", {}).get("jpserver_extensions", {})
            if isinstance(extensions, dict) and SERVER in extensions:
                state = bool(extensions[SERVER])
    return state


def jupyter_lines() -> list[str]:
    """Every Jupyter line of `dld doctor` (one line when Jupyter is not installed)."""
    if not _importable("jupyter_core"):
        return [lab_line(None)]
    from jupyter_core.paths import jupyter_config_path, jupyter_path

    lines = [lab_line(_version("jupyterlab") if _importable("jupyterlab") else None)]
    data, config = jupyter_path("labextensions"), jupyter_config_path()
    found = _labextension(OURS, data)
    if found is None:
        lines.append(f"labextension {OURS}: not found in {', '.join(data)} (reinstall dld_jupyter)")
    else:
        version = _json(found / "package.json").get("version", "?")
        state = ("disabled (jupyter labextension enable dld-jupyter)" if _disabled(OURS, config) else "enabled")
        lines.append(f"labextension {OURS} {version}: {state} ({found})")
    manager = _labextension(WIDGETS, data)
    lines.append(f"widget manager: {WIDGETS} {_json(manager / 'package.json').get('version', '?')}" if manager else
                 f"widget manager: {WIDGETS} not found: designers in notebooks cannot render (pip install ipywidgets)")
    enabled = _server_enabled(config)
    if enabled is None or not enabled:
        said = "disabled" if enabled is False else "not enabled in any config"
        lines.append(f"server extension {SERVER}: {said} (jupyter server extension enable dld_jupyter)")
    elif not _importable("dld_jupyter.lab.server_extension"):
        lines.append(f"server extension {SERVER}: enabled but does not import (is jupyter_server installed?)")
    else:
        lines.append(f"server extension {SERVER}: enabled")
    return lines
