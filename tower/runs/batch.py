"""Resumable batch runs: many independent tasks, one JSON line per finished task.

:func:`run_tasks` runs ``fn(task.args)`` for every :class:`Task` and appends each result, a
JSON object carrying the task's key in ``key_field``, as one line of a JSONL file. Lines are
written in task order (results that finish early wait in memory for their predecessors),
flushed and fsynced one by one. The file starts with a run header (the command and the
settings that determine every record, :func:`tower.files.outputs.run_header`): a restart
resumes only a file with the same header (else :class:`~tower.files.outputs.OutputError`,
unless ``force``), skips the keys already in it, and removes a last line cut short by a
kill; an interrupted run completed by a second run therefore yields the same file, byte
for byte, as one uninterrupted run. A new file is written (or a file replaced under
``force``) only when the first result is ready, so a run whose first task fails leaves no
header-only file behind and the file it would replace untouched.

Work runs in this process (``workers=1``), on a local
:class:`concurrent.futures.ProcessPoolExecutor` (default), or on a Dask cluster when
``scheduler`` is given (an address such as ``"tcp://10.0.0.5:8786"`` or a
``distributed.Client``). ``fn`` and the task arguments must be picklable (a module-level
function and plain data).

Examples
--------
>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp()) / "squares.jsonl"
>>> tasks = [Task(k, k) for k in range(4)]
>>> head = run_header("squares", {})
>>> run_tasks(tasks, square_record, out, header=head, workers=1, progress=False)
{'done': 4, 'skipped': 0, 'path': ...}
>>> run_tasks(tasks, square_record, out, header=head, workers=1, progress=False)["skipped"]
4
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tower.errors import InputFileError, TowerError
from tower.files.outputs import claim_resumable, is_header, run_header, write_text

#: A task key: a JSON scalar, unique within a batch.
Key = str | int


@dataclass(frozen=True)
class Task:
    """One unit of work: a unique ``key`` and the argument passed to the task function."""

    key: Key
    args: Any


class TaskFailedError(TowerError):
    """A task raised; the results finished before it are kept in the output file."""

    def __init__(self, key: Key, error: BaseException):
        self.key = key
        self.error = error
        super().__init__(f"task {key!r} failed: {type(error).__name__}: {error}")


def square_record(k: int) -> dict[str, int]:
    """A tiny task function for examples and tests: ``{"key": k, "square": k * k}``."""
    return {"key": k, "square": k * k}


def encode(record: dict[str, Any]) -> str:
    """The canonical one-line JSON of a record (sorted keys, no spaces), with newline."""
    return json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"


def read_done(path: str | Path, key_field: str = "key", *, repair: bool = False) -> list[Key]:
    """Keys of the complete records in a result file, in file order (header skipped).

    A last line without its newline, or that is not valid JSON, is what a kill mid-write
    leaves; with ``repair=True`` (only for a file whose header :func:`run_tasks` has
    claimed) the file is truncated to its last complete line, otherwise that line is
    ignored. Any other bad line raises :class:`InputFileError`.
    """
    path = Path(path)
    if not path.exists():
        return []
    data = path.read_bytes()
    keys: list[Key] = []
    seen: set[Key] = set()
    good_end = 0
    lines = data.split(b"\n")
    # Every complete line ends with a newline, so the last element is b"" for an intact
    # file; anything else there is a torn write.
    for lineno, raw in enumerate(lines[:-1], start=1):
        try:
            record = json.loads(raw)
        except ValueError:
            raise InputFileError(str(path), "not a JSON line", line=lineno) from None
        if lineno == 1 and is_header(record):
            good_end += len(raw) + 1
            continue
        if not isinstance(record, dict) or key_field not in record:
            raise InputFileError(str(path), "record has no key", line=lineno, field=key_field)
        key = record[key_field]
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise InputFileError(
                str(path), f"key must be a string or integer, got {key!r:.40}", line=lineno,
                field=key_field,
            )  # fmt: skip
        if key in seen:
            raise InputFileError(str(path), f"duplicate key {key!r}", line=lineno, field=key_field)
        seen.add(key)
        keys.append(key)
        good_end += len(raw) + 1
    if repair and good_end < len(data):
        with path.open("r+b") as fh:
            fh.truncate(good_end)
            fh.flush()
            os.fsync(fh.fileno())
    return keys


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The complete records of a result file, in file order, header and torn line skipped."""
    from tower.files.inputs import read_bytes

    records = []
    for lineno, raw in enumerate(read_bytes(path).split(b"\n")[:-1], start=1):
        try:
            record = json.loads(raw)
        except ValueError:
            raise InputFileError(str(path), "not a JSON line", line=lineno) from None
        if not (lineno == 1 and is_header(record)):
            records.append(record)
    return records


def _serial(fn: Callable[[Any], dict], todo: Sequence[Task]) -> Iterator[tuple[int, Any]]:
    for i, task in enumerate(todo):
        try:
            yield i, fn(task.args)
        except Exception as exc:
            raise TaskFailedError(task.key, exc) from exc


def _pooled(submit: Callable, todo: Sequence[Task], cancel: Callable) -> Iterator[tuple[int, Any]]:
    futures = {submit(task): i for i, task in enumerate(todo)}
    pending = set(futures)
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=futures.__getitem__):
                i = futures[fut]
                exc = fut.exception()
                if exc is not None:
                    raise TaskFailedError(todo[i].key, exc) from exc
                yield i, fut.result()
    finally:
        cancel(pending)


def _dask(scheduler: Any, fn: Callable, todo: Sequence[Task]) -> Iterator[tuple[int, Any]]:
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(fn, task.args, pure=False): i for i, task in enumerate(todo)}
        for fut in as_completed(list(futures)):
            i = futures[fut]
            if fut.status == "error":
                exc = fut.exception()
                for other in futures:
                    other.cancel()
                raise TaskFailedError(todo[i].key, exc) from exc
            yield i, fut.result()
    finally:
        if client is not scheduler:
            client.close()


def run_tasks(
    tasks: Sequence[Task],
    fn: Callable[[Any], dict[str, Any]],
    out_path: str | Path,
    *,
    scheduler: Any = None,
    workers: int | None = None,
    progress: bool = True,
    key_field: str = "key",
    desc: str = "tasks",
    header: dict[str, Any] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Run every task not yet in ``out_path`` and append its result there, in task order.

    Parameters
    ----------
    tasks : sequence of Task
        Keys must be unique.
    fn : callable
        ``fn(task.args) -> dict``, JSON-serialisable, with ``record[key_field] == task.key``.
    out_path : path
        JSONL result file; created if missing, resumed if present.
    scheduler : str or distributed.Client, optional
        Run on this Dask cluster instead of local processes.
    workers : int, optional
        Local processes (default: all cores); ``1`` runs in this process.
    progress : bool
        Show a tqdm progress bar.
    key_field : str
        Name of the field holding the key in each record.
    header : dict, optional
        The run header (:func:`tower.files.outputs.run_header`) the file starts with;
        default: one naming only ``desc``.
    force : bool
        Replace an existing file that is not this run's (another header or none).

    Returns
    -------
    dict
        ``{"done": new results written, "skipped": already present, "path": str}``.

    Raises
    ------
    TaskFailedError
        When a task raises; results finished before it in task order are kept.
    """
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1}, key=str)
        raise ValueError(f"task keys must be unique; repeated: {dup[:5]}")
    out_path = Path(out_path)
    header = header if header is not None else run_header(desc, {})
    resume = claim_resumable(out_path, header, force=force)
    done = set(read_done(out_path, key_field, repair=True)) if resume else set()
    todo = [t for t in tasks if t.key not in done]
    skipped = len(tasks) - len(todo)
    if not todo:
        if not resume:
            write_text(out_path, encode(header), checked=True)
        return {"done": 0, "skipped": skipped, "path": str(out_path)}

    from tqdm import tqdm

    bar = tqdm(total=len(tasks), initial=skipped, desc=desc, disable=not progress, unit="task")
    waiting: dict[int, dict[str, Any]] = {}
    next_i = 0
    written = 0
    pool: ProcessPoolExecutor | None = None
    if scheduler is not None:
        results = _dask(scheduler, fn, todo)
    elif workers == 1:
        results = _serial(fn, todo)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = _pooled(
            lambda task: pool.submit(fn, task.args),
            todo,
            lambda pending: [f.cancel() for f in pending],
        )
    fh = None
    try:
        for i, record in results:
            if not isinstance(record, dict) or record.get(key_field) != todo[i].key:
                raise TaskFailedError(
                    todo[i].key,
                    ValueError(f"result must be a dict with {key_field}={todo[i].key!r}"),
                )
            waiting[i] = record
            bar.update(1)
            while next_i in waiting:
                if fh is None:  # a new file starts with the first result, never before
                    if not resume:
                        write_text(out_path, encode(header), checked=True)
                    fh = out_path.open("a", encoding="utf-8")
                fh.write(encode(waiting.pop(next_i)))
                fh.flush()
                os.fsync(fh.fileno())
                next_i += 1
                written += 1
    finally:
        if fh is not None:
            fh.close()
        bar.close()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return {"done": written, "skipped": skipped, "path": str(out_path)}
