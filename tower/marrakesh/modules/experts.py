"""The Experts (Gems & Experts): 12 expert tiles, 5 expert keshis thrown through the tower.

Switched on by ``"experts"`` in ``GameConfig.modules``. Rulebook:
*Gems & Experts* ("The Experts"); printed components in
``data/experts.toml``. What the module changes:

- setup: the 12 tiles shuffled face down, the 5 expert keshis on the expert board;
  scrolls 77 and 78 join their stacks and oases 41 and 42 the oases (:func:`extend`);
- each round (``round_tasks``, ``"start"``): 1 new tile turned face up unless 5 already
  are; then as many expert keshis as there are face-up tiles go into the round's throw,
  ``Piece(Kind.EXPERT, colour)`` through the game's tower model with the players'
  keshis. One that falls out lies in the keshi display; one that sticks stays in the
  tower state, across rounds and seasons, until a later throw dislodges it;
- claiming (``claim_options``/``claim``): instead of keshis of one colour a player may
  take 1 expert keshi (action ``choice:i``, the ``i``-th face-up tile), paying 1 dinar,
  1 date and 1 water (scroll 77: once, 1 point instead); the keshi goes back on the
  board, the tile to the player. At the end of the round the expert keshis left in the
  display go back on the board;
- abilities, each once per game (decision ``experts_use`` when the owner performs the
  matching sector action on their turn; the red expert at the end of their turn): red,
  teal, green, the three luxury-goods experts, pink (see :func:`use_ability`). A sector
  may virtually hold a 9th keshi (``player.ext["experts"]["extra"]``), which counts in
  its actions but not in final scoring (at most 8 there);
- final scoring: 5 points per unused expert; oases 41 and 42; scroll 78 uses an ability
  of a face-up expert without taking it.

State: ``state.ext["experts"]`` = ``{"stack": [tile ids, top last], "display": [face-up
tile ids], "board": expert keshis on the board, "out": expert keshis in the keshi
display, "plain": [player, sector] of a sector action to run without the offer, or
None}``; ``player.ext["experts"]`` = ``{"tiles": [[id, used]],
"extra": {sector: virtual keshis}, "s77": scroll 77 spent}``.
"""

from __future__ import annotations

import copy
import tomllib
from collections import Counter
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh import phases, sectors
from tower.marrakesh.actions import GOODS, Action, action_id, action_ids, ordinal
from tower.marrakesh.components import TIMINGS, Components, check_effects, entries
from tower.marrakesh.effects import Effect, run_effects
from tower.marrakesh.hooks import Module, RuleSet, register
from tower.marrakesh.module_data import mix_in
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    can_pay,
    has_mod,
    pay,
    push,
    score,
)
from tower.pieces import Kind, Piece

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "experts"
PATH = Path(__file__).parent.parent / "data" / "experts.toml"
PASS = action_id("pass")
_CHOICE = action_id("choice")
ABILITIES = frozenset({"vendor", "river", "orchard", "luxury", "square"})


# -- components -------------------------------------------------------------------------
@cache
def data(path: str = str(PATH)) -> dict[str, Any]:
    """The module's component file, checked (:class:`InputFileError` names the field)."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputFileError(path, f"cannot read: {exc}") from exc
    if raw.get("schema") != 1:
        raise InputFileError(path, f"schema must be 1, got {raw.get('schema')!r}", field="schema")
    try:
        tiles = entries(path, raw, "tile", 12)
        for tid, t in tiles.items():
            if t.get("ability") not in ABILITIES:
                why = f"unknown ability {t.get('ability')!r}; known: {sorted(ABILITIES)}"
                raise InputFileError(path, why, field=f"tile {tid}.ability")
            if t["ability"] == "luxury" and t.get("colour") not in GOODS:
                why = f"a luxury expert needs a goods colour {GOODS}"
                raise InputFileError(path, why, field=f"tile {tid}.colour")
        scrolls = entries(path, raw, "scroll", 2, first=77)
        for sid, sc in scrolls.items():
            if sc.get("timing") not in TIMINGS:
                raise InputFileError(path, "needs a timing", field=f"scroll {sid}.timing")
            check_effects(path, f"scroll {sid}.effect", sc.get("effect", []))
        oases = entries(path, raw, "oasis", 2, first=41)
        board = raw["board"]
        for key in ("keshis", "display_max", "new_tiles_per_round", "unused_points"):
            if not isinstance(board.get(key), int) or board[key] < 0:
                raise InputFileError(path, "must be a non-negative integer", field=f"board.{key}")
        colour = raw["keshi"]["colour"]
        abilities = raw["abilities"]
    except (KeyError, TypeError) as exc:
        raise InputFileError(path, f"missing or malformed entry: {exc}") from exc
    return {
        "tiles": tiles,
        "scrolls": scrolls,
        "oases": oases,
        "board": board,
        "colour": colour,
        "abilities": abilities,
    }


def extend(comps: Components) -> Components:
    """The game's components with scrolls 77 and 78 and oases 41 and 42 mixed in."""
    d = data()
    return mix_in(comps, d["scrolls"], d["oases"], **{NAME: d})


def _d(state: State) -> dict[str, Any]:
    return state.game.components.raw[NAME]


def expert_piece(state: State) -> Piece:
    return Piece(Kind.EXPERT, _d(state)["colour"])


def tile(state: State, tid: int) -> dict[str, Any]:
    return _d(state)["tiles"][tid]


def board(state: State) -> dict[str, Any]:
    """The expert board, stack and display: ``state.ext["experts"]``."""
    return state.ext[NAME]


def mine(state: State, p: int) -> dict[str, Any]:
    """Player ``p``'s experts: ``state.players[p].ext["experts"]``."""
    pl = state.players[p]
    return pl.ext[NAME]


# -- setup and the round ----------------------------------------------------------------
@ADDS.task("experts_round")
def _round(state: State, t: Task) -> None:
    """1 new tile face up (none once the display is full), then the expert keshis into the
    pending throw, one per face-up tile.

    Ruling: only expert keshis on the expert board can be thrown; while some are stuck
    in the tower, as many as are left on the board are thrown (at most one per tile).
    """
    b = board(state)
    cfg = _d(state)["board"]
    for _ in range(cfg["new_tiles_per_round"]):
        if len(b["display"]) < cfg["display_max"] and b["stack"]:
            b["display"].append(b["stack"].pop())
    n = min(len(b["display"]), b["board"])
    b["board"] -= n
    # Expert keshis left in the tower's base after the Battle at the Wall (Walls & Guards)
    # are carried into the next season's first throw with the keshis there (the ruling of
    # tower.marrakesh.wall_battle.role), on top of those of the face-up tiles.
    colour = _d(state)["colour"]
    n += state.carry.count(colour)
    state.carry = [c for c in state.carry if c != colour]
    throw = next(x for x in reversed(state.stack) if x["t"] == "throw" and "pieces" not in x)
    throw["extra"] = throw.get("extra", []) + [str(expert_piece(state))] * n


def _expert_out(state: State, piece: Piece) -> None:
    board(state)["out"] += 1  # into the keshi display, with the other keshis


ADDS.piece_out[Kind.EXPERT] = _expert_out


@ADDS.task("experts_round_end")
def _round_end(state: State, t: Task) -> None:
    # "Expert keshis that are still in the keshi display after the selection are placed
    # back onto the expert board." Ruling: at the end of the round (nothing between the
    # selection and then reads them).
    b = board(state)
    b["board"] += b["out"]
    b["out"] = 0
    b["plain"] = None  # never left over, even if another module took the action first


# -- claiming an expert -----------------------------------------------------------------
def _can_afford(state: State, p: int) -> bool:
    # The cost, else scroll 77's point (asked on every claim while an expert is out).
    if can_pay(state, p, _d(state)["board"]["cost"]):
        return True
    return has_mod(state, p, "expert_for_point") and not mine(state, p)["s77"]


def _pay_with_point(state: State, p: int) -> None:
    mine(state, p)["s77"] = True
    points = _d(state)["abilities"]["scroll_77_points"]
    score(state, p, points, "scroll 77: an expert for a point")


@ADDS.option("experts_pay")
def _pay_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@ADDS.resolution("experts_pay")
def _pay(state: State, t: Task, a: Action) -> None:
    # choice:0 pays 1 dinar, 1 date and 1 water; choice:1 spends scroll 77 (1 point).
    if a.arg == 0:
        pay(state, t["p"], _d(state)["board"]["cost"])
    else:
        _pay_with_point(state, t["p"])


# -- the abilities ----------------------------------------------------------------------
def luxury_ok(state: State, colour: str, lux: int) -> bool:
    """A luxury good the expert of goods ``colour`` may take: its goods keshis show that
    colour predominantly ("a tie is also sufficient"), and at least one of it."""
    cost = state.game.components.luxuries[lux]["cost"]
    n = cost.get(colour, 0)
    return n > 0 and all(n >= m for c, m in cost.items())


#: The "shop" of a way that takes the face-up statuette (Luxury Goods: Statuettes).
STATUETTE = 5


def _statuette(state: State) -> int | None:
    """The face-up statuette, when the Statuettes module is on."""
    if "statuettes" not in state.game.config.modules:
        return None
    from tower.marrakesh.modules import statuettes

    return statuettes.top(state)


def ways(state: State, p: int, tids: list[int]) -> list[list[int]]:
    """The ways player ``p`` can use the tiles ``tids`` now: ``[tile, shop]`` pairs (shop
    -1 unless a luxury good is taken; :data:`STATUETTE` for the face-up statuette: "You
    can also acquire a 'Luxury Good: Statuette' with such an expert")."""
    out = []
    statuette = _statuette(state)
    for tid in tids:
        t = tile(state, tid)
        if t["ability"] == "luxury":
            for i, shop in enumerate(state.shops):
                if state.shop_open[i] and shop and luxury_ok(state, t["colour"], shop[-1]):
                    out.append([tid, i])
            if statuette is not None and luxury_ok(state, t["colour"], statuette):
                out.append([tid, STATUETTE])
        elif t["ability"] != "square" or any(state.players[p].square):
            out.append([tid, -1])
    return out[:15]  # choice:0..14 (with pass); more never occur with 12 tiles and 5 shops


def unused(state: State, p: int) -> list[int]:
    return [tid for tid, used in mine(state, p)["tiles"] if not used]


def unused_where(state: State, p: int, key: str, value: str) -> list[int]:
    """Player ``p``'s unused tiles whose ``key`` (``"ability"``, ``"sector"``) is
    ``value`` (asked at every sector action and turn end)."""
    held = mine(state, p)["tiles"]
    if not held:  # most players hold no tile
        return []
    tiles = _d(state)["tiles"]
    return [tid for tid, used in held if not used and tiles[tid].get(key) == value]


def use_ability(state: State, p: int, tid: int, shop: int) -> None:
    """Schedule the ability of tile ``tid`` for player ``p``.

    - vendor (red): 1 water vendor from the supply on any free red space, then 1 water and
      1 point per water vendor on the board;
    - river (teal): 1 fish keshi deployed, then 1 step per fish keshi and 5 more (water
      buys further steps as always);
    - orchard (green): 1 date picker deployed, then 2 dates per date picker; with a water
      vendor there, 2 water;
    - luxury: the top luxury good of ``shop`` (or the face-up statuette) for free;
    - square (pink): the main-square action, the chosen bonus once more and the two
      adjacent spaces' bonuses once each.
    """
    t = tile(state, tid)
    kind = t["ability"]
    if kind == "vendor":
        push(state, T("deploy", p=p, c="red", src="supply"), T("experts_vendor", p=p))
    elif kind == "river":
        push(state, _keshi(state, p, "turquoise"), T("experts_river", p=p))
    elif kind == "orchard":
        push(state, _keshi(state, p, "green"), T("experts_orchard", p=p))
    elif kind == "luxury" and shop == STATUETTE:
        from tower.marrakesh.modules import statuettes

        statuettes.buy(state, p, {})
    elif kind == "luxury":
        sectors.buy_luxury(state, p, shop, {})
    else:
        times = 2 if has_mod(state, p, "square_twice") else 1  # scroll 65: the first only
        push(
            state,
            T("experts_square", p=p),
            *[T("square_once", p=p) for _ in range(times - 1)],
            T("square_extras", p=p),
        )


def _keshi(state: State, p: int, colour: str) -> Task:
    """The expert's keshi from the supply: deployed if the sector has room, else a virtual
    9th keshi of the sector (counted in its actions, not in final scoring)."""
    if sectors.room(state, p, colour) > 0:
        return T("deploy", p=p, c=colour, src="supply")
    return T("experts_virtual", p=p, c=colour)


@ADDS.task("experts_virtual")
def _virtual(state: State, t: Task) -> None:
    extra = mine(state, t["p"])["extra"]
    extra[t["c"]] = extra.get(t["c"], 0) + 1
    state.issued[t["c"]] += 1


def virtual(state: State, p: int, colour: str) -> int:
    return mine(state, p)["extra"].get(colour, 0)


@ADDS.task("experts_vendor")
def _vendor(state: State, t: Task) -> None:
    p = t["p"]
    pl = state.players[p]
    a = _d(state)["abilities"]
    vendors = len(pl.vendors) + (1 if pl.souk_vendor else 0)
    pl.water += a["vendor_water_each"] * vendors
    score(state, p, a["vendor_points_each"] * vendors, "red expert: water vendors")


@ADDS.task("experts_river")
def _river(state: State, t: Task) -> None:
    p = t["p"]
    fish = state.players[p].keshis["turquoise"] + virtual(state, p, "turquoise")
    push(state, T("river", p=p, n=fish + _d(state)["abilities"]["river_extra_steps"]))


def _pickers(state: State, p: int) -> int:
    pickers = state.game.hooks.counted(state, p, "date_pickers")
    if pickers is None:
        pickers = state.players[p].keshis["green"]
    return pickers + virtual(state, p, "green")


@ADDS.task("experts_orchard")
def _orchard(state: State, t: Task) -> None:
    """Ruling: the green expert adds 1 date per date picker to the date orchard's own
    action, which then runs as usual (2 dates per picker in all; with scrolls 23-25 the
    pickers' alternatives stay on offer, with Walls & Guards the caravans' wood)."""
    p = t["p"]
    pl = state.players[p]
    a = _d(state)["abilities"]
    pl.dates += (a["orchard_dates_per_picker"] - 1) * _pickers(state, p)
    # Ruling: "possibly 2 water, if you also have a water vendor there": an active vendor
    # in the date orchard (it already poured its 1 water for the assistant) pours 2 in all.
    if state.turn == p and pl.vendors.get("green") == 1:
        pl.water += a["orchard_vendor_water"] - 1
    _again(state, p, "green")


@ADDS.task("experts_square")
def _square(state: State, t: Task) -> None:
    pl = state.players[t["p"]]
    pl.disc = (pl.disc + 1) % 8  # the main-square action turns the disc, as always
    push(state, ask("experts_square_space", t["p"]))


@ADDS.option("experts_square_space")
def _square_space_options(state: State, t: Task) -> list[int]:
    sq = state.players[t["p"]].square
    return [action_id("slot", i) for i in range(8) if sq[i]]


@ADDS.resolution("experts_square_space")
def _square_space(state: State, t: Task, a: Action) -> None:
    # Ruling: "the bonus you chose ... 1 more time" is the same bonus again, with its
    # spectators; "the two directly adjacent bonuses also 1 time" are the printed bonuses
    # of the neighbouring main-square spaces, once each, entertainer or not.
    p, i = t["p"], a.arg
    spaces = state.game.components["main_square"]["spaces"]
    chosen = sectors.scaled(spaces[i], sectors.spectators(state, p, i))
    effects = chosen + chosen + spaces[(i - 1) % 8] + spaces[(i + 1) % 8]
    run_effects(state, p, effects, "pink expert: main square")


# -- offering the abilities -------------------------------------------------------------
def _plain(state: State, p: int, sector: str) -> bool:
    """The sector's own action, with its virtual keshis (True: done here)."""
    if sector == "turquoise" and virtual(state, p, "turquoise"):
        fish = state.players[p].keshis["turquoise"] + virtual(state, p, "turquoise")
        push(state, T("river", p=p, n=fish))
        return True
    if sector == "green":
        # Ruling: a virtual date picker harvests 1 date, whatever scrolls 23-25 offer.
        state.players[p].dates += virtual(state, p, "green")
    return False


@ADDS.option("experts_use")
def _use_options(state: State, t: Task) -> list[int]:
    return [PASS, *action_ids("choice", range(len(t["ways"])))]


@ADDS.resolution("experts_use")
def _use(state: State, t: Task, a: Action) -> None:
    p, sector = t["p"], t["s"]
    if a.kind == "pass":
        _again(state, p, sector)
        return
    tid, shop = t["ways"][a.arg]
    for entry in mine(state, p)["tiles"]:
        if entry[0] == tid and not entry[1]:
            entry[1] = True  # turned over: used
            break
    if tile(state, tid)["ability"] == "luxury":
        # "All other bonuses also remain valid": the souk action follows the free good.
        _again(state, p, sector)
    use_ability(state, p, tid, shop)


def _again(state: State, p: int, sector: str) -> None:
    board(state)["plain"] = [p, sector]
    push(state, T("action", p=p, s=sector))


@ADDS.task("experts_red_offer")
def _red_offer(state: State, t: Task) -> None:
    """Ruling: the red expert (no sector) is offered at the end of the owner's turn, if
    one of the sectors where the player's assistants stood this turn holds their water
    vendor ("when a water vendor is located in one of the sectors marked with an
    assistant")."""
    p = t["p"]
    pl = state.players[p]
    if not any(s in pl.vendors or (s == "souk" and pl.souk_vendor) for s in pl.assistants):
        return
    tids = unused_where(state, p, "ability", "vendor")
    push(state, ask("experts_use_red", p, ways=[[tids[0], -1]]))


@ADDS.option("experts_use_red")
def _red_options(state: State, t: Task) -> list[int]:
    return [PASS, action_id("choice", 0)]


@ADDS.resolution("experts_use_red", ignore_pass=True)
def _red(state: State, t: Task, a: Action) -> None:
    tid = t["ways"][0][0]
    for entry in mine(state, t["p"])["tiles"]:
        if entry[0] == tid and not entry[1]:
            entry[1] = True
            break
    use_ability(state, t["p"], tid, -1)


# -- scroll 78 --------------------------------------------------------------------------
def _scroll_78(state: State, p: int, e: Effect) -> None:
    push(state, ask("experts_78", p, ways=ways(state, p, list(board(state)["display"]))))


@ADDS.option("experts_78")
def _s78_options(state: State, t: Task) -> list[int]:
    return [PASS, *action_ids("choice", range(len(t["ways"])))]


@ADDS.resolution("experts_78")
def _s78(state: State, t: Task, a: Action) -> None:
    # Ruling: the ability is used at once, without the assistant or water-vendor condition
    # its tile names (the scroll says "immediately"); the tile stays in the display.
    if a.kind != "pass":
        tid, shop = t["ways"][a.arg]
        use_ability(state, t["p"], tid, shop)


ADDS.specials["experts_scroll_78"] = _scroll_78


# -- final scoring and oases ------------------------------------------------------------
def worth(state: State, p: int) -> float:
    """Points player ``p``'s experts are sure to bring at the end: 5 per unused expert
    (what a one-step greedy lookahead can add to its value; the abilities' worth shows
    in the position once used)."""
    return float(_d(state)["board"]["unused_points"] * len(unused(state, p)))


def _owned(state: State, p: int, o: dict[str, Any]) -> int:
    return o["points"] * len(mine(state, p)["tiles"])


def _most(state: State, p: int, o: dict[str, Any]) -> int:
    n = len(mine(state, p)["tiles"])
    others = [len(mine(state, q)["tiles"]) for q in range(state.num_players) if q != p]
    return min(o["max"], o["points"] * n) if n > max(others) else 0


ADDS.oasis_kinds["experts_owned"] = _owned
ADDS.oasis_kinds["experts_most"] = _most


# -- invariants -------------------------------------------------------------------------
def expert_keshis(state: State) -> Counter[str]:
    """Where the expert keshis are: on the board, in the keshi display, in the tower, in
    a pending throw, in the tower's base or carried into the next throw."""
    colour = _d(state)["colour"]
    b = board(state)
    where: Counter[str] = Counter({"board": b["board"], "display": b["out"]})
    where["tower"] = sum(r.piece.kind is Kind.EXPERT for r in state.tower.residents)
    for x in state.stack:
        if x["t"] == "throw":
            pieces = [*x.get("pieces", ()), *x.get("extra", ())]
            where["throw"] += sum(Piece.parse(s).kind is Kind.EXPERT for s in pieces)
    where["base"] = sum(Piece.parse(s).kind is Kind.EXPERT for s in state.battle_base)
    where["carry"] = state.carry.count(colour)
    return where


def check(state: State) -> None:
    cfg = _d(state)["board"]
    where = expert_keshis(state)
    assert all(n >= 0 for n in where.values()), f"expert keshis: {dict(where)}"
    assert sum(where.values()) == cfg["keshis"], f"expert keshis: {dict(where)}"
    b = board(state)
    assert len(b["display"]) <= cfg["display_max"], f"{len(b['display'])} experts face up"
    owned = [tid for i in range(state.num_players) for tid, _ in mine(state, i)["tiles"]]
    tiles = sorted(b["stack"] + b["display"] + owned)
    assert tiles == sorted(_d(state)["tiles"]), f"expert tiles: {tiles}"
    for i in range(state.num_players):
        extra = mine(state, i)["extra"]
        assert all(n >= 0 for n in extra.values()), f"player {i}: virtual keshis {extra}"


# -- what players see -------------------------------------------------------------------
def tile_text(state: State, tid: int) -> str:
    """An expert tile in words: its number, colour and ability."""
    t = tile(state, tid)
    return f"#{tid} {t['colour']} {t['ability']}"


# -- named decisions --------------------------------------------------------------------
def tile_words(state: State, tid: int) -> str:
    """An expert tile in words, without its number."""
    t = tile(state, tid)
    what = {
        "vendor": "a water vendor, then water and points per water vendor",
        "river": "a fish keshi, then river steps",
        "orchard": "a date picker, then 2 dates per date picker",
        "luxury": f"a luxury good predominantly {t['colour']} for free",
        "square": "the main-square bonus again and its neighbours",
    }[t["ability"]]
    return f"the {t['colour']} expert ({what})"


def _way_words(state: State, p: int, tid: int, shop: int) -> str:
    from tower.marrakesh.labels import luxury_text

    mine_ = [x for x, _ in mine(state, p)["tiles"]]
    shown = board(state)["display"]
    if tid in mine_:
        whose = f"your {ordinal(mine_.index(tid) + 1)} tile, "
    else:
        whose = f"the {ordinal(shown.index(tid) + 1)} face-up tile, "
    text = f"use {whose}{tile_words(state, tid)}"
    comps = state.game.components
    if shop == STATUETTE:
        return f"{text}: take {luxury_text(comps, _statuette(state) or 0, {})}"
    if shop >= 0:
        return f"{text}: take {luxury_text(comps, state.shops[shop][-1], {})}"
    return text


@ADDS.label("claim/choice")
def _claim_label(state: State, t: Task, a: Action) -> Label:
    tile_ = tile_words(state, board(state)["display"][a.arg])
    return f"take {tile_}, the {ordinal(a.arg + 1)} face-up expert, instead of keshis"


@ADDS.label("experts_pay")
def _pay_label(state: State, t: Task, a: Action) -> Label:
    if a.arg == 0:
        return "pay 1 dinar, 1 date and 1 water", {}, {"dinars": 1, "dates": 1, "water": 1}
    return "use the scroll: lose 1 point instead", {}, {"points": 1}


def _use_label(state: State, t: Task, a: Action) -> Label:
    return _way_words(state, t["p"], *t["ways"][a.arg])


for _kind in ("experts_use", "experts_use_red", "experts_78"):
    ADDS.label(_kind, passing="use no expert")(_use_label)


@ADDS.label("experts_square_space")
def _square_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import effects_label

    spaces = state.game.components["main_square"]["spaces"]
    return effects_label(f"the {ordinal(a.arg + 1)} main-square space: ", spaces[a.arg])


# -- the module -------------------------------------------------------------------------
@register
class Experts(Module):
    """The Experts on the hooks (see the module docstring)."""

    name = NAME
    turn_times = frozenset({"end"})
    counts = frozenset({"expert_tiles"})
    adds = ADDS
    title = "The Experts"
    rulebook = "Gems & Experts"

    def components(self, comps: Components) -> Components:
        return extend(comps)

    def setup(self, state: State) -> None:
        stack = sorted(_d(state)["tiles"])
        state.rng.shuffle(stack)
        state.ext[NAME] = {
            "stack": stack,
            "display": [],
            "board": _d(state)["board"]["keshis"],
            "out": 0,
            "plain": None,
        }
        for pl in state.players:
            pl.ext[NAME] = {"tiles": [], "extra": {}, "s77": False}

    def round_tasks(self, state: State, when: str) -> list[Task]:
        return [{"t": "experts_round" if when == "start" else "experts_round_end"}]

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        # Most players hold no tile: the list of tiles is read before the tiles' abilities.
        tiles = state.players[p].ext[NAME]["tiles"]
        if when == "end" and tiles and unused_where(state, p, "ability", "vendor"):
            return [T("experts_red_offer", p=p)]
        return []

    def claim_options(self, state: State, p: int) -> list[int]:
        """``choice:i`` for each face-up tile, if an expert keshi lies in the keshi display and
        the player can pay ("If you cannot pay the cost, you may not choose an expert")."""
        b = board(state)
        if not b["out"] or not _can_afford(state, p):
            return []
        experts = [_CHOICE + i for i in range(len(b["display"]))]
        # An expert is taken "instead of" keshis, never forced: with no keshi to claim the
        # player may still pass (and forfeit the phase, as without experts).
        return experts if phases.claimable_ids(state, p) else [PASS, *experts]

    def claim(self, state: State, p: int, a: Action) -> bool:
        if a.kind == "pass":
            state.players[p].forfeit = True
            return True
        if a.kind != "choice":
            return False
        b = board(state)
        tid = b["display"].pop(a.arg)
        b["out"] -= 1
        b["board"] += 1  # "place the chosen expert keshi back on the expert board"
        mine(state, p)["tiles"].append([tid, False])
        cost = _d(state)["board"]["cost"]
        s77 = has_mod(state, p, "expert_for_point") and not mine(state, p)["s77"]
        if s77 and can_pay(state, p, cost):
            push(state, ask("experts_pay", p))
        elif s77:
            _pay_with_point(state, p)
        else:
            pay(state, p, cost)
        return True

    def sector_action(self, state: State, p: int, sector: str) -> bool:
        """Before a sector action on the owner's turn: offer the matching experts (decision
        ``experts_use``); else count the sector's virtual keshis in the action.

        A module earlier in the hook order (by name) whose ``sector_action`` replaces an
        action (returns True) pre-empts the offer; modules that only add to an action
        should return False."""
        b = board(state)
        plain = b["plain"]  # mostly None: no list is made to compare it with
        if plain is not None and plain == [p, sector]:
            b["plain"] = None
        elif state.turn == p and state.players[p].ext[NAME]["tiles"]:
            tids = unused_where(state, p, "sector", sector)
            options_ = ways(state, p, tids) if tids else []
            if options_:
                push(state, ask("experts_use", p, s=sector, ways=options_))
                return True
        return _plain(state, p, sector)

    def count(self, state: State, p: int, what: str) -> int | None:
        # The expert tiles a player has taken, used or not (Personal Tasks' cards).
        return len(mine(state, p)["tiles"]) if what == "expert_tiles" else None

    def final_scoring(self, state: State, p: int) -> None:
        n = len(unused(state, p))
        score(state, p, _d(state)["board"]["unused_points"] * n, "experts: unused experts")

    def invariants(self, state: State) -> None:
        check(state)

    def census(self, state: State) -> Counter[str]:
        return sum((Counter(mine(state, i)["extra"]) for i in range(state.num_players)), Counter())

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        """Public: the face-up tiles, the expert keshis on the board, in the display and
        carried into the next throw, the tiles the stack still holds (not their order), each
        player's experts."""
        b = board(state)
        v[NAME] = {
            "display": list(b["display"]),
            "board": b["board"],
            "out": b["out"],
            "stack": len(b["stack"]),
            "carried": state.carry.count(_d(state)["colour"]),
            "players": [copy.deepcopy(mine(state, i)) for i in range(state.num_players)],
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """Face-up tiles (one-hot by id); expert keshis on the board, in the display, tiles
        face down, expert keshis carried into the next throw; each seat's tiles (row 0
        unused, row 1 used)."""
        return {
            "experts.display": (12,),
            "experts.keshis": (4,),
            **{f"experts.p{i}": (2, 12) for i in range(4)},
        }

    def encode(self, state: State, viewer: int, d: dict[str, Any]) -> None:
        b = board(state)
        for tid in b["display"]:
            d["experts.display"][tid - 1] = 1
        carried = state.carry.count(_d(state)["colour"])
        d["experts.keshis"][:] = [b["board"], b["out"], len(b["stack"]), carried]
        for i in range(state.num_players):
            for tid, used in mine(state, i)["tiles"]:
                d[f"experts.p{i}"][int(used), tid - 1] = 1

    def render_board(self, state: State) -> list[str]:
        b = board(state)
        shown = ", ".join(tile_text(state, x) for x in b["display"]) or "-"
        return [
            f"Experts: face up {shown}; expert keshis on the board {b['board']}, in the "
            f"display {b['out']}, stuck in the tower {expert_keshis(state)['tower']}; "
            f"{len(b['stack'])} tiles face down"
        ]

    def render_player(self, state: State, i: int, pv: dict[str, Any]) -> list[str]:
        m = mine(state, i)
        tiles = ", ".join(f"{tile_text(state, x)}{' (used)' if u else ''}" for x, u in m["tiles"])
        extra = ", ".join(f"{c} +{n}" for c, n in m["extra"].items() if n)
        return [f"    experts {tiles or '-'}" + (f"; virtual keshis {extra}" if extra else "")]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] == "claim" and board(state)["out"]:
            return [
                f"    choice:{i} = expert {tile_text(state, x)}"
                for i, x in enumerate(board(state)["display"])
            ]
        if top["k"] in ("experts_use", "experts_78", "experts_use_red"):
            return [
                f"    choice:{i} = {tile_text(state, x)}"
                + (" (statuette)" if s == STATUETTE else f" (shop {s})" if s >= 0 else "")
                for i, (x, s) in enumerate(top["ways"])
            ]
        if top["k"] == "experts_pay":
            return ["    choice:0 = 1 dinar, 1 date, 1 water", "    choice:1 = scroll 77: 1 point"]
        return []
