"""Edicts (Walls & Guards): the Sultan's and the Imam's edicts, handed out at thresholds.

Switched on by ``"edicts"`` in ``GameConfig.modules``; combines with every other module.
The edicts are data (``data/edicts.toml``). What the module does:

- setup: each stack is shuffled and 3 / 4 / 5 edicts (2 / 3 / 4 players) are drawn from
  it, face down; the rest go back to the box unseen. The threshold tiles lie on the 12th
  step of the mosque staircase (Imam) and on space 50 of the scoring track (Sultan);
- thresholds (:func:`check_thresholds`, run by the ``after_score`` and
  ``after_stair_move`` hooks): as soon as a player's imam's student stands on step 12 or
  higher, or a score marker on 50 or more, that stack's edicts are handed out. Edicts
  still undistributed after season 2's scoring are handed out then (Imam first);
- the selection (:func:`selection_order`): Imam edicts from the farthest up the mosque
  staircase down (ties: farther up the palace staircase, then earlier in the current turn
  order); Sultan edicts from the fewest points up (ties: later in the current turn order
  first). Each player picks one open edict (decision ``edict_pick``, ``choice:i`` = the
  i-th open edict in id order), then its use (decision ``edict_use``: ``choice:0`` the
  instant bonus, ``choice:1`` the end-of-game bonus). The last edict goes back to the box;
- final scoring (its ``final_scoring`` hook, before every core step of the final scoring
  and before the personal tasks'): every edict kept for the end scores
  ``min(max, count // per * each)`` points.

The module's state is one JSON-able dict (:func:`mine`): ``stacks`` (face-down edicts per
stack, emptied when revealed), ``handed`` (stacks due or handed out), ``display`` (the open
edicts during a selection), ``busy`` (the stack being handed out, or ""), ``held`` (per
player, ``[edict, "instant"|"end"]`` pairs) and ``box``.

Examples
--------
>>> e = load()["edicts"]
>>> [i for i in e if e[i]["stack"] == "imam"]
[7, 8, 9, 10, 11, 12]
>>> end_points({"count": "resources", "per": 3, "max": 8}, 26)
8
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh import components, module_data
from tower.marrakesh.actions import GOODS, SCROLL_COLOURS, Action, action_id, action_ids
from tower.marrakesh.effects import PASS, Effect, board_keshis, run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.labels import amount, describe_effects, top_scroll
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    order,
    push,
    score,
)
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "edicts"
STACKS = ("imam", "sultan")
USES = ("instant", "end")


# -- the data ---------------------------------------------------------------------------
@cache
def load(path: str | None = None) -> dict[str, Any]:
    """The checked edict file: ``rules`` and ``edicts`` (id -> entry)."""
    return module_data.load("edicts.toml", 1, _build, path)


def _build(where: str, data: dict[str, Any]) -> dict[str, Any]:
    rules = module_data.section(where, data, "rules")
    for key in ("imam_step", "sultan_score", "fallback_season"):
        rules[key] = int(rules[key])
    rules["drawn"] = {str(n): int(rules["drawn"][str(n)]) for n in (2, 3, 4)}
    edicts = components.entries(where, data, "edict", 12)
    for eid, e in edicts.items():
        field = f"edict {eid}"
        if e.get("stack") not in STACKS:
            raise InputFileError(where, f"stack must be one of {STACKS}", field=field)
        components.check_effects(where, f"{field}.instant", e.get("instant"))
        for x in e["instant"]:
            if x["op"] == "special" and x.get("name") not in _SPECIALS:
                raise InputFileError(where, f"unknown special {x.get('name')!r}", field=field)
        end = e.get("end")
        if not isinstance(end, dict) or end.get("count") not in COUNTS:
            raise InputFileError(
                where, f"end needs a count among {sorted(COUNTS)}", field=f"{field}.end"
            )
    for s in STACKS:
        if sum(e["stack"] == s for e in edicts.values()) != 6:
            raise InputFileError(where, f"6 edicts in the {s} stack", field="edict")
    return {"rules": rules, "edicts": edicts}


def end_points(end: dict[str, Any], count: int) -> int:
    """Points of an end-of-game bonus for ``count`` (rounded down, capped at ``max``)."""
    pts = count // end["per"] * end.get("each", 1)
    return min(pts, end["max"]) if "max" in end else pts


# -- the module's state -----------------------------------------------------------------
def mine(state: State) -> dict[str, Any]:
    return state.ext[NAME]


# -- thresholds and selection -----------------------------------------------------------
def thresholds_reached(state: State) -> list[str]:
    """Stacks whose threshold some player has reached and that are not yet handed out."""
    handed = mine(state)["handed"]
    step, points = _thresholds()
    # Loops, not max() over generators: asked after most score changes.
    pl = state.players[0]
    mosque, score = pl.mosque, pl.score
    for pl in state.players:
        mosque = pl.mosque if pl.mosque > mosque else mosque
        score = pl.score if pl.score > score else score
    out = []
    if "imam" not in handed and mosque >= step:
        out.append("imam")
    if "sultan" not in handed and score >= points:
        out.append("sultan")
    return out


@cache
def _thresholds() -> tuple[int, int]:
    """(the Imam's mosque step, the Sultan's score) from the packaged file."""
    rules = load()["rules"]
    return rules["imam_step"], rules["sultan_score"]


def check_thresholds(state: State) -> None:
    """Hand out the stacks whose threshold is reached (after a score change, a move on the
    mosque staircase and a selection).

    Ruling: "immediately" is as soon as the effect that moved the pawn or the score marker
    is carried out (a move's threshold bonuses included), before anything else. A
    threshold reached during a selection (by an instant bonus) is handed out right after
    that selection.
    """
    m = state.ext.get(NAME)
    if m is None or m["busy"]:  # before setup (the start scores), or during a selection
        return
    # It runs after every score: nothing to do once every stack is handed out.
    if len(m["handed"]) < len(STACKS):
        stacks = thresholds_reached(state)
        if stacks:
            announce(state, stacks)


def announce(state: State, stacks: list[str]) -> None:
    """Schedule the handing out of ``stacks`` (in ``STACKS`` order) to run next."""
    mine(state)["handed"] += stacks
    push(state, *[T("edicts_hand", s=s) for s in stacks])


@ADDS.task("edicts_hand")
def _hand(state: State, t: Task) -> None:
    """Reveal the stack; the players pick in the order of the moment."""
    m = mine(state)
    which = m["busy"] = t["s"]
    m["display"] = sorted(m["stacks"][which])
    m["stacks"][which] = []
    push(state, *[ask("edict_pick", p) for p in selection_order(state, which)], T("edicts_done"))


def selection_order(state: State, which: str) -> list[int]:
    """Who picks first, second, ... from stack ``which``."""
    turn = order(state)
    pos = {p: i for i, p in enumerate(turn)}
    pl = state.players
    if which == "imam":
        return sorted(turn, key=lambda p: (-pl[p].mosque, -pl[p].palace, pos[p]))
    return sorted(turn, key=lambda p: (pl[p].score, -pos[p]))


def season_tasks(state: State) -> list[Task]:
    """After season 2's providing for the citizens: the edicts not yet handed out (Imam
    first)."""
    if state.season == load()["rules"]["fallback_season"]:
        return [T("edicts_fallback")]
    return []


@ADDS.task("edicts_fallback")
def _fallback(state: State, t: Task) -> None:
    announce(state, [s for s in STACKS if s not in mine(state)["handed"]])


@ADDS.option("edict_pick")
def _pick_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(len(mine(state)["display"])))


@ADDS.resolution("edict_pick")
def _pick(state: State, t: Task, a: Action) -> None:
    edict = mine(state)["display"].pop(a.arg)
    push(state, ask("edict_use", t["p"], e=edict))


@ADDS.option("edict_use")
def _use_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@ADDS.resolution("edict_use")
def _use(state: State, t: Task, a: Action) -> None:
    p, edict = t["p"], t["e"]
    mine(state)["held"][p].append([edict, USES[a.arg]])
    if a.arg == 0:
        run_effects(state, p, load()["edicts"][edict]["instant"], f"edict {edict}")


@ADDS.task("edicts_done")
def _done(state: State, t: Task) -> None:
    m = mine(state)
    m["box"] = sorted(m["box"] + m["display"])
    m["display"] = []
    m["busy"] = ""
    check_thresholds(state)


# -- the instant bonuses' specials ------------------------------------------------------
def _free_scroll(state: State, p: int, e: Effect) -> None:
    push(state, ask("edict_scroll", p, g=SCROLL_COLOURS.index(e["colour"])))


@ADDS.option("edict_scroll")
def _scroll_options(state: State, t: Task) -> list[int]:
    g = t["g"]
    return [PASS] + [
        action_id("scroll", i)
        for i in range(3 * g, 3 * g + 3)
        if state.stack_open[i] and state.stacks[i]
    ]


@ADDS.resolution("edict_scroll")
def _scroll(state: State, t: Task, a: Action) -> None:
    from tower.marrakesh.sectors import take_scroll

    if a.kind != "pass":
        take_scroll(state, t["p"], a.arg)


def _keshi_not_goods(state: State, p: int, e: Effect) -> None:
    push(state, ask("edict_keshi", p))


@ADDS.option("edict_keshi")
def _keshi_options(state: State, t: Task) -> list[int]:
    return [action_id("colour", i) for i, c in enumerate(KESHI_COLOURS) if c not in GOODS]


@ADDS.resolution("edict_keshi")
def _keshi(state: State, t: Task, a: Action) -> None:
    push(state, T("deploy", p=t["p"], c=KESHI_COLOURS[a.arg], src="supply"))


_SPECIALS = {"free_scroll": _free_scroll, "keshi_not_goods": _keshi_not_goods}
ADDS.specials.update(_SPECIALS)


# -- final scoring ----------------------------------------------------------------------
def _resources(state: State, p: int) -> int:
    pl = state.players[p]
    return pl.water + pl.dates + pl.dinars + pl.wood


COUNTS: dict[str, Callable[[State, int], int]] = {
    "palace": lambda s, p: s.players[p].palace,
    "mosque": lambda s, p: s.players[p].mosque,
    "stairs": lambda s, p: s.players[p].palace + s.players[p].mosque,
    # Ruling (edicts 02 and 09): every edict the player holds counts as a scroll, whether
    # used for its instant bonus (face down) or kept for the end (face up).
    "scrolls_and_edicts": lambda s, p: len(s.players[p].scrolls) + len(mine(s)["held"][p]),
    "luxuries": lambda s, p: len(s.players[p].luxuries),
    "luxury_types": lambda s, p: len(
        {s.game.components.luxuries[x]["good"] for x in s.players[p].luxuries}
    ),
    "resources": _resources,
    "goods": lambda s, p: sum(s.players[p].keshis[c] for c in GOODS),
    "gates": lambda s, p: sum(g is not None for g in s.players[p].gates),
    "vendors": lambda s, p: len(s.players[p].vendors) + (1 if s.players[p].souk_vendor else 0),
    "board_keshis": board_keshis,
}


# -- invariants and views ---------------------------------------------------------------
def check(state: State) -> None:
    """Every edict is in exactly one place (a stack, the display, the decision on its use,
    a player, the box); each player holds at most one edict of each
    stack; once season 2 is scored both stacks have been handed out."""
    m = mine(state)
    held = [e for h in m["held"] for e, _ in h]
    places = held + m["box"] + m["display"] + [e for s in STACKS for e in m["stacks"][s]]
    places += [x["e"] for x in state.stack if x.get("k") == "edict_use"]  # being decided
    assert sorted(places) == list(range(1, 13)), f"edicts: {places}"
    edicts = load()["edicts"]
    for p, h in enumerate(m["held"]):
        stacks = [edicts[e]["stack"] for e, _ in h]
        assert len(set(stacks)) == len(stacks), f"player {p} holds edicts {h}"
        assert all(use in USES for _, use in h), f"player {p}: edict uses {h}"
    assert len(set(m["handed"])) == len(m["handed"]) <= 2, f"handed out: {m['handed']}"
    assert bool(m["display"]) <= bool(m["busy"]), "open edicts outside a selection"
    if state.season > load()["rules"]["fallback_season"]:
        assert sorted(m["handed"]) == sorted(STACKS), f"season 3, handed out: {m['handed']}"


def _public(state: State) -> dict[str, Any]:
    """Everything but the order of the face-down stacks is public.

    Ruling: the edicts are picked openly, so an edict used for its instant bonus (face
    down) is known all the same.
    """
    m = mine(state)
    return {
        "stacks": {s: len(m["stacks"][s]) for s in STACKS},
        "handed": list(m["handed"]),
        "display": list(m["display"]),
        "held": [[list(x) for x in h] for h in m["held"]],
    }


def describe(edict: int) -> str:
    """An edict's two bonuses in words."""
    e = load()["edicts"][edict]
    end = e["end"]
    each = f"{end.get('each', 1)} pts per {end['per']} {end['count']}"
    cap = f", at most {end['max']}" if "max" in end else ""
    return f"#{edict} ({e['stack']}): now {describe_effects(e['instant'])} | end {each}{cap}"


def edict_text(edict: int) -> str:
    """An edict in words, without its number: its stack and its two bonuses."""
    e = load()["edicts"][edict]
    end = e["end"]
    each = f"{amount(end.get('each', 1), 'points')} per {end['per']} {end['count']}"
    cap = f", at most {amount(end['max'], 'points')}" if "max" in end else ""
    now = describe_effects(e["instant"])
    return f"the {e['stack']} edict (now: {now}; or at the end: {each}{cap})".replace("_", " ")


ADDS.phrase("edict_keshi", "deploy {}")


@ADDS.label("edict_scroll", passing="take no scroll")
def _scroll_label(state: State, t: Task, a: Action) -> Label:
    return f"take {top_scroll(state, a.arg)}"


@ADDS.label("edict_pick")
def _pick_label(state: State, t: Task, a: Action) -> Label:
    return f"pick {edict_text(mine(state)['display'][a.arg])}"


@ADDS.label("edict_use")
def _use_label(state: State, t: Task, a: Action) -> Label:
    return ("use its bonus now", "keep it for its bonus at the end")[a.arg]


#: Seats in the observation tensor (the rulebook's 2-4 players).
SEATS = 4


@register
class Edicts(Module):
    """Edicts on the hooks (see the module docstring)."""

    name = NAME
    adds = ADDS
    title = "Walls & Guards: Edicts"
    rulebook = "Walls & Guards"
    season_steps = (SeasonStep("edicts", after="provisions", tasks=season_tasks),)

    def setup(self, state: State) -> None:
        data = load()
        k = data["rules"]["drawn"][str(state.num_players)]
        stacks: dict[str, list[int]] = {}
        box: list[int] = []
        for s in STACKS:
            ids = sorted(i for i, e in data["edicts"].items() if e["stack"] == s)
            state.rng.shuffle(ids)
            stacks[s], rest = ids[:k], ids[k:]
            box += rest
        state.ext[NAME] = {
            "stacks": stacks,
            "handed": [],
            "display": [],
            "busy": "",
            "held": [[] for _ in state.players],
            "box": sorted(box),
        }

    def final_scoring(self, state: State, p: int) -> None:
        """Player ``p``'s face-up edicts, before every other final scoring step (the modules'
        ``final_scoring`` hooks come first, in name order: before the personal tasks).
        Non-whole values are rounded down."""
        edicts = load()["edicts"]
        for edict, use in mine(state)["held"][p]:
            if use == "end":
                end = edicts[edict]["end"]
                score(
                    state,
                    p,
                    end_points(end, COUNTS[end["count"]](state, p)),
                    f"final: edict {edict}",
                )

    def after_score(self, state: State, p: int, delta: int, reason: str) -> None:
        if delta > 0:
            check_thresholds(state)

    def after_stair_move(self, state: State, p: int, which: str) -> None:
        if which == "mosque":
            check_thresholds(state)

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        v[NAME] = _public(state)

    def tensor_pieces(self, comps: Any) -> dict[str, tuple[int, ...]]:
        n = len(load()["edicts"])
        return {
            "edicts.stacks": (2,),
            "edicts.handed": (2,),
            "edicts.display": (n,),
            "edicts.held": (SEATS, n, 2),
        }

    def encode(self, state: State, viewer: int, d: dict[str, Any]) -> None:
        v = _public(state)
        d["edicts.stacks"][:] = [v["stacks"][s] for s in STACKS]
        for s in v["handed"]:
            d["edicts.handed"][STACKS.index(s)] = 1
        for e in v["display"]:
            d["edicts.display"][e - 1] = 1
        for p, held in enumerate(v["held"]):
            for e, use in held:
                d["edicts.held"][p, e - 1, USES.index(use)] = 1

    def render_board(self, state: State) -> list[str]:
        m = mine(state)
        rules = load()["rules"]
        waiting = [f"{s} ({len(m['stacks'][s])} face down)" for s in STACKS if m["stacks"][s]]
        lines = [
            f"Edicts: waiting {', '.join(waiting) or '-'} (imam at mosque step "
            f"{rules['imam_step']}, sultan at {rules['sultan_score']} points)"
        ]
        lines += [f"    open: {describe(e)}" for e in m["display"]]
        for p, held in enumerate(m["held"]):
            if held:
                lines.append(f"    P{p}: " + "; ".join(f"#{e} {use}" for e, use in held))
        return lines

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] == "edict_pick":
            return ["  pick an edict:"] + [
                f"    choice:{i} = {describe(e)}" for i, e in enumerate(mine(state)["display"])
            ]
        if top["k"] == "edict_use":
            head = f"  edict {describe(top['e'])}:"
            return [head, "    choice:0 = now", "    choice:1 = at the end"]
        return []
