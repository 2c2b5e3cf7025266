"""Activity specs: frozen, JSON-serializable descriptions of one run, and the kind registry behind spec-from-JSON.

A spec carries every setting of its activity and nothing else, so the same JSON runs locally, in the worker process
and, later, on a remote target through `dld-prof`. Each kind (`OrtProfileSpec`, `TrtProfileSpec`, `TrtBuildSpec`)
subclasses `ActivitySpec` with its own `KIND`, which registers it; `spec_from_json` dispatches on the JSON's
`"kind"` (none: an ONNX Runtime profile). Each kind also names the runtime that runs it (`RUNTIME`) and the
activity that drives it (`ACTIVITY`, one module of `activities.kinds` each). `dld_jupyter.activities` imports every
built-in kind, so they are known as soon as the package is; a kind of a higher layer (the divergence,
model_compare/divergence_kind.py) names its module in its JSON, and `spec_from_dict` imports it.
Validation happens on construction (`__post_init__` of each kind): a spec that exists is valid.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from dld_jupyter.activities.command_line import CommandLine
from dld_jupyter.activities.errors import SpecError
from dld_jupyter.formats import output_paths

REPORT_SUFFIX = ".dld-report.json"
# Specs written by hand before there were kinds have no "kind": they are ONNX Runtime profiles.
DEFAULT_KIND = "onnxruntime-profile"

S = TypeVar("S", bound="ActivitySpec")
BUILT_IN = "dld_jupyter.activities."  # kinds defined here are known once the package is imported
PLUGINS = "dld_jupyter."  # a kind defined elsewhere in the package is imported by the module its JSON names

_KINDS: dict[str, type[ActivitySpec]] = {}


@dataclass(frozen=True)
class Measurement:
    """How a measured activity times its passes, whatever the runtime (`activities.kinds.profile` reads it)."""

    warmup: int  # passes before each measured series, never reported
    iterations: int  # measured passes per series (plain, then profiled)
    device: int | None  # the GPU's index; None: a CPU run (no clocks to lock, no GPU metrics)
    lock_clocks: bool = False
    gpu_metrics: bool = True
    sampling_ms: float = 100.0


MAX_SAMPLING_MS = 60_000.0  # a metric sample a minute at the least; 1e308 ms overflowed the sampler's wait


def sampling_problem(value: float, name: str) -> SpecError | None:
    """The error for a GPU metric sampling interval outside (0, MAX_SAMPLING_MS], or None."""
    if not math.isfinite(value) or not 0 < value <= MAX_SAMPLING_MS:  # NaN passed `<= 0` and broke the report
        return SpecError(f"{name}: must be a positive, finite number of ms, at most {MAX_SAMPLING_MS:.0f}; got {value}")
    return None


def default_report_path(model: str) -> str:
    """`<model stem>.dld-report.json` beside the model."""
    path = Path(model)
    return str(path.with_name(path.stem + REPORT_SUFFIX))


@dataclass(frozen=True)
class ActivitySpec(abc.ABC):
    """Base of every activity spec: a model, a report path, JSON in and out. Subclasses set `KIND`."""

    model: str  # path of the ONNX model the activity runs on
    # When `model` is a copy of a document's unsaved edits (`ModelRef.copy_of`, set by every kind's spec builder):
    # the document's own file. The report records it, so its links find that document's live designer, then the
    # file; the run's settings are remembered for it, never for the copy's temporary path. Keyword-only: each kind's
    # own fields keep their places.
    source_document: str | None = dataclasses.field(default=None, kw_only=True)

    KIND: ClassVar[str] = ""
    RUNTIME: ClassVar[str] = ""  # the runtime that runs it (`activities.runtimes`)
    ACTIVITY: ClassVar[str] = ""  # the activity kind that drives it (`activities.kinds`): "profile", "export_engine"
    # A session kind computes only when asked and may stay open for hours: the scheduler gives it its device but
    # not its host's cores (scheduler.py).
    INTERACTIVE: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("KIND", "")
        if kind:
            if kind in _KINDS and _KINDS[kind].__qualname__ != cls.__qualname__:
                raise TypeError(f"activity kind {kind!r} is already registered by {_KINDS[kind].__qualname__}")
            _KINDS[kind] = cls

    def user_model(self) -> str:
        """The user's own file this run is of: the document whose unsaved edits `model` copies, else `model`."""
        return self.source_document or self.model

    def copy_note(self) -> str | None:
        """What a command line cannot say about a run of a copy of unsaved edits (`Args.unsaid`), or None."""
        if not self.source_document:
            return None
        return (f"the model was a copy of the unsaved edits of {self.source_document} (removed after the run): save "
                "the designer and run its file; the report's links open that document's designer, the command's "
                "open the model file")

    @abc.abstractmethod
    def report_path(self) -> str:
        """Where the report goes (the spec's output, or a default beside the model)."""

    @abc.abstractmethod
    def resolved(self: S) -> S:
        """Absolute paths and an explicit output path: what the engine hands to a target."""

    @abc.abstractmethod
    def with_output(self: S, output: str) -> S:
        """The same spec writing its report to `output` (a target's staging path)."""

    def runtime_settings(self) -> Any:
        """What the runtime is asked `available(settings)` with: the spec itself unless a kind says otherwise."""
        return self

    def measurement(self) -> Measurement | None:
        """How the activity measures passes; None for an activity that measures nothing (an engine build)."""
        return None

    def device_key(self) -> str:
        """The device the activity occupies on its target ("cpu", "cuda:0"): the scheduler runs one at a time."""
        return "cpu"

    def output_paths(self) -> dict[str, str | None]:
        """What the activity writes, by name (`check_outputs` refuses what would replace an input)."""
        return {"report": self.report_path()}

    def input_paths(self) -> dict[str, str | None]:
        """Files the activity reads besides the model, by name (no output may replace them)."""
        return {}

    def check_outputs(self, models: Iterable[str | os.PathLike[str] | None] = ()) -> None:
        """SpecError unless every output can be written without replacing the model, an input or another output
        (`models`: more models to protect, e.g. the document's own file when the spec runs on a copy of it)."""
        try:
            output_paths.check_outputs(self.output_paths(), self.input_paths(), [self.model, *models])
        except output_paths.OutputPathError as error:
            raise SpecError(str(error)) from error

    def check_inputs(self) -> None:
        """SpecError naming each input file (`input_paths`) that is given but is not an existing file here."""
        for name, path in self.input_paths().items():
            if path and not os.path.isfile(path):
                raise SpecError(f"{name}: {path} does not exist or is not a file; give the path of an existing file")

    def input_folders(self) -> list[tuple[str, str]]:
        """(option name, folder) of every input folder the activity reads besides the model (none by default)."""
        return []

    def command_line(self) -> CommandLine:
        """The `dld` command that runs this spec again from a shell (`command_line.py`); a kind no verb runs says so."""
        return CommandLine((), (f"{self.KIND}: no dld command runs this kind of activity",))

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON data; a kind defined above the activities layer also names its module, which the worker
        imports to know the kind (`spec_from_dict`)."""
        module = type(self).__module__
        plugin = {"module": module} if module.startswith(PLUGINS) and not module.startswith(BUILT_IN) else {}
        return {"kind": self.KIND, **plugin, **dataclasses.asdict(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any]) -> S:
        """The spec of `data` (its "kind", when given, must be this class's), naming any unknown option."""
        if not isinstance(data, dict):
            raise SpecError(f"spec: expected a JSON object, got {type(data).__name__}")
        body = dict(data)
        body.pop("module", None)  # where the kind is defined: read by spec_from_dict
        kind = body.pop("kind", cls.KIND)
        if kind != cls.KIND:
            raise SpecError(f"kind: {kind!r} is not a {cls.__name__} ({cls.KIND!r})")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(body) - known)
        if unknown:
            raise SpecError(f"spec: unknown option(s) {unknown}; known options are {sorted(known)}")
        if "model" not in body:
            raise SpecError("model: a model path is required")
        return cls(**body)

    @classmethod
    def from_json(cls: type[S], text: str) -> S:
        return cls.from_dict(_decode(text))


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecError(f"spec: not valid JSON ({error})") from error


def known_kinds() -> list[str]:
    """The registered activity kinds, sorted."""
    return sorted(_KINDS)


def spec_from_dict(data: dict[str, Any]) -> ActivitySpec:
    """Any activity spec from decoded JSON, dispatched on its `"kind"`."""
    if not isinstance(data, dict):
        raise SpecError(f"spec: expected a JSON object, got {type(data).__name__}")
    kind = data.get("kind", DEFAULT_KIND)
    module = data.get("module")
    if isinstance(kind, str) and kind not in _KINDS and isinstance(module, str) and module.startswith(PLUGINS):
        try:
            importlib.import_module(module)  # registers the kind (and its runner)
        except ImportError as error:
            raise SpecError(f"kind: {kind!r} is defined in {module}, which does not import here ({error})") from error
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise SpecError(
            f"kind: {kind!r} is not a known activity kind; known kinds are {known_kinds()} "
            "(is the dld_jupyter that reads this spec older than the one that wrote it?)"
        )
    return cls.from_dict(data)


def spec_from_json(text: str) -> ActivitySpec:
    """Any activity spec from JSON, dispatched on its `"kind"`."""
    return spec_from_dict(_decode(text))
