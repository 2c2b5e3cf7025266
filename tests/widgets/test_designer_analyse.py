"""The notebook front door of issue 29: `dld.open(path).analyse(...)` and `dld.analyse(designer)` start an analysis
on the designer's document; its banner says the model is being analysed and edits are refused until `stop()`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dld_jupyter as dld
from dld_jupyter.document import DocumentError
from dld_jupyter.frontdoor.analysis import LOCK_REASON

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def test_designer_analyse_holds_its_document_until_stop() -> None:
    d = dld.open(str(MODEL))
    conv = next(n.id for n in d.document.nodes() if n.op_type == "Conv")
    a = d.analyse(inputs={"input": "zeros"})
    try:
        assert "being analysed" in d.banner.value
        with pytest.raises(DocumentError, match=LOCK_REASON):
            d.document.rename_node(conv, "renamed")
        a.add_breakpoint(conv)
        assert a.run() is not None and a.position_id == conv and a.tensor(conv).shape[0] == 1
        again = dld.analyse(d, inputs={"input": np.zeros((1, 3, 96, 96), dtype=np.float32)})
        assert np.array_equal(again.outputs()["logits"], a.outputs()["logits"])  # same inputs, same outputs
        again.stop()
        assert d.document.read_only == LOCK_REASON  # the first analysis still holds it
    finally:
        a.stop()
    assert d.banner.value == "" and d.document.read_only is None
    d.document.rename_node(conv, "renamed")
