"""The TensorRT installations of this machine, each with its version: the list the export and profile forms choose
from (seed 000 "Selecting a Version": the system's TensorRT or a custom path), `--trt` and `dld doctor`.

Found: this Python environment's `tensorrt` module, `trtexec` on PATH, and the paths the user adds (a folder that
holds the `tensorrt` package, a trtexec binary, or a TensorRT folder with `bin/trtexec`), kept in
`<cache dir>/tensorrt-installs.json`, for this machine and for each SSH target (whose installs are found by `main`
run in its deployment: target_installs.py). Versions are read without importing tensorrt (which starts CUDA): the
package's `__version__` line or its dist-info; a trtexec binary is run (`--help`) and its banner read, `&&&& RUNNING
TensorRT.trtexec [TensorRT v100600]` being 10.6.0 (v8601: 8.6.1). Each install is a `TrtSettings` choice (`tensorrt`
and `tensorrt_path`): what the worker imports, or the binary the trtexec command line names.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dld_jupyter.activities.cache import cache_dir, write_json_atomic
from dld_jupyter.activities.errors import SpecError

BANNER = re.compile(r"&&&& RUNNING TensorRT\.trtexec \[TensorRT v(\d+)\]")
_VERSION_LINE = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.MULTILINE)
RUN_TIMEOUT_S = 20.0
STORE_NAME = "tensorrt-installs.json"


@dataclass(frozen=True)
class TrtInstall:
    """One TensorRT: `source` ("python", "path", "trtexec" as TrtSettings.tensorrt), its path (None for this
    environment's module), its version, or why it cannot be used."""

    source: str
    path: str | None
    version: str | None
    problem: str | None = None

    @property
    def label(self) -> str:
        where = {"python": "this Python environment", "path": f"installation {self.path}",
                 "trtexec": f"trtexec {self.path}"}[self.source]
        return f"TensorRT {self.version} — {where}" if self.problem is None else f"{where}: {self.problem}"

    def settings(self) -> dict[str, str | None]:
        """The TrtSettings fields that choose this install."""
        return {"tensorrt": self.source, "tensorrt_path": self.path}


def version_of_banner(text: str) -> str | None:
    """The TensorRT version a trtexec banner names (NV_TENSORRT_VERSION: MMmmpp since 10, Mmpp before)."""
    match = BANNER.search(text)
    if match is None:
        return None
    number = int(match.group(1))
    major, rest = divmod(number, 10000) if number >= 100000 else divmod(number, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


def trtexec_install(binary: str) -> TrtInstall:
    """A trtexec binary, run to read its version."""
    path = str(Path(binary).absolute())
    try:
        done = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
                              errors="replace")
    except (OSError, subprocess.TimeoutExpired) as error:
        return TrtInstall("trtexec", path, None, f"does not run ({error})")
    output = done.stdout + done.stderr
    version = version_of_banner(output)
    if version is None:  # not trtexec, or a trtexec that cannot start (its libraries not on LD_LIBRARY_PATH)
        said = next((line.strip() for line in output.splitlines() if line.strip()), "nothing")[:200]
        return TrtInstall("trtexec", path, None, f"printed no trtexec banner (&&&& RUNNING TensorRT.trtexec …): {said}")
    return TrtInstall("trtexec", path, version)


def _package_version(package: Path) -> str | None:
    """The version of the `tensorrt` package folder `package`: its `__version__` line, else its dist-info's."""
    init = package / "__init__.py"
    if init.is_file():
        match = _VERSION_LINE.search(init.read_text(encoding="utf-8", errors="replace"))
        if match:
            return match.group(1)
    for dist in importlib.metadata.distributions(path=[str(package.parent)]):
        top = dist.read_text("top_level.txt") or ""
        if "tensorrt" in top.split() or (dist.metadata["Name"] or "").lower() == "tensorrt":
            return str(dist.version)
    return None


def python_install() -> TrtInstall | None:
    """This environment's `tensorrt` module, or None when it has none."""
    spec = importlib.util.find_spec("tensorrt")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    version = _package_version(package)
    return TrtInstall("python", None, version, None if version else f"no version found in {package}")


def path_install(path: str) -> TrtInstall:
    """What a custom path is: a folder holding the `tensorrt` package, a trtexec binary, a TensorRT folder with
    `bin/trtexec` or the folder of a trtexec; an install with its problem otherwise."""
    where = Path(path).expanduser().absolute()
    if (where / "tensorrt").is_dir():
        version = _package_version(where / "tensorrt")
        return TrtInstall("path", str(where), version, None if version else "its tensorrt package has no version")
    for binary in (where / "bin" / "trtexec", where / "trtexec"):
        if binary.is_file():
            return trtexec_install(str(binary))
    if where.is_file():
        return trtexec_install(str(where))
    return TrtInstall("path", str(where), None, "holds no tensorrt package, bin/trtexec or trtexec binary")


class InstallStore:
    """The custom paths the user added, in `<cache dir>/tensorrt-installs.json`: this machine's, and each SSH
    target's (by its name: paths on that machine, checked there)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None, target: str | None = None) -> None:
        self.path = Path(directory) if directory is not None else cache_dir()
        self.file = self.path / STORE_NAME
        self.target = target

    def _load(self) -> dict[str, object]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def paths(self) -> list[str]:
        data = self._load()
        targets = data.get("targets")
        found = data.get("paths") if self.target is None else (
            targets.get(self.target) if isinstance(targets, dict) else None)
        return [p for p in found if isinstance(p, str)] if isinstance(found, list) else []

    def keep(self, path: str) -> None:
        """Keep `path` (checked by the caller: here, or on the target)."""
        paths = self.paths()
        if path in paths:
            return
        data = self._load()
        if self.target is None:
            data["paths"] = [*paths, path]
        else:
            targets = data.get("targets")
            data["targets"] = {**(targets if isinstance(targets, dict) else {}), self.target: [*paths, path]}
        write_json_atomic(self.file, data)

    def add(self, path: str) -> TrtInstall:
        """Check `path` on this machine and keep it; SpecError saying why when it is no TensorRT."""
        install = path_install(path)
        if install.problem is not None:
            raise SpecError(f"TensorRT path {path}: {install.problem}")
        self.keep(install.path or path)
        return install


def find_installs(store: InstallStore | None = None, paths: list[str] | None = None) -> list[TrtInstall]:
    """Every TensorRT found: this environment's module, trtexec on PATH, then the paths the user added (`paths`
    instead of the store's when given: a target is asked about the paths kept for it here)."""
    found: list[TrtInstall] = []
    module = python_install()
    if module is not None:
        found.append(module)
    binary = shutil.which("trtexec")
    if binary:
        found.append(trtexec_install(binary))
    for path in (store or InstallStore()).paths() if paths is None else paths:
        install = path_install(path)
        if all(install.path != other.path for other in found):
            found.append(install)
    return found


def choose(choice: str, installs: list[TrtInstall],
           check: Callable[[str], TrtInstall] | None = None) -> TrtInstall:
    """The install a `--trt` value names: a version (`10.6`, `10.6.0`: the first found of it) or a path (a
    custom path not added yet is checked as one, by `check`: on a target, there); SpecError listing what was
    found."""
    usable = [install for install in installs if install.problem is None]
    if re.fullmatch(r"\d+(\.\d+)*", choice):
        for install in usable:
            if install.version == choice or (install.version or "").startswith(choice + "."):
                return install
        listed = ", ".join(install.label for install in usable) or "none"
        raise SpecError(f"--trt {choice}: no TensorRT {choice} found (found: {listed}); give a path instead")
    if check is not None:
        return check(choice)
    install = path_install(choice)
    if install.problem is not None:
        raise SpecError(f"--trt {choice}: {install.problem}")
    return install


def main(argv: list[str] | None = None) -> int:
    """`python -m dld_jupyter.activities.runtimes.tensorrt.installs [PATH ...]`, run on a target in its deployment
    (target_installs.py): what is found there and each PATH (relative: from the deployment folder), as JSON."""
    paths = list(sys.argv[1:] if argv is None else argv)
    print(json.dumps([dataclasses.asdict(install) for install in find_installs(paths=paths)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
