"""run_tool with real Python script tools: argv intact, streamed output, $Output, cancel of the whole tree."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import onnx
import pytest

from dld_jupyter.document import Document
from dld_jupyter.transforms.progress import CancelToken
from dld_jupyter.usertools import ToolError, UserTool, run_tool
from dld_jupyter.usertools.runner import LINE_LIMIT

REAL = Path(__file__).parents[1] / "data" / "real"


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("import json, os, subprocess, sys, time\n" + body)
    return str(path)


def test_arguments_reach_the_tool_intact(tmp_path: Path) -> None:
    folder = tmp_path / "odd folder; rm -rf ~"
    folder.mkdir()
    model = folder / "my \"model\" 'v2'; echo pwned $HOME.onnx"
    model.write_bytes((REAL / "gpt2_tiny.onnx").read_bytes())
    record = script(tmp_path, "record.py", "print(json.dumps(sys.argv[1:]), flush=True)\n")
    tool = UserTool("record", sys.executable, [record, "$Model", "--out=$Output", "a b; c", "$HOME `x`"])
    lines: list[tuple[str, str]] = []
    run = run_tool(tool, model, on_output=lambda stream, line: lines.append((stream, line)))
    assert run.ok and run.exit_code == 0 and run.output is not None
    assert json.loads(lines[0][1]) == [str(model), f"--out={run.output}", "a b; c", "$HOME `x`"]
    assert run.output.parent.is_dir() and not run.output.exists()  # a fresh temporary path, not created
    assert run.open_path is None  # open_output is off and nothing was written


def test_output_streams_line_by_line_as_it_comes(tmp_path: Path) -> None:
    body = "for i in range(3):\n    print(f'out {i}', flush=True)\n    print(f'err {i}', file=sys.stderr, flush=True)\n"
    body += "    time.sleep(0.3)\nsys.exit(3)\n"
    tool = UserTool("talk", sys.executable, [script(tmp_path, "talk.py", body), "$Model"])
    seen: list[tuple[float, str, str]] = []
    start = time.monotonic()
    run = run_tool(tool, REAL / "gpt2_tiny.onnx", on_output=lambda s, line: seen.append((time.monotonic(), s, line)))
    assert run.exit_code == 3 and not run.ok and run.output is None
    assert [line for _, s, line in seen if s == "stdout"] == ["out 0", "out 1", "out 2"]
    assert [line for _, s, line in seen if s == "stderr"] == ["err 0", "err 1", "err 2"]
    first = min(t for t, _, line in seen if line == "out 0")
    assert first - start < 0.5 * (time.monotonic() - start)  # the first line came before the tool ended


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of ours counts as ended
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_cancel_ends_the_tool_and_its_children_even_when_they_ignore_sigterm(tmp_path: Path) -> None:
    pids = tmp_path / "pids.txt"
    body = (
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "print('started', flush=True)\ntime.sleep(60)\n"
    )
    tool = UserTool("stubborn", sys.executable, [script(tmp_path, "stubborn.py", body), "$Model"])
    token = CancelToken()

    def on_output(stream: str, line: str) -> None:
        if line == "started":
            threading.Timer(0.2, token.cancel).start()

    start = time.monotonic()
    run = run_tool(tool, REAL / "gpt2_tiny.onnx", on_output=on_output, cancel=token, grace=0.5)
    assert run.cancelled and run.exit_code is None and not run.ok
    assert time.monotonic() - start < 20
    parent, child = (int(p) for p in pids.read_text().split())
    deadline = time.monotonic() + 5
    while (_alive(parent) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(parent) and not _alive(child)


def test_timeout_ends_the_tool(tmp_path: Path) -> None:
    tool = UserTool("sleeper", sys.executable, [script(tmp_path, "sleep.py", "time.sleep(60)\n")])
    run = run_tool(tool, REAL / "gpt2_tiny.onnx", timeout=0.5, grace=0.5)
    assert run.timed_out and not run.ok


def test_a_tool_that_renames_a_node_writes_a_model_to_open(tmp_path: Path) -> None:
    body = (
        "import onnx\nmodel = onnx.load(sys.argv[1])\nold = model.graph.node[0].name\n"
        "model.graph.node[0].name = 'renamed_by_tool'\nonnx.save(model, sys.argv[2])\n"
        "print(f'renamed {old}', flush=True)\n"
    )
    tool = UserTool(
        "rename", sys.executable, [script(tmp_path, "rename.py", body), "$Model", "$Output"], open_output=True
    )
    out = tmp_path / "out dir" / "renamed.onnx"
    out.parent.mkdir()
    lines: list[str] = []
    run = run_tool(tool, REAL / "gpt2_tiny.onnx", out, on_output=lambda s, line: lines.append(line))
    assert run.ok and run.open_path == out.resolve() and lines[0].startswith("renamed ")
    onnx.checker.check_model(onnx.load(str(out)), full_check=True)
    assert any(n.name == "renamed_by_tool" for n in Document.open(run.open_path).nodes())


def test_refusals(tmp_path: Path) -> None:
    prompt = UserTool("ask", sys.executable, ["-c", "pass", "$Output"], prompt_for_output=True)
    with pytest.raises(ToolError, match="asks for an output path"):
        run_tool(prompt, REAL / "gpt2_tiny.onnx")
    with pytest.raises(ToolError, match="not a saved file"):
        run_tool(prompt, tmp_path / "missing.onnx", tmp_path / "o.onnx")
    with pytest.raises(ToolError, match="not an executable file"):
        run_tool(UserTool("gone", str(tmp_path / "no-such-program"), []), REAL / "gpt2_tiny.onnx")


def test_one_50_mb_line_is_passed_cut_with_a_note(tmp_path: Path) -> None:
    body = "sys.stdout.write('x' * 50_000_000 + '\\n')\nprint('after', flush=True)\n"
    tool = UserTool("flood", sys.executable, [script(tmp_path, "flood.py", body), "$Model"])
    lines: list[str] = []
    run = run_tool(tool, REAL / "gpt2_tiny.onnx", on_output=lambda s, line: lines.append(line))
    assert run.ok and len(lines) == 2 and lines[1] == "after"
    assert len(lines[0]) < LINE_LIMIT + 100  # never the 50 MB string
    assert lines[0].startswith("x" * LINE_LIMIT)
    assert lines[0].endswith(f"[line cut: {50_000_000 - LINE_LIMIT:,} more characters not shown]")


def test_a_model_path_holding_a_placeholder_is_data(tmp_path: Path) -> None:
    folder = tmp_path / "runs $Output $Model"
    folder.mkdir()
    model = folder / "m.onnx"
    model.write_bytes((REAL / "gpt2_tiny.onnx").read_bytes())
    out = tmp_path / "out $Model" / "o.onnx"
    out.parent.mkdir()
    record = script(tmp_path, "record.py", "print(json.dumps(sys.argv[1:]), flush=True)\n")
    tool = UserTool("record", sys.executable, [record, "$Model", "$Output", "--both=$Model,$Output"])
    lines: list[str] = []
    assert run_tool(tool, model, out, on_output=lambda s, line: lines.append(line)).ok
    assert json.loads(lines[0]) == [str(model), str(out), f"--both={model},{out}"]


def _tagged(tag: str) -> dict[int, str]:
    """Live (non-zombie) processes whose environment holds `tag`, with their command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if tag.encode() not in (entry / "environ").read_bytes():
                continue
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            found[int(entry.name)] = cmdline
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="descendants are followed through /proc (Linux)")
def test_cancel_ends_a_setsid_grandchild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tag = f"DLD_TOOL_TREE_TEST={os.getpid()}_{time.monotonic_ns()}"
    monkeypatch.setenv("DLD_TOOL_TREE_TEST", tag.split("=", 1)[1])  # every process the tool starts inherits it
    tool = UserTool("daemon", "bash", ["-c", "setsid sleep 1000 & sleep 1000", "$Model"])
    token = CancelToken()

    def cancel_once_both_sleep() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if sum(c.startswith("sleep 1000") for c in _tagged(tag).values()) == 2:
                break
            time.sleep(0.05)
        token.cancel()

    threading.Thread(target=cancel_once_both_sleep, daemon=True).start()
    try:
        start = time.monotonic()
        run = run_tool(tool, REAL / "gpt2_tiny.onnx", cancel=token, grace=1.0)
        assert run.cancelled and time.monotonic() - start < 15
        deadline = time.monotonic() + 3
        while _tagged(tag) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _tagged(tag) == {}  # the setsid grandchild left the group, and still ended
    finally:
        for pid in _tagged(tag):  # a failing run leaves nothing behind
            os.kill(pid, 9)
