"""The Tools dialogs driven as a user would (fill the form, click, wait), on a real torchvision export: FP16 to a
file and in place (one undo step), sanitize with its options, Convert Tensors (one Undo reverts every tensor),
Custom Tools (create, refuse a duplicate, delete; stored in the JupyterLab settings) and a user tool's run, and
every dialog reachable through its registered operation."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import onnx
import pytest

from dld_jupyter.frontdoor.operations import operations
from dld_jupyter.usertools import UserTool, load_tools, save_tools
from dld_jupyter.widgets.designer.designer import Designer, open_designer
from dld_jupyter.widgets.tools.custom_tools import CustomToolsDialog
from dld_jupyter.widgets.tools.fp16_dialog import Fp16Dialog
from dld_jupyter.widgets.tools.menu import ToolsMenu
from dld_jupyter.widgets.tools.model_dialog import IN_PLACE
from dld_jupyter.widgets.tools.sanitize_dialog import SanitizeDialog
from dld_jupyter.widgets.tools.tensors_dialog import TensorsDialog
from dld_jupyter.widgets.tools.tool_run import ToolRunDialog

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


@pytest.fixture
def designer(tmp_path: Path) -> Designer:
    shutil.copy(REAL / "mobilenet_v3_small_w05.onnx", tmp_path / "mobile net.onnx")
    return open_designer(tmp_path / "mobile net.onnx", grouping="none")


@pytest.fixture(autouse=True)
def lab_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("DLD_CONFIG_DIR", raising=False)
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "lab"))
    return tmp_path / "lab" / "dld-jupyter" / "plugin.jupyterlab-settings"


def test_every_tool_is_an_operation_that_opens_its_dialog(designer: Designer) -> None:
    for op_id, kind in (("dld:global-modifications", ToolsMenu), ("dld:convert-fp16", Fp16Dialog),
                        ("dld:sanitize", SanitizeDialog), ("dld:convert-tensors", TensorsDialog),
                        ("dld:custom-tools", CustomToolsDialog)):
        panel = operations.run(op_id, designer)
        assert isinstance(panel, kind) and list(designer.tools.children) == [panel]
    with pytest.raises(ValueError, match="no user tool named 'nope'"):
        operations.run("dld:run-user-tool", designer, tool="nope")


def test_fp16_to_a_file_then_in_place(designer: Designer, tmp_path: Path) -> None:
    dialog = designer.tools_panel("convert_fp16")
    assert dialog.output.value.endswith("mobile net_fp16.onnx")
    dialog.output.value = str(tmp_path / "half.onnx")
    dialog.run()
    result = dialog.wait(300)
    assert result.output == tmp_path / "half.onnx" and result.tensors_converted > 50
    onnx.checker.check_model(onnx.load(tmp_path / "half.onnx"))
    html = dialog.status_area.children[0].children[1].value
    assert "Max abs diff" in html and "data-output" in html
    assert not designer.document.dirty
    steps = len(designer.document.history)
    dialog.destination.value = IN_PLACE
    dialog.run()
    assert dialog.wait(300).fp16_weight_share > 0.9
    assert len(designer.document.history) == steps + 1
    designer.undo()
    assert not designer.document.dirty


def test_a_new_file_never_replaces_the_open_model(designer: Designer, tmp_path: Path) -> None:
    """Issue 31, finding 4: the tools' output path goes through the same guard as every CLI verb and run panel."""
    model = tmp_path / "mobile net.onnx"
    before = model.read_bytes()
    for kind in ("convert_fp16", "sanitize"):
        dialog = designer.tools_panel(kind)
        for output, words in ((model, "is the input model"), (tmp_path, "is a folder"), ("/dev/full", "not a regular")):
            dialog.output.value = str(output)
            dialog.run()
            assert dialog.result is None and words in dialog.job.error.value, (kind, output)
    assert model.read_bytes() == before and not designer.document.dirty


def test_sanitize_options_and_errors(designer: Designer) -> None:
    dialog = designer.tools_panel("sanitize", in_place=True)
    dialog.passes.value = "0"
    dialog.run()
    assert "cannot fold anything" in dialog.job.error.value
    dialog.passes.value = ""
    dialog.threshold.value = "4096"
    dialog.run()
    result = dialog.wait(300)
    assert result.nodes_after <= result.nodes_before and result.outputs_equal
    assert "before" in dialog.status_area.children[0].children[0].value


def test_convert_tensors_refuses_what_breaks_a_type_constraint(designer: Designer) -> None:
    dialog = designer.tools_panel("convert_tensors")
    dialog.inits.name.value = "features"
    dialog.inits.dtype.value = "float"
    rows = list(dialog.inits.listing.options)[:5]
    dialog.inits.listing.value = tuple(key for _label, key in rows)
    names = [label.split()[0] for label, _key in rows]
    dialog.to.value = "float16"
    dialog.run()
    result = dialog.wait(60)
    # Conv weights in float16 beside float32 activations would break Conv's type constraint (issue 31, finding 5):
    # each is refused, naming the node and the type it shares, and the status says so instead of "converted".
    assert not result.converted and len(result.errors) == 5
    assert all("(Conv), input" in (o.error or "") and "shares type T" in (o.error or "") for o in result.errors)
    summary = dialog.status_area.children[0].children[0].value
    assert "5 errors" in summary and "shares type T" in summary
    inits = designer.document.model.graph.initializers
    assert [inits[n].const_value.dtype.name for n in names] == ["FLOAT"] * 5 and designer.document.history == []


def test_fp16_status_shows_a_refused_result(tmp_path: Path) -> None:
    from tests.transforms.typed_models import resize_by_constant

    (tmp_path / "resize.onnx").write_bytes(resize_by_constant())
    designer = open_designer(tmp_path / "resize.onnx", grouping="none")
    dialog = designer.tools_panel("convert_fp16", in_place=True)
    dialog.run()
    assert dialog.wait(120) is None
    error = dialog.job.error.value
    assert "would not be a valid model, so nothing was written or changed" in error and "resize" in error
    assert "onnx.checker: OK" not in error and not dialog.status_area.children
    assert designer.document.history == [] and not designer.document.dirty


def test_fp16_status_shows_a_model_that_was_invalid_before(tmp_path: Path) -> None:
    from tests.transforms.typed_models import vendor_plugin

    (tmp_path / "plugin.onnx").write_bytes(vendor_plugin())
    designer = open_designer(tmp_path / "plugin.onnx", grouping="none")
    dialog = designer.tools_panel("convert_fp16", output=str(tmp_path / "half.onnx"))
    dialog.run()
    result = dialog.wait(120)
    assert result is not None and result.verdict is not None and result.verdict.preexisting
    summary = dialog.status_area.children[0].children[0].value
    assert "with problems" in summary and "NOT a valid model (the original model already fails it too)" in summary
    assert "vendor:Foo" in summary and "onnx.checker" not in summary.replace("onnx.checker (full check)", "")


def test_custom_tools_in_lab_settings_and_a_run(designer: Designer, lab_settings: Path, tmp_path: Path) -> None:
    lab_settings.parent.mkdir(parents=True)
    lab_settings.write_text('{\n  // the user typed this\n  "colorScheme": "okabe-ito",\n}\n')
    manager = designer.tools_panel("custom_tools")
    script = tmp_path / "copy tool.py"
    script.write_text("import shutil, sys\nprint('copying', sys.argv[1])\nshutil.copy(sys.argv[1], sys.argv[2])\n")
    manager.edit(None)
    fields = manager.form_area.children
    fields[1].value, fields[2].value = "Copy it", sys.executable
    fields[3].value = f"{script}\n$Model\n$Output"
    fields[5].value = True  # open the output
    fields[7].children[0].click()
    assert load_tools() == [UserTool("Copy it", sys.executable, [str(script), "$Model", "$Output"], False, True)]
    assert json.loads(lab_settings.read_text())["colorScheme"] == "okabe-ito"
    manager.edit(None)
    manager.form_area.children[1].value, manager.form_area.children[2].value = "copy IT", sys.executable
    manager.form_area.children[7].children[0].click()
    assert "another tool has this name" in manager.form_area.children[6].value
    designer.document.add_node("Relu")  # unsaved edits: the tool gets a saved copy, the document stays dirty
    manager.run_selected()
    run = designer.tools.children[0]
    assert isinstance(run, ToolRunDialog)
    outcome = run.wait(60)
    assert outcome is not None and outcome.ok and "copying" in run.stream.value
    assert run.opened is not None and run.opened.document.path == outcome.output
    assert designer.document.dirty
    save_tools([])
    assert load_tools() == [] and json.loads(lab_settings.read_text())["colorScheme"] == "okabe-ito"


def test_cancel_ends_a_running_user_tool(designer: Designer, tmp_path: Path) -> None:
    script = tmp_path / "slow.py"
    script.write_text("import subprocess, sys, time\nprint('started', flush=True)\n"
                      "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\ntime.sleep(60)\n")
    save_tools([UserTool("Slow", sys.executable, [str(script), "$Model"])])
    run = designer.tools_panel("run_user_tool", tool="Slow")
    deadline = time.monotonic() + 20
    while "started" not in run.stream.value and time.monotonic() < deadline:
        time.sleep(0.05)
    run.job.cancel_button.click()
    outcome = run.wait(30)
    assert outcome is not None and outcome.cancelled and "Cancelled" in run.state.value
