"""The base rulebook's addendum: each scroll and river tile is the text's (its data), and
each oasis and desert town is valued in one crafted position by the text's own formula
and compared with the engine.

The position: player 0 has built city gates of green, gray and yellow, has keshis of
known counts (a filled white sector, sparse ones), 2 daggers and a necklace, 4 scrolls,
9 water, 3 claimed oases, the mosque pawn on the final space, the palace pawn on step 7
(2 thresholds there, 4 on the mosque), a fisherman at the jetty after 11 river steps, and
entertainers facing known spectators.
"""

from __future__ import annotations

import pytest
from marrakesh_checks import blank

from tower.marrakesh.actions import GOODS, VENDOR_SECTORS
from tower.marrakesh.scoring import town_value
from tower.marrakesh.sectors import spectators
from tower.marrakesh.worth import oasis_value
from tower.pieces import KESHI_COLOURS


def position():
    state = blank(2, ("desert_towns",))
    pl = state.players[0]
    comps = state.game.components
    pl.gates = ["green", "gray", "yellow", None, None, None, None, None]
    pl.keshis.update(white=8, black=2, gray=3, green=5, yellow=2, orange=1)
    pl.vendors = {"white": 1, "black": 1}
    pl.square = [True, False, True, False, False, False, False, False]
    pl.keshis["pink"] = 2
    lux = sorted(comps.luxuries)
    daggers = [x for x in lux if comps.luxuries[x]["good"] == "dagger"][:2]
    pl.luxuries = [*daggers, next(x for x in lux if comps.luxuries[x]["good"] == "necklace")]
    pl.scrolls = [1, 2, 3, 4]
    pl.water = 9
    pl.claimed = list(pl.oases[:3])
    final = comps["staircase"]["final"]
    pl.mosque, pl.palace = final, 7
    pl.jetty, pl.river_total = 0, 11
    return state, pl


def _text_oasis(state, pl, oid: int) -> int:
    """The addendum's words for oasis ``oid``, with the printed values of its tile."""
    o = state.game.components.oases[oid]
    final = state.game.components["staircase"]["final"]
    thresholds = state.game.components["staircase"]["thresholds"]
    if oid <= 4:  # "the indicated number of points for each ... city gates of the matching colors"
        return o["points"] * sum(g in o["colours"] for g in pl.gates if g)
    if oid <= 13:  # "3 points plus 1 point for each keshi of the shown color"
        c = o["colour"]
        return 3 + (len(pl.vendors) if c == "red" else pl.keshis[c])
    if oid <= 18:  # "the indicated number of points for each ... depicted luxury good"
        goods = [state.game.components.luxuries[x]["good"] for x in pl.luxuries]
        return o["points"] * goods.count(o["good"])
    if oid <= 21:  # "3 points plus 1 point for each ... resource you return (maximum 12)"
        return 3 + min(12, getattr(pl, o["resource"]))
    if oid == 22:
        return 3 + len(pl.luxuries)
    if oid == 23:
        return 3 + len(pl.scrolls)
    if oid == 24:  # "4 points for each ... sector with no more than 3 keshis" (no souk)
        return 4 * sum(pl.keshis[s] <= 3 for s in VENDOR_SECTORS)
    if oid == 25:  # "4 points for each ... completely filled sectors"
        return 4 * sum(pl.keshis[s] >= 8 and s in pl.vendors for s in VENDOR_SECTORS)
    if oid == 26:
        return 3 * len(pl.claimed)
    if oid in (27, 28):  # "7 points if you have reached the final space"
        return 7 if getattr(pl, "mosque" if oid == 27 else "palace") >= final else 0
    if oid == 29:  # "at least 5 thresholds on the mosque and the palace staircase combined"
        return (
            7
            if sum(pl.mosque >= t for t in thresholds) + sum(pl.palace >= t for t in thresholds)
            >= 5
            else 0
        )
    return 7 if pl.jetty >= 0 else 0  # 30: "reached a spot at the jetty"


@pytest.mark.parametrize("oid", range(1, 31))
def test_each_oasis_scores_as_the_addendum_says(oid):
    state, pl = position()
    assert oasis_value(state, 0, oid) == _text_oasis(state, pl, oid)


def _text_town(state, pl, tid: int) -> int:
    final = state.game.components["staircase"]["final"]
    board = sum(n for c, n in pl.keshis.items() if c not in GOODS) + len(pl.vendors)
    return {
        1: 2 * sum(g is not None for g in pl.gates),  # "2 points for each ... city gates"
        2: 2 * len(pl.luxuries),
        3: 2 * len(pl.scrolls),
        4: min(pl.palace, final),  # steps after the final space do not count
        5: min(pl.mosque, final),
        6: board // 3,  # "every 3 keshis ... do not count the goods keshis"
        7: pl.river_total,
        8: 2 * sum(pl.keshis[s] + (s in pl.vendors) >= 4 for s in VENDOR_SECTORS),
        9: sum(spectators(state, 0, i) for i in range(8) if pl.square[i]),
    }.get(tid, 0)  # 10-12: "not scored at the end of the game"


@pytest.mark.parametrize("tid", range(1, 13))
def test_each_desert_town_scores_as_the_addendum_says(tid):
    state, pl = position()
    assert town_value(state, 0, tid) == _text_town(state, pl, tid)


def _k(*colours: str) -> list[dict]:
    return [{"op": "keshi", "colour": c, "n": 1} for c in colours]


def _sp(name: str, **kw) -> list[dict]:
    return [{"op": "special", "name": name, **kw}]


#: The addendum's scrolls: id -> what the text says, as the data encodes it: an instant
#: effect list, or the name of the permanent enhancement (and its value).
SCROLLS: dict[int, object] = {
    **{i + 1: _k(c) for i, c in enumerate(KESHI_COLOURS)},  # 01-12 "the depicted keshi"
    13: ("threshold_bonus", [{"op": "gain", "water": 1}]),
    14: ("threshold_bonus", [{"op": "gain", "dates": 1}]),
    15: ("threshold_bonus", [{"op": "gain", "dinars": 1}]),
    16: ("threshold_bonus", [{"op": "river", "n": 1}]),
    17: ("rapid_crossing_bonus", None),
    18: ("exchange_extra", [{"op": "resource", "n": 1}]),
    19: [{"op": "gain", "water": 2}],
    20: [{"op": "gain", "dinars": 2}],
    21: [{"op": "gain", "dates": 3}],
    22: ("free_gate_no_loss", None),
    23: ("orchard_alternative", [{"op": "gain", "water": 1}]),
    24: ("orchard_alternative", [{"op": "gain", "dinars": 1}]),
    25: ("orchard_alternative", [{"op": "points", "n": 1}]),
    26: ("stair_buy_steps", "dates"),
    27: ("stair_buy_steps", "water"),
    28: _sp("each_rapid_bonus"),
    29: ("square_points_space", None),
    30: [{"op": "keshi", "colour": "any", "n": 1}],
    31: ("extra_spectator", None),
    32: ("gate_discount", None),
    33: ("dinars_substitute", None),
    34: ("souk_many_luxuries", None),
    35: ("vendor_double_water", None),
    36: ("gate_any_keshi", None),
    37: _k("yellow", "yellow"),
    38: _k("purple", "purple"),
    39: _k("orange", "orange"),
    40: _k("yellow", "purple"),
    41: _k("yellow", "orange"),
    42: _k("purple", "orange"),
    43: [{"op": "keshi", "colour": "any_each", "n": 2}],
    44: ("provision_any_resource", None),
    45: ("oasis_one_resource", None),
    46: ("souk_many_exchanges", None),
    47: _sp("square_spectators", facing=3, times=3),
    48: ("stair_extra_step", None),
    49: ("mosque_top_double", None),
    50: ("vendor_points", None),
    51: ("square_ones", None),
    52: ("palace_top_double", None),
    53: _sp("sector_action"),
    54: ("square_neighbours", None),
    55: _sp("both_stairs", n=3),
    56: ("jetty_double", None),
    57: [*_sp("souk_vendor"), {"op": "gain", "water": 3}],
    58: _sp("take_scroll", scholars=7, dates=1),
    59: _sp("connection_all"),
    60: ("rapid_double", None),
    61: ("claim_two_any", None),
    62: _sp("claim_oases_free", n=3),
    63: ("connection_two", None),
    64: _sp("keshi_then_action"),
    65: ("square_twice", None),
    66: ("gate_two_keshis", None),
    67: [{"op": "keshi", "colour": "any_each", "n": 3}],
    68: ("discover_scores", None),
    69: ("river_bonus_all", None),
    70: _sp("square_all"),
    71: _sp("score_oasis"),
    72: _sp("resources_for_points", points=2),
}
#: "01-21: Need 1 scholar & pay 1 date", 22-42: 3 and 1, 43-60: 5 and 2, 61-72: 7 and 3.
COSTS = [(21, 1, 1, "gray"), (42, 3, 1, "yellow"), (60, 5, 2, "pink"), (72, 7, 3, "orange")]


@pytest.mark.parametrize("sid", range(1, 73))
def test_each_scroll_is_the_addendums(sid):
    """Addendum, "Scrolls": requirement, date cost, colour and what each scroll does."""
    entry = blank(2).game.components.scrolls[sid]
    scholars, dates, colour = next(c[1:] for c in COSTS if sid <= c[0])
    assert (entry["scholars"], entry["dates"], entry["colour"]) == (scholars, dates, colour)
    said = SCROLLS[sid]
    if isinstance(said, tuple):
        assert entry.get("modifier") == said[0] and entry.get("value") == said[1]
    else:
        assert entry.get("effect") == said and entry["timing"] in ("instant", "end_of_season")


def _pc(count: str, **gains: int) -> list[dict]:
    return _sp("per_count", count=count, **gains)


#: The addendum's river tiles 01-17 (18 is cut off in the text): season and bonuses.
RIVER = {
    1: (1, _sp("sector_action"), None),
    2: (1, _sp("claim_leftover_oasis"), None),
    3: (2, [{"op": "keshi", "colour": "any_each", "n": 2}], None),
    4: (2, [{"op": "points", "n": 5}], None),
    5: (3, [{"op": "points", "n": 7}], [{"op": "points", "n": 3}]),
    6: (3, [{"op": "resource", "n": 6}], [{"op": "resource", "n": 3}]),
    7: (1, _k("red"), None),
    8: (1, [{"op": "points", "n": 3}], None),
    9: (2, _sp("crocodile"), None),
    10: (2, _k("yellow", "purple", "orange"), None),
    11: (
        3,
        [{"op": "stair", "which": "either", "n": 3}],
        [{"op": "stair", "which": "either", "n": 1}],
    ),
    12: (3, "pair", [_pc("gates", points=1), _pc("green", points=1)]),
    13: (1, [{"op": "choose", "options": [_k("pink"), _k("brown"), _k("beige")]}], None),
    14: (1, [{"op": "gain", "water": 1, "dinars": 1, "dates": 1}], None),
    15: (2, _sp("claim_oases_free", n=2), None),
    16: (2, _sp("square_actions", n=2), None),
    17: (3, "pair", [_pc("pink", dates=1, dinars=1), _pc("red", water=1, dates=1)]),
}


@pytest.mark.parametrize("tile", sorted(RIVER))
def test_each_river_tile_is_the_addendums(tile):
    """Addendum, "River Tiles": the season (3 per season) and the bonus of each tile; in
    the third season a second place, or a pair of bonuses the first chooses between."""
    entry = blank(2).game.components.river_tiles[tile]
    season, first, second = RIVER[tile]
    assert entry["season"] == season
    if first == "pair":
        assert entry["pair"] == second
    else:
        assert entry["first"] == first and entry.get("second") == second
