"""The run panels' target chooser offers the saved SSH connections and starts runs on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.targets.connections import Connection, ConnectionStore
from dld_jupyter.activities.targets.ssh import SshTarget
from dld_jupyter.widgets.runs.targets import LOCAL, make_target, target_labels


def test_saved_connections_are_offered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CONFIG_DIR", str(tmp_path))
    assert target_labels()[0] == LOCAL
    ConnectionStore().add(Connection(host="gpu-box", user="me", name="lab gpu"))
    assert target_labels() == [LOCAL, "lab gpu"]  # read again: saved in another cell, offered in the next panel
    target = make_target("lab gpu")
    assert isinstance(target, SshTarget) and target.connection.host == "gpu-box"
    with pytest.raises(ValueError, match="choose one of \\['Local', 'lab gpu'\\]"):
        make_target("elsewhere")
