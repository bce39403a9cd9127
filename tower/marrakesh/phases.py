"""Setup and the round: phase 1 (selection, assistants), the throw, phase 2 (claiming),
phase 3 (assistants), phase 4 (river bonus), and the end of a player's turn.

Season scoring and final scoring live in :mod:`tower.marrakesh.scoring`, the sector
actions in :mod:`tower.marrakesh.sectors`.
"""

from __future__ import annotations

from itertools import combinations, compress
from operator import itemgetter, truth
from typing import TYPE_CHECKING

from tower.marrakesh import sectors
from tower.marrakesh.actions import (
    COLOUR_INDEX,
    GOODS,
    SCROLL_COLOURS,
    SECTOR_INDEX,
    SECTORS,
    SELECTION_INDEX,
    SELECTIONS,
    Action,
    action_id,
    action_ids,
    sector_of,
)
from tower.marrakesh.board import Draws
from tower.marrakesh.rules import T, Task, ask, has_mod, options, order, push, resolve, score, task
from tower.marrakesh.sectors import CAPACITY
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


#: Ids of ``colour:<first colour>`` and ``sector:<first sector>``; the others follow in
#: the order of KESHI_COLOURS and SECTORS.
_COLOUR = action_id("colour")
_SECTOR = action_id("sector")


def issue(state: Board, colour: str, n: int = 1) -> None:
    """Keshis leave the common supply (the supply is unlimited; this only counts)."""
    state.issued[colour] += n


def setup(state: Board, seed: int) -> None:
    """Rulebook setup steps 1-18, with every random element drawn from ``state.rng``."""
    game = state.game
    comps = game.components
    rng = state.rng = Draws(seed)
    n = state.num_players
    cfg = comps["setup"]
    # 3. scrolls: each colour in 3 face-down stacks "of as equal a size as possible", top
    # revealed (top = end of list). Walls & Guards mixes its scrolls into their colours.
    k = cfg["scroll_stacks_per_colour"]
    by_colour = comps.scrolls_by_colour
    for colour in SCROLL_COLOURS:
        ids = list(by_colour.get(colour, ()))
        rng.shuffle(ids)
        state.stacks += [ids[i * len(ids) // k : (i + 1) * len(ids) // k] for i in range(k)]
    state.stack_open = [True] * len(state.stacks)
    # 4. exchange offices: 3 random (modules may put more into the pool).
    pool = [o for o, e in comps.exchange_offices.items() if not e["expansion"]]
    rng.shuffle(pool)
    state.offices = pool[: cfg["exchange_offices_used"]]
    # 5. luxury goods: 5 shops of equal stacks (a module deals goods marked not dealt).
    lux = [i for i, e in comps.luxuries.items() if e.get("dealt", True)]
    rng.shuffle(lux)
    k = len(lux) // cfg["luxury_shops"]
    state.shops = [lux[i * k : (i + 1) * k] for i in range(cfg["luxury_shops"])]
    state.shop_open = [True] * len(state.shops)
    # 6. river tiles: one double-sided tile per season, random side.
    # Ruling: "any side up" is drawn at random (a face is a random element of setup).
    for season in (1, 2, 3):
        faces = sorted(t for t, e in comps.river_tiles.items() if e["season"] == season)
        pairs = sorted({(f + 1) // 2 for f in faces})
        tile = rng.choice(pairs)
        state.river_tiles.append(2 * tile - rng.randrange(2))
    state.jetty_taken = [False] * len(comps["river"]["jetty_spots"])
    # 7. city gates: 8 per workshop from the bag.
    bag = [c for c, k in comps["city_gates"]["counts"].items() for _ in range(k)]
    rng.shuffle(bag)
    w = cfg["gates_per_workshop"]
    state.workshops = [sorted(bag[i * w : (i + 1) * w], key=COLOUR_INDEX.get) for i in range(4)]
    if "oases" not in game.hooks.replaced:  # e.g. Walls & Guards: brick tiles, wall board
        _setup_oases(state)
    # 16. provision tiles: 3 each. 17. resources, 12 keshis behind the screen.
    prov = list(comps.provisions)
    rng.shuffle(prov)
    m = cfg["provision_tiles_per_player"]
    for i, pl in enumerate(state.players):
        pl.provisions = [[t, False] for t in prov[i * m : (i + 1) * m]]
        pl.score = 0
        score(state, i, cfg["start_score"], "start: scoring track space 10")
        for r, amount in cfg["start_resources"].items():
            setattr(pl, r, amount)
        pl.screen = list(KESHI_COLOURS)
        for c in KESHI_COLOURS:
            issue(state, c)
    # 18. start player.
    state.start = state.season_start = rng.randrange(n)
    for module_setup in game.hooks.setup:
        module_setup(state)
    # The players' setup choices, in turn order: oasis-track order, disc, provision tile,
    # then the modules' (e.g. Walls & Guards: brick tiles).
    turn = order(state)
    module_asks = [a for setup_asks in game.hooks.setup_asks for a in setup_asks(state)]
    push(
        state,
        *[ask("track", p) for p in turn],
        *[ask("disc", p) for p in turn],
        *[ask("provision", p) for p in turn],
        *module_asks,
        T("round"),
    )


def _setup_oases(state: Board) -> None:
    """Setup steps 13 and 14: the oases and the oasis-track keshis."""
    rng, n = state.rng, state.num_players
    cfg = state.game.components["setup"]
    # 13. oases: 6 face down per player; river tile 02 shows 3 leftovers.
    oases = list(state.game.components.oases)
    rng.shuffle(oases)
    per = cfg["oases_per_player"]
    for i, pl in enumerate(state.players):
        pl.oases = oases[i * per : (i + 1) * per]
    if 2 in state.river_tiles:
        state.leftover_oases = oases[n * per : n * per + 3]
    # 14. oasis-track keshis from a bag of 8 (3 each in a 2-player game).
    track_bag = list(cfg["oasis_bag"])
    rng.shuffle(track_bag)
    k = cfg["oasis_track_keshis"][str(n)]
    for i, pl in enumerate(state.players):
        drawn = track_bag[i * k : (i + 1) * k]
        pl.held = sorted(drawn, key=COLOUR_INDEX.get)
        for c in drawn:
            issue(state, c)


@options("track")
def _track_options(state: Board, t: Task) -> list[int]:
    return [
        action_id("colour", COLOUR_INDEX[c])
        for c in sorted(set(state.players[t["p"]].held), key=COLOUR_INDEX.get)
    ]


@resolve("track")
def _track(state: Board, t: Task, a: Action) -> None:
    pl = state.players[t["p"]]
    colour = KESHI_COLOURS[a.arg]
    slots = [
        i for i, kind in enumerate(state.game.components["sahara"]["track"]) if kind == "keshi"
    ]
    slot = next(i for i in slots if str(i) not in pl.track)
    pl.held.remove(colour)
    pl.track[str(slot)] = colour
    if pl.held:
        # Re-ask with the state's stack order preserved: the next keshi goes to the next slot.
        state.stack.append(ask("track", t["p"]))


@options("disc")
def _disc_options(state: Board, t: Task) -> list[int]:
    return action_ids("choice", range(8))


@resolve("disc")
def _disc(state: Board, t: Task, a: Action) -> None:
    state.players[t["p"]].disc = a.arg


@options("provision")
def _provision_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    return action_ids("choice", [i for i, (_, shown) in enumerate(pl.provisions) if not shown])


@resolve("provision")
def _provision(state: Board, t: Task, a: Action) -> None:
    state.players[t["p"]].provisions[a.arg][1] = True


# -- phase 1 ----------------------------------------------------------------------------
@task("round")
def _round(state: Board, t: Task) -> None:
    for pl in state.players:
        pl.swapped = False
    hooks = state.game.hooks.round_tasks
    stack = state.stack
    # The round's tasks as literals (T() spelt out), the modules' end tasks run before
    # end_round and their start tasks first.
    stack.append({"t": "end_round"})
    stack.extend(reversed([x for round_tasks in hooks for x in round_tasks(state, "end")]))
    stack += (
        {"t": "river_bonus", "k": 0},
        {"t": "assist_turn", "k": 0},
        {"t": "claim_turn", "k": 0},
        {"t": "throw"},
        {"t": "deploy_assistants"},
        {"t": "select", "chosen": {str(p): None for p in range(state.num_players)}},
    )
    stack.extend(reversed([x for round_tasks in hooks for x in round_tasks(state, "start")]))


#: A screen's colours as they lie -> the ids of the selections among them. Screens change
#: by whole selections, so the same ones recur; the selection is asked of every pending
#: player each time the rules advance (a tuple is hashed faster than a frozenset). At most
#: 4096 screens are kept.
_SELECTABLE: dict[tuple[str, ...], list[int]] = {}


def _select_options(state: Board, t: Task) -> list[int]:
    """The selections open to the player's screen: a list shared by every screen of the
    same colours in the same order, which the rules only read
    (``State.legal_action_ids`` hands out copies)."""
    screen = tuple(state.players[t["p"]].screen)
    ids = _SELECTABLE.get(screen)
    if ids is None:
        # The triples of the screen's colours, in the order of SELECTIONS (both are
        # lexicographic combinations of sorted colour indices).
        offset = action_id("select", 0)
        allowed = sorted({COLOUR_INDEX[c] for c in screen})
        ids = [offset + SELECTION_INDEX[s] for s in combinations(allowed, 3)]
        if len(_SELECTABLE) < 4096:
            _SELECTABLE[screen] = ids
    return ids


options("select")(_select_options)  # cpdef compiled (phases.pxd)


@resolve("select")
def _select_done(state: Board, t: Task, a: Action) -> None:
    offset = action_id("select", 0)
    for p, aid in t["chosen"].items():
        pl = state.players[int(p)]
        colours = [*map(KESHI_COLOURS.__getitem__, SELECTIONS[aid - offset])]
        for c in colours:
            pl.screen.remove(c)
        pl.hand = colours


def _deploy_assistants(state: Board, t: Task) -> None:
    asks = []
    for p in order(state):
        pl = state.players[p]
        pl.assistants = {}
        for c in pl.hand:
            if c != "red":
                s = sector_of(c)
                pl.assistants[s] = pl.assistants.get(s, 0) + 1
        if "red" in pl.hand:
            asks.append({"t": "ask", "k": "red_assistant", "p": p})
    state.stack += reversed(asks)  # push(state, *asks)


task("deploy_assistants")(_deploy_assistants)  # cpdef compiled (phases.pxd)


@options("red_assistant")
def _red_assistant_options(state: Board, t: Task) -> list[int]:
    a = state.players[t["p"]].assistants
    return [_SECTOR + i for i, s in enumerate(SECTORS) if a.get(s, 0) < (3 if s == "souk" else 1)]


@resolve("red_assistant")
def _red_assistant(state: Board, t: Task, a: Action) -> None:
    s = SECTORS[a.arg]
    ass = state.players[t["p"]].assistants
    ass[s] = ass.get(s, 0) + 1


# -- phase 2 ----------------------------------------------------------------------------
#: (colour, the id of ``colour:<colour>``, whether its room is unlimited) of every keshi
#: colour, in order.
_COLOUR_IDS = tuple((c, _COLOUR + COLOUR_INDEX[c], c in sectors.UNLIMITED) for c in KESHI_COLOURS)
#: The display's counts of every keshi colour, in order, read in one call.
_DISPLAY_COUNTS = itemgetter(*KESHI_COLOURS)


def claimable_ids(state: Board, p: int) -> list[int]:
    """The ids ``colour:<c>`` of the colours player ``p`` may claim from the display now
    (listed on every claim turn: room() is asked about the colours of limited room only)."""
    game = state.game
    rooms, plain = game.rooms, game.plain_rooms
    pl = state.players[p]
    keshis = pl.keshis
    # Only the colours on display are looped over (about 3 of the 12: compress picks them
    # out in one call), in a loop rather than a comprehension (no function made per call);
    # a colour of plain capacity is read without its rule's call.
    out = []
    for c, i, free in compress(_COLOUR_IDS, _DISPLAY_COUNTS(state.display)):
        if free or (keshis[c] < CAPACITY if c in plain else rooms[c](state, p) > 0):
            out.append(i)
    return out


def claim_ids(state: Board, p: int) -> list[int]:
    """The options of player ``p``'s claim: the claimable colours, then what the modules
    offer in place of keshis."""
    out = claimable_ids(state, p)
    for hook in state.game.hooks.claim_options:  # what the modules offer instead
        out += hook(state, p)
    return out


def _claim_turn(state: Board, t: Task) -> None:
    k = t["k"]
    n = len(state.players)
    if k == 0:
        for pl in state.players:
            pl.forfeit = False
    for step in range(n):
        p = (state.start + k + step) % n  # the (k + step)-th player in turn order
        pl = state.players[p]
        if pl.forfeit:
            continue
        opts = claim_ids(state, p)
        if not opts:
            # A player whose only claimable colours are full sectors forfeits the phase.
            pl.forfeit = True
            continue
        # The claim, then the next claim turn. The decision comes with the options just
        # listed, the same advance would list at once (unless a module redirects it); the
        # tasks are spelt out rather than made by ask, T and push: this runs for every
        # claim of the game.
        claim = {"t": "ask", "k": "claim", "p": p}
        if "claim" not in state.game.hooks.redirects:
            claim["o"] = opts
        state.stack += ({"t": "claim_turn", "k": k + step + 1}, claim)
        return
    # Ruling: keshis nobody may claim stay in the tower base ("must leave the other in the
    # tower base") and can be claimed in a later round.


task("claim_turn")(_claim_turn)  # cpdef compiled (phases.pxd)


@options("claim_second")
def _claim_second_options(state: Board, t: Task) -> list[int]:
    return claimable_ids(state, t["p"])


@options("claim")
def _claim_options(state: Board, t: Task) -> list[int]:
    return claim_ids(state, t["p"])


def _claim(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    for hook in state.game.hooks.claim:
        if hook(state, p, a):
            return
    colour = KESHI_COLOURS[a.arg]
    if has_mod(state, p, "claim_two_any"):
        # Scroll 61: two keshis of any colours, one at a time.
        # The second colour is chosen after the first keshi is deployed.
        push(state, ask("claim_second", p))
        take = 1
    else:
        # Ruling: "up to 2" means as many as available and placeable, at most 2.
        take = min(2, state.display[colour], state.game.rooms[colour](state, p))
    _take(state, p, colour, take)


resolve("claim")(_claim)  # cpdef compiled (phases.pxd)


@resolve("claim_second")
def _claim_second(state: Board, t: Task, a: Action) -> None:
    _take(state, t["p"], KESHI_COLOURS[a.arg], 1)


def _take(state: Board, p: int, colour: str, n: int) -> None:
    state.display[colour] -= n
    pl = state.players[p]
    pl.held.extend([colour] * n)
    # The n deploy tasks (one or two), without a comprehension's function made per claim.
    stack = state.stack
    for _ in range(n):
        stack.append({"t": "deploy", "p": p, "c": colour, "src": "held"})


# -- phase 3 ----------------------------------------------------------------------------
def _assist_turn(state: Board, t: Task) -> None:
    k = t["k"]
    n = len(state.players)
    if k >= n:
        return
    p = (state.start + k) % n  # the k-th player in turn order
    state.turn = p
    hooks = state.game.hooks.turn_tasks_at
    # Loops, not comprehensions (no function made per turn).
    start: list[Task] = []
    for turn_tasks in hooks["start"]:
        start += turn_tasks(state, p, "start")
    end: list[Task] = []
    for turn_tasks in hooks["end"]:
        end += turn_tasks(state, p, "end")
    # push(state, *start, ask("assistant", p), *end, T("end_turn", p=p),
    # T("assist_turn", k=k + 1)), spelt out: it runs for every turn of the game.
    stack = state.stack
    stack += ({"t": "assist_turn", "k": k + 1}, {"t": "end_turn", "p": p}, *reversed(end))
    stack += ({"t": "ask", "k": "assistant", "p": p}, *reversed(start))


task("assist_turn")(_assist_turn)  # cpdef compiled (phases.pxd)


#: Id of ``assistant:<first sector>/keshi``; sector ``i``'s two actions follow at 2 * i.
_ASSISTANT = action_id("assistant")
#: sector -> the id of ``assistant:<sector>/keshi`` (its sector action's id follows).
_ASSISTANT_IDS = {s: _ASSISTANT + 2 * i for s, i in SECTOR_INDEX.items()}


def _assistant_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    out = []
    game = state.game
    rooms, plain = game.rooms, game.plain_rooms
    pl = state.players[p]
    keshis = pl.keshis
    for s, n in pl.assistants.items():
        if n <= 0:
            continue
        keshi = _ASSISTANT_IDS[s]
        # A sector of plain capacity is read without its room rule's call.
        if s == "souk" or (keshis[s] < CAPACITY if s in plain else rooms[s](state, p) > 0):
            out.append(keshi)
        # Ruling: the sector action is always allowed, even when it would achieve nothing
        # (the rulebook offers both options to every assistant).
        out.append(keshi + 1)
    out.sort()
    return out


options("assistant")(_assistant_options)  # cpdef compiled (phases.pxd)


def _assistant(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    s = SECTORS[a.arg // 2]
    use_action = a.arg % 2 == 1
    state.players[p].assistants[s] -= 1
    if use_action:
        work = {"t": "action", "p": p, "s": s}
    elif s == "souk":
        work = {"t": "ask", "k": "souk_keshi", "p": p}
    else:
        work = {"t": "deploy", "p": p, "c": s, "src": "supply"}
    # The water vendor's water comes first (what it triggers is pushed over the work);
    # then the assistant's work; then the next assistant. (The tasks are spelt out, not
    # made by T and ask: this runs for every assistant of the game.)
    state.stack += ({"t": "ask", "k": "assistant", "p": p}, work)
    sectors.vendor_water(state, p, s, use_action)


resolve("assistant")(_assistant)  # cpdef compiled (phases.pxd)


@options("souk_keshi")
def _souk_keshi_options(state: Board, t: Task) -> list[int]:
    return [*_GOODS_IDS]  # a new list: a decision's options are its own


#: The ids of ``colour:<good>`` of the goods colours.
_GOODS_IDS = tuple(_COLOUR + COLOUR_INDEX[c] for c in GOODS)


@resolve("souk_keshi")
def _souk_keshi(state: Board, t: Task, a: Action) -> None:
    # push(state, T("deploy", ...)), spelt out: most souk assistants deploy a keshi.
    state.stack.append({"t": "deploy", "p": t["p"], "c": KESHI_COLOURS[a.arg], "src": "supply"})


@task("end_turn")
def _end_turn(state: Board, t: Task) -> None:
    """After a player's 3 assistants: reveal luxury goods and scrolls, restock, refill."""
    pl = state.players[t["p"]]
    pl.assistants = {}
    state.turn = -1
    for s in pl.vendors:
        pl.vendors[s] = 1
    if pl.souk_vendor:
        pl.souk_vendor = 1
    refill_display(state)


#: The scroll stacks of each colour: 3 stacks each.
_SCROLL_GROUPS = tuple(range(3 * g, 3 * g + 3) for g in range(len(SCROLL_COLOURS)))


def refill_display(state: Board) -> None:
    """Restock empty souk shops and scroll stacks and reveal every top."""
    if not all(state.shops):
        _refill(state.shops, range(len(state.shops)))
    stacks = state.stacks
    if not all(stacks):
        for group in _SCROLL_GROUPS:
            i = group.start
            a, b, c = stacks[i], stacks[i + 1], stacks[i + 2]
            # A colour's stacks all full or all empty (the commonest case after every
            # turn) have nothing to refill: _refill's own early test, made here at once.
            if (a or b or c) and not (a and b and c):
                _refill(stacks, group)
    # truth() rather than bool(): a function, not a type, called for every shop and stack.
    state.shop_open[:] = map(truth, state.shops)
    state.stack_open[:] = map(truth, state.stacks)


def _refill(stacks: list[list[int]], group: range) -> None:
    """Refill each empty stack of ``group`` with the lower half (rounded down) of the
    largest other stack of the group.

    Ruling: shops are restocked at the end of the turn, with the reveals, and from the
    lower half of the largest stack (as for scrolls); ties go to the leftmost stack.
    """
    sizes = [len(stacks[i]) for i in group]
    if not sizes or min(sizes) or max(sizes) < 2:
        return  # no empty stack, or none with a lower half to give
    for i in group:
        if not stacks[i]:
            donor = i  # the largest other stack, the leftmost of equals
            for j in group:
                if len(stacks[j]) > len(stacks[donor]):
                    donor = j
            half = len(stacks[donor]) // 2
            if half:
                stacks[i] = stacks[donor][:half]
                stacks[donor] = stacks[donor][half:]


# -- phase 4 ----------------------------------------------------------------------------
@task("river_bonus")
def _river_bonus(state: Board, t: Task) -> None:
    for p in reversed(order(state)):
        if sectors.rapids_crossed(state, p):
            state.stack.append({"t": "rapid_bonus", "p": p})


@task("rapid_bonus")
def _rapid_bonus(state: Board, t: Task) -> None:
    p = t["p"]
    crossed = sectors.rapids_crossed(state, p)
    if has_mod(state, p, "river_bonus_all"):
        # Scroll 69: every crossed rapid's bonus instead of one.
        push(state, *[T("rapid", p=p, i=i) for i in range(crossed)])
    else:
        state.stack.append({"t": "ask", "k": "rapid_choice", "p": p, "n": crossed})


@options("rapid_choice")
def _rapid_choice_options(state: Board, t: Task) -> list[int]:
    return action_ids("choice", range(t["n"]))


@resolve("rapid_choice")
def _rapid_choice(state: Board, t: Task, a: Action) -> None:
    state.stack.append({"t": "rapid", "p": t["p"], "i": a.arg})


@task("end_round")
def _end_round(state: Board, t: Task) -> None:
    state.start = (state.start + 1) % state.num_players
    if state.round < 4:
        state.round += 1
        state.stack.append({"t": "round"})
    else:
        state.stack.append({"t": "season_end"})
