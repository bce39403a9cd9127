"""Gems (Gems & Experts): 56 gems found on the boards, placed on a necklace, traded with
the gem dealer, scored at the end.

Switched on by ``"gems"`` in ``GameConfig.modules``; combinable with every other module.
Rulebook: *Gems & Experts* ("Gems"); printed components in
``data/gems.toml`` (every entry ``rulebook`` or ``assumed``, rulings next to the rule they
settle). What the module changes:

- setup: the gems are mixed into a face-down supply; 3 gems of 3 different colours go to
  the gem dealer; face-up gems on the river's 9th space (one more at the start of each
  further season), on the palace's 12th and the mosque's 9th step (1 per player each),
  2 on each player's audience disc (setup decision ``gems_disc``: which section with 1
  spectator, which gem on top); face-down gems on the connection line of the two 3rd
  sections (1 per player), and on each player's oasis track, sahara (2), medina and date
  orchard (4th and 7th space). Scrolls 73-76 and the oases printed 39 and 40 (here 43 and
  44) are mixed in;
- finding a gem (the core's hook ``reached``, ``after_stair_move``; a sweep at the end of
  each turn and round for sites reached by other modules' rules): the gem goes onto a free
  space of its colour on the necklace (a start space, or one next to a placed gem;
  decision ``gems_place``, ``slot:i``) for 1 point and the bonuses of the lines it
  completes; a gem that cannot be placed lies with the resources;
- in a souk action (decision ``gems_souk``, after the core's souk): once per turn a sale
  (1 loose gem for 2 dinars, or 2 of one colour for a keshi) and once per turn a purchase
  (3 dinars or 2 goods keshis of one colour; ``gems_pay``). Sold gems can be bought from
  the end of the seller's turn;
- final scoring: 1/3/6/10/15 points for 1-5 colours on the necklace, the complete rows'
  points; loose gems count as remaining resources;
- the Gems-only alms options (``gem_search``) and the Closed Madrasa's scroll 05 gem.

No new action kinds: the decisions use ``choice``, ``slot`` and ``pass``.

State: ``state.ext["gems"]`` (:class:`Shared`) and ``player.ext["gems"]``
(:class:`Mine`).

Examples
--------
>>> from tower.marrakesh import Game, GameConfig
>>> s = Game(GameConfig(players=2, modules=frozenset({"gems"}))).new_initial_state(1)
>>> g = s.ext["gems"]
>>> len(g["dealer"]) == len(set(g["dealer"])) == 3, len(g["palace"]), len(g["river"])
(True, 2, 1)
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from tower.errors import InputFileError
from tower.marrakesh.actions import GOODS, Action, action_id, action_ids, ordinal
from tower.marrakesh.components import TIMINGS, Components, check_effects
from tower.marrakesh.effects import Effect, run_effects
from tower.marrakesh.hooks import Module, RuleSet, SeasonStep, register
from tower.marrakesh.labels import a_an
from tower.marrakesh.module_data import DATA, mix_in, read
from tower.marrakesh.rules import (
    Label,
    T,
    Task,
    ask,
    can_pay,
    order,
    pay,
    push,
    score,
)

if TYPE_CHECKING:
    from tower.marrakesh.state import State

#: The tasks, decisions, labels and effects this module adds to a game that switches it on.
ADDS = RuleSet()

NAME = "gems"
COLOURS: tuple[str, ...] = ("yellow", "blue", "red", "green", "orange")
PASS = action_id("pass")
_CHOICE = action_id("choice")
#: The face-down discovery sites of a player board.
SITES: tuple[str, ...] = ("track", "sahara_a", "sahara_b", "gate", "orchard_a", "orchard_b")
#: ``gems_souk`` choices: sell 1 of colour i, sell 2 of colour i, buy 1 of colour i.
SELL_ONE, SELL_TWO, BUY = 0, 5, 10
#: The 3 pairs of different goods colours (2 same-coloured yellow or orange gems sold).
GOODS_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (a, b) for i, a in enumerate(GOODS) for b in GOODS[i + 1 :]
)


# -- components -------------------------------------------------------------------------
@cache
def data(path: str | None = None) -> dict[str, Any]:
    """The checked module data (``data/gems.toml`` by default); raises
    :class:`InputFileError` naming the file and the field."""
    where = DATA / "gems.toml" if path is None else Path(path)
    d = read(where, entries={"bonus": (10, 1), "scroll": (4, 73), "oasis": (2, 43)})
    try:
        counts = d["gems"]["counts"]
        neck = d["necklace"]
        n = len(neck["colours"])
        sale = d["sale"]["keshi"]
        sites = d["sites"]
    except (KeyError, TypeError) as exc:
        raise InputFileError(str(where), f"missing table or field: {exc}") from exc
    if sorted(counts) != sorted(COLOURS) or not all(isinstance(v, int) for v in counts.values()):
        raise InputFileError(str(where), f"needs a count for each of {COLOURS}", field="counts")
    if set(neck["colours"]) - set(COLOURS) or n > 16:
        raise InputFileError(
            str(where), "colours must be gem colours, 16 spaces at most", field="necklace.colours"
        )
    if sorted(s for row in neck["rows"] for s in row) != list(range(n)):
        raise InputFileError(str(where), "rows must hold every space once", field="necklace.rows")
    lines = {tuple(sorted(x)) for x in neck["lines"]}
    for bid, b in d["bonus"].items():
        if tuple(sorted(b["line"])) not in lines:
            raise InputFileError(str(where), f"{b['line']} is not a line", field=f"bonus {bid}")
    if sorted(sale) != sorted(COLOURS):
        raise InputFileError(str(where), f"needs a keshi for each of {COLOURS}", field="sale")
    for key in ("river_space", "palace_step", "mosque_step", "track_space", "gate_space"):
        if not isinstance(sites.get(key), int):
            raise InputFileError(str(where), "must be an integer", field=f"sites.{key}")
    for sid, sc in d["scroll"].items():
        if sc.get("timing") not in TIMINGS:
            raise InputFileError(str(where), "needs a timing", field=f"scroll {sid}.timing")
        check_effects(str(where), f"scroll {sid}.effect", sc["effect"])
    neighbours: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in neck["lines"]:
        neighbours[a].append(b)
        neighbours[b].append(a)
    bonus = {tuple(sorted(b["line"])): b["effect"] for b in d["bonus"].values()}
    # colour -> its necklace spaces, in order (where a gem of the colour may go).
    spaces = {c: tuple(i for i, x in enumerate(neck["colours"]) if x == c) for c in COLOURS}
    return {**d, "neighbours": neighbours, "line_bonus": bonus, "spaces_of": spaces}


def extend(comps: Components) -> Components:
    """The game's components with scrolls 73-76 and the Gems oases mixed in."""
    return mix_in(comps, data()["scroll"], data()["oasis"])


class Shared(TypedDict):
    """``state.ext["gems"]``: the gems of the board (colours; a pile's top is last)."""

    #: The supply bag, shuffled.
    supply: list[str]
    #: The gem dealer's gems for sale.
    dealer: list[str]
    #: Gems sold this turn, which reach the dealer at the end of the seller's turn.
    pending: list[str]
    #: The gems on the river, on the staircases' tops and on the connection line.
    river: list[str]
    palace: list[str]
    mosque: list[str]
    connection: list[str]


class Mine(TypedDict):
    """``state.players[p].ext["gems"]``: one player's gems."""

    #: The necklace's spaces: a colour, or ``None`` while empty.
    necklace: list[str | None]
    #: Gems found but not on the necklace (they count as remaining resources).
    loose: list[str]
    #: The audience disc: ``[section, [colours, top last]]``, indexed with
    #: :data:`SECTION` (-1 until chosen at setup) and :data:`ON_DISC`. A list, as the
    #: state's JSON has always written it.
    disc: list[Any]
    #: Board site -> the gem lying there (``None``: taken, or no such site).
    sites: dict[str, str | None]
    #: The staircase and connection gems taken (``"palace"``, ``"mosque"``,
    #: ``"connection"``).
    got: list[str]
    #: Whether the player sold (bought) a gem this turn.
    sold: bool
    bought: bool


#: Indices into ``Mine["disc"]``: the chosen section, the gems lying on the disc.
SECTION, ON_DISC = 0, 1


def _g(state: State) -> Shared:
    return state.ext[NAME]  # type: ignore[no-any-return]


def mine(state: State, p: int) -> Mine:
    """Player ``p``'s gems: ``state.players[p].ext["gems"]``."""
    pl = state.players[p]
    return pl.ext[NAME]  # type: ignore[no-any-return]


def _draw(state: State) -> str | None:
    """The top gem of the face-down supply (None when it is empty).

    Ruling: an empty supply gives no gem."""
    supply = _g(state)["supply"]
    return supply.pop() if supply else None


def _draw_many(state: State, n: int) -> list[str]:
    return [c for c in (_draw(state) for _ in range(n)) if c is not None]


# -- setup ------------------------------------------------------------------------------
def one_spectator_sections(state: State, p: int) -> list[int]:
    """The audience-disc sections printed with the disc gems' number of spectators (1),
    on the disc side in play (a scroll's extra spectator does not move the gems)."""
    want = data()["gems"]["disc_spectators"]
    discs = state.game.components["audience_disc"]
    return [s for s, n in enumerate(discs[discs["side"]]) if n == want]


@ADDS.option("gems_disc")
def _disc_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(2 * len(one_spectator_sections(state, t["p"]))))


@ADDS.resolution("gems_disc")
def _disc(state: State, t: Task, a: Action) -> None:
    # choice:2k+o: section k of those with 1 spectator; o = 1 turns the stack over.
    me = mine(state, t["p"])
    section, flip = divmod(a.arg, 2)
    me["disc"][SECTION] = one_spectator_sections(state, t["p"])[section]
    if flip:
        me["disc"][ON_DISC].reverse()


# -- finding and placing a gem ----------------------------------------------------------
def free_spaces(state: State, p: int, colour: str) -> list[int]:
    """Necklace spaces where a gem of ``colour`` may go now: free, of its colour, a start
    space or next to a placed gem."""
    d = data()
    neck = mine(state, p)["necklace"]
    starts = d["necklace"]["starts"]
    neighbours = d["neighbours"]
    # A placed gem (a colour's name) on a neighbouring space is looked up in C.
    return [
        i
        for i in d["spaces_of"][colour]
        if neck[i] is None and (i in starts or any(map(neck.__getitem__, neighbours[i])))
    ]


def receive(state: State, p: int, colour: str) -> None:
    """Player ``p`` receives a gem: placed on the necklace if it can be (it must be), else
    it lies with the resources."""
    state.stack.append({"t": "gems_receive", "p": p, "c": colour})


@ADDS.task("gems_receive")
def _receive(state: State, t: Task) -> None:
    p, c = t["p"], t["c"]
    if free_spaces(state, p, c):
        state.stack.append({"t": "ask", "k": "gems_place", "p": p, "c": c})
    else:
        mine(state, p)["loose"].append(c)


@ADDS.option("gems_place")
def _place_options(state: State, t: Task) -> list[int]:
    return action_ids("slot", free_spaces(state, t["p"], t["c"]))


@ADDS.resolution("gems_place")
def _place(state: State, t: Task, a: Action) -> None:
    p, i = t["p"], a.arg
    d = data()
    neck = mine(state, p)["necklace"]
    neck[i] = t["c"]
    score(state, p, d["gems"]["place_points"], "gems: gem placed on the necklace")
    for j in d["neighbours"][i]:
        effect = d["line_bonus"].get(tuple(sorted((i, j))))
        if effect and neck[j] is not None:
            run_effects(state, p, effect, f"gems: necklace line {min(i, j)}-{max(i, j)}")


def _pick_from(state: State, p: int, source: str) -> None:
    """Player ``p`` chooses 1 gem from a face-up source (decision ``gems_pick``)."""
    if _source(state, source):
        push(state, ask("gems_pick", p, src=source))


def _source(state: State, source: str) -> list[str]:
    return _g(state)[source]


@ADDS.option("gems_pick")
def _pick_options(state: State, t: Task) -> list[int]:
    have = set(_source(state, t["src"]))
    return [action_id("choice", k) for k, c in enumerate(COLOURS) if c in have]


@ADDS.resolution("gems_pick")
def _pick(state: State, t: Task, a: Action) -> None:
    colour = COLOURS[a.arg]
    _source(state, t["src"]).remove(colour)
    if t["src"] == "supply":
        state.rng.shuffle(_g(state)["supply"])  # "Mix the gem supply afterwards."
    receive(state, t["p"], colour)


def _site(state: State, p: int, site: str) -> None:
    """Player ``p`` finds the face-down gem of their board's ``site`` (if still there)."""
    sites = mine(state, p)["sites"]
    if sites[site] is not None:
        colour, sites[site] = sites[site], None
        receive(state, p, colour)


def sweep(state: State, p: int) -> None:
    """Player ``p`` finds the board sites reached so far (sahara, medina, orchard): also
    those reached by other modules' rules that the core's hook does not see.

    Ruling: the orchard's 4th and 7th spaces count every keshi standing in the date
    orchard (Walls & Guards' caravans too, date pickers in the sahara not); a site is
    found once ("no further gem if ... you give up the 4th ... and later ... place one
    on this space again")."""
    # It runs on every ``reached`` event, with most sites still to find: the places come
    # ready-made and unpacked at once, the player's slot is read in place (mine(state, p)).
    pl = state.players[p]
    sites = pl.ext[NAME]["sites"]
    a, b, gate, at_a, at_b = _sweep_places()
    revealed, explored = pl.revealed, pl.explored
    # Ruling: with Walls & Guards (brick tiles instead of oases) the gem is found when the
    # path space is explored.
    if (revealed[a] or explored[a]) and sites["sahara_a"] is not None:
        _site(state, p, "sahara_a")
    if (revealed[b] or explored[b]) and sites["sahara_b"] is not None:
        _site(state, p, "sahara_b")
    if pl.gates[gate] is not None and sites["gate"] is not None:
        _site(state, p, "gate")
    keshis = pl.keshis["green"] - len(pl.sahara_green) + pl.orchard_brown
    if keshis >= at_a and sites["orchard_a"] is not None:
        _site(state, p, "orchard_a")
    if keshis >= at_b and sites["orchard_b"] is not None:
        _site(state, p, "orchard_b")


@cache
def _sweep_places() -> tuple[int, int, int, int, int]:
    """What :func:`sweep` looks at: the index in ``revealed`` and ``explored`` of the path
    space of the sites ``sahara_a`` and ``sahara_b``, the gate space, the keshis in the
    orchard that reach the sites ``orchard_a`` and ``orchard_b``."""
    s = data()["sites"]
    (a, b), (at_a, at_b) = (x - 2 for x in s["sahara_spaces"]), s["orchard"]
    return a, b, s["gate_space"], at_a, at_b


def _reached_gem(state: State, p: int, what: str, where: Any) -> None:
    """The gems of the hook ``reached`` (:meth:`Gems.reached`) other than the sites of
    :func:`sweep`."""
    g = _g(state)
    s = data()["sites"]
    me = mine(state, p)
    if what == "river" and where >= s["river_space"] and g["river"]:
        # "Whoever of you first reaches or moves past the space gets this gem."
        receive(state, p, g["river"].pop())
    elif what == "connection" and list(where) == s["connection_line"]:
        # "You can receive 1 gem tile here as an additional connection bonus ... only one."
        if g["connection"] and "connection" not in me["got"]:
            me["got"].append("connection")
            receive(state, p, g["connection"].pop())
    elif what == "audience" and where == me["disc"][SECTION] and me["disc"][ON_DISC]:
        receive(state, p, me["disc"][ON_DISC].pop())
    elif what == "track" and where == s["track_space"]:
        _site(state, p, "track")


# -- the gem dealer ---------------------------------------------------------------------
def _sale_keshi(colour: str) -> str:
    return data()["sale"]["keshi"][colour]


def souk_options(state: State, p: int) -> list[int]:
    """The sales and the purchase player ``p`` may make now (``choice`` ids)."""
    d = data()["gems"]
    me = mine(state, p)
    pl = state.players[p]
    out = []
    loose = me["loose"]
    if loose and not me["sold"]:
        out += [_CHOICE + SELL_ONE + k for k, c in enumerate(COLOURS) if c in loose]
        out += [_CHOICE + SELL_TWO + k for k, c in enumerate(COLOURS) if loose.count(c) >= 2]
    if not me["bought"]:
        dinars = can_pay(state, p, {"dinars": d["buy_dinars"]})
        goods = max(map(pl.keshis.__getitem__, GOODS)) >= d["buy_goods_keshis"]
        if dinars or goods:
            dealer = set(_g(state)["dealer"])
            out += [_CHOICE + BUY + k for k, c in enumerate(COLOURS) if c in dealer]
    return sorted(out)


@ADDS.option("gems_souk")
def _souk_options(state: State, t: Task) -> list[int]:
    return [PASS, *souk_options(state, t["p"])]


@ADDS.resolution("gems_souk", ignore_pass=True)
def _souk(state: State, t: Task, a: Action) -> None:
    p = t["p"]
    me = mine(state, p)
    kind, k = divmod(a.arg, 5)
    colour = COLOURS[k]
    again = T("gems_souk_again", p=p)
    if kind == 2:  # buy
        me["bought"] = True
        _g(state)["dealer"].remove(colour)
        push(state, ask("gems_pay", p), T("gems_receive", p=p, c=colour), again)
        return
    n = 1 if kind == 0 else 2
    me["sold"] = True
    for _ in range(n):
        me["loose"].remove(colour)
    _g(state)["pending"] += [colour] * n  # on sale from the end of the turn
    if n == 1:
        state.players[p].dinars += data()["gems"]["sell_one_dinars"]
        push(state, again)
    elif _sale_keshi(colour) == "goods2":
        push(state, ask("gems_goods", p), again)
    else:
        push(state, T("deploy", p=p, c=_sale_keshi(colour), src="supply"), again)


@ADDS.task("gems_souk_again")
def _souk_again(state: State, t: Task) -> None:
    if souk_options(state, t["p"]):
        push(state, ask("gems_souk", t["p"]))


@ADDS.option("gems_goods")
def _goods_options(state: State, t: Task) -> list[int]:
    return action_ids("choice", range(len(GOODS_PAIRS)))


@ADDS.resolution("gems_goods")
def _goods(state: State, t: Task, a: Action) -> None:
    push(state, *[T("deploy", p=t["p"], c=c, src="supply") for c in GOODS_PAIRS[a.arg]])


@ADDS.option("gems_pay")
def _pay_options(state: State, t: Task) -> list[int]:
    d = data()["gems"]
    p = t["p"]
    out = []
    if can_pay(state, p, {"dinars": d["buy_dinars"]}):
        out.append(action_id("choice", 0))
    pl = state.players[p]
    out += [
        action_id("choice", 1 + k)
        for k, c in enumerate(GOODS)
        if pl.keshis[c] >= d["buy_goods_keshis"]
    ]
    return out


@ADDS.resolution("gems_pay")
def _pay(state: State, t: Task, a: Action) -> None:
    d = data()["gems"]
    p = t["p"]
    if a.arg == 0:
        pay(state, p, {"dinars": d["buy_dinars"]})
        return
    c = GOODS[a.arg - 1]
    state.players[p].keshis[c] -= d["buy_goods_keshis"]
    state.issued[c] -= d["buy_goods_keshis"]


@ADDS.task("gems_turn_start")
def _turn_start(state: State, t: Task) -> None:
    me = mine(state, t["p"])
    me["sold"] = me["bought"] = False


@ADDS.task("gems_turn_end")
def _turn_end(state: State, t: Task) -> None:
    """Sold gems can be bought from the end of the seller's turn; sites reached."""
    g = _g(state)
    g["dealer"] += g["pending"]
    g["pending"] = []
    sweep(state, t["p"])


@ADDS.task("gems_round_end")
def _round_end(state: State, t: Task) -> None:
    for p in order(state):
        sweep(state, p)


@ADDS.task("gems_season")
def _season(state: State, t: Task) -> None:
    """The start of a further season: exactly 1 gem on the river's 9th space.

    Ruling: a river gem nobody reached goes back into the supply (mixed) before the new one
    is drawn, so that exactly 1 lies there."""
    g = _g(state)
    g["supply"] += g["river"]
    state.rng.shuffle(g["supply"])
    g["river"] = _draw_many(state, 1)


def season_tasks(state: State) -> list[Task]:
    # Runs after "prepare": only when a further season follows.
    return [T("gems_season")] if state.season < 3 else []


# -- effects: scrolls 73-76, the alms options, the Madrasa's scroll 05 -------------------
def _gem_draw(state: State, p: int, e: Effect) -> None:
    push(state, *[T("gems_receive", p=p, c=c) for c in _draw_many(state, e.get("n", 1))])


def _gem_choose(state: State, p: int, e: Effect) -> None:
    _pick_from(state, p, "dealer")


def _gem_search(state: State, p: int, e: Effect) -> None:
    # Alms: "Search through the gem supply and pick any gem. Mix the gem supply afterwards."
    push(state, *[T("gems_search", p=p) for _ in range(e.get("n", 1))])


@ADDS.task("gems_search")
def _search(state: State, t: Task) -> None:
    _pick_from(state, t["p"], "supply")


def _gem_trade(state: State, p: int, e: Effect) -> None:
    if mine(state, p)["loose"] and _g(state)["dealer"]:
        push(state, ask("gems_trade", p))


@ADDS.option("gems_trade")
def _loose_options(state: State, t: Task) -> list[int]:
    """Pass, or one of the loose gems by colour (``choice:k``, colour ``COLOURS[k]``)."""
    loose = set(mine(state, t["p"])["loose"])
    return [PASS] + [action_id("choice", k) for k, c in enumerate(COLOURS) if c in loose]


@ADDS.resolution("gems_trade", ignore_pass=True)
def _trade(state: State, t: Task, a: Action) -> None:
    # "trade 1 of your gems lying with the resources for any 1 gem of the gem dealer".
    # Ruling: the gem taken is received like any gem (onto the necklace if it fits); the
    # gem given joins the dealer at the end of the turn, like a sold one.
    colour = COLOURS[a.arg]
    mine(state, t["p"])["loose"].remove(colour)
    _g(state)["pending"].append(colour)
    _pick_from(state, t["p"], "dealer")


def _gem_return(state: State, p: int, e: Effect) -> None:
    # The Closed Madrasa's scroll 19 "(incl. gems)": loose gems back into the supply for
    # e["points"] each, e["left"] at most (after the resources returned).
    if mine(state, p)["loose"]:
        push(state, ask("gems_return", p, left=e["left"], pts=e["points"]))


@ADDS.resolution("gems_return", ignore_pass=True)
def _return(state: State, t: Task, a: Action) -> None:
    p = t["p"]
    colour = COLOURS[a.arg]
    mine(state, p)["loose"].remove(colour)
    g = _g(state)
    g["supply"].append(colour)
    state.rng.shuffle(g["supply"])
    score(state, p, t["pts"], "madrasa scroll 19: gem returned")
    if t["left"] > 1:
        _gem_return(state, p, {"left": t["left"] - 1, "points": t["pts"]})


ADDS.option("gems_return")(_loose_options)


# -- named decisions --------------------------------------------------------------------
def _gem(colour: str, n: int = 1) -> str:
    return f"{n} {colour} gem{'' if n == 1 else 's'}"


@ADDS.label("gems_disc")
def _disc_label(state: State, t: Task, a: Action) -> Label:
    section, flip = divmod(a.arg, 2)
    where = ordinal(one_spectator_sections(state, t["p"])[section] + 1)
    gems = mine(state, t["p"])["disc"][ON_DISC]
    top = gems[0] if flip else gems[-1]
    how = "turned over" if flip else "as drawn"
    return f"lay the disc gems on its {where} section, {how}: the {top} gem on top"


@ADDS.label("gems_place")
def _place_label(state: State, t: Task, a: Action) -> Label:
    return f"put the {t['c']} gem on the {ordinal(a.arg + 1)} necklace space", {"points": 1}, {}


@ADDS.label("gems_pick")
def _pick_label(state: State, t: Task, a: Action) -> Label:
    where = {"supply": "the gem supply", "dealer": "the gem dealer"}.get(
        t["src"], f"the {t['src']} staircase"
    )
    return f"take {_gem(COLOURS[a.arg])} from {where}"


@ADDS.label("gems_souk", passing="leave the gem dealer")
def _souk_label(state: State, t: Task, a: Action) -> Label:
    kind, k = divmod(a.arg, 5)
    colour = COLOURS[k]
    d = data()["gems"]
    if kind == 0:
        n = d["sell_one_dinars"]
        return f"sell {_gem(colour)} for {n} dinars", {"dinars": n}, {f"{colour} gems": 1}
    if kind == 1:
        keshi = _sale_keshi(colour)
        what = "2 goods keshis of different colours" if keshi == "goods2" else f"a {keshi} keshi"
        return f"sell {_gem(colour, 2)} for {what}", {}, {f"{colour} gems": 2}
    return f"buy {_gem(colour)} from the gem dealer", {f"{colour} gems": 1}, {}


@ADDS.label("gems_goods")
def _goods_label(state: State, t: Task, a: Action) -> Label:
    first, second = GOODS_PAIRS[a.arg]
    return f"take {a_an(first)} and {a_an(second)} keshi"


@ADDS.label("gems_pay")
def _pay_label(state: State, t: Task, a: Action) -> Label:
    d = data()["gems"]
    if a.arg == 0:
        n = d["buy_dinars"]
        return f"pay {n} dinars", {}, {"dinars": n}
    c, n = GOODS[a.arg - 1], d["buy_goods_keshis"]
    return f"pay {n} {c} keshis", {}, {f"{c} keshis": n}


@ADDS.label("gems_trade", passing="trade no gem")
def _trade_label(state: State, t: Task, a: Action) -> Label:
    return f"trade your loose {COLOURS[a.arg]} gem for a gem of the dealer"


@ADDS.label("gems_return", passing="return no gem")
def _return_label(state: State, t: Task, a: Action) -> Label:
    pts = t["pts"]
    return f"return your loose {COLOURS[a.arg]} gem for {pts} points", {"points": pts}, {}


ADDS.specials["gem_draw"] = _gem_draw
ADDS.specials["gem_return"] = _gem_return
ADDS.specials["gem_choose"] = _gem_choose
ADDS.specials["gem_search"] = _gem_search
ADDS.specials["gem_trade"] = _gem_trade


# -- scoring ----------------------------------------------------------------------------
def possessed(state: State, p: int) -> list[str]:
    """The gems player ``p`` possesses: on the necklace and lying with the resources."""
    me = mine(state, p)
    return [c for c in me["necklace"] if c is not None] + list(me["loose"])


def necklace_points(state: State, p: int) -> int:
    """The final points of the necklace: colours placed, then complete rows."""
    d = data()
    neck = mine(state, p)["necklace"]
    colours = len({c for c in neck if c is not None})
    points = d["gems"]["colour_points"][colours - 1] if colours else 0
    for row, worth in zip(d["necklace"]["rows"], d["necklace"]["row_points"], strict=True):
        if all(neck[i] is not None for i in row):
            points += worth
    return points


ADDS.oasis_kinds["gems_owned"] = lambda state, p, o: min(
    o["max"], o["points"] * len(possessed(state, p))
)
ADDS.oasis_kinds["gems_colours"] = lambda state, p, o: min(
    o["max"], o["points"] * len(set(possessed(state, p)))
)


# -- invariants -------------------------------------------------------------------------
def everywhere(state: State) -> Counter[str]:
    """Every gem, wherever it lies (supply, dealer, board sites, players)."""
    g = _g(state)
    out: Counter[str] = Counter()
    for key in ("supply", "dealer", "pending", "river", "palace", "mosque", "connection"):
        out.update(g[key])
    for p in range(state.num_players):
        me = mine(state, p)
        out.update(possessed(state, p))
        out.update(me["disc"][ON_DISC])
        out.update(c for c in me["sites"].values() if c is not None)
    for top in state.stack:  # gems on their way to a player
        if top["t"] == "gems_receive" or top.get("k") == "gems_place":
            out[top["c"]] += 1
    return out


def check(state: State) -> None:
    """All 56 gems accounted for; every placed gem on a space of its colour."""
    have = everywhere(state)
    want = Counter(data()["gems"]["counts"])
    assert have == want, f"gems lost or created: have {dict(have)}, printed {dict(want)}"
    colours = data()["necklace"]["colours"]
    for p in range(state.num_players):
        for i, c in enumerate(mine(state, p)["necklace"]):
            assert c is None or c == colours[i], f"player {p}: {c} gem on {colours[i]} space {i}"


@register
class Gems(Module):
    """Gems on the hooks (see the module docstring)."""

    name = NAME
    action_sectors = frozenset({"souk"})
    counts = frozenset({"necklace_gems"})
    adds = ADDS
    title = "Gems & Experts: Gems (necklace, gem dealer, scrolls 73-76, 2 oases)"
    rulebook = "Gems & Experts"
    season_steps = (SeasonStep("gems_river", "prepare", season_tasks),)

    def components(self, comps: Components) -> Components:
        return extend(comps)

    def setup(self, state: State) -> None:
        """The supply, the dealer and every gem site (see the module docstring)."""
        d = data()
        supply = [c for c in COLOURS for _ in range(d["gems"]["counts"][c])]
        state.rng.shuffle(supply)
        g: dict[str, Any] = {
            "supply": supply,
            "dealer": [],
            "pending": [],
            "river": [],
            "palace": [],
            "mosque": [],
            "connection": [],
        }
        state.ext[NAME] = g
        put_back = []
        while len(g["dealer"]) < d["gems"]["dealer_start"] and supply:
            c = supply.pop()
            (put_back if c in g["dealer"] else g["dealer"]).append(c)
        supply += put_back
        state.rng.shuffle(supply)  # "You mix all other gems back into the supply."
        n = state.num_players
        g["river"] = _draw_many(state, 1)
        g["palace"] = _draw_many(state, n)
        g["mosque"] = _draw_many(state, n)
        g["connection"] = _draw_many(state, n)
        # Ruling: a game whose oases are replaced (Walls & Guards: brick tiles, no oasis
        # track) has no space for the oasis-track gem: it is not laid out.
        absent = {"track"} if "oases" in state.game.hooks.replaced else set()
        for p in range(n):
            state.players[p].ext[NAME] = {
                "necklace": [None] * len(d["necklace"]["colours"]),
                "loose": [],
                "disc": [-1, _draw_many(state, d["gems"]["disc_gems"])],
                "sites": {s: None if s in absent else _draw(state) for s in SITES},
                "got": [],
                "sold": False,
                "bought": False,
            }

    def setup_asks(self, state: State) -> list[Task]:
        return [ask("gems_disc", p) for p in order(state)]

    def turn_tasks(self, state: State, p: int, when: str) -> list[Task]:
        # A literal task rather than T(): asked twice in every turn.
        return [{"t": "gems_turn_start" if when == "start" else "gems_turn_end", "p": p}]

    def round_tasks(self, state: State, when: str) -> list[Task]:
        return [{"t": "gems_round_end"}] if when == "end" else []

    def reached(self, state: State, p: int, what: str, where: Any) -> None:
        """The core's hook ``reached``: the river gem, the connection gem, the disc gems, the
        oasis-track gem and the sites of :func:`sweep`."""
        if what != "keshi":  # a keshi deployed (the commonest event) only sweeps
            _reached_gem(state, p, what, where)
        sweep(state, p)

    def after_stair_move(self, state: State, p: int, which: str) -> None:
        """The staircase gems: reaching or crossing the step, choose 1 of those there."""
        step = data()["sites"]["palace_step" if which == "palace" else "mosque_step"]
        me = mine(state, p)
        if getattr(state.players[p], which) >= step and which not in me["got"]:
            me["got"].append(which)
            _pick_from(state, p, which)

    def sector_action(self, state: State, p: int, sector: str) -> bool:
        """A souk action: after the core's souk, a sale and a purchase at the gem dealer."""
        if sector == "souk" and souk_options(state, p):
            state.stack.append({"t": "ask", "k": "gems_souk", "p": p})
        return False

    def final_scoring(self, state: State, p: int) -> None:
        score(state, p, necklace_points(state, p), "gems: necklace")

    def count(self, state: State, p: int, what: str) -> int | None:
        # The gems on the necklace board (Personal Tasks' cards: "8 gems").
        if what != "necklace_gems":
            return None
        neck = mine(state, p)["necklace"]
        return len(neck) - neck.count(None)

    def remaining(self, state: State, p: int) -> int:
        # "Unplaced, unsold gems also award points together with the remaining resources."
        return len(mine(state, p)["loose"])

    def invariants(self, state: State) -> None:
        check(state)

    def view(self, state: State, viewer: int, v: dict[str, Any]) -> None:
        g = _g(state)
        v[NAME] = {
            "supply": len(g["supply"]),
            "dealer": sorted(g["dealer"]),
            "pending": sorted(g["pending"]),
            "river": list(g["river"]),
            "palace": sorted(g["palace"]),
            "mosque": sorted(g["mosque"]),
            "connection": len(g["connection"]),  # face down
            "players": [
                {
                    "necklace": list(mine(state, p)["necklace"]),
                    "loose": sorted(mine(state, p)["loose"]),
                    "disc": [
                        mine(state, p)["disc"][SECTION],
                        list(mine(state, p)["disc"][ON_DISC]),
                    ],
                    "sites": sorted(s for s, c in mine(state, p)["sites"].items() if c),
                }
                for p in range(state.num_players)
            ],
        }

    def tensor_pieces(self, comps: Components) -> dict[str, tuple[int, ...]]:
        """Gem counts by colour in the public places; each seat's necklace (one-hot colour
        per space), loose gems and remaining face-down sites."""
        n = len(data()["necklace"]["colours"])
        return {
            "gems.public": (6, 5),
            "gems.necklace": (4, n, 5),
            "gems.loose": (4, 5),
            "gems.disc": (4, 5),
            "gems.sites": (4, len(SITES)),
        }

    def encode(self, state: State, viewer: int, views: dict[str, Any]) -> None:
        g = _g(state)
        for row, key in enumerate(("dealer", "pending", "river", "palace", "mosque")):
            for c in g[key]:
                views["gems.public"][row, COLOURS.index(c)] += 1
        views["gems.public"][5, 0] = len(g["connection"])
        for p in range(state.num_players):
            me = mine(state, p)
            for i, c in enumerate(me["necklace"]):
                if c is not None:
                    views["gems.necklace"][p, i, COLOURS.index(c)] = 1
            for c in me["loose"]:
                views["gems.loose"][p, COLOURS.index(c)] += 1
            for c in me["disc"][ON_DISC]:
                views["gems.disc"][p, COLOURS.index(c)] += 1
            for k, s in enumerate(SITES):
                views["gems.sites"][p, k] = me["sites"][s] is not None

    def render_board(self, state: State) -> list[str]:
        g = _g(state)
        return [
            f"gems: dealer {sorted(g['dealer'])} (+{len(g['pending'])} from the turn's end), "
            f"river {g['river']}, palace {sorted(g['palace'])}, mosque {sorted(g['mosque'])}, "
            f"connection {len(g['connection'])} face down, supply {len(g['supply'])}"
        ]

    def render_player(self, state: State, i: int, pv: dict[str, Any]) -> list[str]:
        me = mine(state, i)
        neck = " ".join((c or "-")[:2] for c in me["necklace"])
        return [f"  necklace [{neck}], loose {sorted(me['loose'])}, disc {me['disc'][1]}"]

    def describe_choices(self, state: State, top: Task) -> list[str]:
        if top["k"] == "gems_souk":
            return [
                "  gem dealer: choice:0-4 sell 1 gem, choice:5-9 sell 2 of one colour, "
                f"choice:10-14 buy 1 ({'/'.join(COLOURS)})"
            ]
        if top["k"] == "gems_pay":
            return ["  choice:0 = 3 dinars; choice:1-3 = 2 goods keshis (yellow/purple/orange)"]
        if top["k"] == "gems_disc":
            return ["  choice:2k+o = k-th 1-spectator section; o=1 turns the 2 gems over"]
        return []
