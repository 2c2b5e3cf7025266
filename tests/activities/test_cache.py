from __future__ import annotations

from pathlib import Path

import pytest

from dld_jupyter.activities.cache import SettingsStore, cache_dir, write_json_atomic


def test_cache_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DLD_CACHE_DIR", raising=False)
    monkeypatch.delenv("NV_DLD_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "dld_jupyter"
    monkeypatch.setenv("NV_DLD_CACHE_DIR", str(tmp_path / "nv"))
    assert cache_dir() == tmp_path / "nv"
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "dld"))
    assert cache_dir() == tmp_path / "dld"


def test_settings_store_remembers_per_model_and_kind(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path)
    assert store.recall("a.onnx", "onnxruntime-profile") is None
    store.remember("a.onnx", "onnxruntime-profile", {"iterations": 5})
    store.remember("b.onnx", "onnxruntime-profile", {"iterations": 9})
    assert store.recall("a.onnx", "onnxruntime-profile") == {"iterations": 5}
    assert store.recall(str(Path("b.onnx").absolute()), "onnxruntime-profile") == {"iterations": 9}


def test_damaged_store_is_not_fatal(tmp_path: Path) -> None:
    (tmp_path / SettingsStore.FILE).write_text("{not json")
    store = SettingsStore(tmp_path)
    assert store.recall("a.onnx", "k") is None
    store.remember("a.onnx", "k", {"x": 1})
    assert store.recall("a.onnx", "k") == {"x": 1}


def test_atomic_write_leaves_no_temp_file(tmp_path: Path) -> None:
    write_json_atomic(tmp_path / "sub" / "f.json", {"a": 1})
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["f.json"]
