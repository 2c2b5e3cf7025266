"""The analysis debugger's requests as one type (issue 38): what `Analysis` (frontdoor/analysis.py) asks the worker,
what the worker (activities/kinds/analysis.py) answers, and the moves the Analysis panel's buttons make.

Why an enum: the actions travelled as strings through the front door, the panel and the worker and were dispatched
with `getattr`, so a misspelt action reached the worker and an unknown one could call any attribute. Each side now
dispatches through a table keyed by `AnalysisAction` (tests/activities/analysis/test_actions.py checks every member
has its handler), and text from outside is read with `AnalysisAction.parse`, which refuses an unknown action saying
which are known. The members' values are the protocol's words, unchanged.
"""

from __future__ import annotations

from enum import Enum

from dld_jupyter.activities.errors import SpecError


class AnalysisAction(str, Enum):
    """One request to the analysis worker; its value is the envelope Request's `action`."""

    PING = "ping"
    NODES = "nodes"  # keys, op types and weights of the nodes, in execution order
    STATE = "state"
    ADD_BREAKPOINT = "add_breakpoint"  # {node}
    REMOVE_BREAKPOINT = "remove_breakpoint"  # {node}
    RUN = "run"  # from the start to the first breakpoint
    STEP = "step"  # to the next node
    RESUME = "resume"  # to the next breakpoint
    FINISH = "finish"  # to the end whatever the breakpoints
    SUMMARY = "summary"  # {name}: shape, dtype, statistics
    TENSOR = "tensor"  # {name}: the array as base64 NPY bytes
    OUTPUTS = "outputs"  # {data: bool}
    OVERRIDE = "override"  # {node, name, value, inside}
    REVERT = "revert"  # {node, name, inside}
    REVERT_ALL = "revert_all"
    OVERRIDES = "overrides"
    SHAPES = "shapes"  # every value computed so far: its shape
    SET_INPUTS = "set_inputs"  # {inputs: an .npz path} or {data: its base64 bytes}
    CLOSE = "close"  # ends the session (the request loop's own: session.serve_lines)

    def __str__(self) -> str:
        return self.value  # the protocol's word in messages and f-strings, on every Python

    @classmethod
    def parse(cls, text: object) -> AnalysisAction:
        """The action `text` names; SpecError naming the known ones for anything else."""
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(action.value for action in cls)
            raise SpecError(f"action: {text!r} is not an analysis action (one of {known})") from None


MOVES = (AnalysisAction.RUN, AnalysisAction.STEP, AnalysisAction.RESUME)  # the panel's Run, Step, Resume buttons
