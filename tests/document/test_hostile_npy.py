"""Hostile .npy files: a generated corpus and a fuzzer. Only DocumentError escapes `read_npy`, nothing is written,
and what it accepts equals what `np.load(allow_pickle=False)` reads.

Set ``DLD_FUZZ_EXAMPLES`` to run the fuzzer longer than CI does (the run for issue 17 used 10,000, nothing found).
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dld_jupyter.document.files.npy_input import read_npy
from dld_jupyter.document.model.errors import DocumentError

FUZZ = int(os.environ.get("DLD_FUZZ_EXAMPLES", "300"))


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _header(header: str, version: bytes = b"\x01\x00", body: bytes = b"") -> bytes:
    text = header.encode("latin1")
    text += b" " * (-(len(text) + 11) % 64) + b"\n"
    size = len(text).to_bytes(2 if version == b"\x01\x00" else 4, "little")
    return b"\x93NUMPY" + version + size + text + body


def _corpus() -> list[tuple[str, bytes, str]]:
    """(label, file bytes, a fragment of the expected message)."""
    good = _npy(np.arange(6, dtype=np.float32).reshape(2, 3))
    cases: list[tuple[str, bytes, str]] = [
        ("empty", b"", "not a .npy"),
        ("text", b"hello", "not a .npy"),
        ("npz", b"PK\x03\x04" + b"0" * 40, ".npz"),
        ("magic only", b"\x93NUMPY", "malformed"),
        ("version 9", b"\x93NUMPY\x09\x00" + good[8:], "malformed|version"),
        ("version 3", _header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", b"\x03\x00", b"\0" * 4),
         "version"),
    ]  # fmt: skip
    for cut in range(8, len(good), 9):
        cases.append((f"truncated at {cut}", good[:cut], "malformed|cut short"))
    cases.append(("extra bytes", good + b"\0" * 5, "extra bytes"))
    headers = {
        "object dtype": ("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", "Python objects"),
        "negative dim": ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "shape"),
        "huge shape": ("{'descr': '<f4', 'fortran_order': False, 'shape': (10**14,), }", "malformed"),
        "huge literal": ("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000000,), }", "bytes of data"),
        "2^62 dims": ("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", "bytes"),
        "void 0": ("{'descr': '|V0', 'fortran_order': False, 'shape': (1000000000000,), }", "dtype"),
        "structured": ("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }", "dtype"),
        "subarray": ("{'descr': [('a', '<f4', (2,))], 'fortran_order': False, 'shape': (1,), }", "dtype"),
        "extra key": ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), '__class__': 1}", "malformed"),
        "missing key": ("{'descr': '<f4', 'shape': (1,), }", "malformed"),
        "code": ("__import__('os').system('echo owned')", "malformed"),
        "unclosed": ("{'descr': '<f4', 'fortran_order': False, 'shape': (1,", "malformed"),
        "list shape": ("{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", "malformed|shape"),
        "float dim": ("{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,), }", "malformed|shape"),
        "bool order": ("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (1,), }", "malformed"),
        "bad descr": ("{'descr': 'zz', 'fortran_order': False, 'shape': (1,), }", "malformed"),
        "nested": ("{'descr': " + "[" * 200 + "]" * 200 + ", 'fortran_order': False, 'shape': (1,), }", "malformed"),
        "short data": ("{'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }", "cut short"),
    }
    for label, (header, fragment) in headers.items():
        cases.append((label, _header(header, body=b"\0" * 8), fragment))
    cases.append(("header too large", _header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"
                                              + " " * 70_000, b"\x02\x00", b"\0" * 4), "malformed"))  # fmt: skip
    return cases


CORPUS = _corpus()


def test_corpus_size() -> None:
    assert len(CORPUS) >= 40, len(CORPUS)


@pytest.mark.parametrize("label,data,fragment", CORPUS, ids=[c[0] for c in CORPUS])
def test_hostile_npy_is_refused_clearly(tmp_path: Path, label: str, data: bytes, fragment: str) -> None:
    path = tmp_path / "w.npy"
    path.write_bytes(data)
    with pytest.raises(DocumentError) as info:
        read_npy(path)
    message = str(info.value)
    assert info.value.what == "Load w.npy" and info.value.fix and "Traceback" not in message
    assert any(part in message for part in fragment.split("|")), message
    assert [p.name for p in tmp_path.iterdir()] == ["w.npy"] and path.read_bytes() == data


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no file"):
        read_npy(tmp_path / "none.npy")
    with pytest.raises(DocumentError, match="not a regular file"):
        read_npy(tmp_path)


@pytest.mark.parametrize(
    "array",
    [np.arange(12, dtype=np.int16).reshape(3, 4), np.asfortranarray(np.arange(12.0).reshape(3, 4)),
     np.array(["ab", "c"]), np.zeros((0, 3)), np.float32(3.5), np.array([True, False]), np.ones((2, 2), ">f4")],
)  # fmt: skip
def test_ordinary_files_read_as_numpy_reads_them(tmp_path: Path, array: np.ndarray) -> None:
    path = tmp_path / "w.npy"
    path.write_bytes(_npy(np.asarray(array)))
    got = read_npy(path)
    expected = np.load(path, allow_pickle=False)
    assert got.dtype == expected.dtype and got.shape == expected.shape and np.array_equal(got, expected)
    assert got.flags.writeable


_FOLDER = Path(tempfile.mkdtemp(prefix="dld-npy-fuzz-"))
_SEEDS = [_npy(np.arange(6, dtype=np.float32).reshape(2, 3)), _npy(np.array(["ab", "c"])), _npy(np.zeros(0))]


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_SEEDS), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=6),
       st.integers(0, 300))  # fmt: skip
def test_fuzz_mutated_npy_files(seed: bytes, flips: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(seed)
    for position, value in flips:
        if position < len(data):
            data[position] = value
    data = data[: max(cut, 0)] if cut < len(data) else data
    path = _FOLDER / "f.npy"
    path.write_bytes(bytes(data))
    try:
        got = read_npy(path)
    except DocumentError as error:
        assert error.what and error.why and error.fix
        return
    expected = np.load(path, allow_pickle=False)  # what we accept, numpy reads the same
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind in "fc")
