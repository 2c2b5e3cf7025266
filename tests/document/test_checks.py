"""Checks: diagnostics bound to the right node, inferred shapes, the weightless skeleton, Polygraphy lint."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnx_ir as ir
import pytest
from onnx import TensorProto, helper, numpy_helper

from dld_jupyter.document.checks import checks
from dld_jupyter.document.checks.checks import CheckResult, check_model, should_check_automatically
from dld_jupyter.document.checks.diagnostics import Diagnostic
from dld_jupyter.document.checks.lint import LintRun, parse_lint_report, start_polygraphy_lint
from dld_jupyter.document.checks.skeleton import Skeleton


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: list[onnx.TensorProto] | None = None,
    opsets: dict[str, int] | None = None,
) -> ir.Model:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializers or [])
    imports = [helper.make_opsetid(d, v) for d, v in (opsets or {"": 21}).items()]
    return ir.from_proto(helper.make_model(graph, opset_imports=imports, ir_version=10))


def _check(model: ir.Model) -> tuple[CheckResult, dict[str, str]]:
    """Check with ids "n<index>" (like the document's), and the ids by node name for assertions."""
    ids = {node: f"n{i}" for i, node in enumerate(model.graph)}
    return check_model(model, ids), {node.name or "": ids[node] for node in model.graph}


def _errors(result: CheckResult) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.severity == "error"]


X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 8, 8])


def _conv_net() -> ir.Model:
    """Conv -> Relu -> Flatten: valid, with a real weight."""
    weight = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "W")
    nodes = [
        helper.make_node("Conv", ["X", "W"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu0"),
        helper.make_node("Flatten", ["r"], ["Y"], name="flat0"),
    ]
    output = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 256])
    return _model(nodes, [X], [output], [weight])


def test_valid_model_has_no_diagnostics_and_every_value_is_inferred() -> None:
    result, _ = _check(_conv_net())
    assert result.diagnostics == []
    assert result.ok
    assert result.inferred["c"] == ("FLOAT", [1, 4, 8, 8])
    assert result.inferred["r"] == ("FLOAT", [1, 4, 8, 8])
    assert result.inferred["W"] == ("FLOAT", [4, 3, 3, 3])  # the weightless initializer keeps its type
    assert result.inferred["Y"] == ("FLOAT", [1, 256])
    assert set(result.inferred) == {"X", "W", "c", "r", "Y"} and len(result.inferred) == 5
    assert "missing" not in result.inferred and result.inferred.get("missing") is None


def test_shape_mismatch_is_bound_to_the_node_that_fails() -> None:
    bias = helper.make_tensor_value_info("B", TensorProto.FLOAT, [7])
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="relu0"),
        helper.make_node("Add", ["a", "B"], ["s"], name="add0"),
        helper.make_node("Relu", ["s"], ["Y"], name="relu1"),
    ]
    result, ids = _check(_model(nodes, [X, bias], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    (error,) = _errors(result)
    assert error.node_id == ids["add0"]
    assert error.source == "shape_inference"
    assert error.message.startswith("add0:") and "dimension" in error.message.lower()
    assert "shape" in error.fix_hint
    assert "dld_node_" not in error.message  # the skeleton's tokens never reach the user
    assert result.inferred["a"] == ("FLOAT", [1, 3, 8, 8])  # what could be inferred still labels edges


def test_missing_mandatory_input_uses_the_seed_message_with_zero_based_terminals() -> None:
    nodes = [helper.make_node("Conv", ["X", ""], ["Y"], name="conv0")]
    result, ids = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    (error,) = _errors(result)  # the checker's echo of the same problem is not repeated
    assert error.node_id == ids["conv0"]
    assert "These mandatory inputs are not connected: 1 (W)" in error.message
    assert error.source == "structure"


def test_optional_inputs_may_stay_free_but_a_variadic_needs_one() -> None:
    nodes = [
        helper.make_node("Resize", ["X", "", "S"], ["r"], name="resize0"),
        helper.make_node("Concat", [], ["Y"], name="cat0", axis=0),
    ]
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "S")
    out = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
    result, ids = _check(
        _model(nodes, [X], [out, helper.make_tensor_value_info("r", TensorProto.FLOAT, None)], [scales])
    )
    unconnected = [d for d in result.diagnostics if "mandatory inputs" in d.message]
    assert [d.node_id for d in unconnected] == [ids["cat0"]]
    assert "0 (inputs)" in unconnected[0].message
    assert result.inferred["r"] == ("FLOAT", [1, 3, 16, 16])  # the small scales tensor kept its data


def test_duplicate_node_names_flag_every_holder() -> None:
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="dup"),
        helper.make_node("Relu", ["a"], ["Y"], name="dup"),
    ]
    result, _ = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    duplicates = [d for d in result.diagnostics if "used by 2 nodes" in d.message]
    assert [d.node_id for d in duplicates] == ["n0", "n1"]
    assert all(d.severity == "error" and "unique" in d.fix_hint for d in duplicates)


def test_empty_name_is_an_info_with_a_readable_label() -> None:
    nodes = [helper.make_node("Relu", ["X"], ["Y"])]
    result, _ = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    (info,) = result.diagnostics
    assert info.severity == "info" and info.node_id == "n0"
    assert "Relu #0 has no name" in info.message


def test_thousands_of_unnamed_nodes_give_a_summary_and_a_bounded_list() -> None:
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(500)]
    inputs = [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [2])]
    result, _ = _check(_model(nodes, inputs, [helper.make_tensor_value_info("t500", TensorProto.FLOAT, [2])]))
    assert len(result.diagnostics) == 101
    assert "500 nodes have no name" in result.diagnostics[0].message


def test_duplicate_value_names_are_an_ssa_error_on_the_producer() -> None:
    model = _model(
        [helper.make_node("Relu", ["X"], ["a"], name="r0"), helper.make_node("Sigmoid", ["a"], ["Y"], name="s0")],
        [X],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    )
    model.graph.node(1).outputs[0].name = "a"  # a file with two producers of "a"
    result, ids = _check(model)
    ssa = [d for d in _errors(result) if "more than once" in d.message]
    assert {d.node_id for d in ssa} == {ids["r0"], ids["s0"]}


def test_unknown_op_unknown_domain_and_custom_domain() -> None:
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="ok0"),
        helper.make_node("Frobnicate", ["a"], ["b"], name="bad0"),
        helper.make_node("Plugin", ["b"], ["c"], name="plug0", domain="trt.plugins"),
        helper.make_node("Thing", ["c"], ["Y"], name="orphan0", domain="not.imported"),
    ]
    model = _model(
        nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], opsets={"": 21, "trt.plugins": 1}
    )
    result, ids = _check(model)
    by_node = {d.node_id: d for d in result.diagnostics}
    assert by_node[ids["bad0"]].severity == "error" and "unknown op Frobnicate" in by_node[ids["bad0"]].message
    assert by_node[ids["plug0"]].severity == "warning" and "custom op" in by_node[ids["plug0"]].message
    assert by_node[ids["orphan0"]].severity == "error" and "not.imported" in by_node[ids["orphan0"]].message
    assert ids["ok0"] not in by_node


def test_op_newer_than_the_opset_says_which_opset_has_it() -> None:
    nodes = [helper.make_node("Gelu", ["X"], ["Y"], name="gelu0")]
    model = _model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], opsets={"": 17})
    (error,) = _errors(_check(model)[0])
    assert error.node_id == "n0" and "opset 17" in error.message and "20" in error.fix_hint


def test_checker_errors_are_listed_for_every_bad_node() -> None:
    nodes = [
        helper.make_node("Relu", ["X"], ["a"], name="r0", alpha=1.0),
        helper.make_node("Relu", ["a"], ["b"], name="r1"),
        helper.make_node("Relu", ["b"], ["Y"], name="r2", beta=2),
    ]
    result, ids = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    errors = _errors(result)
    assert [d.node_id for d in errors] == [ids["r0"], ids["r2"]]
    assert all(d.source == "checker" and "Unrecognized attribute" in d.message for d in errors)
    assert "Remove the attribute" in errors[0].fix_hint


def test_dangling_node_is_a_warning() -> None:
    nodes = [
        helper.make_node("Relu", ["X"], ["Y"], name="used"),
        helper.make_node("Sigmoid", ["X"], ["lost"], name="dangling"),
    ]
    result, ids = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    (warning,) = result.diagnostics
    assert warning.node_id == ids["dangling"] and warning.severity == "warning"


def test_type_error_is_bound_to_its_node() -> None:
    int8 = helper.make_tensor_value_info("I", TensorProto.INT8, [2, 2])
    nodes = [helper.make_node("MatMul", ["I", "I"], ["Y"], name="mm0")]
    result, ids = _check(_model(nodes, [int8], [helper.make_tensor_value_info("Y", TensorProto.INT8, [2, 2])]))
    (error,) = _errors(result)
    assert error.node_id == ids["mm0"] and "tensor(int8)" in error.message  # no int8 MatMul in the spec
    assert "Cast" in error.fix_hint


def test_subgraph_error_is_bound_to_the_outer_node() -> None:
    int8 = helper.make_tensor_value_info("I", TensorProto.INT8, [2, 2])
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["I", "I"], ["t"], name="inner_add")],
        "then",
        [],
        [helper.make_tensor_value_info("t", TensorProto.INT8, [3, 3])],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["I"], ["e"], name="inner_id")],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.INT8, [2, 2])],
    )
    cond = helper.make_tensor_value_info("C", TensorProto.BOOL, [])
    nodes = [
        helper.make_node("Relu", ["X"], ["x1"], name="relu0"),
        helper.make_node("If", ["C"], ["Y"], name="if0", then_branch=then_branch, else_branch=else_branch),
    ]
    out = [
        helper.make_tensor_value_info("Y", TensorProto.INT8, [2, 2]),
        helper.make_tensor_value_info("x1", TensorProto.FLOAT, [1, 3, 8, 8]),
    ]
    result, ids = _check(_model(nodes, [X, int8, cond], out))
    (error,) = _errors(result)
    assert error.node_id == ids["if0"]
    assert "if0/inner_add" in error.message and "dld_node" not in error.message


def test_subgraph_node_without_its_inputs_is_reported_on_the_outer_node() -> None:
    body = helper.make_graph(
        [helper.make_node("Conv", ["X"], ["t"], name="inner_conv")],
        "then",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["X"], ["e"], name="inner_id")],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)],
    )
    cond = helper.make_tensor_value_info("C", TensorProto.BOOL, [])
    nodes = [helper.make_node("If", ["C"], ["Y"], name="if0", then_branch=body, else_branch=other)]
    result, ids = _check(_model(nodes, [X, cond], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    unconnected = [d for d in result.diagnostics if "mandatory inputs" in d.message]
    assert [(d.node_id, d.message) for d in unconnected] == [
        (ids["if0"], "if0/inner_conv: These mandatory inputs are not connected: 1 (W)")
    ]


def test_graph_output_without_any_shape_is_named() -> None:
    nodes = [helper.make_node("Frobnicate", ["X"], ["Y"], name="f0", domain="custom")]
    model = _model(
        nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], opsets={"": 21, "custom": 1}
    )
    result, _ = _check(model)
    assert not _errors(result)
    assert any("Graph output 'Y' has no shape" in d.message for d in result.diagnostics)
    output = model.graph.outputs[0]
    result = check_model(model, value_ids=lambda value: "v9" if value is output else None)
    (warning,) = [d for d in result.diagnostics if "Graph output" in d.message]
    assert warning.node_id == "ov9"  # the output's I/O node in the read-model


def test_corrupt_structure_never_raises() -> None:
    nodes = [helper.make_node("Relu", ["nowhere"], ["Y"], name="r0")]
    result, ids = _check(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    assert any(d.node_id == ids["r0"] for d in _errors(result))


def test_default_ids_are_node_names() -> None:
    nodes = [helper.make_node("Conv", ["X", ""], ["Y"], name="conv0")]
    result = check_model(_model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]))
    assert result.diagnostics[0].node_id == "conv0"
    result = check_model(
        _model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)]), lambda node: "custom"
    )
    assert result.diagnostics[0].node_id == "custom"


def test_skeleton_has_no_weights_but_keeps_small_constants() -> None:
    big = numpy_helper.from_array(np.ones((512, 512), np.float32), "big")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    nodes = [
        helper.make_node("MatMul", ["A", "big"], ["m"], name="mm"),
        helper.make_node("Reshape", ["m", "shape"], ["Y"], name="rs"),
    ]
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, [4, 512])]
    model = _model(nodes, inputs, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], [big, shape])
    skeleton = Skeleton(model)
    assert skeleton.proto.ByteSize() < 2_000
    assert [t.name for t in skeleton.proto.graph.initializer] == ["shape"]
    result, _ = _check(model)
    assert result.inferred["Y"] == ("FLOAT", [1, 2048])  # data propagation through the kept shape tensor


def test_weights_in_constant_nodes_are_left_out_too() -> None:
    weights = numpy_helper.from_array(np.ones((512, 512), np.float32), "wt")
    nodes = [
        helper.make_node("Constant", [], ["w"], name="const_w", value=weights),
        helper.make_node("MatMul", ["A", "w"], ["Y"], name="mm"),
    ]
    inputs = [helper.make_tensor_value_info("A", TensorProto.FLOAT, [4, 512])]
    model = _model(nodes, inputs, [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4, 512])])
    assert Skeleton(model).proto.ByteSize() < 2_000
    result, _ = _check(model)
    assert result.diagnostics == []
    assert result.inferred["w"] == ("FLOAT", [512, 512])


def test_local_functions_are_known_ops() -> None:
    body = [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Neg", ["t"], ["y"])]
    function = helper.make_function("local", "NegRelu", ["x"], ["y"], body, [helper.make_opsetid("", 21)])
    graph = helper.make_graph(
        [helper.make_node("NegRelu", ["X"], ["Y"], name="f0", domain="local")],
        "g",
        [X],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 3, 8, 8])],
    )
    proto = helper.make_model(
        graph,
        functions=[function],
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("local", 1)],
        ir_version=10,
    )
    result, _ = _check(ir.from_proto(proto))
    assert result.diagnostics == []
    assert result.inferred["Y"] == ("FLOAT", [1, 3, 8, 8])


def test_external_weights_are_never_read(tmp_path: Path) -> None:
    model_path = tmp_path / "m.onnx"
    proto = helper.make_model(
        helper.make_graph(
            [helper.make_node("MatMul", ["A", "w"], ["Y"], name="mm")],
            "g",
            [helper.make_tensor_value_info("A", TensorProto.FLOAT, [2, 256])],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 256])],
            [numpy_helper.from_array(np.ones((256, 256), np.float32), "w")],
        ),
        opset_imports=[helper.make_opsetid("", 21)],
        ir_version=10,
    )
    onnx.save(proto, model_path, save_as_external_data=True, location="w.bin", size_threshold=0)
    model = ir.load(model_path)
    (tmp_path / "w.bin").unlink()  # reading the weights now would fail
    result, _ = _check(model)
    assert result.diagnostics == []
    assert result.inferred["w"] == ("FLOAT", [256, 256])


def test_auto_check_threshold_is_configurable() -> None:
    model = _conv_net()
    assert should_check_automatically(model)
    assert not should_check_automatically(model, max_nodes=2)
    assert checks.AUTO_CHECK_MAX_NODES > 1000


def test_parse_polygraphy_report_maps_node_names_to_ids() -> None:
    report = {
        "summary": {"passing": ["a"], "failing": ["b"]},
        "lint_entries": [
            {"level": "exception", "source": "onnxruntime", "message": "Bad\n shape", "nodes": ["b"]},
            {"level": "warning", "source": "onnx_checker", "message": "Opset import missing"},
        ],
    }
    error, warning = parse_lint_report(report, {"b": "n7"})
    assert (error.severity, error.node_id, error.source) == ("error", "n7", "polygraphy")
    assert error.message == "b: [onnxruntime] Bad shape"
    assert (warning.severity, warning.node_id) == ("warning", None)


def test_polygraphy_lint_runs_in_the_background(tmp_path: Path) -> None:
    path = tmp_path / "bad.onnx"
    model = helper.make_model(
        helper.make_graph(
            [
                helper.make_node("Relu", ["X"], ["a"], name="r0"),
                helper.make_node("Add", ["a", "B"], ["Y"], name="add0"),
            ],
            "g",
            [X, helper.make_tensor_value_info("B", TensorProto.FLOAT, [7])],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    onnx.save(model, path)
    run = start_polygraphy_lint(path, {"add0": "n1"})
    diagnostics = run.result(timeout=120)
    assert run.done and diagnostics
    assert all(d.source == "polygraphy" for d in diagnostics)
    if "unavailable" in diagnostics[0].message:  # onnx_graphsurgeon is not installed here
        assert diagnostics[0].severity == "info"
    else:
        assert any(d.severity == "error" for d in diagnostics)  # Add cannot broadcast [1,3,8,8] with [7]


def test_lint_run_can_be_cancelled() -> None:
    run = LintRun([sys.executable, "-c", "import time; time.sleep(60)"], None)
    assert not run.done
    start = time.perf_counter()
    run.cancel()
    (diagnostic,) = run.result(timeout=10)
    assert time.perf_counter() - start < 5
    assert run.cancelled and "cancelled" in diagnostic.message


def test_lint_run_reports_a_crash_as_a_diagnostic(tmp_path: Path) -> None:
    run = LintRun([sys.executable, "-c", "raise SystemExit('boom')"], tmp_path / "none.json")
    (diagnostic,) = run.result(timeout=30)
    assert diagnostic.severity == "error" and "boom" in diagnostic.message


def test_lint_run_reads_the_report(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    entries = {"lint_entries": [{"level": "exception", "message": "x", "nodes": ["n"]}]}
    script = f"import json; json.dump({entries!r}, open({str(report)!r}, 'w'))"
    (diagnostic,) = LintRun([sys.executable, "-c", script], report).result(timeout=30)
    assert diagnostic.node_id == "n" and not report.exists()
    assert json.dumps(entries)  # the fixture itself is plain JSON


def test_empty_model_checks_clean() -> None:
    result = check_model(ir.Model(ir.Graph([], [], nodes=[], opset_imports={"": 21}), ir_version=10))
    assert result.diagnostics == [] and len(result.inferred) == 0


def test_an_unexpected_failure_is_a_diagnostic() -> None:
    def broken_ids(node: ir.Node) -> str:
        raise RuntimeError("ids unavailable")

    nodes = [helper.make_node("Conv", ["X", ""], ["Y"], name="conv0")]
    model = _model(nodes, [X], [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 1, 1, 1])])
    (diagnostic,) = check_model(model, broken_ids).diagnostics
    assert diagnostic.severity == "error" and "ids unavailable" in diagnostic.message


@pytest.mark.slow
def test_every_onnx_backend_node_model_checks_like_onnx_itself() -> None:
    """~2,000 models of onnx's own test suite (built in memory, and its model files): what onnx accepts gets
    no error here, nothing crashes."""
    from onnx.backend.test.loader import load_node_model_tests

    data = Path(onnx.__file__).parent / "backend" / "test" / "data"
    files = [
        f for d in ("light", "pytorch-converted", "pytorch-operator", "simple") for f in (data / d).rglob("*.onnx")
    ]
    models = [case.model for case in load_node_model_tests()] + [onnx.load(f) for f in files]
    disagreements = []
    for model in models:
        assert model is not None
        try:
            onnx.checker.check_model(model)
            onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
        except Exception:
            continue  # onnx itself rejects it: nothing to compare
        result = check_model(ir.from_proto(model))
        if _errors(result):
            disagreements.append((model.graph.name, _errors(result)[0].message))
    assert disagreements == []


def test_lint_report_lives_in_a_private_folder_removed_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old lint reserved a name in the shared temp folder, deleted it, and read back whatever JSON appeared."""
    import dld_jupyter.document.checks.lint as lint

    monkeypatch.setattr(lint, "lint_unavailable_reason", lambda: "")
    monkeypatch.setattr(lint, "_RUNNER", "import sys, time; time.sleep(0.2)")
    monkeypatch.setattr(lint.tempfile, "tempdir", str(tmp_path))
    run = lint.start_polygraphy_lint(tmp_path / "m.onnx")
    report = run._report_path
    assert report is not None and report.parent.parent == tmp_path
    mode = report.parent.stat().st_mode
    assert mode & 0o077 == 0 and report.parent.stat().st_uid == os.getuid()
    (diagnostic,) = run.result(timeout=30)
    assert diagnostic.severity == "error" and not report.parent.exists()
