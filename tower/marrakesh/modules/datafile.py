"""Reading a module's own component data file (``tower/marrakesh/data/<module>.toml``).

A module file has the same form as ``components.toml``: ``schema = 1``, tables and arrays
of tables whose entries carry ``source = "rulebook"|"assumed"`` and effect lists in the
vocabulary of :mod:`tower.marrakesh.effects`. :func:`read` checks the schema, the
provenance, the ids and every effect list, and raises
:class:`tower.errors.InputFileError` naming the file and the field.

Examples
--------
>>> data = read(DATA / "chess.toml", entries={"chess_set": (5, 26)})
>>> sorted(data["chess_set"])
[26, 27, 28, 29, 30]
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tower.errors import InputFileError
from tower.marrakesh.components import SCHEMA
from tower.marrakesh.components import entries as read_entries
from tower.pieces import KESHI_COLOURS

DATA = Path(__file__).parents[1] / "data"


def read(path: Path, entries: dict[str, tuple[int, int]]) -> dict[str, Any]:
    """The checked data of ``path``: its tables as they are, and each array of tables named
    in ``entries`` (name -> (count, first id)) as a dict keyed by id."""
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(where, f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(where, f"not valid TOML: {exc}") from exc
    if data.get("schema") != SCHEMA:
        raise InputFileError(where, f"schema must be {SCHEMA}, got {data.get('schema')!r}")
    for name, table in data.items():
        if isinstance(table, dict) and table.get("source") not in ("rulebook", "assumed"):
            raise InputFileError(where, "source must be 'rulebook' or 'assumed'", field=name)
    out = dict(data)
    for name, (count, first) in entries.items():
        out[name] = read_entries(where, data, name, count, first)  # checks their effect lists
    return out


def check_colours(path: Path, field: str, colours: Any) -> None:
    """Raise :class:`InputFileError` unless ``colours`` is a keshi colour or a list of them."""
    names = [colours] if isinstance(colours, str) else colours
    if not isinstance(names, list) or not names or not set(names) <= set(KESHI_COLOURS):
        raise InputFileError(
            str(path), f"{colours!r} is not a keshi colour (or a list of them)", field=field
        )
