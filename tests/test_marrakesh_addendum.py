"""The base rulebook's addendum, "Oases & Desert Towns": each oasis and desert town is
valued in one crafted position by the text's own formula and compared with the engine.

The position: player 0 has built city gates of green, gray and yellow, has keshis of
known counts (a filled white sector, sparse ones), 2 daggers and a necklace, 4 scrolls,
9 water, 3 claimed oases, the mosque pawn on the final space, the palace pawn on step 7
(2 thresholds there, 4 on the mosque), a fisherman at the jetty after 11 river steps, and
entertainers facing known spectators.
"""

from __future__ import annotations

import pytest
from test_marrakesh_rules import blank

from tower.marrakesh.actions import GOODS, VENDOR_SECTORS
from tower.marrakesh.scoring import town_value
from tower.marrakesh.sectors import spectators
from tower.marrakesh.worth import oasis_value


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
