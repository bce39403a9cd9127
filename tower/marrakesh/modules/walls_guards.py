"""Walls & Guards: wood, brick tiles and the city wall, watchmen, and the Battle at the Wall.

Switched on by ``"walls_guards"`` in ``GameConfig.modules``. What the module changes:

- components (:func:`extend`): the overlay tiles (river bonus "1 resource or 1 wood",
  connection bonus "1 wood", main-square bonus "1 wood"), scrolls 79-84, river tiles 19-24,
  2 exchange offices and 6 provision tiles join their stacks;
- setup (:func:`setup`, :func:`setup_asks`): 1 wood each, 3 watchmen on the board, 3
  brigands by the tower, no oases and no oasis track (the brick tiles replace them; the
  supply board goes back in the box), each player chooses 2 brick tiles of each cost
  (decision ``bricks``), a random desert town on the wall board;
- deploying: a green or brown keshi goes to the date orchard (1 point) or the sahara
  (decision ``place_wg``); on a path space it explores the brick tile there and earns the
  half of its bonus that matches the keshi's colour; in the brickworks it lowers the
  cost of every brick fired by 1 wood;
- the date orchard action gives 1 date per date picker and 1 wood per caravan keshi there;
- the sahara action fires explored bricks for wood (decision ``fire``; each fired tile
  goes onto the wall from the left and pays the bonus it covers), then hires watchmen at
  the cost printed on their spaces (decisions ``hire``, ``hire_waive``);
- season scoring: river evaluation, then the Battle at the Wall (:func:`_battle_season`),
  then providing for citizens. Battle throws are chance nodes of the game's tower model
  with ``Piece(Kind.WATCHMAN, colour)`` and ``Piece(Kind.BRIGAND, NEUTRAL)``; the rules of
  a battle (roles, placing attackers, mali, payments) are
  :mod:`tower.marrakesh.wall_battle`'s;
- final scoring: a date orchard or sahara is filled by 8 keshis of any green/brown mix and
  a water vendor; wood counts as a remaining resource; scroll 83's watchmen; the wall town.

Players are given the pawn colours of :data:`battle.PLAYER_COLOURS` by seat (player 0 red).
"""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter
from collections.abc import Collection
from functools import cache
from itertools import combinations, permutations
from typing import TYPE_CHECKING, Any

from tower.errors import InputFileError
from tower.marrakesh import rules
from tower.marrakesh import wall_battle as bt
from tower.marrakesh.actions import COLOUR_INDEX, GOODS, Action, action_id, action_ids, ordinal
from tower.marrakesh.components import TIMINGS, Components, check_effects, entries
from tower.marrakesh.effects import Effect, run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    can_pay,
    has_mod,
    order,
    pay,
    piece_names,
    push,
    score,
)
from tower.marrakesh.sectors import brown_room, brown_spaces, take_keshi
from tower.pieces import KESHI_COLOURS, PLAYER_COLOURS, Kind, Piece

if TYPE_CHECKING:
    from tower.marrakesh.board import Player
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

PASS = action_id("pass")
#: Sahara spaces: 0 and 1 the brickworks (on the double oasis), 2-4 path A and 5-7 path B
#: from the bottom up (tiles of 3, 4 and 5 wood: setup puts the 3-wood tiles on the "bottom
#: two" storage spaces; that each path climbs from bottom to top is assumed), 8 and 9 the
#: desert-town spaces.
BRICKWORKS = (0, 1)
TOWN_SPACES = (8, 9)
#: Engine resource names of battle.py's cost and holding tokens.
_RES = {"water": "water", "date": "dates", "dinar": "dinars"}
#: The kinds of token :func:`holdings` lists.
_TOKEN_KINDS = frozenset({"resource", "step", "keshi", "luxury", "gate"})


def colour(p: int) -> str:
    """The pawn colour of player ``p``."""
    return bt.PLAYER_COLOURS[p]


def owner(pawn_colour: str) -> int:
    return bt.PLAYER_COLOURS.index(pawn_colour)


# -- components -------------------------------------------------------------------------
def extend(comps: Components) -> Components:
    """The game's components with Walls & Guards: overlays applied, new tiles mixed in."""
    raw = copy.deepcopy(comps.raw)
    wg, more = raw["walls_guards"], comps.tables
    ov = wg["overlays"]
    raw["river"]["rapid_bonuses"][ov["rapid_index"]] = ov["rapid_bonus"]
    raw["staircase"]["spaces"][ov["connection_space"]]["effect"] = ov["connection_bonus"]
    raw["main_square"]["spaces"][ov["square_space"]] = ov["square_bonus"]
    groups = raw["scroll_groups"]
    scrolls = dict(comps.scrolls)
    for sid, sc in more["wg_scroll"].items():
        g = groups[sc["colour"]]
        scrolls[sid] = {**sc, "scholars": g["scholars"], "dates": g["dates"]}
    out = dataclasses.replace(
        comps,
        raw=raw,
        scrolls=scrolls,
        river_tiles={**comps.river_tiles, **more["wg_river_tile"]},
        exchange_offices={**comps.exchange_offices, **more["wg_exchange_office"]},
        provisions={**comps.provisions, **more["wg_provision"]},
    )
    return out


def _wg(state: State) -> dict[str, Any]:
    return state.game.components.raw["walls_guards"]


# -- setup ------------------------------------------------------------------------------
@cache
def brick_pairs(wood: int) -> tuple[tuple[int, int], ...]:
    """Ordered pairs (path A tile, path B tile) of the tiles costing ``wood``."""
    return tuple(permutations(sorted(t for t, w in bt.BRICK_WOOD.items() if w == wood), 2))


@ADDS.option("bricks")
def _bricks_options(state: State, t: Task) -> list[int]:
    first = action_id("choice")
    return list(range(first, first + len(brick_pairs(t["wood"]))))


@ADDS.resolution("bricks")
def _bricks(state: State, t: Task, a: Action) -> None:
    # Ruling: the two tiles of one cost lie on the two paths at the same height; the player
    # decides which goes on which path (the choice is an ordered pair).
    first, second = brick_pairs(t["wood"])[a.arg]
    level = (3, 4, 5).index(t["wood"])
    pl = state.players[t["p"]]
    pl.bricks[level] = first
    pl.bricks[3 + level] = second


# -- where green and brown keshis stand -------------------------------------------------
def orchard(pl: Player) -> tuple[int, int]:
    """(date pickers, caravan keshis) in the date orchard."""
    return pl.keshis["green"] - len(pl.sahara_green), pl.orchard_brown


def sahara_keshis(pl: Player) -> int:
    return sum(pl.sahara)


def orchard_room(state: State, p: int) -> int:
    pl = state.players[p]
    # The capacity less both counts of orchard(pl), and _wg(state), spelt out: room() asks
    # on most claims.
    return (
        state.game.components.raw["walls_guards"]["orchard_capacity"]
        - pl.keshis["green"]
        + len(pl.sahara_green)
        - pl.orchard_brown
    )


#: The ids of ``sector:0`` (the date orchard, in the place_wg decision) and ``slot:0``.
_ORCHARD = action_id("sector", 0)
_SLOT = action_id("slot")


@ADDS.option("place_wg")
def _place_wg_options(state: State, t: Task) -> list[int]:
    out = [_ORCHARD] if orchard_room(state, t["p"]) > 0 else []
    out += map(_SLOT.__add__, sorted(brown_spaces(state, t["p"])))
    return out


@ADDS.resolution("place_wg")
def _place_wg(state: State, t: Task, a: Action) -> None:
    p, c = t["p"], t["c"]
    pl = state.players[p]
    take_keshi(state, p, c, t["src"])
    pl.keshis[c] += 1
    if a.kind == "sector":  # the date orchard
        if c == "brown":
            pl.orchard_brown += 1
        if t.get("then"):
            push(state, T("action", p=p, s="green"))
        score(state, p, _wg(state)["orchard_deploy_points"], f"date orchard: {c} keshi deployed")
        return
    s = a.arg
    pl.sahara[s] = True
    if c == "green":
        pl.sahara_green.append(s)
    if t.get("then"):
        push(state, T("action", p=p, s="brown"))
    if s in BRICKWORKS:
        return  # no deployment bonus: the brickworks lowers firing costs instead
    if s >= 8:
        push(state, ask("town_pick", p, path=s - 8))
        return
    pl.explored[s - 2] = True
    tile = pl.bricks[s - 2]
    brick = state.game.components.tables["brick"][tile]
    run_effects(state, p, brick[c], f"brick tile {tile:02d}: {c} bonus")


def return_orchard_keshi(state: State, p: int, c: str) -> None:
    """A green or brown keshi leaves the date orchard for the supply."""
    pl = state.players[p]
    pl.keshis[c] -= 1
    if c == "brown":
        pl.orchard_brown -= 1
    state.issued[c] -= 1


# -- the date orchard -------------------------------------------------------------------
def orchard_wood(state: State, p: int) -> None:
    """The extended date-orchard action's second half: 1 wood per caravan keshi there."""
    rules.add_wood(state, p, state.players[p].orchard_brown)


def _orchard_harvest(state: State, p: int, e: Effect) -> None:
    # River tile 20: one harvest of the date orchard (dates and wood).
    push(state, T("action", p=p, s="green"))


# -- the sahara action: fire bricks, then hire watchmen ---------------------------------
def _has_provision(state: State, p: int, name: str) -> bool:
    provs = state.game.components.provisions
    pl = state.players[p]
    # A loop, not any() over a generator: asked for every brick tile and watchman offered.
    for tid, shown in pl.provisions:  # noqa: SIM110
        if shown and provs[tid].get("modifier") == name:
            return True
    return False


def fire_cost(state: State, p: int, tile: int) -> int:
    pl = state.players[p]
    # The keshis on the brickworks' two spaces (BRICKWORKS), read without a generator.
    cost = _tile_cost(tile, pl.sahara[0] + pl.sahara[1])
    if _has_provision(state, p, "fire_discount"):
        cost -= 1  # new provision tile: 1 fewer wood per tile
    return max(0, cost)


@cache
def _tile_cost(tile: int, brickworks_keshis: int) -> int:
    """The printed firing cost of one brick tile (asked for every tile offered)."""
    return bt.firing_cost([tile], brickworks_keshis=brickworks_keshis)


def _firable(state: State, p: int) -> list[int]:
    pl = state.players[p]
    return [i for i in range(6) if pl.explored[i] and pl.bricks[i] not in pl.wall]


def fire(state: State, p: int, tile: int) -> None:
    """Build ``tile`` into the wall's next section and take the bonus it covers."""
    pl = state.players[p]
    section = len(pl.wall)
    pl.wall.append(tile)
    bonus = _wg(state)["wall"]["bonuses"][section]
    run_effects(state, p, bonus, f"city wall: section {section + 1} bonus")


def sahara_action(state: State, p: int) -> None:
    state.stack += ({"t": "ask", "k": "hire", "p": p}, {"t": "ask", "k": "fire", "p": p})


@ADDS.option("fire")
def _fire_options(state: State, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    ok = [i for i in _firable(state, p) if pl.wood >= fire_cost(state, p, pl.bricks[i])]
    return [PASS] + [action_id("slot", i + 2) for i in ok]


@ADDS.resolution("fire", ignore_pass=True)
def _fire(state: State, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    tile = pl.bricks[a.arg - 2]
    pl.wood -= fire_cost(state, p, tile)
    # "as many brick tiles in a row as they want and can pay for"
    push(state, ask("fire", p))
    fire(state, p, tile)


def _fire_free(state: State, p: int, e: Effect) -> None:
    push(state, *[ask("fire_free", p) for _ in range(e["n"])])


@ADDS.option("fire_free")
def _fire_free_options(state: State, t: Task) -> list[int]:
    return [action_id("slot", i + 2) for i in _firable(state, t["p"])]


@ADDS.resolution("fire_free")
def _fire_free_resolve(state: State, t: Task, a: Action) -> None:
    # Scroll 84: 2 explored tiles fired for free, with their wall bonuses.
    p = t["p"]
    fire(state, p, state.players[p].bricks[a.arg - 2])


def _hire_discount(state: State, p: int) -> int:
    return int(has_mod(state, p, "hire_discount")) + int(_has_provision(state, p, "hire_discount"))


def hire_costs(state: State, p: int, post: int) -> list[dict[str, int]]:
    """The ways to pay for the watchman on ``post`` (0 bottom, 1 middle, 2 top): its
    printed cost less the resources the player waives (scroll 82, provision tile: "1 fewer
    resource of their choice per watchman"), each a payable cost."""
    return _payable(state, p, _hire_ways(post, _watchtower(state, p), _hire_discount(state, p)))


def _payable(
    state: State, p: int, ways: tuple[tuple[tuple[str, int], ...], ...]
) -> list[dict[str, int]]:
    """The ways of :func:`_hire_ways` player ``p`` can pay, as costs."""
    out = []
    for w in ways:  # (a loop: no comprehensions made per call)
        cost = dict(w)
        if can_pay(state, p, cost):
            out.append(cost)
    return out


@cache
def _hire_ways(post: int, watchtower: bool, waived: int) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The ways to pay for the watchman on ``post`` with ``waived`` resources fewer, payable
    or not, as ``(resource, n)`` pairs (they depend on the printed costs only)."""
    space = bt.WATCHMAN_SPACES[post].position
    units = sorted(
        _RES.get(r, r)
        for r, n in bt.hiring_cost([space], watchtower=watchtower).items()
        for _ in range(n)
    )
    keep = max(0, len(units) - waived)
    if units == ["any"]:
        # Ruling (Watchtower): "exactly 1 resource of their choice", less scroll 82's and
        # the provision tile's 1 fewer resource.
        return tuple(((r, 1),) for r in ("water", "dates", "dinars")) if keep else ((),)
    return tuple(
        tuple(Counter(w).items()) for w in sorted({tuple(c) for c in combinations(units, keep)})
    )


@ADDS.option("hire")
def _hire_options(state: State, t: Task) -> list[int]:
    p = t["p"]
    posts = state.players[p].posts
    # hire_costs of each post, with the watchtower and the discount looked up once.
    tower, waived = _watchtower(state, p), _hire_discount(state, p)
    return [PASS] + [
        _SLOT + k for k in range(3) if posts[k] and _payable(state, p, _hire_ways(k, tower, waived))
    ]


@ADDS.resolution("hire", ignore_pass=True)
def _hire(state: State, t: Task, a: Action) -> None:
    p, k = t["p"], a.arg
    pl = state.players[p]
    ways = hire_costs(state, p, k)
    pl.posts[k] = False
    pl.recruited += 1  # next to the tower, ready for battle
    state.stack += (
        {"t": "ask", "k": "hire", "p": p},
        {"t": "ask", "k": "hire_waive", "p": p, "ways": ways},
    )


@ADDS.option("hire_waive")
def _hire_waive_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(len(t["ways"])))


@ADDS.resolution("hire_waive")
def _hire_waive(state: State, t: Task, a: Action) -> None:
    pay(state, t["p"], t["ways"][a.arg])


# -- tower pieces outside the battle ----------------------------------------------------
def _watchman_out(state: State, piece: Piece) -> None:
    # A watchman stuck in the tower that falls out later joins the brigands next to the
    # tower, ready for battle without being paid for again.
    state.players[owner(piece.colour)].recruited += 1


def _brigand_out(state: State, piece: Piece) -> None:
    state.brigands += 1


ADDS.piece_out[Kind.WATCHMAN] = _watchman_out
ADDS.piece_out[Kind.BRIGAND] = _brigand_out


# -- the Battle at the Wall -------------------------------------------------------------
def season_tasks(state: State) -> list[Task]:
    """The battles of this season, round-tracker holder first, and their aftermath.

    Ruling: the round tracker is passed on after every round, the 4th included, so the
    holder at season scoring is the player the scoring order starts with (the same order
    as providing for citizens)."""
    turn = order(state)
    return [{"t": "battle", "p": p, "first": i == 0} for i, p in enumerate(turn)] + [
        {"t": "battle_end"}
    ]


@ADDS.task("battle")
def _battle(state: State, t: Task) -> None:
    p = t["p"]
    pl = state.players[p]
    base = None if t["first"] else list(map(Piece.parse, state.battle_base))
    pieces = bt.battle_throw(state.season, colour(p), pl.recruited, base, state.brigands)
    if t["first"]:
        state.brigands -= sum(x.kind is Kind.BRIGAND for x in pieces)
    pl.recruited = 0
    state.battle_base = []
    if pieces:
        names = piece_names(pieces)
        state.stack.append({"t": "throw", "pieces": names, "after": "battle", "p": p})
    else:
        # Ruling: with nothing to throw the tower is not touched and nothing falls out.
        _battle_out(state, {"p": p}, [])


def battle_wall(state: State, p: int) -> tuple[bt.Wall, range]:
    """The wall of player ``p`` in this season's battle and the sections guarded by
    watchman tiles (scroll 83).

    Protected sections count as repaired for :func:`battle.resolve_battle`: the fired
    bricks, then scroll 83's 2 watchman tiles on the first unrepaired sections (placed
    "before the season scoring", so the player's own watchmen take the gaps after them);
    river tile 22 protects the entire wall.
    """
    built = len(state.players[p].wall)
    if state.wall_protected == p:
        return bt.Wall(repaired=bt.SECTIONS), range(0)
    tiles = 2 if has_mod(state, p, "watchman_tiles") else 0
    protected = min(bt.SECTIONS, built + tiles)
    # Ruling (New Special Buildings' Watchtower): its tile goes on the first section left
    # open by the bricks and scroll 83's tiles; a brigand repelled there earns 2 points.
    return bt.Wall(repaired=protected, watchtower=_watchtower(state, p)), range(built, protected)


def _watchtower(state: State, p: int) -> bool:
    """Whether player ``p`` owns a Watchtower (New Special Buildings answers the hook
    ``count(state, p, "watchtower")``)."""
    return bool(state.game.hooks.counted(state, p, "watchtower"))


def _battle_out(state: State, top: Task, out: list[Piece]) -> None:
    p = top["p"]
    state.battle_base = piece_names(out)
    wall, tile_sections = battle_wall(state, p)
    result = bt.resolve_battle(colour(p), out, wall)
    placed = result.attackers - result.unopposed
    defended = sum(1 for s in tile_sections if s < placed)
    score(state, p, result.points, f"battle at the wall: {result.repelled} repelled")
    score(
        state,
        p,
        _wg(state)["watchman_tile_points"] * defended,
        "scroll 83: sections defended by watchman tiles",
    )
    penalties = result.penalties
    if penalties:  # (tasks as literals, as for the battle's other tasks)
        state.stack += [{"t": "malus", "p": p, "pen": pen.value} for pen in reversed(penalties)]


ADDS.after_throw["battle"] = _battle_out


@ADDS.task("battle_end")
def _battle_end(state: State, t: Task) -> None:
    after = bt.aftermath(Piece.parse(x) for x in state.battle_base)
    state.battle_base = []
    state.carry += [x.colour for x in after.next_throw]
    for pawn_colour, n in after.returned.items():
        posts = state.players[owner(pawn_colour)].posts
        for _ in range(n):
            posts[posts.index(False)] = True  # from the bottom space up
    state.brigands += after.brigands
    state.wall_protected = -1


def _wall_protected(state: State, p: int, e: Effect) -> None:
    state.wall_protected = p  # river tile 22, for this season's battle


# -- paying a malus ---------------------------------------------------------------------
def malus_keshis(state: State, p: int) -> dict[str, int]:
    """Keshis player ``p`` may give up: not those next to an explored or activated brick
    tile (every sahara keshi), not the guards committed to a gate.

    Ruling: the souk's water vendor of scroll 57 stays (it stands on no sector)."""
    pl = state.players[p]
    green, brown = orchard(pl)
    out = {c: pl.keshis[c] for c in (*GOODS, "gray", "white", "black", "pink", "turquoise")}
    out |= {"green": green, "brown": brown, "beige": pl.watchtower, "red": len(pl.vendors)}
    return {c: n for c, n in out.items() if n > 0}


def holdings(state: State, p: int, kinds: Collection[str] = _TOKEN_KINDS) -> dict[str, int]:
    """Player ``p``'s holdings in :mod:`battle`'s token form: the tokens of ``kinds``
    (``resource``, ``step``, ``keshi``, ``luxury``, ``gate``; default all)."""
    pl = state.players[p]
    h: dict[str, int] = {}
    if "resource" in kinds:
        h |= {f"resource:{r}": getattr(pl, name) for r, name in _RES.items()}
    if "step" in kinds:
        final = state.game.components.raw["staircase"]["final"]
        # Ruling: "2 steps backwards" never moves a pawn off the final staircase space: the
        # base rules (*Marrakesh*) say a pawn there stays for the rest of
        # the game. Its steps are not there to give up; the malus falls on the other
        # staircase, or is forfeited if both pawns stand on the final space.
        h |= {
            "step:black": pl.mosque if pl.mosque < final else 0,
            "step:white": pl.palace if pl.palace < final else 0,
        }
    if "keshi" in kinds:
        h |= {f"keshi:{c}": n for c, n in malus_keshis(state, p).items()}
    if "luxury" in kinds:
        h |= {f"luxury:{lid}": 1 for lid in pl.luxuries}
    if "gate" in kinds:
        h |= {f"gate:{i}": 1 for i, g in enumerate(pl.gates) if g is not None}
    return h


@ADDS.task("malus")
def _malus(state: State, t: Task) -> None:
    pen = bt.Penalty(t["pen"])
    # Only the holdings the malus may take are listed (a malus follows most battles).
    mine = holdings(state, t["p"], bt.token_kinds(pen))
    ways = [list(map(list, w)) for w in bt.payment_ways(pen, mine)]
    # The action space has 16 choices; more ways (only ever luxury goods, 17+ owned) are cut.
    state.stack.append(
        {"t": "ask", "k": "malus_pay", "p": t["p"], "pen": t["pen"], "ways": ways[:16]}
    )


@ADDS.option("malus_pay")
def _malus_pay_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(len(t["ways"])))


@ADDS.resolution("malus_pay")
def _malus_pay(state: State, t: Task, a: Action) -> None:
    """Give up the chosen tokens ("if they can pay only partially, they lose everything
    they can pay"; an empty way is the forfeited malus)."""
    p = t["p"]
    pl = state.players[p]
    for token, n in t["ways"][a.arg]:
        kind, _, what = token.partition(":")
        if kind == "resource":
            setattr(pl, _RES[what], getattr(pl, _RES[what]) - n)
        elif kind == "step":
            # Ruling: going back crosses thresholds without dinars or bonuses, and the
            # imam or sultan stays with its companion until someone overtakes.
            which = "mosque" if what == "black" else "palace"
            setattr(pl, which, getattr(pl, which) - n)
        elif kind == "keshi":
            for _ in range(n):
                _give_up_keshi(state, p, what)
        elif kind == "luxury":
            lid = int(what)
            pl.luxuries.remove(lid)
            reward = state.game.components.luxuries[lid]["reward"]
            points = sum(e["n"] for e in reward if e["op"] == "points")
            # Ruling: "lose the according points and bonuses": its printed points; what it
            # scores at the end (oases, desert towns) follows from no longer owning it.
            score(state, p, -points, f"battle: luxury good {lid} returned")
        else:
            space = int(what)
            push(state, ask("gate_back", p, c=pl.gates[space]))
            pl.gates[space] = None  # its guard goes back onto the watchtower


def _give_up_keshi(state: State, p: int, c: str) -> None:
    if c == "red":
        push(state, ask("return_red", p))
    elif c == "pink":
        push(state, ask("return_pink", p))
    elif c in ("green", "brown"):
        return_orchard_keshi(state, p, c)
    else:
        state.players[p].keshis[c] -= 1
        state.issued[c] -= 1


@ADDS.option("gate_back")
def _gate_back_options(state: State, t: Task) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@ADDS.resolution("gate_back")
def _gate_back(state: State, t: Task, a: Action) -> None:
    # The leftmost or second-from-left workshop; no dinars, no points, the keshi stays.
    shop = state.workshops[a.arg]
    shop.append(t["c"])
    shop.sort(key=COLOUR_INDEX.get)


# -- named decisions --------------------------------------------------------------------
def brick_words(state: State, tile: int) -> str:
    """A brick tile by its two exploration bonuses."""
    from tower.marrakesh.labels import describe_effects

    b = state.game.components.tables["brick"][tile]
    return (
        f"the tile giving {describe_effects(b['brown'])} (brown) or "
        f"{describe_effects(b['green'])} (green)"
    )


@ADDS.label("bricks")
def _bricks_label(state: State, t: Task, a: Action) -> Label:
    first, second = brick_pairs(t["wood"])[a.arg]
    return (
        f"lay {brick_words(state, first)} on the left path and "
        f"{brick_words(state, second)} on the right path ({t['wood']} wood each)"
    )


@ADDS.label("place_wg")
def _place_wg_label(state: State, t: Task, a: Action) -> Label:
    if a.kind == "sector":
        return f"put the {t['c']} keshi in the date orchard"
    return f"put the {t['c']} keshi on the {ordinal(a.arg + 1)} sahara space"


def _fire_label(state: State, t: Task, a: Action) -> Label:
    p = t["p"]
    tile = state.players[p].bricks[a.arg - 2]
    if t["k"] == "fire_free":
        return f"fire {brick_words(state, tile)} for free"
    cost = fire_cost(state, p, tile)
    return f"fire {brick_words(state, tile)} for {cost} wood", {}, {"wood": cost}


ADDS.label("fire", passing="fire no more bricks")(_fire_label)
ADDS.label("fire_free")(_fire_label)


@ADDS.label("hire", passing="hire no more watchmen")
def _hire_label(state: State, t: Task, a: Action) -> Label:
    post = ("bottom", "middle", "top")[a.arg]
    return f"hire the watchman on the {post} post"


def _payment_label(state: State, t: Task, a: Action) -> Label:
    from tower.marrakesh.labels import amounts

    way = t["ways"][a.arg]
    return f"pay {amounts(way)}", {}, dict(way)


ADDS.label("hire_waive")(_payment_label)


def _token_words(state: State, token: str, n: int) -> str:
    from tower.marrakesh.labels import amount, luxury_text

    kind, _, what = token.partition(":")
    if kind == "resource":
        return amount(n, _RES[what])
    if kind == "step":
        return f"{n} steps back on the {'mosque' if what == 'black' else 'palace'} staircase"
    if kind == "keshi":
        return amount(n, what)
    if kind == "luxury":
        return luxury_text(state.game.components, int(what))
    return f"the city gate on the {ordinal(int(what) + 1)} gate space"


@ADDS.label("malus_pay")
def _malus_label(state: State, t: Task, a: Action) -> Label:
    way = t["ways"][a.arg]
    if not way:
        return "give up nothing (the malus cannot be paid)"
    return "give up " + ", ".join(_token_words(state, tok, n) for tok, n in way)


@ADDS.label("gate_back")
def _gate_back_label(state: State, t: Task, a: Action) -> Label:
    return f"put the {t['c']} city gate back on the {ordinal(a.arg + 1)} workshop"


# -- final scoring ----------------------------------------------------------------------
def filled(state: State, p: int, sector: str) -> bool:
    """The date orchard (green) or sahara (brown): 8 keshis of any green/brown mix and a
    water vendor.

    Ruling (Desert Towns with Walls & Guards): Walls & Guards fills the sahara with "8
    keshis in any combination of brown and green, plus 1 red keshi"; the desert towns
    want "both keshi slots of the desert town covering tile ... occupied (in addition to
    all other keshi spaces)". Both hold: the 8 spaces of the brickworks and the brick
    tiles and, with the desert towns, both town slots (10 keshis in all)."""
    pl = state.players[p]
    if sector == "green":
        n, full = sum(orchard(pl)), _wg(state)["orchard_capacity"]
    else:
        n, full = sum(pl.sahara[: TOWN_SPACES[0]]), _wg(state)["sahara_capacity"]
        if state.game.hooks.layout["towns"] and not all(pl.sahara[s] for s in TOWN_SPACES):
            return False
    return n >= full and sector in pl.vendors


def wall_towns(state: State, p: int) -> list[int]:
    """The wall board's desert town, if the wall is complete.

    Ruling (assumed): the text only places the town night side up at the far right of the
    wall; it is taken to turn to its day side when the last section is built, and then
    scores at the end like a claimed desert town.
    """
    pl = state.players[p]
    return [pl.wall_town] if pl.wall_town and len(pl.wall) >= bt.SECTIONS else []


# -- effects of the new components ------------------------------------------------------
def _yellow_scroll(state: State, p: int, e: Effect) -> None:
    # Brick 05 green: a yellow scroll without dates or scholars.
    push(state, ask("track_scroll", p))


def _pairs_count(state: State, p: int) -> int:
    """Pairs of a green and a brown keshi in the sahara OR the date orchard (the better)."""
    pl = state.players[p]
    green, brown = orchard(pl)
    sahara_green = len(pl.sahara_green)
    return max(min(green, brown), min(sahara_green, sahara_keshis(pl) - sahara_green))


def _resources_per_count(state: State, p: int, e: Effect) -> None:
    k = state.game.ruleset.counts[e["count"]](state, p)
    push(state, *[ask("resource", p) for _ in range(k)])


ADDS.specials.update(
    {
        "orchard_harvest": _orchard_harvest,
        "fire_free": _fire_free,
        "wall_protected": _wall_protected,
        "yellow_scroll": _yellow_scroll,
        "resources_per_count": _resources_per_count,
    }
)
ADDS.counts.update(
    {
        "wall": lambda s, p: len(s.players[p].wall),
        "green_brown_pairs": _pairs_count,
    }
)


# -- invariants -------------------------------------------------------------------------
def census(state: State) -> tuple[Counter[str], int]:
    """Watchmen by pawn colour on boards, by the tower, in it and in its base; brigands."""
    watch: Counter[str] = Counter()
    for p, pl in enumerate(state.players):
        watch[colour(p)] += sum(pl.posts) + pl.recruited
    pieces = [r.piece for r in state.tower.residents] + pending_pieces(state)
    watch.update(x.colour for x in pieces if x.kind is Kind.WATCHMAN)
    return watch, state.brigands + sum(x.kind is Kind.BRIGAND for x in pieces)


def pending_pieces(state: State) -> list[Piece]:
    """Pieces in the tower's base during the battles and in a pending battle throw."""
    pieces = [Piece.parse(x) for x in state.battle_base]
    for pending in state.stack:
        if pending["t"] == "throw":
            pieces += [Piece.parse(x) for x in pending.get("pieces", [])]
    return pieces


def check(state: State) -> None:
    """The module's invariants (see :mod:`tower.marrakesh.invariants`)."""
    for i, pl in enumerate(state.players):
        green, brown = orchard(pl)
        assert pl.wood >= 0, f"player {i} has {pl.wood} wood"
        assert green >= 0 and brown >= 0, f"player {i}: date orchard holds {green}/{brown}"
        assert green + brown <= 8, f"player {i}: date orchard holds {green + brown} keshis"
        in_sahara = pl.keshis["brown"] - brown + len(pl.sahara_green)
        assert in_sahara == sum(pl.sahara), f"player {i}: sahara disagrees"
        assert all(pl.sahara[s] for s in pl.sahara_green), f"player {i}: sahara greens"
        assert len(set(pl.wall)) == len(pl.wall) <= bt.SECTIONS, f"player {i}: wall {pl.wall}"
        assert all(t in pl.bricks and pl.explored[pl.bricks.index(t)] for t in pl.wall), (
            f"player {i}: wall {pl.wall} holds a tile not explored in the sahara"
        )
        assert pl.recruited >= 0, f"player {i}: {pl.recruited} watchmen recruited"
    watch, brigands = census(state)
    for p in range(state.num_players):
        c = colour(p)
        assert watch[c] == bt.WATCHMEN_PER_PLAYER, (
            f"player {p}: {watch[c]} {c} watchmen on the board, by, in or under the tower"
        )
    assert brigands == bt.BRIGANDS_IN_BOX, f"{brigands} brigands accounted for"


# -- the terminal board -----------------------------------------------------------------
def _counts(d: dict[str, int]) -> str:
    return " ".join(f"{c} {n}" for c, n in d.items()) or "-"


def _board_lines(state: State) -> list[str]:
    pawns = Counter(str(r.piece) for r in state.tower.residents if r.piece.kind is not Kind.KESHI)
    return [
        f"Walls & Guards: brigands by the tower {state.brigands}; pawns inside "
        f"{_counts(dict(pawns))}; battle base {', '.join(state.battle_base) or '-'}; "
        f"keshis into the next throw {' '.join(state.carry) or '-'}"
    ]


def _player_lines(pv: dict[str, Any]) -> list[str]:
    tiles = zip(pv["bricks"], pv["explored"], strict=True)
    bricks = " ".join(f"{t:02d}{'*' if seen else ''}" for t, seen in tiles)
    wall = ", ".join(f"#{x}" for x in pv["wall"]) or "-"
    return [
        f"    wood {pv['wood']}; bricks (path A, path B; * explored) {bricks}; wall "
        f"{wall}; watchmen on the board {sum(pv['posts'])}, by the tower "
        f"{pv['recruited']}; date orchard caravans {pv['orchard_brown']}, sahara date "
        f"pickers {len(pv['sahara_green'])}"
    ]


def _choices(top: Task) -> list[str]:
    """What the ``choice:i`` actions of a Walls & Guards decision mean."""
    if top["k"] == "malus_pay":
        ways = [", ".join(f"{n} {token}" for token, n in w) or "nothing" for w in top["ways"]]
        head = f"  malus {top['pen']}: give up"
    elif top["k"] == "hire_waive":
        ways = [_counts(w) or "nothing" for w in top["ways"]]
        head = "  watchman's cost: pay"
    elif top["k"] == "bricks":
        ways = [f"{a:02d} on path A, {b:02d} on path B" for a, b in brick_pairs(top["wood"])]
        head = f"  brick tiles of {top['wood']} wood:"
    else:
        return []
    return [head] + [f"    choice:{i} = {w}" for i, w in enumerate(ways)]


# -- the observation tensor -------------------------------------------------------------
#: Per-player scalars of the tensor: wood, watchmen by the tower, caravans in the date
#: orchard, fired bricks, watchmen on the board.
_SCALARS = 5


# -- the module -------------------------------------------------------------------------
@register
class WallsGuards(Module):
    """Walls & Guards on the hooks (see the module docstring for what it changes)."""

    name = "walls_guards"
    deploy_colours = frozenset({"green", "brown"})
    action_sectors = frozenset({"green", "brown"})
    counts = frozenset({"date_pickers", "orchard_keshis", "sahara_keshis"})
    adds = ADDS
    title = "Walls & Guards: Battle at the Wall (wood, bricks, city wall, watchmen)"
    rulebook = "Walls & Guards"
    # Brick tiles replace the oases and the wall board the oasis track; green and brown
    # keshis go to the date orchard or the sahara as the player chooses.
    replaces = frozenset({"oases", "green_brown"})
    room_colours = frozenset({"green", "brown"})
    season_steps = (SeasonStep("battle", after="river", tasks=season_tasks),)

    def read_tables(self, path: str, data: dict[str, Any]) -> dict[str, dict[int, Any]]:
        """Check the module's settings and read its tables from the component file."""
        wg = data["walls_guards"]
        for i, eff in enumerate(wg["wall"]["bonuses"]):
            check_effects(path, f"walls_guards.wall.bonuses[{i}]", eff)
        for key in ("rapid_bonus", "connection_bonus", "square_bonus"):
            check_effects(path, f"walls_guards.overlays.{key}", wg["overlays"][key])
        tables = {
            "brick": entries(path, data, "brick", 11),
            "wg_scroll": entries(path, data, "wg_scroll", 6, first=79),
            "wg_river_tile": entries(path, data, "wg_river_tile", 6, first=19),
            "wg_exchange_office": entries(path, data, "wg_exchange_office", 2, first=19),
            "wg_provision": entries(path, data, "wg_provision", 6, first=13),
            "wg_alms": entries(path, data, "wg_alms", 2),
        }
        for sid, sc in tables["wg_scroll"].items():
            if sc.get("colour") not in data["scroll_groups"] or sc.get("timing") not in TIMINGS:
                raise InputFileError(
                    path, "needs a scroll colour and a timing", field=f"wg_scroll {sid}"
                )
        for oid, office in tables["wg_exchange_office"].items():
            for goods in ("yellow", "purple", "orange"):
                check_effects(path, f"wg_exchange_office {oid}.{goods}", office[goods])
        return tables

    def components(self, comps: Components) -> Components:
        return extend(comps)

    def setup(self, state: State) -> None:
        """Setup steps 7-13 (oases and the oasis track are left out by the core setup)."""
        comps = state.game.components
        for pl in state.players:
            pl.wood = _wg(state)["start_wood"]
            pl.posts = [True] * bt.WATCHMEN_PER_PLAYER
            pl.bricks = [0] * 6
        state.brigands = bt.BRIGANDS_IN_BOX
        # Setup 12: each player gets one desert town without an instant effect, night side up.
        # Ruling: with the desert-towns module the towns already on display are not drawn again;
        # a player left without one (too few towns) has none.
        pool = sorted(
            t
            for t, e in comps.desert_towns.items()
            if e["kind"] != "instant" and t not in state.towns_display
        )
        state.rng.shuffle(pool)
        for pl, town in zip(state.players, pool, strict=False):
            pl.wall_town = town

    def setup_asks(self, state: State) -> list[Task]:
        """Setup 9: each player picks 2 brick tiles of each cost, in turn order."""
        return [ask("bricks", p, wood=w) for p in order(state) for w in (3, 4, 5)]

    def sahara(self, layout: dict[str, bool]) -> None:
        # Ruling: the brickworks is set on the start (double) oasis, covering it whatever
        # else covers it: with the desert towns, whose cover hides the start oasis, the
        # brickworks' two spaces are still there (the towns' spaces 8 and 9 stay too).
        # This is the one place where the two modules' sahara rules meet; the hook runs
        # after desert_towns' (hooks run in the order of the module names).
        layout["start"] = True

    def room(self, state: State, p: int, colour: str) -> int | None:
        """How many more green or brown keshis player ``p`` could deploy (asked on most
        claims and assistants)."""
        return orchard_room(state, p) + brown_room(state, p)

    def deploy(self, state: State, task: Task) -> bool:
        if task["c"] not in ("green", "brown"):
            return False
        # The date orchard or the sahara, as the player chooses (push(state, ask(...))
        # spelt out: most green and brown keshis pass here).
        t = task
        then = t.get("then", False)
        state.stack.append(
            {"t": "ask", "k": "place_wg", "p": t["p"], "c": t["c"], "src": t["src"], "then": then}
        )
        return True

    def sector_action(self, state: State, p: int, sector: str) -> bool:
        if sector == "green":
            orchard_wood(state, p)  # then the core's harvest of the date pickers there
            return False
        if sector == "brown":
            sahara_action(state, p)
            return True
        return False

    def count(self, state: State, p: int, what: str) -> int | None:
        # Green and brown keshis stand in both sectors: the date pickers are the green
        # keshis in the orchard; a sector's keshis are all those standing in it.
        pl = state.players[p]
        if what == "date_pickers":
            return orchard(pl)[0]
        if what == "orchard_keshis":
            return sum(orchard(pl))
        if what == "sahara_keshis":
            return sahara_keshis(pl)
        return None

    def returnable(self, state: State, p: int, colours: list[str]) -> list[str]:
        # Only keshis in the date orchard: the sahara's stand next to brick tiles.
        green, brown = orchard(state.players[p])
        return [c for c in colours if c != "green" or green > 0] + (["brown"] if brown else [])

    def return_keshi(self, state: State, p: int, colour: str) -> bool:
        if colour not in ("green", "brown"):
            return False
        return_orchard_keshi(state, p, colour)
        return True

    def filled(self, state: State, p: int, sector: str) -> bool | None:
        return filled(state, p, sector) if sector in ("green", "brown") else None

    def towns(self, state: State, p: int) -> list[int]:
        return wall_towns(state, p)

    def remaining(self, state: State, p: int) -> int:
        # Ruling: wood counts as a remaining resource (Personal Tasks: "resources and/or
        # wood ... remain available for ... 'Remaining resources' in the final scoring").
        return state.players[p].wood

    def final_scoring(self, state: State, p: int) -> None:
        pl = state.players[p]
        if has_mod(state, p, "watchman_tiles"):
            score(
                state, p, _wg(state)["watchman_end_points"] * sum(pl.posts), "scroll 83: watchmen"
            )

    def invariants(self, state: State) -> None:
        check(state)

    def census(self, state: State) -> Counter[str]:
        return Counter(x.colour for x in pending_pieces(state) if x.kind is Kind.KESHI)

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        bricks, towns = len(comps.tables["brick"]), max(comps.desert_towns)
        per_player = {
            "scalars": (_SCALARS,),
            "bricks": (6, bricks),
            "explored": (6,),
            "wall": (bt.SECTIONS, bricks),
            "sahara_green": (10,),
            "wall_town": (towns,),
        }
        pieces = {f"wg.p{i}.{k}": shape for i in range(4) for k, shape in per_player.items()}
        return {
            "wg.brigands": (1,),
            "wg.carry": (len(KESHI_COLOURS),),
            "wg.battle_base": (len(KESHI_COLOURS) + len(PLAYER_COLOURS) + 1,),
            **pieces,
        }

    def encode(self, state: State, viewer: int, d: dict[str, Any]) -> None:
        """Everything of Walls & Guards is public: boards, wall, watchmen, the tower's base."""
        d["wg.brigands"][0] = state.brigands
        for c in state.carry:
            if c in KESHI_COLOURS:  # other pieces carried (expert keshis) are their module's
                d["wg.carry"][KESHI_COLOURS.index(c)] += 1
        k = len(KESHI_COLOURS)
        for x in state.battle_base:  # keshis by colour, then watchmen by colour, then brigands
            piece = Piece.parse(x)
            if piece.kind is Kind.KESHI:
                d["wg.battle_base"][KESHI_COLOURS.index(piece.colour)] += 1
            elif piece.kind is Kind.WATCHMAN:
                d["wg.battle_base"][k + PLAYER_COLOURS.index(piece.colour)] += 1
            else:
                d["wg.battle_base"][k + len(PLAYER_COLOURS)] += 1
        for i, pl in enumerate(state.players):
            pre = f"wg.p{i}."
            d[pre + "scalars"][:] = [
                pl.wood,
                pl.recruited,
                pl.orchard_brown,
                len(pl.wall),
                sum(pl.posts),
            ]
            for k, tile in enumerate(pl.bricks):
                if tile:
                    d[pre + "bricks"][k, tile - 1] = 1
            d[pre + "explored"][:] = pl.explored
            for k, tile in enumerate(pl.wall):
                d[pre + "wall"][k, tile - 1] = 1
            for s in pl.sahara_green:
                d[pre + "sahara_green"][s] += 1
            if pl.wall_town:
                d[pre + "wall_town"][pl.wall_town - 1] = 1

    def render_board(self, state: State) -> list[str]:
        return _board_lines(state)

    def render_player(self, state: State, i: int, pv: dict[str, Any]) -> list[str]:
        return _player_lines(pv)

    def describe_choices(self, state: State, top: Task) -> list[str]:
        return _choices(top)
