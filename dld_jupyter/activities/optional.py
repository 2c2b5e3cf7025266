"""Optional heavy dependencies, imported only by the backend that needs them.

A missing one becomes `UnavailableError("<what> is not installed (...)")`, which the engine and the CLI report as
"unavailable" (exit code 3), never an ImportError at import time.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from dld_jupyter.activities.errors import UnavailableError


def import_optional(module: str, what: str | None = None) -> ModuleType:
    """Import `module` now; `what` names it for the user (e.g. "pynvml (nvidia-ml-py)")."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise UnavailableError(f"{what or module} is not installed ({error})") from error
