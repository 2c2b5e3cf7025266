"""Where the designer's Analysis panel runs its analysis (issue 37): the Target chooser of the run panels
(widgets/runs/target_chooser.py: Local, the saved SSH connections, "+ New connection…") and `target`, what a launch
passes to `Analysis` (None: this machine).

Why apart from analysis_panel.py: the panel is the debugger's controller; this is the one rule joining the chooser
and a target given from Python (`d.launch_analysis(target=...)`): a saved connection's name or "local" is chosen in
the chooser, so the page shows it; an ssh:// URL or a Target object is used as given until the chooser is changed.
Choosing another target while analysing starts the analysis again there (the panel's `_relaunch`, breakpoints and
analysis layers kept), and the status line names where it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dld_jupyter.widgets.runs.target_chooser import TargetChooser
from dld_jupyter.widgets.runs.targets import LOCAL

TIP = "Where the analysis worker runs: this machine or a saved SSH connection (its values come back here)"


class AnalysisPlace:
    """What the Analysis panel gains: `targets` (the chooser), `target`, `place(analysis)`."""

    analysis: Any
    targets: TargetChooser
    _given: Any = None  # a Target or an ssh:// URL given from Python, used instead of the chooser's choice

    def _target_chooser(self, designer: Any) -> TargetChooser:
        chooser = TargetChooser(designer, TIP)
        chooser.dropdown.observe(lambda _c: self._target_changed(), names="value")
        return chooser

    @property
    def target(self) -> Any:
        """Where the next launch runs: the Target given from Python, else the chooser's (None: this machine)."""
        if self._given is not None:
            return self._given
        return None if self.targets.label == LOCAL else self.targets.chosen_target()

    @target.setter
    def target(self, value: Any) -> None:
        local = value is None or value == "local"
        chosen = self.targets.choose(LOCAL if local else value) if local or isinstance(value, str) else False
        self._given = None if chosen else value

    def _target_changed(self) -> None:
        """A target chosen in the chooser wins over one given from Python; while analysing, the analysis moves."""
        self._given = None
        if self.analysis is not None and self.place(self.analysis) != self.targets.label:
            self._relaunch()

    if TYPE_CHECKING:

        def _relaunch(self) -> None: ...  # the panel's: stop, launch again with the breakpoints and layers

    @staticmethod
    def place(analysis: Any) -> str:
        """Where `analysis` runs, as the chooser names it (a saved connection's name, or its user@host:port)."""
        return LOCAL if analysis.target is None else str(analysis.target.name)
