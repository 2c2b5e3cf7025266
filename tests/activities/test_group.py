"""A run made of runs (activities/group.py): cancel reaches every member run, wait and on_end give one result, and a
sweep is one: its progress moves with its points, the live runs list shows it with its point runs, its Cancel stops
the running point's worker. Real worker processes throughout."""

from __future__ import annotations

from pathlib import Path

from dld_jupyter.activities import ActivityStatus, OrtProfileSpec, Progress, Run
from dld_jupyter.activities.group import RunGroup
from dld_jupyter.activities.host_locks import HostLocks
from dld_jupyter.activities.scheduler import Scheduler
from dld_jupyter.activities.sweep import start_sweep
from dld_jupyter.frontdoor.run_rows import rows
from dld_jupyter.frontdoor.runs import track
from tests.activities import _models as models
from tests.activities.conftest import save


def test_cancel_reaches_every_member_and_the_group_ends_once(resnet_path: Path, tmp_path: Path) -> None:
    scheduler = Scheduler(locks=HostLocks(tmp_path / "locks"))
    seen: list[Progress] = []
    group = RunGroup("two profiles", on_progress=seen.append)
    ended: list[RunGroup] = []
    group.on_end(ended.append)
    group.begin()
    assert group.status is ActivityStatus.RUNNING and group.spec is None

    def profile() -> Run:
        spec = OrtProfileSpec(model=str(resnet_path), iterations=100000, warmup=0, threads=1)
        return scheduler.submit(Run(spec, remember=False))

    running, queued = group.add(profile()), group.add(profile())
    assert isinstance(running, Run) and isinstance(queued, Run)
    try:
        while running.pid is None:  # its worker is up
            assert running.wait(0.05) is None
        assert queued.status is ActivityStatus.QUEUED  # one CPU: the second waits
        group.report(0, 2, "0 of 2 ended")
        group.cancel()
        results = [running.wait(30), queued.wait(30)]
    finally:
        running.cancel()
    assert [r.status for r in results if r is not None] == [ActivityStatus.CANCELLED] * 2
    assert queued.pid is None  # a queued member never started
    assert group.wait(0.1) is None and not group.done  # the group ends when it says so, once
    group.finish()
    result = group.wait(1)
    assert result is not None and result.status is ActivityStatus.CANCELLED and ended == [group]
    assert seen == [Progress(0.0, "0 of 2 ended")]
    late = group.add(profile())
    late_result = late.wait(30)  # joining a cancelled group cancels the run at once
    assert late_result is not None and late_result.status is ActivityStatus.CANCELLED


def test_a_sweep_is_a_run_group(tmp_path: Path) -> None:
    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    registry = track()
    seen: list[Progress] = []
    sweep = start_sweep([str(model)], batch=[1, 2], out=str(tmp_path / "out"), iterations=3, warmup=0,
                        on_progress=seen.append)
    assert isinstance(sweep, RunGroup) and registry.find(sweep.id) is sweep
    result = sweep.wait(240)
    assert result is not None and result.ok, result
    assert seen[-1] == Progress(1.0, "2 of 2 points ended")
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and 0.5 in fractions
    assert len(sweep.members) == 2 and all(isinstance(m, Run) and m.result and m.result.ok for m in sweep.members)
    assert all(registry.find(member.id) is member for member in sweep.members)  # the point runs are listed too
    ours = [row for row in rows(registry) if row.id in {sweep.id, *(member.id for member in sweep.members)}]
    assert [(row.kind, row.state, len(row.points)) for row in ours] == [("sweep", "succeeded", 2)]  # runs inside
    assert [line.message.split(":")[0] for line in sweep.logs] == ["001-m-b2-cpu-fp32", "000-m-b1-cpu-fp32"]


def test_cancelling_a_sweep_stops_its_running_point(tmp_path: Path) -> None:
    model = save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m")
    sweep = start_sweep([str(model)], batch=[1, 2, 3], out=str(tmp_path / "out"), iterations=200000, warmup=0)
    while not sweep.members or sweep.members[0].pid is None:  # the first point's worker is up
        assert sweep.wait(0.05) is None
    sweep.cancel()
    result = sweep.wait(120)
    assert result is not None and result.status is ActivityStatus.CANCELLED
    member = sweep.members[0]
    assert member.result is not None and member.result.status is ActivityStatus.CANCELLED
    assert {p.state for p in sweep.points()} == {"cancelled"}
