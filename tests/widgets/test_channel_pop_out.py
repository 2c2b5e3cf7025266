"""The popped-out Channel Inspector on real tensors (issue 42): per-channel histograms computed in the kernel equal
numpy.histogram of each channel's finite values of a real MobileNetV3 export's activation (statistics too, NaN/Inf
counted apart, a constant channel, only the first LIMIT tiles), and the buffer the page reads holds exactly them;
Pop out from an analysing designer offers the inspector as a results tab ("channels", the seam of the sweep and
divergence results) or shows it below the designer in a notebook, follows Step and the selection like the docked one,
answers the page's Pop out message, and stops being drawn once its tab closed (a new one on the next Pop out)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from dld_jupyter.frontdoor.results_tab import ResultsTab
from dld_jupyter.widgets.analysis import channel_histograms
from dld_jupyter.widgets.analysis.channel_histograms import BINS
from dld_jupyter.widgets.analysis.channel_histograms import channel_histograms as histograms_of
from dld_jupyter.widgets.analysis.channel_inspector import ChannelInspector
from dld_jupyter.widgets.analysis.channel_tiles import layout_of
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from tests.widgets.test_analysis_panel import plain_run

MODEL = Path(__file__).resolve().parents[1] / "data" / "real" / "mobilenet_v3_small_w05.onnx"


def real_activation() -> np.ndarray:
    """The output of the export's first Conv (1×C×H×W) on a seeded random image."""
    proto = onnx.load(str(MODEL))
    conv = next(n for n in proto.graph.node if n.op_type == "Conv")
    feed = {"input": np.random.default_rng(3).random((1, 3, 96, 96), dtype=np.float32)}
    return plain_run(proto, feed, [conv.output[0]])[conv.output[0]]


def assert_histograms_of(inspector: ChannelInspector, tensor: np.ndarray) -> None:
    """The inspector's histogram buffer holds numpy.histogram and the statistics of every channel of `tensor`."""
    meta = inspector.histograms
    tiles, bins = meta["tiles"], meta["bins"]
    data = inspector.histogram_data
    stats = np.frombuffer(data[: tiles * 20], "<f4").reshape(tiles, 5)
    counts = np.frombuffer(data[tiles * 20:], "<u4").reshape(tiles, bins)
    channels = tensor.reshape(-1, tensor.shape[-2] * tensor.shape[-1])
    assert tiles == len(channels)
    for c, values in enumerate(channels):
        finite = values[np.isfinite(values)]
        assert np.array_equal(counts[c], np.histogram(finite, bins=bins)[0]), f"channel {c}"
        expected = [finite.min(), finite.max(), finite.astype(np.float64).mean(), finite.astype(np.float64).std()]
        assert stats[c, :4] == pytest.approx(np.array(expected, dtype=np.float32), rel=1e-6, abs=1e-7)
        assert stats[c, 4] == values.size - finite.size


def test_histograms_equal_numpy_per_channel_of_a_real_activation() -> None:
    tensor = real_activation()
    assert tensor.ndim == 4 and tensor.shape[1] >= 8
    tensor[0, 1, 0, :3] = [np.nan, np.inf, -np.inf]  # counted apart, never binned
    tensor[0, 2] = 0.25  # a constant channel: one full bin in numpy's ±0.5 range
    found = histograms_of(tensor, layout_of(tensor.shape), tensor.shape[1])
    assert found.counts.shape == (tensor.shape[1], BINS)
    for c in range(tensor.shape[1]):
        values = tensor[0, c].reshape(-1)
        finite = values[np.isfinite(values)]
        assert np.array_equal(found.counts[c], np.histogram(finite, bins=BINS)[0]), f"channel {c}"
        assert found.stats[c, 0] == finite.min() and found.stats[c, 1] == finite.max()
    assert found.stats[1, 4] == 3 and found.counts[1].sum() == tensor[0, 1].size - 3
    assert found.counts[2, BINS // 2] == tensor[0, 2].size  # 0.25 sits in the middle bin of [-0.25, 0.75]
    inspector = ChannelInspector(tensor, detail=True)  # what the pop-out sends: the same, as its buffer
    assert_histograms_of(inspector, tensor)
    assert len(inspector.histogram_data) == tensor.shape[1] * (5 + BINS) * 4  # binned counts, not the values
    assert ChannelInspector(tensor).histogram_data == b""  # the docked inspector never pays for them


def test_only_the_first_tiles_get_histograms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(channel_histograms, "LIMIT", 3)
    values = np.arange(2 * 5 * 4, dtype=np.int64).reshape(2, 5, 4)  # rank 3: 2 tiles of 5×4, integers
    found = histograms_of(values, layout_of(values.shape), 2)
    assert found.tiles == 2 and np.array_equal(found.counts[1], np.histogram(values[1], bins=BINS)[0])
    strips = np.arange(30, dtype=np.float32).reshape(6, 5)
    found = histograms_of(strips, layout_of(strips.shape), 6)
    assert found.tiles == 3 and np.array_equal(found.counts[2], np.histogram(strips[2], bins=BINS)[0])


@pytest.fixture
def designer() -> Iterator[Designer]:
    d = open_designer(MODEL)
    yield d
    d.stop_analysis()
    d.close()


def test_pop_out_follows_the_debugger(designer: Designer) -> None:
    analysis = designer.launch_analysis({"input": "random"})
    panel = designer.analysis_mode.panel
    assert analysis is not None and panel.inspector.poppable  # the docked inspector shows Pop out
    doc = designer.document
    conv = next(doc.node_id(n) for n in doc.model.graph if n.op_type == "Conv")
    panel.overlay.receive({"kind": "overlay", "overlay": "analysis", "action": "add_breakpoint", "id": conv}, [])
    assert analysis.position_id == conv

    offered: list[ResultsTab] = []

    def open_tab(shown: ResultsTab) -> bool:
        offered.append(shown)
        return True

    designer.open_results_tab = open_tab  # what a designer tab's link sets (lab/document_tabs.py)
    popped = designer.analysis_mode.pop_out_channels()
    assert [(t.kind, t.title, t.file, t.view) for t in offered] == [("channels", f"Channels: {doc.name}", "", popped)]
    assert popped.detail and not popped.poppable and popped is not panel.inspector
    assert popped.title == panel.inspector.title and popped.meta == panel.inspector.meta
    assert_histograms_of(popped, analysis.tensor(conv))

    panel.step()  # the pop-out follows the debugger
    here = analysis.position_id
    assert here != conv and popped.title == panel.inspector.title and "output" in popped.title
    assert popped.meta["shape"] == list(analysis.tensor(here).shape)
    assert_histograms_of(popped, analysis.tensor(here))
    designer.canvas.selection = [conv]  # and the selection
    assert popped.meta["shape"] == list(analysis.tensor(conv).shape)

    panel.inspector._on_msg(panel.inspector, {"kind": "pop_out"}, [])  # the page's Pop out: the same tab, in front
    assert offered[-1].view is popped and len(offered) == 2
    popped.close()  # its tab closed (lab/document_tabs.forget)
    panel.step()
    assert popped.comm is None
    again = designer.analysis_mode.pop_out_channels()
    assert again is not popped and again.meta == panel.inspector.meta
    designer.stop_analysis()
    assert again.meta == {} and again.message.startswith("Launch Analysis")


def test_pop_out_in_a_notebook_shows_below_the_designer(designer: Designer) -> None:
    assert designer.launch_analysis({"input": "zeros"}) is not None
    popped: Any = designer.analysis_mode.pop_out_channels()  # no tab link: below the designer, the width of the cell
    panel = designer.analysis_mode.panel
    assert popped in designer.reports.children and popped.detail
    assert (popped.title, popped.meta, popped.message) == (panel.inspector.title, panel.inspector.meta,
                                                           panel.inspector.message)  # what the docked one shows
