"""No escape sequence from a file reaches the terminal through `dld` (issue 36, item 7).

`dld engine show` printed a layer named `\\x1b]0;owned\\x07\\x1b[2J` as it was (the terminal retitled its window and
cleared the screen), and so did the sweep table with a manifest's reasons and the remote targets' log lines; only
`dld report` filtered. Now every line the command line prints goes through `formats/terminal_text.echo`; the
source test below fails on any `print` or `sys.stdout/stderr.write` left in `dld_jupyter/cli/`, and on a second
copy of the control-character filter anywhere in the package.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from dld_jupyter.cli.main import main
from dld_jupyter.formats.terminal_text import echo, terminal_text

PACKAGE = Path(__file__).resolve().parents[2] / "dld_jupyter"
HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202eevil\x9b31m"
RESNET8 = PACKAGE / "models" / "resnet8_cifar.onnx"


def direct_prints(path: Path) -> list[str]:
    """`print(...)`, `sys.stdout.write(...)`, `sys.stderr.write(...)` and `traceback.print_*` calls of a module
    (argparse's `print_help` prints our own help text)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("print", "pprint"):
            found.append(f"{path.name}:{node.lineno} print")
        elif isinstance(func, ast.Attribute) and func.attr in ("write", "writelines") and \
                isinstance(func.value, ast.Attribute) and func.value.attr in ("stdout", "stderr"):
            found.append(f"{path.name}:{node.lineno} sys.{func.value.attr}.{func.attr}")
        elif isinstance(func, ast.Attribute) and func.attr.startswith("print_") and \
                func.attr not in ("print_help", "print_usage"):  # argparse's own text
            found.append(f"{path.name}:{node.lineno} {func.attr}")
    return found


def test_the_command_line_prints_only_through_echo() -> None:
    found = [hit for path in sorted((PACKAGE / "cli").glob("*.py")) for hit in direct_prints(path)]
    assert not found, f"print through formats.terminal_text.echo instead: {found}"


def test_one_control_character_filter_in_the_package() -> None:
    copies = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
              if r"\x00-\x08\x0b-\x1f" in path.read_text(encoding="utf-8")]
    assert copies == ["formats/terminal_text.py"]


def test_terminal_text_keeps_lines_and_replaces_controls(capsys: pytest.CaptureFixture[str]) -> None:
    assert terminal_text(f"a\tb\n{HOSTILE}") == "a\tb\n\ufffd]0;owned\ufffd\ufffd[2J\ufffdevil\ufffd31m"
    echo("x", HOSTILE, err=True)
    assert capsys.readouterr().err == terminal_text(f"x {HOSTILE}") + "\n"


def test_engine_show_neutralises_layer_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e.trt.json"
    tensor = {"Name": f"x{HOSTILE}", "Dimensions": [1, 3], "Format/Datatype": "Row major linear FP32"}
    layer = {"Name": f"conv{HOSTILE}", "LayerType": "Convolution", "Inputs": [tensor], "Outputs": [],
             "TacticName": HOSTILE, "Metadata": f"[ONNX Layer: node{HOSTILE}]"}
    path.write_text(json.dumps({"Layers": [layer], "Bindings": [f"x{HOSTILE}"]}))
    assert main(["engine", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "conv" in out and "evil" in out
    assert not set(out) & {"\x1b", "\x07", "\u202e", "\x9b"}, out


def test_sweep_reasons_are_neutralised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(RESNET8.read_bytes())
    out = tmp_path / "sweep"
    assert main(["sweep", str(model), "--batch", "1,2", "--iterations", "1", "--warmup", "0", "--out", str(out)]) == 0
    manifest = json.loads((out / "sweep.json").read_text())
    manifest["points"][1].update(state="failed", reason=f"the target said {HOSTILE}", report=None)
    (out / "sweep.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["report", "sweep", str(out)]) == 0
    printed = "".join(capsys.readouterr())
    assert "the target said" in printed
    assert not set(printed) & {"\x1b", "\x07", "\u202e", "\x9b"}, printed
