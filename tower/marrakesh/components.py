"""Loading and checking the component data file ``data/components.toml``.

The file is the one place where printed values live; every entry says whether its value
comes from the rulebook or is assumed. :func:`load` checks the schema and every effect,
and raises :class:`tower.errors.InputFileError` naming the file and the field.

Examples
--------
>>> c = load()
>>> len(c.scrolls), len(c.oases), len(c.desert_towns), len(c.river_tiles)
(72, 30, 12, 18)
>>> c.scrolls[58]["scholars"], c.scrolls[58]["dates"], c.scrolls[58]["colour"]
(5, 2, 'pink')
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from tower.errors import InputFileError
from tower.marrakesh.component_data import Components
from tower.marrakesh.hooks import REGISTRY
from tower.pieces import KESHI_COLOURS

DEFAULT_PATH = Path(__file__).parent / "data" / "components.toml"
SCHEMA = 1
T = TypeVar("T")

#: The effect vocabulary (see the header of the data file).
EFFECT_OPS = frozenset(
    {"gain", "points", "keshi", "resource", "river", "stair", "choose", "special"}
)
KESHI_CHOICES = frozenset(KESHI_COLOURS) | {"any", "goods", "any_each"}
TIMINGS = frozenset({"instant", "permanent", "end_of_round", "end_of_season"})


def check_effects(path: str, field: str, effects: Any) -> None:
    """Raise :class:`InputFileError` naming ``field`` if ``effects`` is not an effect list
    of the vocabulary."""
    if not isinstance(effects, list):
        raise InputFileError(path, "an effect list must be an array of tables", field=field)
    for i, e in enumerate(effects):
        where = f"{field}[{i}]"
        if not isinstance(e, dict) or e.get("op") not in EFFECT_OPS:
            raise InputFileError(
                path, f"unknown effect {e!r}; ops are {sorted(EFFECT_OPS)}", field=where
            )
        if e["op"] == "keshi" and e.get("colour") not in KESHI_CHOICES:
            raise InputFileError(path, f"unknown keshi colour {e.get('colour')!r}", field=where)
        if e["op"] == "choose":
            for j, option in enumerate(e.get("options", [])):
                check_effects(path, f"{where}.options[{j}]", option)


def entries(
    path: str, data: dict[str, Any], name: str, count: int, first: int = 1
) -> dict[int, dict[str, Any]]:
    """The ``count`` entries of array ``name``, keyed by their ids ``first...``; checks
    their ``source``, their ids and their effect lists."""
    rows = data.get(name)
    if not isinstance(rows, list) or len(rows) != count:
        got = len(rows) if isinstance(rows, list) else 0
        raise InputFileError(path, f"expected {count} entries, found {got}", field=name)
    out: dict[int, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        where = f"{name}[{i}]"
        if row.get("source") not in ("rulebook", "assumed"):
            raise InputFileError(path, "source must be 'rulebook' or 'assumed'", field=where)
        rid = row.get("id")
        if not isinstance(rid, int) or rid in out:
            raise InputFileError(path, f"missing or repeated id {rid!r}", field=where)
        for key in ("effect", "first", "second", "reward", "value", "brown", "green"):
            if key in row and isinstance(row[key], list) and key != "value":
                check_effects(path, f"{where}.{key}", row[key])
        for j, option in enumerate(row.get("pair", [])):
            check_effects(path, f"{where}.pair[{j}]", option)
        out[rid] = row
    if sorted(out) != list(range(first, first + count)):
        raise InputFileError(path, f"ids must be {first}..{first + count - 1}", field=name)
    return out


def parse(path: str, data: dict[str, Any]) -> Components:
    """Check ``data`` (the parsed TOML of ``path``) and build :class:`Components`."""
    if data.get("schema") != SCHEMA:
        raise InputFileError(path, f"schema must be {SCHEMA}, got {data.get('schema')!r}")
    scrolls = entries(path, data, "scroll", 72)
    groups = data["scroll_groups"]
    for colour, g in groups.items():
        if colour == "source":
            continue
        for sid in range(g["first"], g["last"] + 1):
            scrolls[sid] = {**scrolls[sid], "colour": colour, **_pick(g, "scholars", "dates")}
    for sid, s in scrolls.items():
        if s.get("timing") not in TIMINGS:
            raise InputFileError(path, f"unknown timing {s.get('timing')!r}", field=f"scroll {sid}")
        if "colour" not in s:
            raise InputFileError(path, "not covered by scroll_groups", field=f"scroll {sid}")
    for i, space in data["staircase"]["spaces"].items():
        check_effects(path, f"staircase.spaces.{i}.effect", space["effect"])
    for i, eff in enumerate(data["main_square"]["spaces"]):
        check_effects(path, f"main_square.spaces[{i}]", eff)
    offices = entries(path, data, "exchange_office", 18)
    for oid, office in offices.items():
        for goods in ("yellow", "purple", "orange"):
            check_effects(path, f"exchange_office {oid}.{goods}", office[goods])
    tables: dict[str, dict[int, dict[str, Any]]] = {}
    for module in REGISTRY.values():
        tables.update(module.read_tables(path, data))
    return Components(
        path=path,
        raw=data,
        scrolls=scrolls,
        oases=entries(path, data, "oasis", 30),
        desert_towns=entries(path, data, "desert_town", 12),
        river_tiles=entries(path, data, "river_tile", 18),
        exchange_offices=offices,
        luxuries=entries(path, data, "luxury", 25),
        provisions=entries(path, data, "provision", 12),
        tables=tables,
    )


def _pick(d: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: d[k] for k in keys}


def load(path: str | None = None) -> Components:
    """Load and check the component file (the packaged one by default); cached per path
    (and per set of registered modules, which read their own tables)."""
    return _load(path, tuple(REGISTRY))


@cache
def _load(path: str | None, modules: tuple[str, ...]) -> Components:
    p = Path(path) if path is not None else DEFAULT_PATH
    return checked(p, parse)


def checked(path: Path, build: Callable[[str, dict[str, Any]], T]) -> T:
    """``build(path, data)`` of the TOML file ``path``; a file that cannot be read, is not
    TOML or lacks an entry ``build`` looks up raises :class:`InputFileError`."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(str(path), f"not valid TOML: {exc}") from exc
    try:
        return build(str(path), data)
    except (KeyError, TypeError) as exc:
        raise InputFileError(str(path), f"missing or malformed entry: {exc}") from exc
