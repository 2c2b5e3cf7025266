"""`dld operators`: the list (searchable), one operator's reference at its newest version or as an opset defines
it, JSON, and exit 2 with the fix for an operator or opset that does not exist."""

from __future__ import annotations

import json

import onnx.defs
import pytest

from dld_jupyter.cli.main import main

NEWEST = onnx.defs.get_schema("Conv").since_version  # 22 with onnx 1.23


def test_list_reference_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["operators", "--search", "conv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split()[:3] == ["Conv", "ai.onnx", str(NEWEST)] for line in lines)
    assert all("conv" in line.lower() for line in lines)
    assert main(["operators", "Conv"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"Conv (ai.onnx, Convolution), version {NEWEST}; versions: {NEWEST}, 11, 1")
    assert "  group (int, default 1): number of groups" in text
    assert "  B (T, optional): Optional 1D bias" in text
    assert "  T: tensor(bfloat16), tensor(float16), tensor(float), tensor(double)" in text
    assert main(["operators", "Conv", "--opset", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["since_version"] for v in data["versions"]] == [1], "the version in force at opset 10"


def test_unknown_operator_or_opset_exit_2_with_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["operators", "conv"]) == 2
    assert "no operator 'conv' in domain 'ai.onnx' (in ai.onnx as Conv" in capsys.readouterr().err
    assert main(["operators", "Resize", "--opset", "9"]) == 2
    assert "did not exist yet in opset 9. Fix: Give an opset of 10 or later." in capsys.readouterr().err
