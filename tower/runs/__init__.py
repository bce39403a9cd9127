"""Batch execution: many independent tasks on local processes or a Dask cluster, written
incrementally to a resumable JSONL file (see :mod:`tower.runs.batch`)."""

from tower.runs.batch import Task, TaskFailedError, encode, read_done, read_records, run_tasks

__all__ = ["Task", "TaskFailedError", "encode", "read_done", "read_records", "run_tasks"]
