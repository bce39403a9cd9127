"""The component data file: counts from the rulebook, provenance on every entry, effects
in the executor's vocabulary, and clear errors for a broken file."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from typing import Any

import pytest

from tower.errors import InputFileError
from tower.marrakesh import Game, GameConfig
from tower.marrakesh.components import DEFAULT_PATH, load, parse
from tower.marrakesh.rules import known


def test_counts_match_the_rulebook():
    c = load()
    assert (len(c.scrolls), len(c.oases), len(c.desert_towns), len(c.river_tiles)) == (
        72,
        30,
        12,
        18,
    )
    assert len(c.luxuries) == 25 and len(c.provisions) == 12
    assert sum(not o["expansion"] for o in c.exchange_offices.values()) == 12
    assert sum(o["expansion"] for o in c.exchange_offices.values()) == 6
    assert sum(c["city_gates"]["counts"].values()) == 32
    colours = [s["colour"] for s in c.scrolls.values()]
    assert [colours.count(k) for k in ("gray", "yellow", "pink", "orange")] == [21, 21, 18, 12]
    assert len(c["staircase_tiles"]["tiles"]) == 20
    assert sum(v["coverable"] for v in c["staircase"]["spaces"].values()) == 12
    goods = [x["good"] for x in c.luxuries.values()]
    assert sorted(set(goods)) == ["dagger", "necklace", "oil_lamp", "slipper", "tajine"]
    assert all(goods.count(g) == 5 for g in set(goods))


def test_every_entry_says_where_its_values_come_from():
    c = load()
    for table in (
        c.scrolls,
        c.oases,
        c.desert_towns,
        c.river_tiles,
        c.exchange_offices,
        c.luxuries,
        c.provisions,
    ):
        assert all(e["source"] in ("rulebook", "assumed") for e in table.values())
    for section in (
        "river",
        "staircase",
        "main_square",
        "audience_disc",
        "sahara",
        "medina",
        "staircase_tiles",
    ):
        assert c[section]["source"] == "assumed", section
    assert all(p["penalty"] == 4 for p in c.provisions.values())  # 4 / 8 / 12 (German summary)


def engine_source(*packages: str) -> str:
    """The source of the engine's own files and of its sub-packages ``packages``."""
    engine = DEFAULT_PATH.parent.parent
    files = [*engine.glob("*.py"), *(p for d in packages for p in engine.glob(f"{d}/*.py"))]
    return "".join(p.read_text() for p in files)


def specials_named(effects: list[dict[str, Any]]) -> set[str]:
    """The specials an effect list names, those of a ``choose``'s options included."""
    names = set()
    for e in effects:
        if e["op"] == "special":
            names.add(e["name"])
        for option in e.get("options", []):
            names |= specials_named(option)
    return names


def named_rules(tables: Iterable[dict[int, dict[str, Any]]]) -> tuple[set[str], set[str]]:
    """The specials and the modifiers that the entries of ``tables`` name (in their
    ``effect``, ``first``, ``second`` and ``pair`` effects)."""
    names, mods = set(), set()
    for table in tables:
        for e in table.values():
            for effects in [
                *(e.get(k, []) for k in ("effect", "first", "second")),
                *e.get("pair", []),
            ]:
                names |= specials_named(effects)
            if "modifier" in e:
                mods.add(e["modifier"])
    return names, mods


def test_every_named_rule_exists():
    c = Game().components
    names, mods = named_rules((c.scrolls, c.desert_towns, c.river_tiles))
    assert names <= set(known().specials)
    # Every modifier a scroll names is read somewhere in the engine.
    source = engine_source("sectors")
    assert len(mods) == 30
    assert [m for m in sorted(mods) if f'"{m}"' not in source] == []
    assert {"connection", "madrasa", "medina", "sahara", "souk", "square_space"} <= set(
        known().resolve
    )


def test_broken_files_name_the_field(tmp_path):
    data = tomllib.loads(DEFAULT_PATH.read_text())
    data["scroll"] = data["scroll"][:-1]
    with pytest.raises(InputFileError, match="field scroll: expected 72 entries, found 71"):
        parse("x.toml", data)
    data = tomllib.loads(DEFAULT_PATH.read_text())
    data["oasis"][4]["source"] = "guess"
    with pytest.raises(InputFileError, match=r"field oasis\[4\]: source must be"):
        parse("x.toml", data)
    data = tomllib.loads(DEFAULT_PATH.read_text())
    data["scroll"][18]["effect"] = [{"op": "teleport"}]
    with pytest.raises(InputFileError, match=r"scroll\[18\].effect\[0\]: unknown effect"):
        parse("x.toml", data)
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = [\n")
    with pytest.raises(InputFileError, match=r"bad\.toml: not valid TOML"):
        load(str(bad))


def test_walls_guards_data_names_existing_rules_and_says_where_it_comes_from():
    c = Game(GameConfig(modules=frozenset({"walls_guards"}))).components
    wg = c.tables
    assert [len(wg[k]) for k in ("brick", "wg_scroll", "wg_river_tile")] == [11, 6, 6]
    assert [len(wg[k]) for k in ("wg_exchange_office", "wg_provision", "wg_alms")] == [2, 6, 2]
    assert all(e["source"] in ("rulebook", "assumed") for t in wg.values() for e in t.values())
    names, mods = named_rules((wg["wg_scroll"], wg["wg_river_tile"], wg["wg_provision"]))
    for brick in wg["brick"].values():
        names |= specials_named(brick["brown"] + brick["green"])
    for bonus in c["walls_guards"]["wall"]["bonuses"]:
        names |= specials_named(bonus)
    assert names and names <= set(known().specials)
    source = engine_source("sectors", "modules")
    assert [m for m in sorted(mods) if f'"{m}"' not in source] == []


def test_broken_walls_guards_entries_name_the_field():
    data = tomllib.loads(DEFAULT_PATH.read_text())
    data["brick"][0]["green"] = [{"op": "teleport"}]
    with pytest.raises(InputFileError, match=r"brick\[0\].green\[0\]: unknown effect"):
        parse("x.toml", data)
    data = tomllib.loads(DEFAULT_PATH.read_text())
    data["wg_scroll"][2]["id"] = 12
    with pytest.raises(InputFileError, match=r"field wg_scroll: ids must be 79..84"):
        parse("x.toml", data)
