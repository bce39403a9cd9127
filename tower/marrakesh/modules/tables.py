"""Reading a module's own component file (``data/<module>.toml``).

A module whose printed components are not part of ``data/components.toml`` keeps them in a
file of its own, with the same conventions: a ``schema`` version, one table per entry with
an integer ``id`` and ``source = "rulebook"|"assumed"`` (checked with
:func:`tower.marrakesh.components.entries`), effects in the vocabulary of
``data/components.toml`` (:func:`tower.marrakesh.components.check_effects`). Errors are
:class:`tower.errors.InputFileError` naming the file and the field.

Examples
--------
>>> data, path = read("edicts.toml", schema=1)
>>> section(path, data, "rules")["imam_step"]
12
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tower.errors import InputFileError

DATA_DIR = Path(__file__).parent.parent / "data"


def read(name: str, schema: int, path: str | None = None) -> tuple[dict[str, Any], str]:
    """The parsed TOML of ``path`` (default ``data/<name>``) and the path read.

    Raises :class:`InputFileError` if the file cannot be read, is not TOML or has another
    schema version.
    """
    p = Path(path) if path is not None else DATA_DIR / name
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(str(p), f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(str(p), f"not valid TOML: {exc}") from exc
    if data.get("schema") != schema:
        raise InputFileError(str(p), f"schema must be {schema}, got {data.get('schema')!r}")
    return data, str(p)


def section(path: str, data: dict[str, Any], name: str) -> dict[str, Any]:
    """Table ``name``, which must exist and carry a ``source``."""
    table = data.get(name)
    if not isinstance(table, dict):
        raise InputFileError(path, "missing table", field=name)
    if table.get("source") not in ("rulebook", "assumed"):
        raise InputFileError(path, "source must be 'rulebook' or 'assumed'", field=name)
    return table
