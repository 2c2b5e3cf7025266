"""Every output option of every `dld` verb (and `dld-prof`) refuses to replace an input (issue 36, item 3).

Before, each verb called the output guard itself, and `dld diverge A B --node-data A` (which did not) replaced the
model A with JSON and exited 0. The verbs now declare their file options (cli/file_options.py) and one check runs
before any verb. This test walks the argparse parsers: every option whose help says it writes (or names an output
folder) must be declared an output, every declared output has a case below, and each case is run once per input
file of its command line, as the output: exit 2, "Nothing was written", the input byte for byte unchanged.
"""

from __future__ import annotations

import argparse
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dld_jupyter.cli.file_options import declared
from dld_jupyter.cli.main import build_parser
from dld_jupyter.cli.main import main as dld_main
from dld_jupyter.cli.prof import build_parser as prof_parser
from dld_jupyter.cli.prof import main as prof_main

RESNET8 = Path(__file__).resolve().parents[2] / "dld_jupyter" / "models" / "resnet8_cifar.onnx"
WRITES = re.compile(r"\b(write|writes|written|goes|report path|engine path|sweep folder)\b", re.IGNORECASE)
OUT = "{OUT}"


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(command, parser) of every leaf command: `dld VERB [SUBVERB]` and `dld-prof`."""
    def walk(prefix: str, parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield prefix, parser
        for sub in subs:
            for name, child in sub.choices.items():
                yield from walk(f"{prefix} {name}", child)

    yield from walk("dld", build_parser())
    yield "dld-prof", prof_parser()


def output_options() -> dict[tuple[str, str], str]:
    """(command, label) -> role of every declared output and output folder."""
    return {(command, label): role for command, parser in parsers() for role, label, _ in declared(parser)
            if role in ("output", "folder")}


def test_every_option_that_writes_is_declared_an_output() -> None:
    undeclared = []
    for command, parser in parsers():
        outputs = {dest for role, _, dest in declared(parser) if role in ("output", "folder")}
        for action in parser._actions:
            if action.option_strings and WRITES.search(action.help or "") and action.dest not in outputs:
                undeclared.append(f"{command} {'/'.join(action.option_strings)}")
    assert not undeclared, f"output options not declared with declare_files: {undeclared}"
    assert set(CASES) == set(output_options()), "every declared output needs a case in CASES"


def case_files(tmp_path: Path) -> dict[str, Path]:
    """The input files the cases read: a model, a report, a trace, trtexec files and a sweep folder."""
    files = {"MODEL": tmp_path / "m.onnx", "OTHER": tmp_path / "other.onnx", "REPORT": tmp_path / "r.dld-report.json",
             "JSON": tmp_path / "p.json", "NPY": tmp_path / "x.npy"}
    shutil.copy(RESNET8, files["MODEL"])
    shutil.copy(RESNET8, files["OTHER"])
    for name in ("JSON",):
        files[name].write_text("[]")
    sweep = tmp_path / "sweep"
    assert dld_main(["sweep", str(files["MODEL"]), "--iterations", "1", "--warmup", "0", "--out", str(sweep)]) == 0
    files["SWEEP"] = sweep
    files["MANIFEST"] = sweep / "sweep.json"
    files["REPORT"].write_bytes(next(sweep.glob("*.dld-report.json")).read_bytes())
    import numpy as np

    np.save(files["NPY"], np.zeros((1, 3, 32, 32), np.float32))
    return files


# (command, label) -> the command line (OUT: the output under test) and the inputs it is pointed at in turn
CASES: dict[tuple[str, str], tuple[list[str], list[str]]] = {
    ("dld profile", "report"): (["profile", "MODEL", "-o", OUT, "-n", "1"], ["MODEL"]),
    ("dld export-engine", "engine"): (["export-engine", "MODEL", "-o", OUT, "--dry-run"], ["MODEL"]),
    ("dld export-engine", "metadata"): (["export-engine", "MODEL", "--metadata", OUT, "--dry-run"], ["MODEL"]),
    ("dld report dashboard", "--csv"): (["report", "dashboard", "REPORT", "--csv", OUT], ["REPORT"]),
    ("dld report sweep", "--csv"): (["report", "sweep", "SWEEP", "--csv", OUT], ["MANIFEST"]),
    ("dld report sweep", "--chart"): (["report", "sweep", "SWEEP", "--chart", OUT], ["MANIFEST"]),
    ("dld report compare", "--html"): (["report", "compare", "REPORT", "REPORT", "--html", OUT], ["REPORT"]),
    ("dld report csv", "output (-o)"): (["report", "csv", "REPORT", "-o", OUT], ["REPORT"]),
    ("dld report html", "output (-o)"): (["report", "html", "REPORT", "-o", OUT], ["REPORT"]),
    ("dld report trace", "output (-o)"): (["report", "trace", "REPORT", "-o", OUT], ["REPORT"]),
    ("dld report node-data", "output (-o)"): (["report", "node-data", "REPORT", "-o", OUT, "--model", "MODEL"],
                                              ["REPORT", "MODEL"]),
    ("dld report import-trtexec", "output (-o)"): (
        ["report", "import-trtexec", "JSON", "--model", "MODEL", "-o", OUT], ["JSON", "MODEL"]),
    ("dld report import-ort", "output (-o)"): (
        ["report", "import-ort", "JSON", "--model", "MODEL", "-o", OUT], ["JSON", "MODEL"]),
    ("dld convert-fp16", "output (-o)"): (["convert-fp16", "MODEL", "-o", OUT], ["MODEL"]),
    ("dld sanitize", "output (-o)"): (["sanitize", "MODEL", "-o", OUT], ["MODEL"]),
    ("dld convert-tensors", "output (-o)"): (["convert-tensors", "MODEL", "--to", "float16", "-o", OUT], ["MODEL"]),
    ("dld extract-subgraph", "output (-o)"): (["extract-subgraph", "MODEL", "--slot", "/Loop:body", "-o", OUT],
                                              ["MODEL"]),
    ("dld diff", "--node-data"): (["diff", "MODEL", "OTHER", "--node-data", OUT], ["MODEL", "OTHER"]),
    ("dld diverge", "--node-data"): (["diverge", "MODEL", "OTHER", "--input", "input=NPY", "--node-data", OUT],
                                     ["MODEL", "OTHER", "NPY"]),
    ("dld sweep", "--out"): (["sweep", "MODEL", "--iterations", "1", "--out", OUT], ["MODEL"]),
    ("dld sweep", "--resume"): (["sweep", "--resume", OUT], ["MODEL"]),
    ("dld analyze", "--dump"): (["analyze", "MODEL", "--input", "input=NPY", "--dump", OUT], ["MODEL", "NPY"]),
    ("dld run", "--output"): (["run", "MODEL", "--input", "input=NPY", "-o", OUT], ["MODEL", "NPY"]),
    ("dld-prof", "report"): (["MODEL", "-o", OUT, "-n", "1", "--save"], ["MODEL"]),
}


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda case: f"{case[0]} {case[1]}")
def test_each_output_refuses_each_input(case: tuple[str, str], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    files = case_files(tmp_path)
    line, targets = CASES[case]
    main = prof_main if case[0] == "dld-prof" else dld_main
    for target in targets:
        before = {name: path.read_bytes() for name, path in files.items() if path.is_file()}
        argv = [str(files[word]) if word in files else word.replace("input=NPY", f"input={files['NPY']}")
                for word in line]
        argv = [str(files[target]) if word == OUT else word for word in argv]
        capsys.readouterr()
        code = main(argv)
        text = "".join(capsys.readouterr())
        assert code == 2, f"{argv}: exit {code}\n{text}"
        assert "Nothing was written" in text and "Traceback" not in text, text
        assert {name: path.read_bytes() for name, path in files.items() if path.is_file()} == before, argv
