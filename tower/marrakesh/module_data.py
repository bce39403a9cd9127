"""Reading a module's own component data file (``tower/marrakesh/data/<module>.toml``).

A module whose printed components are not part of ``data/components.toml`` keeps them in a
file of its own, of the same form: ``schema = 1``, tables and arrays of tables whose
entries carry ``source = "rulebook"|"assumed"`` and effect lists in the vocabulary of
:mod:`tower.marrakesh.effects`. :func:`read` checks the schema, the provenance, the ids and
every effect list; :func:`load` hands the file to the module's own builder once its schema
is checked, and :func:`section` fetches a table that must exist. Errors are
:class:`tower.errors.InputFileError` naming the file and the field.

Examples
--------
>>> data = read(DATA / "chess.toml", entries={"chess_set": (5, 26)})
>>> sorted(data["chess_set"])
[26, 27, 28, 29, 30]
>>> load("edicts.toml", 1, lambda path, data: section(path, data, "rules")["imam_step"])
12
"""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tower.errors import InputFileError
from tower.marrakesh import components
from tower.marrakesh.components import SCHEMA
from tower.marrakesh.components import entries as read_entries
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.component_data import Components

T = TypeVar("T")

DATA = Path(__file__).parent / "data"


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


def mix_in(
    comps: Components, scrolls: dict[int, Any], oases: dict[int, Any], **raw: Any
) -> Components:
    """``comps`` with a module's new ``scrolls`` (each priced by its ``colour``'s scroll
    group: scholars and dates) and ``oases`` mixed in, and ``raw`` tables added."""
    groups = comps.raw["scroll_groups"]
    priced = {
        sid: {**sc, **{k: groups[sc["colour"]][k] for k in ("scholars", "dates")}}
        for sid, sc in scrolls.items()
    }
    return dataclasses.replace(
        comps,
        raw={**comps.raw, **raw},
        scrolls={**comps.scrolls, **priced},
        oases={**comps.oases, **copy.deepcopy(oases)},
    )


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

    return components.checked(Path(path) if path is not None else DATA / name, with_schema)


def section(path: str, data: dict[str, Any], name: str) -> dict[str, Any]:
    """Table ``name``, which must exist and carry a ``source``."""
    table = data.get(name)
    if not isinstance(table, dict):
        raise InputFileError(path, "missing table", field=name)
    if table.get("source") not in ("rulebook", "assumed"):
        raise InputFileError(path, "source must be 'rulebook' or 'assumed'", field=name)
    return table
