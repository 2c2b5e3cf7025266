"""One door in (issue 35): every worker run starts in activities/scheduler.py, and the Sweep form is a run panel like
the others (a sweep is a run group the panel follows: the form overrides none of its run, cancel, wait).

Checked on the source: the engine's `execute` is imported by the scheduler alone, and no other module starts a Run
with it or marks one running, so a front door that started runs beside the scheduler (as the panels, dld.*, the CLI,
analysis and divergence did) fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"
ENGINE = "dld_jupyter.activities.engine"
DOOR = PACKAGE / "activities" / "scheduler.py"
# The front doors that start runs, each through the scheduler.
THROUGH_THE_DOOR = ["activities/api.py", "cli/profile.py", "frontdoor/analysis.py", "frontdoor/compare_runs.py",
                    "widgets/runs/panel.py", "activities/sweep/point.py"]


def starts_outside_the_door(path: Path) -> list[str]:
    """Where `path` imports the engine's `execute`, starts a Run with it or marks a run running."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module == ENGINE:
            found += [f"line {node.lineno}: imports {alias.name} from the engine" for alias in node.names
                      if alias.name == "execute"]
        elif isinstance(node, ast.Attribute) and node.attr == "execute" and isinstance(node.value, ast.Name) and (
            node.value.id == "engine"
        ):
            found.append(f"line {node.lineno}: engine.execute")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            named = [ast.unparse(arg) for arg in node.args]
            if node.func.attr == "mark_running" or (node.func.attr == "start" and any("execute" in n for n in named)):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_runs_start_only_in_the_scheduler() -> None:
    offences = [
        f"{path.relative_to(PACKAGE.parent)} {where}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DOOR and path.name != "run.py"  # run.py defines Run.start and mark_running
        for where in starts_outside_the_door(path)
    ]
    assert not offences, "runs start only in activities/scheduler.py:\n" + "\n".join(offences)
    for module in THROUGH_THE_DOOR:
        assert "activities.scheduler import" in (PACKAGE / module).read_text(), f"{module} starts runs elsewhere"


def test_the_rule_catches_a_run_started_beside_the_scheduler(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from dld_jupyter.activities.engine import execute\n"
                   "def go(run):\n    run.start(execute)\n    run.mark_running()\n")
    assert len(starts_outside_the_door(bad)) == 3


def test_the_sweep_form_overrides_none_of_run_cancel_wait() -> None:
    tree = ast.parse((PACKAGE / "widgets" / "sweep" / "sweep_form.py").read_text())
    form = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "SweepPanel")
    defined = {node.name for node in form.body if isinstance(node, ast.FunctionDef)}
    assert not defined & {"run", "cancel", "wait"}, sorted(defined & {"run", "cancel", "wait"})
    assert [ast.unparse(base) for base in form.bases] == ["RunPanel"]
