"""Gems & Experts, The Closed Madrasa: no scroll tiles; 12 scrolls printed on the Madrasa
board (4 double-sided pieces, one per scroll colour), used with the scholars and dates of
a base-game scroll, each at most once per turn, a marker per area blocking the scroll last
used there.

Rulebook: *Gems & Experts* ("The Closed Madrasa"). What the
module changes:

- components: oasis 23 and desert towns 03 and 10 are sorted out; the printed scrolls are
  the ``[[madrasa_scroll]]`` table (24: 3 per side of each piece), the keshi tiles and the
  markers' start spaces ``[madrasa_layout]``. Each piece shows side A unless the
  components say otherwise (:func:`with_sides`: ``"AAAA"``, ``"BBBB"`` or any mix);
- setup: the scroll stacks stay empty; a marker on each area's start space; the keshi
  tiles on their scrolls (``state.ext["closed_madrasa"]``: ``markers``, ``tiles``,
  ``used`` this turn; each player's ``reserved`` provision resources and ``uses`` of
  scroll 14 this season in ``players[i].ext["closed_madrasa"]``);
- the Madrasa's sector action (decision ``madrasa_use``): ``scroll:<colour><slot>``
  uses a free scroll (no marker on it, not used this turn, enough scholars left of the
  sector's gray keshis, its dates paid), moves the area's marker onto it and carries out
  its effect; ``pass`` ends the action;
- the oasis track's scroll icon (the core decision ``track_scroll``, redirected to
  ``madrasa_track``; also Walls & Guards' brick 05): one of the two free yellow scrolls,
  without dates or scholars, then the marker moves;
- scroll 14's reserved resources go to the provisions at season scoring (step
  ``madrasa_provisions``).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2, modules=frozenset({"closed_madrasa"}))).new_initial_state(0)
>>> board(s), s.ext["closed_madrasa"]["markers"]
([[1, 2, 3], [7, 8, 9], [13, 14, 15], [19, 20, 21]], [2, 2, 2, 2])
>>> 23 in s.game.components.oases, sorted(set(range(1, 13)) - set(s.game.components.desert_towns))
(False, [3, 10])
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError, TowerError
from tower.marrakesh.actions import (
    COLOUR_INDEX,
    RESOURCES,
    SCROLL_COLOURS,
    Action,
    action_id,
    action_ids,
    ordinal,
)
from tower.marrakesh.components import Components, check_effects, entries
from tower.marrakesh.effects import SPECIALS, Effect, run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.labels import amount, describe_effects, effects_label, oasis_text
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    order,
    push,
    score,
)
from tower.marrakesh.scoring import provision_cost
from tower.marrakesh.sectors import buy_gate, discount, spectators
from tower.marrakesh.worth import oasis_value
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "closed_madrasa"
PASS = action_id("pass")
POOLS = ("single", "double_goods", "double")


class MadrasaSidesError(TowerError, ValueError):
    """A Madrasa board that is not 4 pieces each showing side A or B."""


def with_sides(comps: Components, sides: str) -> Components:
    """The components with the Madrasa pieces (gray, yellow, pink, orange) showing
    ``sides``, e.g. ``"ABBA"``.

    >>> from tower.marrakesh.components import load
    >>> with_sides(load(), "ABBA")["madrasa"]["sides"]
    ['A', 'B', 'B', 'A']
    """
    if len(sides) != 4 or set(sides) - {"A", "B"}:
        raise MadrasaSidesError(f"madrasa sides must be 4 letters A or B, not {sides!r}")
    raw = copy.deepcopy(comps.raw)
    raw["madrasa"]["sides"] = list(sides)
    return dataclasses.replace(comps, raw=raw)


# -- the board --------------------------------------------------------------------------
def _cfg(state: State) -> dict[str, Any]:
    return state.game.components.raw["madrasa"]


def board(state: State) -> list[list[int]]:
    """The 3 scroll ids of each area (gray, yellow, pink, orange) on the sides in play."""
    return [list(ids) for ids in _board(state)]


#: id of a game's components -> (the components, :func:`board` of them).
_BOARDS: dict[int, tuple[Any, tuple[tuple[int, ...], ...]]] = {}


def _board(state: State) -> tuple[tuple[int, ...], ...]:
    """:func:`board`, found once per game's components (it reads only them)."""
    comps = state.game.components
    hit = _BOARDS.get(id(comps))
    if hit is None or hit[0] is not comps:
        scrolls = comps.tables["madrasa_scroll"]
        sides = comps["madrasa"]["sides"]
        ids = tuple(
            tuple(
                sorted(s for s, sc in scrolls.items() if sc["area"] == area and sc["side"] == side)
            )
            for area, side in zip(SCROLL_COLOURS, sides, strict=True)
        )
        hit = _BOARDS[id(comps)] = (comps, ids)
    return hit[1]


def _ext(state: State) -> dict[str, Any]:
    return state.ext[NAME]


def used_now(state: State) -> list[int]:
    """Scrolls used in the current turn (each may be used once per turn)."""
    used = _ext(state)["used"]
    return used["ids"] if used["key"] == _turn_key(state) else []


def _turn_key(state: State) -> list[int]:
    return [state.season, state.round, state.turn]


def cost(state: State, p: int, area: int) -> tuple[int, int]:
    """(scholars, dates) of a scroll of ``area`` for player ``p`` (the sultan's discount
    of Imam & Sultan applies to the dates)."""
    c = _cfg(state)["costs"][SCROLL_COLOURS[area]]
    return c["scholars"], max(0, c["dates"] - discount(state, p, "scroll_dates"))


def usable(state: State, p: int, area: int, slot: int) -> bool:
    """A free scroll (no marker, not used this turn) whose effect can be carried out."""
    if _ext(state)["markers"][area] == slot:
        return False
    sid = _board(state)[area][slot]
    if sid in used_now(state):
        return False
    name = _special(state, sid)
    if name == "madrasa_square":
        return bool(_square_spaces(state, p, _effect(state, sid)[0]["entertainer"]))
    if name == "madrasa_provisions":
        uses = state.players[p].ext[NAME]["uses"]
        return uses < _cfg(state)["provision_uses_per_season"]
    return True


def _effect(state: State, sid: int) -> list[Effect]:
    """A printed scroll's effect; ``effect_with`` when the module it ``needs`` is on
    (scroll 05's gem with Gems)."""
    entry = state.game.components.tables["madrasa_scroll"][sid]
    if entry.get("needs") in state.game.config.modules:
        return entry["effect_with"]
    return entry["effect"]


def _special(state: State, sid: int) -> str | None:
    first = _effect(state, sid)[0]
    return first.get("name") if first["op"] == "special" else None


def use(state: State, p: int, area: int, slot: int, dates: int) -> None:
    """Use a printed scroll: pay, move the marker, carry out the effect."""
    sid = _board(state)[area][slot]
    ext = _ext(state)
    if ext["used"]["key"] != _turn_key(state):
        ext["used"] = {"key": _turn_key(state), "ids": []}
    ext["used"]["ids"].append(sid)
    ext["markers"][area] = slot
    state.players[p].dates -= dates
    run_effects(state, p, _effect(state, sid), f"madrasa scroll {sid:02d}")


# -- setup ------------------------------------------------------------------------------
def kept_scrolls(state: State) -> set[int]:
    """The scroll tiles still in the game: none, but with New Special Buildings the
    yellow scrolls with a permanent effect, from which each player keeps 1 at setup.

    Ruling: "set aside all those that do not have a Permanent Effect" keeps the yellow
    scrolls of timing ``permanent``; those not chosen lie unused in the stacks (there is no
    scroll to buy in the Closed Madrasa).
    """
    if "special_buildings" not in state.game.config.modules:
        return set()
    scrolls = state.game.components.scrolls
    return {
        sid
        for sid, sc in scrolls.items()
        if sc["colour"] == "yellow" and sc["timing"] == "permanent"
    }


# -- the sector action and the oasis track ----------------------------------------------
@ADDS.option("madrasa_use")
def _use_options(state: State, t: Task) -> list[int]:
    p = t["p"]
    out = [PASS]
    for area in range(4):
        scholars, dates = cost(state, p, area)
        if scholars > t["budget"] or dates > state.players[p].dates:
            continue
        out += [action_id("scroll", 3 * area + k) for k in range(3) if usable(state, p, area, k)]
    return sorted(out)


@ADDS.resolution("madrasa_use", ignore_pass=True)
def _use(state: State, t: Task, a: Action) -> None:
    p = t["p"]
    area, slot = divmod(a.arg, 3)
    scholars, dates = cost(state, p, area)
    push(state, ask("madrasa_use", p, budget=t["budget"] - scholars))
    use(state, p, area, slot, dates)


YELLOW = SCROLL_COLOURS.index("yellow")


@ADDS.option("madrasa_track")
def _track_options(state: State, t: Task) -> list[int]:
    # "Use one of the two free yellow scrolls, without paying dates or needing scholar
    # keshis. Then move the Madrasa marker." Ruling: the once-per-turn limit holds here too.
    free = [k for k in range(3) if usable(state, t["p"], YELLOW, k)]
    return [PASS] + [action_id("scroll", 3 * YELLOW + k) for k in free]


@ADDS.resolution("madrasa_track")
def _track(state: State, t: Task, a: Action) -> None:
    if a.kind != "pass":
        use(state, t["p"], YELLOW, a.arg % 3, dates=0)


# -- the keshi tiles (scrolls 01/04, 07/10, 16) -----------------------------------------
def _tile(state: State, p: int, e: Effect) -> None:
    push(state, ask("madrasa_tile", p, pool=e["pool"]))


@ADDS.option("madrasa_tile")
def _tile_options(state: State, t: Task) -> list[int]:
    on = _ext(state)["tiles"][t["pool"]]["on"]
    return action_ids("choice", range(len(on)))


@ADDS.resolution("madrasa_tile")
def _tile_resolve(state: State, t: Task, a: Action) -> None:
    pool = _ext(state)["tiles"][t["pool"]]
    colour = pool["on"].pop(a.arg)
    pool["aside"].append(colour)
    if len(pool["on"]) <= 1:
        # "If only 1 tile remains on the scroll, place all set-aside tiles back."
        order_ = state.game.components["madrasa_layout"][t["pool"]]
        pool["on"] = sorted(pool["on"] + pool["aside"], key=order_.index)
        pool["aside"] = []
    n = 1 if t["pool"] == "single" else 2
    push(state, *[T("deploy", p=t["p"], c=colour, src="supply") for _ in range(n)])


# -- the main square (scrolls 12 and 13) ------------------------------------------------
def _square_spaces(state: State, p: int, entertainer: bool) -> list[int]:
    """Main-square spaces facing a section of the audience disc with 3 spectators (with
    an entertainer of ``p`` on it, if asked)."""
    square = state.players[p].square
    return [i for i in range(8) if spectators(state, p, i) == 3 and (square[i] or not entertainer)]


def _square(state: State, p: int, e: Effect) -> None:
    push(state, ask("madrasa_square", p, entertainer=e["entertainer"]))


@ADDS.option("madrasa_square")
def _square_options(state: State, t: Task) -> list[int]:
    return action_ids("slot", _square_spaces(state, t["p"], t["entertainer"]))


@ADDS.resolution("madrasa_square")
def _square_resolve(state: State, t: Task, a: Action) -> None:
    spaces = state.game.components["main_square"]["spaces"]
    run_effects(state, t["p"], spaces[a.arg], "madrasa: audience disc bonus")


# -- scroll 14: resources reserved for the provisions -----------------------------------
def _provisions(state: State, p: int, e: Effect) -> None:
    pl = state.players[p]
    pl.ext[NAME]["uses"] += 1
    tiles = state.game.components.provisions
    kinds = [sorted(tiles[tid]["cost"]) for tid, shown in pl.provisions if shown]
    push(state, *[ask("madrasa_reserve", p, kinds=k) for k in kinds])


@ADDS.option("madrasa_reserve")
def _reserve_options(state: State, t: Task) -> list[int]:
    return [action_id("resource", RESOURCES.index(r)) for r in t["kinds"]]


@ADDS.resolution("madrasa_reserve")
def _reserve(state: State, t: Task, a: Action) -> None:
    # Ruling: "1 corresponding resource" of a tile that costs two kinds is one of them,
    # the player's choice.
    state.players[t["p"]].ext[NAME]["reserved"][RESOURCES[a.arg]] += 1


def _release_tasks(state: State) -> list[Task]:
    return [{"t": "madrasa_release", "p": p} for p in order(state)]


@ADDS.task("madrasa_release")
def _release(state: State, t: Task) -> None:
    """The reserved resources pay for the provisions: as many as the revealed tiles cost
    of each kind join the player's supply just before the provisions are paid (the step
    is anchored before ``provisions``: with Walls & Guards after the Battle at the Wall,
    so no malus can take them, "You may only use these resources for the provisions");
    the rest goes back to the general supply, and scroll 14 may be used twice again.
    """
    pl = state.players[t["p"]]
    mine = pl.ext[NAME]
    need = provision_cost(state, t["p"])
    for r in RESOURCES:
        setattr(pl, r, getattr(pl, r) + min(mine["reserved"][r], need[r]))
    mine["reserved"] = dict.fromkeys(RESOURCES, 0)
    mine["uses"] = 0


# -- scrolls 18-24 ----------------------------------------------------------------------
def _souk_vendor(state: State, p: int, e: Effect) -> None:
    # Ruling: there is one space next to the green tent; a player who has a water vendor
    # there already takes only the 3 water.
    if not state.players[p].souk_vendor:
        SPECIALS["souk_vendor"](state, p, e)


def _return(state: State, p: int, e: Effect) -> None:
    left = _cfg(state)["return_max"]
    push(state, ask("madrasa_return", p, r=0, left=left, pts=e["points"], then=e.get("then")))


@ADDS.option("madrasa_return")
def _return_options(state: State, t: Task) -> list[int]:
    have = getattr(state.players[t["p"]], RESOURCES[t["r"]])
    return action_ids("number", range(min(have, t["left"], 40) + 1))


@ADDS.resolution("madrasa_return")
def _return_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 19: 2 points per resource returned (water, then dates, then dinars), 12 at most.
    p, r = t["p"], RESOURCES[t["r"]]
    pl = state.players[p]
    setattr(pl, r, getattr(pl, r) - a.arg)
    score(state, p, t["pts"] * a.arg, "madrasa scroll 19: resources returned")
    left = t["left"] - a.arg
    if t["r"] < 2 and left > 0:
        push(
            state,
            ask("madrasa_return", p, r=t["r"] + 1, left=left, pts=t["pts"], then=t.get("then")),
        )
    elif t.get("then") and left > 0:
        # "(incl. gems)" with Gems: the effect named `then` returns the rest (data).
        state.game.ruleset.specials[t["then"]](
            state, p, {"op": "special", "name": t["then"], "points": t["pts"], "left": left}
        )


def _gate(state: State, p: int, e: Effect) -> None:
    if state.players[p].watchtower > 0:
        push(state, ask("madrasa_gate", p))


@ADDS.option("madrasa_gate")
def _gate_options(state: State, t: Task) -> list[int]:
    return [
        action_id("gate", 12 * w + COLOUR_INDEX[c])
        for w, gates in enumerate(state.workshops)
        for c in sorted(set(gates))
    ]


@ADDS.resolution("madrasa_gate")
def _gate_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 21: any city gate, free, with its points and the colour bonus of its space;
    # then any 1 keshi instead of the gate's.
    p = t["p"]
    w, c = divmod(a.arg, 12)
    colour = KESHI_COLOURS[c]
    push(state, *buy_gate(state, p, w, colour, 0, keshi=False), ask("madrasa_gate_keshi", p))


@ADDS.option("madrasa_gate_keshi")
def _gate_keshi_options(state: State, t: Task) -> list[int]:
    return [PASS, *action_ids("colour", range(12))]


@ADDS.resolution("madrasa_gate_keshi")
def _gate_keshi(state: State, t: Task, a: Action) -> None:
    # Ruling: the scroll names the gate's keshi ("any 1 Keshi ... does not have to
    # correspond to the color of the placed city gate"), so no keshi of the gate's colour
    # comes with it, and scrolls 36 and 66, which change the keshi of a gate one *buys*,
    # do not apply to this gate, which is taken.
    if a.kind != "pass":
        push(state, T("deploy", p=t["p"], c=KESHI_COLOURS[a.arg], src="supply"))


def _keshis(state: State, p: int, e: Effect) -> None:
    push(state, ask("madrasa_keshis", p, n=e["n"], taken=[]))


@ADDS.option("madrasa_keshis")
def _keshis_options(state: State, t: Task) -> list[int]:
    return [action_id("colour", i) for i, c in enumerate(KESHI_COLOURS) if c not in t["taken"]]


@ADDS.resolution("madrasa_keshis")
def _keshis_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 22: 3 keshis of different colours from the supply, each to its sector.
    p, c = t["p"], KESHI_COLOURS[a.arg]
    taken = [*t["taken"], c]
    if len(taken) < t["n"]:
        push(state, ask("madrasa_keshis", p, n=t["n"], taken=taken))
    push(state, T("deploy", p=p, c=c, src="supply"))


def _sets(state: State, p: int, e: Effect) -> None:
    push(state, ask("madrasa_sets", p, pts=e["points"]))


@ADDS.option("madrasa_sets")
def _sets_options(state: State, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    most = min(_cfg(state)["sets_max"], pl.water, pl.dates, pl.dinars)
    return action_ids("number", range(most + 1))


@ADDS.resolution("madrasa_sets")
def _sets_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 23: 6 points per set of 1 dinar, 1 water and 1 date, 3 sets at most.
    pl = state.players[t["p"]]
    for r in RESOURCES:
        setattr(pl, r, getattr(pl, r) - a.arg)
    score(state, t["p"], t["pts"] * a.arg, "madrasa scroll 23: sets of resources")


def _score_oases(state: State, p: int, e: Effect) -> None:
    push(state, ask("madrasa_oasis", p, n=e["n"], done=[]))


@ADDS.option("madrasa_oasis")
def _oasis_options(state: State, t: Task) -> list[int]:
    claimed = state.players[t["p"]].claimed
    return [action_id("choice", i) for i in range(min(16, len(claimed))) if i not in t["done"]]


@ADDS.resolution("madrasa_oasis")
def _oasis_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 24: 2 different activated oases score now (and again at the end).
    p = t["p"]
    done = [*t["done"], a.arg]
    if len(done) < t["n"]:
        push(state, ask("madrasa_oasis", p, n=t["n"], done=done))
    oid = state.players[p].claimed[a.arg]
    score(state, p, oasis_value(state, p, oid, consume=True), f"madrasa scroll 24: oasis {oid}")


# -- named decisions --------------------------------------------------------------------
def _madrasa_scroll(state: State, a: Action) -> str:
    area, slot = divmod(a.arg, 3)
    sid = _board(state)[area][slot]
    effect = state.game.components.tables["madrasa_scroll"][sid]["effect"]
    where = f"the {ordinal(slot + 1)} {SCROLL_COLOURS[area]} Madrasa scroll"
    return f"{where} ({describe_effects(effect)})"


@ADDS.label("madrasa_use", passing="use no more Madrasa scrolls")
def _use_label(state: State, t: Task, a: Action) -> Label:
    dates = cost(state, t["p"], a.arg // 3)[1]
    text = f"use {_madrasa_scroll(state, a)} for {amount(dates, 'dates')}"
    return text, {}, {"dates": dates}


@ADDS.label("madrasa_track", passing="use no Madrasa scroll")
def _track_label(state: State, t: Task, a: Action) -> Label:
    return f"use {_madrasa_scroll(state, a)}"


@ADDS.label("madrasa_tile")
def _tile_label(state: State, t: Task, a: Action) -> Label:
    colour = _ext(state)["tiles"][t["pool"]]["on"][a.arg]
    n = 1 if t["pool"] == "single" else 2
    return f"take the keshi tile of {amount(n, colour)}", {f"{colour} keshis": n}, {}


@ADDS.label("madrasa_square")
def _square_label(state: State, t: Task, a: Action) -> Label:
    spaces = state.game.components["main_square"]["spaces"]
    return effects_label(f"the {ordinal(a.arg + 1)} main-square space: ", spaces[a.arg])


ADDS.phrase("madrasa_reserve", "reserve {} for the provisions")
ADDS.phrase("madrasa_gate", "take {} as a city gate for free")
ADDS.phrase("madrasa_gate_keshi", "take {} instead of the gate's keshi", "take no keshi")
ADDS.phrase("madrasa_keshis", "take {}")


@ADDS.label("madrasa_return")
def _return_label(state: State, t: Task, a: Action) -> Label:
    r, pts = RESOURCES[t["r"]], t["pts"] * a.arg
    return f"return {amount(a.arg, r)} for {amount(pts, 'points')}", {"points": pts}, {r: a.arg}


@ADDS.label("madrasa_sets")
def _sets_label(state: State, t: Task, a: Action) -> Label:
    n, pts = a.arg, t["pts"] * a.arg
    text = f"return {n} sets of 1 water, 1 date and 1 dinar for {amount(pts, 'points')}"
    return text, {"points": pts}, {"water": n, "dates": n, "dinars": n}


@ADDS.label("madrasa_oasis")
def _oasis_label(state: State, t: Task, a: Action) -> Label:
    p = t["p"]
    return f"score {oasis_text(state, p, state.players[p].claimed[a.arg])} now"


ADDS.specials.update(
    {
        "madrasa_tile": _tile,
        "madrasa_square": _square,
        "madrasa_provisions": _provisions,
        "madrasa_souk_vendor": _souk_vendor,
        "madrasa_return": _return,
        "madrasa_gate": _gate,
        "madrasa_keshis": _keshis,
        "madrasa_sets": _sets,
        "madrasa_score_oases": _score_oases,
    }
)


# -- invariants and views ---------------------------------------------------------------
def check(state: State) -> None:
    ext = _ext(state)
    layout = state.game.components["madrasa_layout"]
    assert all(0 <= m < 3 for m in ext["markers"]) and len(ext["markers"]) == 4, ext["markers"]
    for name in POOLS:
        pool = ext["tiles"][name]
        assert sorted(pool["on"] + pool["aside"]) == sorted(layout[name]), f"tiles {name}"
        assert len(pool["on"]) >= 2, f"madrasa: {pool['on']} left on the {name} scroll"
    keep = kept_scrolls(state)
    assert all(sid in keep for st in state.stacks for sid in st), "scroll tiles in the stacks"
    most = _cfg(state)["provision_uses_per_season"]
    for i, pl in enumerate(state.players):
        mine = pl.ext[NAME]
        assert min(mine["reserved"].values()) >= 0 and 0 <= mine["uses"] <= most, (
            f"player {i}: scroll 14 {mine}"
        )
        assert set(pl.scrolls) <= keep, f"player {i} holds scroll tiles {pl.scrolls}"


@register
class ClosedMadrasa(Module):
    """The Closed Madrasa on the hooks (see the module docstring)."""

    name = NAME
    action_sectors = frozenset({"gray"})
    adds = ADDS
    title = "Gems & Experts: The Closed Madrasa"
    rulebook = "Gems & Experts"
    # "You cannot play this module together with the module Second-Hand-Shop!"
    excludes = frozenset({"second_hand_shop"})
    redirects = (("track_scroll", "madrasa_track"),)
    season_steps = (
        SeasonStep("madrasa_provisions", after="", tasks=_release_tasks, before="provisions"),
    )

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        scrolls = entries(path, data, "madrasa_scroll", 24)
        for sid, sc in scrolls.items():
            if sc.get("area") not in SCROLL_COLOURS or sc.get("side") not in ("A", "B"):
                raise InputFileError(
                    path, "needs an area and a side", field=f"madrasa_scroll {sid}"
                )
            if "needs" in sc:
                check_effects(path, f"madrasa_scroll {sid}.effect_with", sc.get("effect_with"))
        layout = data["madrasa_layout"]
        if sum(len(layout[p]) for p in POOLS) != 19:
            raise InputFileError(path, "the keshi tiles must number 19", field="madrasa_layout")
        return {"madrasa_scroll": scrolls}

    def components(self, comps: Components) -> Components:
        cfg = comps["madrasa"]
        return dataclasses.replace(
            comps,
            oases={k: v for k, v in comps.oases.items() if k not in cfg["removed_oases"]},
            desert_towns={
                k: v for k, v in comps.desert_towns.items() if k not in cfg["removed_desert_towns"]
            },
        )

    def setup(self, state: State) -> None:
        keep = kept_scrolls(state)  # no scroll tiles from the base game
        state.stacks = [[sid for sid in st if sid in keep] for st in state.stacks]
        state.stack_open = [bool(st) for st in state.stacks]
        layout = state.game.components["madrasa_layout"]
        state.ext[NAME] = {
            "markers": list(layout["marker_start"]),
            "tiles": {p: {"on": list(layout[p]), "aside": []} for p in POOLS},
            "used": {"key": [0, 0, -1], "ids": []},
        }
        for pl in state.players:
            pl.ext[NAME] = {"reserved": dict.fromkeys(RESOURCES, 0), "uses": 0}

    def sector_action(self, state: State, p: int, sector: str) -> bool:
        if sector != "gray":
            return False
        push(state, ask("madrasa_use", p, budget=state.players[p].keshis["gray"]))
        return True

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        ext = _ext(state)
        v[NAME] = {
            "board": board(state),
            "markers": list(ext["markers"]),
            "tiles": {k: list(p["on"]) for k, p in ext["tiles"].items()},
            "used": list(used_now(state)),
            "reserved": [dict(pl.ext[NAME]["reserved"]) for pl in state.players],
            "uses": [pl.ext[NAME]["uses"] for pl in state.players],
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        return {
            "madrasa.board": (4, 3, 24),
            "madrasa.markers": (4, 3),
            "madrasa.used": (24,),
            "madrasa.tiles": (len(POOLS), len(KESHI_COLOURS)),
            "madrasa.reserved": (4, len(RESOURCES) + 1),
        }

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        ext = _ext(state)
        for area, ids in enumerate(board(state)):
            for slot, sid in enumerate(ids):
                views["madrasa.board"][area, slot, sid - 1] = 1
            views["madrasa.markers"][area, ext["markers"][area]] = 1
        for sid in used_now(state):
            views["madrasa.used"][sid - 1] = 1
        for k, name in enumerate(POOLS):
            for c in ext["tiles"][name]["on"]:
                views["madrasa.tiles"][k, COLOUR_INDEX[c]] += 1
        for i, pl in enumerate(state.players):
            mine = pl.ext[NAME]
            views["madrasa.reserved"][i, :] = [
                *(mine["reserved"][r] for r in RESOURCES),
                mine["uses"],
            ]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] == "madrasa_tile":
            n = "1 keshi" if top["pool"] == "single" else "2 keshis"
            on = _ext(state)["tiles"][top["pool"]]["on"]
            return [f"  keshi tile ({n}):"] + [f"    choice:{i} = {c}" for i, c in enumerate(on)]
        if top["k"] == "madrasa_oasis":
            claimed = state.players[top["p"]].claimed
            return ["  oasis to score now:"] + [
                f"    choice:{i} = oasis {oid}" for i, oid in enumerate(claimed) if i < 16
            ]
        return []

    def render_board(self, state: State) -> list[str]:
        ext = _ext(state)
        areas = []
        for area, ids in enumerate(board(state)):
            shown = [
                f"[{sid:02d}]" if ext["markers"][area] == k else f"{sid:02d}"
                for k, sid in enumerate(ids)
            ]
            areas.append(f"{SCROLL_COLOURS[area]} {' '.join(shown)}")
        tiles = "; ".join(f"{k}: {' '.join(p['on'])}" for k, p in ext["tiles"].items())
        return [f"Madrasa ([marker]): {', '.join(areas)}; keshi tiles {tiles}"]
