"""Named decisions: what every action of the core's decisions means, in words.

Each decision kind of the core has a labeller here (:func:`tower.marrakesh.rules.label`
or :func:`~tower.marrakesh.rules.phrase`); a module labels its own kinds in its file.
:func:`tower.marrakesh.rules.describe` (``State.describe_action``) calls them. A label
is a sentence without action ids or internal keys: components are named by what they
are and do ("a necklace for 2 orange keshis: 3 points, +1 dinar"), places by ordinals
("the 3rd space"). A module that adds options to a core decision labels them under
``"<kind>/<action kind>"`` (e.g. ``"claim/choice"`` for the Experts).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2)).new_initial_state(seed=1)
>>> s.describe_actions()[0].label
'put your keshi from the oasis track on it: a white keshi'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import RESOURCES, SCROLL_COLOURS, Action, ordinal, words
from tower.marrakesh.rules import Label, Task, label, phrase
from tower.marrakesh.scoring import town_value
from tower.marrakesh.sectors import line_spaces, luxury_cost, space_effect
from tower.marrakesh.worth import oasis_value
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board
    from tower.marrakesh.component_data import Components

#: Singular and plural names of the resources and other countable things.
_UNITS = {
    "water": ("water", "water"),
    "dates": ("date", "dates"),
    "dinars": ("dinar", "dinars"),
    "wood": ("wood", "wood"),
    "points": ("point", "points"),
    "goods": ("goods keshi", "goods keshis"),
    "workers": ("worker keshi", "worker keshis"),
    "resources": ("resource of choice", "resources of choice"),
}


def a_an(word: str) -> str:
    """``a green``, ``an orange``."""
    return f"{'an' if word[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {word}"


def amount(n: int, what: str) -> str:
    """``1 date``, ``2 dates``, ``3 red keshis`` (a keshi colour is a keshi)."""
    if what in KESHI_COLOURS:
        return f"{n} {what} keshi" + ("" if n == 1 else "s")
    one, many = _UNITS.get(what, (what, what))
    return f"{n} {one if n == 1 else many}"


def amounts(counts: Mapping[str, int]) -> str:
    """``1 water, 2 dates`` (``nothing`` when empty)."""
    return ", ".join(amount(n, r) for r, n in counts.items() if n) or "nothing"


def describe_effects(effects: Sequence[dict[str, Any]]) -> str:
    """An effect list of the component data in words, e.g. ``+2 dates, 3 points``."""
    parts = []
    for e in effects:
        op = e.get("op")
        if op == "gain":
            parts += [f"+{amount(e[r], r)}" for r in (*RESOURCES, "wood") if e.get(r)]
        elif op == "points":
            parts.append(amount(e["n"], "points"))
        elif op == "keshi":
            n, c = e.get("n", 1), e["colour"]
            what = {"any": "of one colour of choice", "any_each": "of any colours"}.get(c)
            goods = "goods keshi" + ("" if n == 1 else "s") + " of one colour"
            parts.append(
                amount(n, c)
                if c in KESHI_COLOURS
                else f"{n} {goods}"
                if c == "goods"
                else f"{n} keshi{'' if n == 1 else 's'} {what}"
            )
        elif op == "resource":
            parts.append(f"{e['n']} resource{'' if e['n'] == 1 else 's'} of choice")
        elif op == "river":
            parts.append(f"{e['n']} river step{'' if e['n'] == 1 else 's'}")
        elif op == "stair":
            which = "either staircase" if e["which"] == "either" else f"the {e['which']}"
            parts.append(f"{e['n']} step{'' if e['n'] == 1 else 's'} on {which}")
        elif op == "choose":
            parts.append("one of: " + " or ".join(describe_effects(o) for o in e["options"]))
        else:
            parts.append(_special(e))
    return ", ".join(parts) or "nothing"


#: What a ``per_count`` effect counts, in words.
_PER = {
    "gates": "city gate",
    "green": "green keshi",
    "pink": "pink keshi",
    "red": "water vendor",
    "keshis_per_4": "4 keshis on the board",
    "luxuries": "luxury good",
}


def _special(e: dict[str, Any]) -> str:
    """A special effect: its name and its parameters in words."""
    name = str(e.get("name", e.get("op")))
    rest = {k: v for k, v in e.items() if k not in ("op", "name")}
    if name == "per_count":
        gains = {k: v for k, v in rest.items() if isinstance(v, int)}
        per = _PER.get(rest.get("count", ""), str(rest.get("count", "")).replace("_", " "))
        return f"{amounts(gains)} per {per}"
    words_ = []
    for k, v in rest.items():
        if k == "workshops":
            words_.append(f"from the {' or '.join(ordinal(w + 1) for w in v)} workshop")
        elif isinstance(v, bool) or not isinstance(v, int):
            words_.append(f"{k} {v}".replace("_", " "))
        else:
            words_.append(amount(v, k).replace("_", " "))
    text = name.replace("_", " ")
    return f"{text} ({', '.join(words_)})" if words_ else text


def value_text(value: Any) -> str:
    """A scroll's modifier value in words: an effect list, or a name."""
    if isinstance(value, list) and all(isinstance(e, dict) for e in value):
        return describe_effects(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value} times"
    return str(value).replace("_", " ")


def luxury_text(comps: Components, lux: int, cost: Mapping[str, int] | None = None) -> str:
    """A luxury good: what it is, its price in goods keshis and its reward."""
    entry = comps.luxuries[lux]
    good = a_an(entry["good"].replace("_", " "))
    price = "" if cost == {} else f" for {amounts(entry['cost'] if cost is None else cost)}"
    return f"{good}{price} ({describe_effects(entry['reward'])})"


def scroll_text(comps: Components, sid: int) -> str:
    """A scroll: when it works and what it does."""
    s = comps.scrolls[sid]
    what = describe_effects(s["effect"]) if s.get("effect") else s.get("modifier", "")
    if "value" in s:
        what = f"{what}: {value_text(s['value'])}"
    when = {"end_of_round": "end-of-round", "end_of_season": "end-of-season"}
    return a_an(f"{when.get(s['timing'], s['timing'])} scroll ({str(what).replace('_', ' ')})")


def top_scroll(state: Board, stack: int) -> str:
    """The top scroll of scroll stack ``stack`` (hidden if it is not turned over)."""
    g, k = SCROLL_COLOURS[stack // 3], ordinal(stack % 3 + 1)
    if state.stack_open[stack] and state.stacks[stack]:
        return f"{scroll_text(state.game.components, state.stacks[stack][-1])} ({g}, {k} stack)"
    return f"the hidden top scroll of the {k} {g} stack"


def oasis_text(state: Board, p: int, oid: int) -> str:
    """An oasis by what it is worth to player ``p`` now."""
    kind = state.game.components.oases[oid]["kind"].replace("_", " ")
    return f"an oasis ({kind}; {amount(oasis_value(state, p, oid), 'points')} now)"


def town_text(state: Board, p: int, tid: int) -> str:
    """A desert town by its kind (an instant one by its effect) and its worth now."""
    town = state.game.components.desert_towns[tid]
    kind = town["kind"].replace("_", " ")
    if "effect" in town:
        kind = f"{kind}: {describe_effects(town['effect'])}"
    return f"a desert town ({kind}; {amount(town_value(state, p, tid), 'points')} now)"


def _gives(effects: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The resources and points an effect list gives for sure."""
    out: dict[str, int] = {}
    for e in effects:
        if e.get("op") == "gain":
            for r in (*RESOURCES, "wood"):
                if e.get(r):
                    out[r] = out.get(r, 0) + e[r]
        elif e.get("op") == "points":
            out["points"] = out.get("points", 0) + e["n"]
    return out


def effects_label(text: str, effects: Sequence[dict[str, Any]]) -> Label:
    """A label for an option that runs ``effects``: the text and what they give."""
    return f"{text}{describe_effects(effects)}", _gives(effects), {}


# -- setup and phase 1 --------------------------------------------------------------------
phrase("track", "put your keshi from the oasis track on it: {}")
phrase("select", "put {} into the tower")
phrase("red_assistant", "send the red keshi's assistant to {}")
phrase("assistant", "use {}")
phrase("souk_keshi", "take {} for the souk")


@label("disc")
def _disc(state: Board, t: Task, a: Action) -> Label:
    return f"turn your audience disc to its {ordinal(a.arg + 1)} position"


@label("provision")
def _provision(state: Board, t: Task, a: Action) -> Label:
    tid = state.players[t["p"]].provisions[a.arg][0]
    cost = state.game.components.provisions[tid]["cost"]
    return f"reveal your {ordinal(a.arg + 1)} provision tile (it asks for {amounts(cost)})"


# -- phase 2 and 4 --------------------------------------------------------------------------
def _claim_text(state: Board, t: Task, a: Action) -> Label:
    c = KESHI_COLOURS[a.arg]
    n = state.display[c]
    return f"claim the {amount(n, c)} from the tower base", {f"{c} keshis": n}, {}


label("claim", passing="claim nothing")(_claim_text)
label("claim_second", passing="claim nothing")(_claim_text)


@label("rapid_choice")
def _rapid(state: Board, t: Task, a: Action) -> Label:
    bonus = state.game.components["river"]["rapid_bonuses"][a.arg]
    return effects_label(f"take the bonus of the {ordinal(a.arg + 1)} rapid: ", bonus)


@label("river_pair")
def _river_pair(state: Board, t: Task, a: Action) -> Label:
    tile = state.river_tiles[state.season - 1]
    pair = state.game.components.river_tiles[tile]["pair"]
    return effects_label("take this half of the river tile: ", pair[a.arg])


@label("provision_mode")
def _provision_mode(state: Board, t: Task, a: Action) -> Label:
    if a.arg == 0:
        return "pay the provisions as printed"
    return "pay the provisions with any resources (the scroll's alternative)"


# -- resources and effects ------------------------------------------------------------------
phrase("resource", "take {}")
phrase("keshi_colour", "take {}")
phrase("stair_choice", "climb {}")
phrase("stair_first", "climb {} first")
phrase("any_action", "carry out the sector action of {}")
phrase("exchange_take", "take {} from the exchange office")
phrase("exchange_return", "return {} to the exchange office", "return nothing")
phrase("imam_waive", "the Imam waives {} of the price")
phrase("place_red", "put the water vendor on {}")
phrase("return_red", "return the water vendor from {}")
phrase("gate_keshi", "take {} for the city gate")


@label("pay_resource")
def _pay_resource(state: Board, t: Task, a: Action) -> Label:
    r = RESOURCES[a.arg]
    return f"pay {amount(1, r)}", {}, {r: 1}


@label("choose")
def _choose(state: Board, t: Task, a: Action) -> Label:
    return effects_label("take ", t["options"][a.arg])


@label("return_for_points")
def _return_for_points(state: Board, t: Task, a: Action) -> Label:
    pts = t["pts"] * a.arg
    return (
        f"return {amount(a.arg, t['r'])} for {amount(pts, 'points')}",
        {"points": pts},
        {t["r"]: a.arg},
    )


@label("river_water")
def _river_water(state: Board, t: Task, a: Action) -> Label:
    return (f"pay {amount(a.arg, 'water')} for {a.arg} more river steps", {}, {"water": a.arg})


@label("stair_buy")
def _stair_buy(state: Board, t: Task, a: Action) -> Label:
    r = t["r"]
    return (f"pay {amount(a.arg, r)} for {a.arg} more staircase steps", {}, {r: a.arg})


@label("orchard")
def _orchard(state: Board, t: Task, a: Action) -> Label:
    from tower.marrakesh.rules import mod_values

    if a.arg == 0:
        return "take 1 date for the date picker", {"dates": 1}, {}
    alt = mod_values(state, t["p"], "orchard_alternative")[a.arg - 1]
    return effects_label("take the scroll's alternative for the date picker: ", alt)


@label("connection")
def _connection(state: Board, t: Task, a: Action) -> Label:
    space = line_spaces(state, *t["line"])[a.arg]
    where = f"take the bonus of the {ordinal(a.arg + 1)} connection space: "
    return effects_label(where, space_effect(state, space))


@label("town_pick")
def _town_pick(state: Board, t: Task, a: Action) -> Label:
    town = town_text(state, t["p"], state.towns_display[a.arg])
    return f"take {town}, the {ordinal(a.arg + 1)} on display"


# -- the board's places ---------------------------------------------------------------------
def _square_space(state: Board, t: Task, a: Action) -> Label:
    spaces = state.game.components["main_square"]["spaces"]
    return effects_label(f"the {ordinal(a.arg + 1)} main-square space: ", spaces[a.arg])


label("place_pink")(_square_space)
label("square_space")(_square_space)
label("return_pink")(_square_space)


@label("place_brown")
def _place_brown(state: Board, t: Task, a: Action) -> Label:
    return f"put the brown keshi on the {ordinal(a.arg + 1)} sahara space"


@label("gate_space")
def _gate_space(state: Board, t: Task, a: Action) -> Label:
    return f"put the city gate on the {ordinal(a.arg + 1)} gate space"


@label("sahara", passing="claim nothing")
def _sahara(state: Board, t: Task, a: Action) -> Label:
    p = t["p"]
    pl = state.players[p]
    if a.arg >= 8:
        return f"claim {town_text(state, p, pl.towns[a.arg - 8])} with 3 goods keshis"
    return f"claim {oasis_text(state, p, pl.oases[a.arg - 2])} on the {ordinal(a.arg + 1)} space"


@label("free_oasis", passing="claim no oasis")
def _free_oasis(state: Board, t: Task, a: Action) -> Label:
    p = t["p"]
    oasis = oasis_text(state, p, state.players[p].oases[a.arg - 2])
    return f"claim {oasis} on the {ordinal(a.arg + 1)} sahara space for free"


@label("score_oasis")
def _score_oasis(state: Board, t: Task, a: Action) -> Label:
    p = t["p"]
    oid = state.players[p].claimed[a.arg]
    return f"score {oasis_text(state, p, oid)}", {"points": oasis_value(state, p, oid)}, {}


@label("leftover_oasis", passing="take no oasis")
def _leftover(state: Board, t: Task, a: Action) -> Label:
    return f"take {oasis_text(state, t['p'], state.leftover_oases[a.arg])}"


@label("track_keshi", passing="leave the keshi")
def _track_keshi(state: Board, t: Task, a: Action) -> Label:
    return f"deploy {words(Action('colour', KESHI_COLOURS.index(t['c'])))}"


# -- the souk, scrolls and the medina ---------------------------------------------------------
@label("souk")
def _souk(state: Board, t: Task, a: Action) -> Label:
    p = t["p"]
    if a.kind == "pass":
        return "end the souk action"
    if a.kind == "colour":
        c = KESHI_COLOURS[a.arg]
        return f"exchange {amount(1, c)} at the exchange office", {}, {f"{c} keshis": 1}
    lux = state.shops[a.arg][-1]
    cost = luxury_cost(state, p, lux)
    text = f"buy {luxury_text(state.game.components, lux, cost)} from the {ordinal(a.arg + 1)} shop"
    reward = state.game.components.luxuries[lux]["reward"]
    return text, _gives(reward), {f"{c} keshis": n for c, n in cost.items() if n}


@label("free_luxury")
def _free_luxury(state: Board, t: Task, a: Action) -> Label:
    lux = state.shops[a.arg][-1]
    entry = state.game.components.luxuries[lux]
    return (
        f"take {luxury_text(state.game.components, lux, {})} for free",
        _gives(entry["reward"]),
        {},
    )


def _scroll_label(state: Board, t: Task, a: Action) -> Label:
    if a.kind == "swap":
        return words(a), {}, {"dinars": 1}
    return f"take {top_scroll(state, a.arg)}"


label("special_scroll", passing="take no scroll")(_scroll_label)


@label("madrasa", passing="take no scroll")
def _madrasa(state: Board, t: Task, a: Action) -> Label:
    from tower.marrakesh.sectors import scroll_cost

    if a.kind != "scroll":
        return _scroll_label(state, t, a)
    dates = scroll_cost(state, t["p"], state.stacks[a.arg][-1])
    return f"buy {top_scroll(state, a.arg)} for {amount(dates, 'dates')}", {}, {"dates": dates}


label("track_scroll", passing="take no scroll")(_scroll_label)


def _gate_label(state: Board, t: Task, a: Action) -> Label:
    return f"take {words(a)} as a city gate"


@label("medina", passing="buy no city gate")
def _medina(state: Board, t: Task, a: Action) -> Label:
    from tower.marrakesh.sectors import gate_price

    price = gate_price(state, t["p"], a.arg // 12)
    return f"buy {words(a)} as a city gate for {amount(price, 'dinars')}", {}, {"dinars": price}


label("free_gate")(_gate_label)
