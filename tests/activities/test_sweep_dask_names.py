"""Dask the way its users run it (issue 40), on real clusters (distributed.LocalCluster, worker processes): the
scheduler's task stream names each task by its point id (it said `run_point-<uuid>`), a point is "running" when its
worker's run holds its device (Dask's points stayed "queued" until they ended), a scheduler file and `tls://` and
`ws://` addresses reach their scheduler (`dask://tls://…` became `tcp://tls://…`), and a model no worker can read is
refused before anything is submitted, naming the model and the workers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster, get_task_stream
from distributed.security import Security

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.activities.sweep import load_manifest, start_sweep
from dld_jupyter.activities.sweep.executors import check_models, make_executor
from tests.activities import _models as models
from tests.activities.conftest import save


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as started:
        yield started


def test_tasks_carry_point_ids_and_points_run_before_they_end(cluster: LocalCluster, tmp_path: Path) -> None:
    names = [str(save(models.resnet_like(blocks=1, channels=c, size=8), tmp_path, f"m{c}")) for c in (4, 8)]
    seen: dict[str, list[str]] = {}
    lock = threading.Lock()

    def heard(sweep: object) -> None:
        with lock:
            for entry in sweep.points():  # type: ignore[attr-defined]
                states = seen.setdefault(entry.point.id, [])
                if not states or states[-1] != entry.state:
                    states.append(entry.state)

    with Client(cluster) as client, get_task_stream(client) as stream:
        sweep = start_sweep(names, batch=[1, 2], out=str(tmp_path / "out"), executor=client, iterations=200, warmup=1)
        sweep.on_change(heard)
        assert sweep.wait(300)
    ids = [entry.point.id for entry in load_manifest(tmp_path / "out").points]
    keys = [str(task["key"]) for task in stream.data]
    assert len(keys) == len(ids) and all(key.startswith(f"{pid}@{sweep.id}:") for pid, key in
                                         zip(sorted(ids), sorted(keys), strict=True)), keys
    assert {entry.state for entry in sweep.points()} == {"done"}
    for pid in ids:  # each point was seen running on its worker before it was done
        assert "running" in seen[pid] and seen[pid][-1] == "done", (pid, seen[pid])
        assert seen[pid].index("running") < seen[pid].index("done")


def test_a_scheduler_file_reaches_its_scheduler(cluster: LocalCluster, tmp_path: Path) -> None:
    (tmp_path / "scheduler.json").write_text(json.dumps({"address": cluster.scheduler_address}))
    name = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    sweep = start_sweep([name], out=str(tmp_path / "out"), executor=f"dask://{tmp_path / 'scheduler.json'}",
                        iterations=3, warmup=1)
    assert sweep.wait(300)
    assert [entry.state for entry in sweep.points()] == ["done"]
    with pytest.raises(SpecError, match=r"scheduler file .*does not exist"):
        start_sweep([name], out=str(tmp_path / "out2"), executor=f"dask://{tmp_path / 'nowhere.json'}")


def test_a_model_the_workers_cannot_read_is_named_before_anything_runs(cluster: LocalCluster, tmp_path: Path) -> None:
    name = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    with Client(cluster) as client:
        check_models(client, [name])  # every worker reads it
        with pytest.raises(SpecError) as error:
            check_models(client, [name, str(tmp_path / "gone.onnx")])
    said = str(error.value)
    assert str(tmp_path / "gone.onnx") in said and name not in said.replace(str(tmp_path / "gone.onnx"), "")
    assert all(worker in said for worker in cluster.scheduler_info["workers"])


def test_tls_and_ws_addresses_are_passed_through(tmp_path: Path) -> None:
    security = Security.temporary()
    files = {}
    for part in ("ca", "cert", "key"):  # the client's TLS settings through Dask's configuration, as users give them
        value = {"ca": security.tls_ca_file, "cert": security.tls_client_cert, "key": security.tls_client_key}[part]
        (tmp_path / f"{part}.pem").write_text(value)
        files[part] = str(tmp_path / f"{part}.pem")
    name = str(save(models.resnet_like(blocks=1, channels=4, size=8), tmp_path, "m"))
    config = {"distributed.comm.tls.ca-file": files["ca"], "distributed.comm.tls.client.cert": files["cert"],
              "distributed.comm.tls.client.key": files["key"], "distributed.comm.require-encryption": True}
    with LocalCluster(n_workers=1, processes=True, protocol="tls://", security=security,
                      dashboard_address=None) as tls, dask.config.set(config):
        assert tls.scheduler_address.startswith("tls://")
        sweep = start_sweep([name], out=str(tmp_path / "tls"), executor=f"dask://{tls.scheduler_address}",
                            iterations=3, warmup=1)
        assert sweep.wait(300)
        assert [entry.state for entry in sweep.points()] == ["done"]
    with LocalCluster(n_workers=1, processes=True, protocol="ws://", dashboard_address=None) as ws:
        executing = make_executor(f"dask://{ws.scheduler_address}", load_manifest(tmp_path / "tls"))
        try:
            assert executing.scheduler == ws.scheduler_address and ws.scheduler_address.startswith("ws://")
        finally:
            executing.close()
