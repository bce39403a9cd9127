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
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tower.errors import InputFileError
from tower.pieces import KESHI_COLOURS

DEFAULT_PATH = Path(__file__).parent / "data" / "components.toml"
SCHEMA = 1

#: The effect vocabulary (see the header of the data file).
EFFECT_OPS = frozenset(
    {"gain", "points", "keshi", "resource", "river", "stair", "choose", "special"}
)
KESHI_CHOICES = frozenset(KESHI_COLOURS) | {"any", "goods", "any_each"}
TIMINGS = frozenset({"instant", "permanent", "end_of_round", "end_of_season"})


@dataclass(frozen=True)
class Components:
    """All component data, keyed by the entry's printed reference number."""

    path: str
    raw: dict[str, Any]
    scrolls: dict[int, dict[str, Any]]
    oases: dict[int, dict[str, Any]]
    desert_towns: dict[int, dict[str, Any]]
    river_tiles: dict[int, dict[str, Any]]
    exchange_offices: dict[int, dict[str, Any]]
    luxuries: dict[int, dict[str, Any]]
    provisions: dict[int, dict[str, Any]]
    #: Walls & Guards tables (``brick``, ``wg_scroll``, ``wg_river_tile``,
    #: ``wg_exchange_office``, ``wg_provision``, ``wg_alms``), merged into the game's
    #: components by :func:`tower.marrakesh.modules.walls_guards.extend` when switched on.
    walls_guards: dict[str, dict[int, dict[str, Any]]]

    def __getitem__(self, section: str) -> Any:
        return self.raw[section]


def _check_effects(path: str, field: str, effects: Any) -> None:
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
                _check_effects(path, f"{where}.options[{j}]", option)


def _entries(
    path: str, data: dict[str, Any], name: str, count: int, first: int = 1
) -> dict[int, dict[str, Any]]:
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
                _check_effects(path, f"{where}.{key}", row[key])
        for j, option in enumerate(row.get("pair", [])):
            _check_effects(path, f"{where}.pair[{j}]", option)
        out[rid] = row
    if sorted(out) != list(range(first, first + count)):
        raise InputFileError(path, f"ids must be {first}..{first + count - 1}", field=name)
    return out


def parse(path: str, data: dict[str, Any]) -> Components:
    """Check ``data`` (the parsed TOML of ``path``) and build :class:`Components`."""
    if data.get("schema") != SCHEMA:
        raise InputFileError(path, f"schema must be {SCHEMA}, got {data.get('schema')!r}")
    scrolls = _entries(path, data, "scroll", 72)
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
        _check_effects(path, f"staircase.spaces.{i}.effect", space["effect"])
    for i, eff in enumerate(data["main_square"]["spaces"]):
        _check_effects(path, f"main_square.spaces[{i}]", eff)
    for i, tile in enumerate(data["staircase_tiles"]["tiles"]):
        for side, eff in enumerate(tile):
            _check_effects(path, f"staircase_tiles.tiles[{i}][{side}]", eff)
    offices = _entries(path, data, "exchange_office", 18)
    for oid, office in offices.items():
        for goods in ("yellow", "purple", "orange"):
            _check_effects(path, f"exchange_office {oid}.{goods}", office[goods])
    wg = data["walls_guards"]
    for i, eff in enumerate(wg["wall"]["bonuses"]):
        _check_effects(path, f"walls_guards.wall.bonuses[{i}]", eff)
    for key in ("rapid_bonus", "connection_bonus", "square_bonus"):
        _check_effects(path, f"walls_guards.overlays.{key}", wg["overlays"][key])
    walls_guards = {
        "brick": _entries(path, data, "brick", 11),
        "wg_scroll": _entries(path, data, "wg_scroll", 6, first=79),
        "wg_river_tile": _entries(path, data, "wg_river_tile", 6, first=19),
        "wg_exchange_office": _entries(path, data, "wg_exchange_office", 2, first=19),
        "wg_provision": _entries(path, data, "wg_provision", 6, first=13),
        "wg_alms": _entries(path, data, "wg_alms", 2),
    }
    for sid, sc in walls_guards["wg_scroll"].items():
        if sc.get("colour") not in groups or sc.get("timing") not in TIMINGS:
            raise InputFileError(
                path, "needs a scroll colour and a timing", field=f"wg_scroll {sid}"
            )
    for oid, office in walls_guards["wg_exchange_office"].items():
        for goods in ("yellow", "purple", "orange"):
            _check_effects(path, f"wg_exchange_office {oid}.{goods}", office[goods])
    return Components(
        path=path,
        raw=data,
        scrolls=scrolls,
        oases=_entries(path, data, "oasis", 30),
        desert_towns=_entries(path, data, "desert_town", 12),
        river_tiles=_entries(path, data, "river_tile", 18),
        exchange_offices=offices,
        luxuries=_entries(path, data, "luxury", 25),
        provisions=_entries(path, data, "provision", 12),
        walls_guards=walls_guards,
    )


def _pick(d: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: d[k] for k in keys}


@cache
def load(path: str | None = None) -> Components:
    """Load and check the component file (the packaged one by default); cached per path."""
    p = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFileError(str(p), f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(str(p), f"not valid TOML: {exc}") from exc
    try:
        return parse(str(p), data)
    except (KeyError, TypeError) as exc:
        raise InputFileError(str(p), f"missing or malformed entry: {exc}") from exc
