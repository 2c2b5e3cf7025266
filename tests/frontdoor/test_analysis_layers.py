"""Analysis layers (issue 37): a Mix between an image-to-image model's input and its output blends as the seed says
(factor 0 the input, 1 the output, 0.3 the blend), live through set_option, its blend function too; Noise and Affine
inject into the model's readers (equal to ORT on the shifted input); a Snapshot keeps a value; undo takes layers
back out; the saved model is byte-identical before and after, and the document never sees a layer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from dld_jupyter.activities.errors import SpecError
from dld_jupyter.document import Document
from dld_jupyter.frontdoor.analysis import analyse
from tests.models import resnet_like


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def _denoiser(path: Path) -> Path:
    """A small image-to-image model (conv, relu, conv back to 3 channels): input and output have the same shape."""
    rng = np.random.default_rng(0)
    w1 = onnx.numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.2, "w1")
    w2 = onnx.numpy_helper.from_array(rng.standard_normal((3, 8, 3, 3)).astype(np.float32) * 0.2, "w2")
    nodes = [
        helper.make_node("Conv", ["image", "w1"], ["h"], name="/enc/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["h"], ["r"], name="/enc/Relu"),
        helper.make_node("Conv", ["r", "w2"], ["clean"], name="/dec/Conv", pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes, "denoiser", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("clean", TensorProto.FLOAT, [1, 3, 16, 16])], [w1, w2],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    return path


def test_mix_between_input_and_output_blends_live(tmp_path: Path) -> None:
    path = _denoiser(tmp_path / "denoiser.onnx")
    saved = path.read_bytes()
    image = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)
    clean = ort.InferenceSession(str(path)).run(["clean"], {"image": image})[0]
    doc = Document.open(path)
    with analyse(doc, inputs={"image": image}) as a:
        a.add_breakpoint("/dec/Conv")
        mix = a.add_layer("Mix", "image", "clean", factor=0.0)
        assert [layer.name for layer in a.analysis_layers] == [mix] and a.breakpoints == ["/dec/Conv"]
        assert np.allclose(a.outputs()[mix], image)  # factor 0: the input
        a.set_option(mix, "factor", 1.0)
        assert np.allclose(a.outputs()[mix], clean, atol=1e-5)  # factor 1: the output
        a.set_option(mix, "factor", 0.3)
        assert np.allclose(a.outputs()[mix], 0.7 * image + 0.3 * clean, atol=1e-5)
        assert np.allclose(a.outputs()["clean"], clean, atol=1e-5)  # the model's own output untouched
        assert a.overrides == []  # a layer's option is no override of the model
        a.override("/dec/Conv", "w2", np.zeros((3, 8, 3, 3), np.float32))
        assert len(a.overrides) == 1 and np.allclose(a.outputs()[mix], 0.7 * image, atol=1e-6)
        a.revert_all()  # the model's override goes, the factor stays
        assert np.allclose(a.outputs()[mix], 0.7 * image + 0.3 * clean, atol=1e-5)
        a.set_option(mix, "blend", "difference")  # structural: the copy is built again, the factor kept
        assert np.allclose(a.outputs()[mix], image + 0.3 * (np.abs(image - clean) - image), atol=1e-5)
        with pytest.raises(SpecError, match="same shape"):
            a.add_layer("Mix", "image", "h")
        noise = a.add_layer("Noise", "r", amplitude=0.5, seed=7)  # injected: /dec/Conv reads the noisy value
        noisy = a.outputs()["clean"]
        assert not np.allclose(noisy, clean, atol=1e-3)
        a.set_option(noise, "amplitude", 0.0)
        assert np.allclose(a.outputs()["clean"], clean, atol=1e-5)
        a.set_option(noise, "amplitude", 0.5)
        assert np.array_equal(a.outputs()["clean"], noisy)  # the seed's noise, the same every run
        snap = a.snapshot("clean")
        assert np.array_equal(a.snapshots[snap], noisy)
        assert a.undo_layer() == snap and a.undo_layer() == noise
        assert np.allclose(a.outputs()["clean"], clean, atol=1e-5) and mix in a.outputs()
        assert doc.read_only is not None and not doc.dirty
    assert path.read_bytes() == saved  # never saved into the user's model
    assert [n.name for n in doc.model.graph] == ["/enc/Conv", "/enc/Relu", "/dec/Conv"]


def test_affine_on_resnet_keeps_document_ids_for_the_model_nodes(tmp_path: Path) -> None:
    onnx.save(resnet_like(2), str(tmp_path / "r.onnx"))
    ones = np.ones((1, 3, 32, 32), np.float32)
    shifted = ort.InferenceSession(str(tmp_path / "r.onnx")).run(["logits"], {"input": ones})
    doc = Document.open(tmp_path / "r.onnx")
    with analyse(doc, inputs={"input": "zeros"}) as a:
        first = next(doc.node_id(n) for n in doc.model.graph)
        before = a.outputs()["logits"]
        affine = a.add_layer("Affine", "input", scale=1.0, shift=0.0)
        assert np.allclose(a.outputs()["logits"], before, atol=1e-5)
        a.set_option(affine, "shift", 1.0)  # the model reads input + 1 now
        assert np.allclose(a.outputs()["logits"], shifted[0], atol=1e-5)  # as ORT on zeros + 1
        assert np.array_equal(a.tensor(affine), np.ones((1, 3, 32, 32), np.float32))
        conv = next(n.name for n in doc.model.graph)
        assert a.order_ids[a.execution_order.index(conv)] == first  # model nodes keep their document ids
        assert a.execution_order[0] == f"{affine}/Mul_0"  # the layer runs before the model nodes reading it
