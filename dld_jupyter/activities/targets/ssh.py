"""The SSH target: the same `Target` protocol as `LocalTarget`, with the worker on another machine.

`prepare` connects (host keys, credentials: `ssh_session`), checks the target and deploys the worker when the
matching deployment is missing (`deploy`). `stage` copies the model (with its external data) and input folders into
the target's cache by content hash, only when the target lacks them, and points the spec's outputs at a private run
folder there. `launch` starts `remote_launcher` in the deployment over an exec channel: its stdout and stderr stream
back through local pipes, so the engine reads them exactly as a local worker's; Cancel kills the remote process
group. `fetch` copies the run's artifacts into partial files here (only the outputs `stage` placed, none larger
than its limit; the engine checks them and renames them into place), `cleanup` removes the run folder on the
target. A lost connection becomes a clear error; the launcher then stops the worker there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shlex
import stat
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

import asyncssh

from dld_jupyter.activities import timing
from dld_jupyter.activities.errors import RunFailed, SpecError, UnavailableError
from dld_jupyter.activities.fetched import MIB, limit
from dld_jupyter.activities.spec import ActivitySpec
from dld_jupyter.activities.targets import target_memo
from dld_jupyter.activities.targets.connections import Connection, Secrets
from dld_jupyter.activities.targets.deploy import TargetInfo, check_target, deploy, package_hash
from dld_jupyter.activities.targets.host_keys import HostKeyPolicy
from dld_jupyter.activities.targets.local import LocalTarget
from dld_jupyter.activities.targets.remote_process import RemoteProcess
from dld_jupyter.activities.targets.ssh_session import SshSession, connect

Say = Callable[[str], None]
LAUNCHER = "lib/dld_jupyter/activities/targets/remote_launcher.py"  # in a deployment folder
# (target name, package hash) -> its last check, and over which connection
_CHECKED: dict[tuple[str, str], tuple[SshSession, TargetInfo]] = {}


def file_digest(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def external_data_files(model: str) -> list[str]:
    """The external data files an ONNX model names (relative to its folder)."""
    import onnx
    from onnx.external_data_helper import _get_all_tensors, uses_external_data

    proto = onnx.load(model, load_external_data=False)
    names: set[str] = set()
    for tensor in _get_all_tensors(proto):
        if uses_external_data(tensor):
            names.update(entry.value for entry in tensor.external_data if entry.key == "location")
    return sorted(names)


class SshTarget:
    """A remote machine reached over SSH; see the module docstring."""

    def __init__(
        self,
        connection: Connection,
        policy: HostKeyPolicy | None = None,
        secrets: Secrets | None = None,
        say: Say | None = None,
    ) -> None:
        self.connection, self.name = connection, connection.name
        self.policy, self.secrets = policy, secrets
        self.say: Say = say or (lambda line: None)
        self.info: TargetInfo | None = None
        self._fetch: dict[str, dict[str, str]] = {}  # run folder -> {target path: local destination}
        self._sessions: dict[str, SshSession] = {}  # run folder -> the connection its run uses

    # -- connection and deployment ---------------------------------------------------------------------------------
    def session(self) -> SshSession:
        return connect(self.connection, self.policy, self.secrets)

    def _key(self) -> tuple[str, str]:
        return self.name, package_hash()

    def check(self) -> TargetInfo:
        session = self.session()
        with timing.phase("target_check"):
            self.info = check_target(session, self.connection.deploy_dir)
        _CHECKED[self._key()] = (session, self.info)
        target_memo.remember(self.connection, self.info)
        return self.info

    def ensure_deployed(self) -> TargetInfo:
        session = self.session()
        kept = _CHECKED.get(self._key())
        if self.info is None and kept is not None and kept[0] is session and kept[1].deployed:
            self.info = kept[1]  # checked over this very connection: the deployment is still there
        if self.info is None:  # a new process: what an earlier one found, if the deployment is still complete
            with timing.phase("target_recall"):
                self.info = target_memo.recall(session, self.connection)
        info = self.info if self.info is not None and self.info.deployed else self.check()
        if not info.deployed:
            for line in info.lines():
                self.say(line)
            info = deploy(self.session(), info, self.say)
        self.info = info
        _CHECKED[self._key()] = (session, info)
        target_memo.remember(self.connection, info)
        return info

    # -- Target protocol -------------------------------------------------------------------------------------------
    def prepare(self, spec: ActivitySpec) -> None:
        LocalTarget().prepare(spec)  # the local files exist, the outputs can be written here
        for name, path in spec.input_paths().items():
            if path and self._field_of(spec, path) is None:
                raise SpecError(f"{name}: not supported on a remote target yet; run this activity locally")
        self.ensure_deployed()

    def stage(self, spec: ActivitySpec) -> ActivitySpec:
        info = self.info or self.ensure_deployed()
        session = self.session()
        run_dir = f"{info.cache}/runs/{uuid.uuid4().hex[:12]}"
        session.makedirs(run_dir)
        with timing.phase("stage_model"):
            changes: dict[str, object] = {"model": self._stage_model(session, info, spec.model)}
        for option, folder in spec.input_folders():
            changes[option] = self._stage_folder(session, info, folder)
        for path in spec.input_paths().values():
            field = self._field_of(spec, path) if path else None
            if field is not None and path:
                changes[field] = self._stage_file(session, info, path)
        final = spec.report_path()
        fetch: dict[str, str] = {f"{run_dir}/{Path(final).name}": final}
        for name, path in spec.output_paths().items():
            field = self._field_of(spec, path) if path else None
            if field is not None and path and name not in ("report", "build report"):
                remote = f"{run_dir}/{Path(path).name}"
                changes[field], fetch[remote] = remote, path
        staged = dataclasses.replace(spec, **changes)  # type: ignore[arg-type]
        staged = staged.with_output(f"{run_dir}/{Path(final).name}")
        self._fetch[run_dir], self._sessions[run_dir] = fetch, session
        return staged

    def launch(self, staged: ActivitySpec) -> RemoteProcess:
        command = self.worker_command(self.info or self.ensure_deployed())
        return RemoteProcess.start(self.session(), command, staged, self.name)

    def worker_command(self, info: TargetInfo) -> str:
        """The shell command, run on the target, that starts `remote_launcher` (and so the worker) in the deployment."""
        q = shlex.quote
        env = f"PYTHONPATH={q(info.folder + '/lib')} PYTHONUNBUFFERED=1 DLD_TARGET={q(self.name)}"
        # The launcher runs as a file, not `-m`: as a module it imported the `dld_jupyter.activities` package first
        # (0.1-0.3 s of imports it never uses, on every run). It uses the standard library only, and no file beside
        # it may take a standard module's name (its folder comes first on its path).
        return f"cd {q(info.folder)} && {env} exec venv/bin/python {q(LAUNCHER)}"

    def fetch(self, staged: ActivitySpec, artifacts: Mapping[str, str]) -> dict[str, str]:
        run_dir = str(PurePosixPath(staged.report_path()).parent)
        places = self._fetch.get(run_dir, {})
        session = self.session()
        fetched: dict[str, str] = {}
        try:
            for name, remote in artifacts.items():
                if remote not in places:  # an output the spec names by no field of its own: never sent there
                    raise RunFailed(f"{name}: {remote} is not a file this target was told to write. Nothing was kept")
                local = Path(places[remote])
                partial = local.with_name(f".{local.name}.{uuid.uuid4().hex[:8]}.partial")
                self._get(session, name, remote, partial)
                fetched[name] = str(partial)
        except BaseException:
            for path in fetched.values():
                Path(path).unlink(missing_ok=True)
            raise
        return fetched

    def _get(self, session: SshSession, name: str, remote: str, partial: Path) -> None:
        """Copy one artifact into `partial` unless it is not a regular file or is larger than its limit there."""
        try:
            attrs = session.stat(remote)
            if attrs is None or not stat.S_ISREG(attrs.permissions or 0):
                raise RunFailed(f"{name}: the target wrote no file at {remote}. Nothing was kept")
            if (attrs.size or 0) > limit(name):
                raise RunFailed(
                    f"{name}: {(attrs.size or 0) // MIB} MiB on {self.name} is more than a {name} can be "
                    f"({limit(name) // MIB} MiB). Nothing was kept"
                )
            session.get(remote, str(partial))  # copies the size stat gave, no more
        except (asyncssh.Error, OSError) as error:
            partial.unlink(missing_ok=True)
            raise UnavailableError(f"target {self.name}: fetching the {name} failed ({error})") from error

    def cleanup(self, staged: ActivitySpec) -> None:
        run_dir = str(PurePosixPath(staged.report_path()).parent)
        self._fetch.pop(run_dir, None)
        session = self._sessions.pop(run_dir, None)
        # When the connection is gone, the run folder stays in the target's cache (runs/): small, and named. No new
        # connection is tried for it: a target that stopped answering would keep the run from ending.
        if session is not None and session.alive:
            with contextlib.suppress(UnavailableError, OSError, asyncssh.Error):
                session.rmtree(run_dir)

    # -- staging ---------------------------------------------------------------------------------------------------
    @staticmethod
    def _field_of(spec: ActivitySpec, path: str) -> str | None:
        for field in dataclasses.fields(spec):
            if getattr(spec, field.name) == path:
                return field.name
        return None

    def _stage_model(self, session: SshSession, info: TargetInfo, model: str) -> str:
        files = [model, *(str(Path(model).parent / name) for name in external_data_files(model))]
        # Names count with the contents: the same bytes staged under another name are another folder (the cached
        # folder holds the files by name; a model copied under a new name once found the old name only).
        parts = [f"{os.path.relpath(f, Path(model).parent)}\0{file_digest(f)}" for f in files]
        digest = hashlib.sha256("\0".join(parts).encode()).hexdigest()
        folder = f"{info.cache}/models/{digest}"
        remote = f"{folder}/{Path(model).name}"
        self._upload(session, folder, [(f, f"{folder}/{os.path.relpath(f, Path(model).parent)}") for f in files])
        return remote

    def _stage_file(self, session: SshSession, info: TargetInfo, path: str) -> str:
        named = f"{Path(path).name}\0{file_digest(path)}"  # the name counts, as for models
        folder = f"{info.cache}/files/{hashlib.sha256(named.encode()).hexdigest()}"
        self._upload(session, folder, [(path, f"{folder}/{Path(path).name}")])
        return f"{folder}/{Path(path).name}"

    def _stage_folder(self, session: SshSession, info: TargetInfo, folder: str) -> str:
        files = sorted(p for p in Path(folder).rglob("*") if p.is_file())
        parts = [f"{p.relative_to(folder)}\0{file_digest(str(p))}" for p in files]
        digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
        remote = f"{info.cache}/inputs/{digest}"
        self._upload(session, remote, [(str(p), f"{remote}/{p.relative_to(folder)}") for p in files])
        return remote

    def _upload(self, session: SshSession, folder: str, files: list[tuple[str, str]]) -> None:
        """Send `files` into `folder` unless it is complete there already (a partial folder is renamed in)."""
        q = shlex.quote
        if session.exists(f"{folder}/.complete"):
            return
        tmp = f"{folder}.partial-{uuid.uuid4().hex[:8]}"
        try:
            for local, remote in files:
                target = tmp + remote[len(folder) :]
                session.makedirs(str(PurePosixPath(target).parent))
                self.say(f"staging {Path(local).name} ({os.path.getsize(local) // 1024} KiB)")
                session.put(local, target)
            session.check(
                f"touch {q(tmp)}/.complete && (mv -T {q(tmp)} {q(folder)} || test -f {q(folder)}/.complete)", "staging"
            )
        finally:
            session.rmtree(tmp)
