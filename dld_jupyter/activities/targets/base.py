"""Where an activity runs. A target prepares itself, stages the model and inputs, launches the worker with a spec
whose paths are valid on the target, and fetches the run's artifacts back (`fetch`; checked and placed by
`activities.fetched`).

The local target runs `python -m dld_jupyter.activities.worker`; the SSH target of a later issue implements the same
protocol by copying files into its deployment directory and running `dld-prof --worker` there, relaying the worker's
stdout/stderr (see `protocol`) over the connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Protocol

from dld_jupyter.activities.spec import ActivitySpec


class WorkerProcess(Protocol):
    """The running worker as the engine sees it (`subprocess.Popen` fits; a remote target wraps its channel)."""

    @property
    def pid(self) -> int: ...

    @property
    def stdin(self) -> IO[str] | None:
        """Open after the spec's line: a session kind reads its requests there (`Run.request`)."""
        ...

    @property
    def stdout(self) -> IO[str] | None: ...

    @property
    def stderr(self) -> IO[str] | None: ...

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


class Target(Protocol):
    name: str  # "localhost", "user@host:22"

    def prepare(self, spec: ActivitySpec) -> None:
        """Check that the activity can run there (files exist, runtime deployed); raise SpecError/UnavailableError."""
        ...

    def stage(self, spec: ActivitySpec) -> ActivitySpec:
        """Copy the model and inputs if needed; return the spec with target-side paths and a staging output path."""
        ...

    def launch(self, staged: ActivitySpec) -> WorkerProcess:
        """Start the worker on the staged spec, sent as the first line of its stdin (left open for requests); its
        stdout carries `protocol` messages, its stderr free text."""
        ...

    def fetch(self, staged: ActivitySpec, artifacts: Mapping[str, str]) -> dict[str, str]:
        """Bring each artifact (name -> the path the worker wrote, one of the staged spec's outputs) to this machine:
        name -> a local file, either a private partial file beside where the artifact goes (the engine checks it,
        then renames it into place: `activities.fetched`) or the file itself when the worker wrote it here in place.
        RunFailed for a file that is missing or larger than `fetched.limit(name)` allows."""
        ...

    def cleanup(self, staged: ActivitySpec) -> None:
        """Remove staged leftovers (partial report, copied inputs); called whatever the outcome."""
        ...
