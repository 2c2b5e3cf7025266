"""The Analysis panel's Parameter Editor (issue 37) in the kernel: the Analysis category's Insert refused before
launch, a Mix of the model's input and output inserted while analysing, its factor slider rerunning the analysis
(the Analysis Output's mix image follows), Undo taking it out, the document and file never touched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from dld_jupyter.widgets.designer.designer import open_designer
from tests.frontdoor.test_analysis_layers import _denoiser


def test_insert_a_mix_and_slide_its_factor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path / "cache"))
    path = _denoiser(tmp_path / "denoiser.onnx")
    saved = path.read_bytes()
    d = open_designer(path)
    try:
        panel = d.analysis_mode.show_panel()
        editor = panel.layers
        assert editor.insert_button.disabled and "Launch Analysis first" in editor.hint.value
        analysis = d.launch_analysis({"image": "random"})
        assert analysis is not None and not editor.insert_button.disabled
        assert {"image", "clean"} <= set(editor.first.options)
        editor.kind.value, editor.first.value, editor.second.value = "Mix", "image", "clean"
        mix = editor.insert()
        assert mix == "/analysis/Mix1" and panel.error.value == ""
        (group,) = editor.parameters.children
        factor = next(c for c in group.children[0].children if c.description == "factor")
        image = analysis.feeds["image"]
        clean = ort.InferenceSession(str(path)).run(["clean"], {"image": image})[0]

        def shown() -> bytes:  # the mix drawn as an image in the Analysis Output
            entry = next(e for e in panel.outputs_view.outputs if e["name"] == mix)
            assert entry["kind"] == "image"
            return bytes(panel.outputs_view.pixels)

        factor.value = 0.0
        assert np.allclose(analysis.outputs(finish=False)[mix], image)
        at_zero = shown()
        factor.value = 0.3  # the slider: the analysis reruns, the Analysis Output follows
        assert np.allclose(analysis.outputs(finish=False)[mix], 0.7 * image + 0.3 * clean, atol=1e-5)
        assert shown() != at_zero and analysis.analysis_layers[0].options["factor"] == 0.3
        panel.model_inputs.set_source("image", "zeros")  # new inputs relaunch the analysis: the layer comes along
        relaunched = d.analysis
        assert relaunched is not analysis and [x.name for x in relaunched.analysis_layers] == [mix]
        assert relaunched.analysis_layers[0].options["factor"] == 0.3 and len(editor.parameters.children) == 1
        zeros_clean = ort.InferenceSession(str(path)).run(["clean"], {"image": np.zeros_like(image)})[0]
        assert np.allclose(relaunched.outputs(finish=False)[mix], 0.3 * zeros_clean, atol=1e-5)
        editor.undo()
        assert editor.parameters.children == () and all(e["name"] != mix for e in panel.outputs_view.outputs)
        assert relaunched.analysis_layers == []
        assert not d.document.dirty
    finally:
        d.stop_analysis()
        d.close()
    assert path.read_bytes() == saved
