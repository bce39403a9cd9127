"""Committed trace files are gzip: every reader takes ``.gz`` as the plain file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tower.errors import InputFileError
from tower.files import inputs
from tower.traces import read_traces

TRACE = {
    "schema": "tower.trace/1", "seq": 0, "seed": 1, "source": "hand",
    "pieces": ["keshi:red", "keshi:green"],
    "throws": [{"in": [0, 1], "out": [1], "inside": {"0": "floor1"}}],
}  # fmt: skip


def test_a_gzip_trace_reads_as_the_plain_one(tmp_path: Path) -> None:
    line = json.dumps(TRACE) + "\n"
    plain, packed = tmp_path / "t.jsonl", tmp_path / "t.jsonl.gz"
    plain.write_text(line)
    packed.write_bytes(gzip.compress(line.encode()))
    assert [s.to_json() for s in read_traces(packed)] == [s.to_json() for s in read_traces(plain)]


def test_a_gz_name_that_is_not_gzip_is_one_error(tmp_path: Path) -> None:
    bad = tmp_path / "t.jsonl.gz"
    bad.write_text(json.dumps(TRACE))
    with pytest.raises(InputFileError, match=r"t\.jsonl\.gz: field <gzip>: not gzip data"):
        list(read_traces(bad))


def test_a_gzip_that_unpacks_over_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(b"x" * 5000))
    monkeypatch.setitem(inputs.LIMITS, "file_bytes", 1000)
    with pytest.raises(InputFileError, match="unpacks to over the limit file_bytes = 1000"):
        inputs.read_bytes(packed)


def test_the_batch_seed_is_read_from_a_gzip_header(tmp_path: Path) -> None:
    from tower.files.outputs import run_header
    from tower.model.pipeline import batch_seed

    text = json.dumps(run_header("simulate", {"seed": 6021})) + "\n" + json.dumps(TRACE) + "\n"
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert batch_seed(packed) == 6021
    assert len(list(read_traces(packed))) == 1
