"""Deploying keshis onto a player's board, shared by every sector (*Marrakesh*, "Phase 2:
Claim keshis & deploy them" and "Phase 3: Use your assistants", option a): how much room a
sector has, deploying a keshi (its deployment bonus is in its sector's file), the water
vendors (*Marrakesh*, "Water vendor"), and the dispatch of option b, an assistant's sector
action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tower.marrakesh.actions import (
    GOODS,
    SECTOR_INDEX,
    SECTORS,
    VENDOR_SECTORS,
    Action,
    action_id,
    sector_of,
)
from tower.marrakesh.rules import (
    T,
    Task,
    ask,
    has_mod,
    mod_values,
    options,
    push,
    resolve,
    score,
    task,
)
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board
    from tower.marrakesh.hooks import Hooks

CAPACITY = 8
#: The id of ``sector:<first sector>``; the others follow in the order of SECTORS.
_SECTOR = action_id("sector")


def brown_spaces(state: Board, p: int) -> list[int]:
    """Sahara spaces a caravan keshi may be deployed to now (no skipping along a path).

    Spaces: 0 start oasis right, 1 start oasis left (right first), 2-4 path A, 5-7 path B,
    8 and 9 the desert-town spaces at the ends of the paths. Which of them exist is the
    game's sahara layout (``game.hooks.layout``, set by the modules' ``sahara`` hooks):
    ``start`` (spaces 0 and 1) and ``towns`` (spaces 8 and 9).
    """
    pl = state.players[p]
    sa = pl.sahara
    layout = state.game.hooks.layout
    towns = layout["towns"]
    out = []
    if layout["start"]:
        if not sa[0]:
            out.append(0)
        elif not sa[1]:
            out.append(1)
    for first, town in ((2, 8), (5, 9)):
        # The first free space of the path (a loop, not next() over a generator: asked
        # for every caravan keshi deployed).
        for i in range(first, first + 3):
            if not sa[i]:
                out.append(i)
                break
        else:
            if towns and not sa[town] and state.towns_display:
                out.append(town)
    return out


#: The colours whose room is unlimited (goods): no module changes it, so a caller that
#: only asks whether a keshi fits need not ask room() about them.
UNLIMITED: frozenset[str] = frozenset(GOODS)

#: How room is answered: fn(state, player) -> the number of keshis that still fit.
RoomRule = Callable[["Board", int], int]


def room(state: Board, p: int, colour: str) -> int:
    """How many more keshis of ``colour`` player ``p`` could deploy (goods: unlimited):
    the game's rule of the colour (:func:`room_rules`)."""
    return state.game.rooms[colour](state, p)


def room_rules(hooks: Hooks) -> dict[str, RoomRule]:
    """colour -> how a game with ``hooks`` answers room for it, made once per game: the
    core's rule when no module decides the colour's room (``Module.room_colours``), else
    the modules' ``room`` hooks first (the first answer that is not ``None``). Goods
    (unlimited), red (free vendor sectors) and pink (free main-square spaces) keep the
    core's rule."""
    out: dict[str, RoomRule] = {}
    for c in KESHI_COLOURS:
        core = _CORE_ROOM.get(c, _capacity_room(c))
        asked = () if c in _OWN_ROOM else hooks.room_for[c]
        out[c] = _ask_modules(c, asked, core) if asked else core
    return out


def plain_rooms(hooks: Hooks) -> frozenset[str]:
    """The colours whose room, in a game with ``hooks``, is the sector's plain capacity
    (:func:`room_rules` gives them the core's capacity rule)."""
    return frozenset(c for c in KESHI_COLOURS if c not in _CORE_ROOM and not hooks.room_for[c])


def _ask_modules(colour: str, asked: tuple[Any, ...], core: RoomRule) -> RoomRule:
    def ask_modules(state: Board, p: int) -> int:
        for hook in asked:
            n = hook(state, p, colour)
            if n is not None:
                return n
        return core(state, p)

    return ask_modules


def _capacity_room(colour: str) -> RoomRule:
    def capacity_room(state: Board, p: int) -> int:
        return CAPACITY - state.players[p].keshis[colour]

    return capacity_room


def _goods_room(state: Board, p: int) -> int:
    return 99


def _red_room(state: Board, p: int) -> int:
    # Vendors stand on vendor sectors only.
    pl = state.players[p]
    return len(VENDOR_SECTORS) - len(pl.vendors)


def _pink_room(state: Board, p: int) -> int:
    pl = state.players[p]
    return pl.square.count(False)


def brown_room(state: Board, p: int) -> int:
    """Free sahara spaces a keshi could still reach."""
    # Counted without slices or min(): room() asks on most claims and assistants.
    pl = state.players[p]
    sahara = pl.sahara
    layout = state.game.hooks.layout
    towns = (not sahara[8]) + (not sahara[9])  # the free town spaces
    free = sahara.count(False) - towns  # the free spaces 0-7
    if not layout["start"]:
        free -= (not sahara[0]) + (not sahara[1])
    if layout["towns"]:
        shown = len(state.towns_display)  # as many towns as the display can fill
        return free + (towns if towns < shown else shown)
    return free


#: The colours whose room no module changes, with the core's rule.
_OWN_ROOM: dict[str, RoomRule] = {
    **dict.fromkeys(UNLIMITED, _goods_room),
    "red": _red_room,
    "pink": _pink_room,
}
#: The core's rule of every colour that is not a sector's plain capacity.
_CORE_ROOM: dict[str, RoomRule] = {**_OWN_ROOM, "brown": brown_room}


def take_keshi(state: Board, p: int, colour: str, src: str) -> None:
    """A keshi to be deployed leaves the player's held keshis or the common supply."""
    if src == "held":
        pl = state.players[p]
        pl.held.remove(colour)
    else:
        state.issued[colour] += 1


def reached(state: Board, p: int, what: str, where: Any) -> None:
    """Tell the modules (hook ``reached``) that player ``p`` just reached ``where`` on the
    board part ``what``."""
    for hook in state.game.hooks.reached:
        hook(state, p, what, where)


def _deploy(state: Board, t: Task) -> None:
    """Deploy one keshi (from the player's hand of claimed keshis, or the supply)."""
    p, c, src = t["p"], t["c"], t["src"]
    pl = state.players[p]
    game = state.game
    hooks = game.hooks
    if c in game.plain_rooms:  # the colour's room rule, spelt out
        full = pl.keshis[c] >= CAPACITY
    else:
        full = c not in UNLIMITED and game.rooms[c](state, p) <= 0
    if full:
        # A keshi that fits nowhere goes back to the common supply.
        if src == "held":
            pl.held.remove(c)
            state.issued[c] -= 1
        if t.get("then") and c != "red":
            # Ruling (scroll 64): a keshi that fits nowhere still names its sector; a water
            # vendor that fits nowhere names none, so no action follows.
            push(state, T("action", p=p, s=sector_of(c)))
        return
    for hook in hooks.deploy_for[c]:
        if hook(state, t):
            return
    if c in ("red", "pink", "brown"):
        # push(state, ask(...)) spelt out, as below: this runs for most keshis deployed.
        state.stack.append(
            {"t": "ask", "k": "place_" + c, "p": p, "src": src, "then": t.get("then", False)}
        )
        return
    take_keshi(state, p, c, src)
    pl.keshis[c] += 1
    for hook in hooks.reached:  # reached(state, p, "keshi", c), without its call
        hook(state, p, "keshi", c)
    if c == "green":
        score(
            state, p, state.game.components["date_orchard"]["deploy_points"], "date picker deployed"
        )
    if t.get("then"):
        # Spelt out rather than made by T: this runs for most keshis deployed.
        state.stack.append({"t": "action", "p": p, "s": sector_of(c)})


task("deploy")(_deploy)  # cpdef compiled (deploy.pxd)


@options("place_red")
def _place_red_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    return [_SECTOR + SECTOR_INDEX[s] for s in VENDOR_SECTORS if s not in pl.vendors]


@resolve("place_red")
def _place_red(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    take_keshi(state, p, "red", t["src"])
    s = SECTORS[a.arg]
    # A vendor waters only from the player's next turn on ("during a previous turn").
    state.players[p].vendors[s] = 2 if state.turn == p else 1
    if t.get("then"):
        push(state, T("action", p=p, s=s))


def vendor_water(state: Board, p: int, s: str, action: bool) -> None:
    """The water vendor of sector ``s`` waters player ``p``'s assistant there (if it is
    active); ``action``: the assistant takes the sector action."""
    pl = state.players[p]
    active = pl.souk_vendor == 1 if s == "souk" else pl.vendors.get(s) == 1
    if not active:
        return
    pl.water += 2 if has_mod(state, p, "vendor_double_water") else 1
    if action and has_mod(state, p, "vendor_points"):
        score(state, p, 2, "scroll 50: water vendor")
    for hook in state.game.hooks.vendor_water:
        hook(state, p)


@task("vendor_water")
def _vendor_water(state: Board, t: Task) -> None:
    """:func:`vendor_water` as a task (the assistant's resolution calls it directly)."""
    vendor_water(state, t["p"], t["s"], t["action"])


def _action(state: Board, t: Task) -> None:
    """Perform the sector action of sector ``s``."""
    p, s = t["p"], t["s"]
    pl = state.players[p]
    for hook in state.game.hooks.sector_action_for[s]:
        if hook(state, p, s):
            return
    # The tasks and decisions are literals, not made by T, ask and push: every sector
    # action of the game passes here.
    stack = state.stack
    if s == "green":
        pickers = state.game.hooks.counted(state, p, "date_pickers")
        if pickers is None:
            pickers = pl.keshis["green"]
        alts = mod_values(state, p, "orchard_alternative")
        if not alts:
            pl.dates += pickers
        else:
            push(state, *[ask("orchard", p) for _ in range(pickers)])
    elif s == "turquoise":
        if pl.keshis["turquoise"]:
            stack.append({"t": "river", "p": p, "n": pl.keshis["turquoise"]})
    elif s == "souk":
        stack.append({"t": "ask", "k": "souk", "p": p, "ex": 0, "lux": 0})
    elif s == "pink":
        stack.append({"t": "square", "p": p})
    elif s in ("white", "black"):
        if pl.keshis[s]:
            w = "palace" if s == "white" else "mosque"
            stack.append({"t": "stair", "p": p, "w": w, "n": pl.keshis[s]})
    elif s == "gray":
        budget = pl.keshis["gray"]
        stack.append(
            {"t": "ask", "k": "madrasa", "p": p, "budget": budget, "bought": 0, "forced": -1}
        )
    elif s == "beige":
        stack.append({"t": "ask", "k": "medina", "p": p})
    elif s == "brown":
        stack.append({"t": "ask", "k": "sahara", "p": p})
    else:
        raise AssertionError(f"no sector action for {s!r}")


task("action")(_action)  # cpdef compiled (deploy.pxd)
