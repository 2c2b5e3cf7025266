"""The cache directory (seed 000 "Deployment Workflow") and the per-model settings remembered there."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """`DLD_CACHE_DIR`, else the seed's `NV_DLD_CACHE_DIR`, else `$XDG_CONFIG_HOME/dld_jupyter` (~/.config)."""
    for variable in ("DLD_CACHE_DIR", "NV_DLD_CACHE_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "dld_jupyter"


def write_json_atomic(path: str | os.PathLike[str], data: Any) -> None:
    """Write JSON to a temp file beside `path`, then rename: readers never see half a file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=1)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SettingsStore:
    """Last settings used per model and activity kind, in `<cache dir>/activity-settings.json`."""

    FILE = "activity-settings.json"

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(directory or cache_dir()) / self.FILE

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # a missing or damaged store only costs the remembered settings
        return data if isinstance(data, dict) else {}

    def recall(self, model: str | os.PathLike[str], kind: str) -> dict[str, Any] | None:
        entry = self._load().get(os.path.abspath(model), {}).get(kind)
        return dict(entry) if isinstance(entry, dict) else None

    def remember(self, model: str | os.PathLike[str], kind: str, settings: dict[str, Any]) -> None:
        data = self._load()
        data.setdefault(os.path.abspath(model), {})[kind] = settings
        write_json_atomic(self.path, data)


def timing_cache_path(trt_version: str, gpu: str) -> Path:
    """The TensorRT timing cache of one TensorRT version on one GPU model (tactic timings hold for no other)."""
    slug = "".join(ch if ch.isalnum() or ch in ".-" else "_" for ch in f"{trt_version}-{gpu}")
    return cache_dir() / "tensorrt" / f"timing-{slug}.cache"
