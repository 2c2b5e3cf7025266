"""The engine-graph reader refuses hostile layer information as clearly as `dld report import-trtexec` does (issue
31, finding 7): `"Inputs": 5`, `"Dimensions": null`, 5,000 nested brackets, `"Bindings": 7` and wrongly typed
names used to end in a TypeError or RecursionError traceback (exit 1), or were silently turned into text. Now
`dld engine show` exits 2 with the file, the layer and the field named, the import says the same, and the engine
tab shows the message instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dld_jupyter as dld
from dld_jupyter.cli.main import main
from dld_jupyter.lab import document_tabs

TENSOR = {"Name": "x", "Dimensions": [1, 3], "Format/Datatype": "Row major linear FP32"}
HOSTILE: dict[str, tuple[Any, str]] = {
    "inputs_int": ({"Layers": [{"Name": "a", "Inputs": 5}]}, '"Inputs" integer 5; expected a list of tensor'),
    "dims_null": (
        {"Layers": [{"Name": "a", "Inputs": [{"Name": "x", "Dimensions": None}]}]},
        '"Dimensions" null; expected a list of sizes',
    ),
    "dims_bool": (
        {"Layers": [{"Name": "a", "Outputs": [{"Name": "x", "Dimensions": [1, True]}]}]},
        '"Dimensions" array [1, true]',
    ),
    "tensor_not_object": ({"Layers": [{"Name": "a", "Inputs": ["x"]}]}, '"Inputs"[0] is string "x"'),
    "tensor_name_number": (
        {"Layers": [{"Name": "a", "Inputs": [{**TENSOR, "Name": 7}]}]},
        '"Name" integer 7; expected a string',
    ),
    "format_number": (
        {"Layers": [{"Name": "a", "Inputs": [{**TENSOR, "Format/Datatype": 16}]}]},
        '"Format/Datatype" integer 16; expected a string',
    ),
    "layer_type_number": ({"Layers": [{"Name": "a", "LayerType": 3}]}, '"LayerType" integer 3; expected a string'),
    "tactic_list": ({"Layers": [{"Name": "a", "TacticName": [1]}]}, '"TacticName" array [1]; expected a string'),
    "name_missing": ({"Layers": [{"LayerType": "Conv"}]}, '"Layers"[0] is object'),
    "bindings_int": ({"Layers": [], "Bindings": 7}, '"Bindings" is integer 7; expected a list of tensor names'),
    "layers_missing": ({"layers": []}, 'expected an object with a "Layers" list'),
}
DEEP = '{"Layers": [' + "[" * 5000 + "]" * 5000 + "]}"


def write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.trt.json"
    path.write_text(DEEP if name == "deep" else json.dumps(HOSTILE[name][0]))
    return path


@pytest.mark.parametrize("name", [*HOSTILE, "deep"])
def test_engine_show_and_the_trtexec_import_refuse_alike(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, name)
    words = "nests arrays and objects more than 64 levels" if name == "deep" else HOSTILE[name][1]
    assert main(["engine", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and words in err and "Traceback" not in err and "internal error" not in err
    assert main(["engine", "show", str(path), "--json"]) == 2
    assert words in json.loads(capsys.readouterr().out)["error"]
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps([{"count": 1}, {"name": "a", "timeMs": 1.0, "averageMs": 1.0, "percentage": 100}]))
    code = main(["report", "import-trtexec", str(profile), "--layers", str(path), "-o", str(tmp_path / "r.json")])
    assert code == 2 and words in capsys.readouterr().err


def test_the_engine_tab_shows_the_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_tabs, "register", lambda: None)  # no kernel comm manager in a test
    for name in ("inputs_int", "dims_null", "deep"):
        path = write(tmp_path, name)
        view = document_tabs.show(f"tab/{name}", lambda path=path: dld.open_engine(str(path)))
        assert "dld-tab-error" in view._dom_classes and "DL Designer cannot show this file" in view.value
        assert ("levels deep" if name == "deep" else "expected a list") in view.value


def test_good_layer_information_still_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = {
        "Layers": [
            {
                "Name": "conv",
                "LayerType": "CaskConvolution",
                "TacticValue": 12,
                "Inputs": [TENSOR],
                "Outputs": [{"Name": "y", "Dimensions": ["N", 8]}],
            },
            "names_only_layer",
        ],
        "Bindings": ["x", "y"],
    }
    path = tmp_path / "ok.trt.json"
    path.write_text(json.dumps(data))
    assert main(["engine", "show", str(path), "--json"]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert [layer["name"] for layer in graph["layers"]] == ["conv", "names_only_layer"]
    assert graph["inputs"] == ["x"] and graph["outputs"] == ["y"] and graph["layers"][0]["tactic"] == "12"
