"""Reading a module's own component file (``data/<module>.toml``).

A module whose printed components are not part of ``data/components.toml`` keeps them in a
file of its own, with the same conventions: a ``schema`` version, one table per entry with
an integer ``id`` and ``source = "rulebook"|"assumed"`` (checked with
:func:`tower.marrakesh.components.entries`), effects in the vocabulary of
``data/components.toml`` (:func:`tower.marrakesh.components.check_effects`). Errors are
:class:`tower.errors.InputFileError` naming the file and the field.

Examples
--------
>>> load("edicts.toml", 1, lambda path, data: section(path, data, "rules")["imam_step"])
12
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tower.errors import InputFileError
from tower.marrakesh import components

T = TypeVar("T")

DATA_DIR = Path(__file__).parent.parent / "data"


def load(
    name: str, schema: int, build: Callable[[str, dict[str, Any]], T], path: str | None = None
) -> T:
    """``build(path, data)`` of the file ``path`` (default ``data/<name>``), once its
    ``schema`` version is checked. Raises :class:`InputFileError` if the file cannot be
    read, is not TOML, has another schema or lacks an entry."""

    def with_schema(where: str, data: dict[str, Any]) -> T:
        if data.get("schema") != schema:
            raise InputFileError(where, f"schema must be {schema}, got {data.get('schema')!r}")
        return build(where, data)

    return components.checked(Path(path) if path is not None else DATA_DIR / name, with_schema)


def section(path: str, data: dict[str, Any], name: str) -> dict[str, Any]:
    """Table ``name``, which must exist and carry a ``source``."""
    table = data.get(name)
    if not isinstance(table, dict):
        raise InputFileError(path, "missing table", field=name)
    if table.get("source") not in ("rulebook", "assumed"):
        raise InputFileError(path, "source must be 'rulebook' or 'assumed'", field=name)
    return table
