"""The resumable batch runner and `tower simulate` on top of it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tower.errors import InputFileError
from tower.files.outputs import OutputError, run_header
from tower.runs import Task, TaskFailedError, encode, read_done, run_tasks
from tower.runs.batch import square_record
from tower.traces import read_traces


def failing_at_three(k: int) -> dict[str, int]:
    if k == 3:
        raise RuntimeError("three is bad")
    return square_record(k)


def test_results_are_written_in_task_order_and_resumed_without_duplicates(tmp_path):
    out = tmp_path / "r.jsonl"
    tasks = [Task(k, k) for k in range(6)]
    first = run_tasks(tasks[:3], square_record, out, workers=1, progress=False)
    assert first["done"] == 3
    again = run_tasks(tasks, square_record, out, workers=2, progress=False)
    assert again == {"done": 3, "skipped": 3, "path": str(out)}
    header, *lines = out.read_text().splitlines()
    assert json.loads(header)["header"]["command"] == "tasks"
    assert [json.loads(x)["key"] for x in lines] == list(range(6))
    assert json.loads(lines[4]) == {"key": 4, "square": 16}


def test_a_torn_last_line_is_dropped_and_redone(tmp_path):
    out = tmp_path / "r.jsonl"
    tasks = [Task(k, k) for k in range(4)]
    run_tasks(tasks, square_record, tmp_path / "clean.jsonl", workers=1, progress=False)
    clean = (tmp_path / "clean.jsonl").read_bytes()
    second = clean.index(b"\n", clean.index(b"\n", clean.index(b"\n") + 1) + 1)
    out.write_bytes(clean[: second + 8])  # header, two lines and a torn third
    assert read_done(out) == [0, 1]
    summary = run_tasks(tasks, square_record, out, workers=1, progress=False)
    assert summary["skipped"] == 2 and out.read_bytes() == clean


def test_a_corrupt_middle_line_or_duplicate_key_is_an_error(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"key": 0}\nnot json\n{"key": 2}\n')
    with pytest.raises(InputFileError, match=":2"):
        read_done(out)
    out.write_text(encode(run_header("tasks", {})) + '{"key": 0}\n{"key": 0}\n')
    with pytest.raises(InputFileError, match="duplicate"):
        run_tasks([Task(0, 0)], square_record, out, workers=1, progress=False)


def test_a_file_without_our_header_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"key": 0, "square": 0}')  # e.g. a json.dump output: no final newline
    with pytest.raises(OutputError, match=r"no run header.*--force"):
        run_tasks([Task(0, 0)], square_record, out, workers=1, progress=False)
    assert out.read_text() == '{"key": 0, "square": 0}'
    run_tasks([Task(0, 0)], square_record, out, workers=1, progress=False, force=True)
    assert read_done(out) == [0]
    other = run_header("tasks", {"seed": 1})
    with pytest.raises(OutputError, match="other settings \\(seed: None in the file, 1 now"):
        run_tasks([Task(0, 0)], square_record, out, header=other, workers=1, progress=False)


def test_a_failing_task_keeps_earlier_results(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(TaskFailedError, match="three is bad"):
        run_tasks([Task(k, k) for k in range(6)], failing_at_three, out, workers=1, progress=False)
    assert read_done(out) == [0, 1, 2]
    with pytest.raises(ValueError, match="unique"):
        run_tasks([Task(1, 1), Task(1, 2)], square_record, out, workers=1, progress=False)


def _simulate_argv(out: Path, *extra: str) -> list[str]:
    return [
        "simulate",
        "--sequences", "3",
        "--throws", "2",
        "--pieces", "4",
        "--seed", "9",
        "--out", str(out),
        "--quiet",
        *extra,
    ]  # fmt: skip


def test_simulate_gives_the_same_file_on_local_pool_and_dask(tmp_path):
    from distributed import LocalCluster

    from tower.cli import cli

    local = tmp_path / "local.jsonl"
    cli.main(args=_simulate_argv(local, "--workers", "2"), standalone_mode=False)
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        dask = tmp_path / "dask.jsonl"
        cli.main(
            args=_simulate_argv(dask, "--scheduler", cluster.scheduler_address),
            standalone_mode=False,
        )
    assert dask.read_bytes() == local.read_bytes()
    seqs = list(read_traces(local))
    assert [s.seq for s in seqs] == [0, 1, 2]
    assert all(len(s.throws) == 2 and len(s.pieces) == 8 for s in seqs)
    assert len({s.seed for s in seqs}) == 3


def test_simulate_killed_and_rerun_completes_the_file_without_duplicates(tmp_path):
    tower = str(Path(sys.executable).with_name("tower"))
    clean = tmp_path / "clean.jsonl"
    subprocess.run(
        [tower, *_simulate_argv(clean, "--workers", "1")], check=True, capture_output=True
    )
    out = tmp_path / "killed.jsonl"
    proc = subprocess.Popen(
        [tower, *_simulate_argv(out, "--workers", "1")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.02)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    interrupted = out.read_bytes()
    assert interrupted.count(b"\n") < 3, "the run finished before it could be killed"
    subprocess.run([tower, *_simulate_argv(out, "--workers", "1")], check=True)
    assert out.read_bytes() == clean.read_bytes()
    assert [s.seq for s in read_traces(out)] == [0, 1, 2]


def test_a_run_whose_first_task_fails_leaves_no_file_and_replaces_nothing(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(TaskFailedError, match="three is bad"):
        run_tasks([Task(3, 3), Task(4, 4)], failing_at_three, out, workers=1, progress=False)
    assert not out.exists()  # no header-only file
    out.write_text("someone's notes\n")
    with pytest.raises(TaskFailedError):
        run_tasks([Task(3, 3)], failing_at_three, out, workers=1, progress=False, force=True)
    assert out.read_text() == "someone's notes\n"  # --force replaces only with results
    run_tasks([], square_record, out, workers=1, progress=False, force=True)
    assert read_done(out) == []  # an empty run: the header alone
