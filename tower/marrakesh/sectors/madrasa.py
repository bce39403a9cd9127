"""The madrasa (*Marrakesh*, "Madrasa"): buying scrolls with scholars and
dates, swapping the top scrolls of one colour, and the specials that take a scroll.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import SCROLL_COLOURS, Action, action_id
from tower.marrakesh.effects import PASS, SPECIALS, Effect, run_effects
from tower.marrakesh.rules import Task, ask, can_pay, options, pay, push, resolve
from tower.marrakesh.sectors.souk import discount

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


def scroll_cost(state: Board, p: int, sid: int) -> int:
    dates = state.game.components.scrolls[sid]["dates"]
    return max(0, dates - discount(state, p, "scroll_dates"))


@options("madrasa")
def _madrasa_options(state: Board, t: Task) -> list[int]:
    p = t["p"]
    pl = state.players[p]
    scrolls = state.game.components.scrolls
    out = []
    for i, st in enumerate(state.stacks):
        if not (state.stack_open[i] and st) or (t["forced"] >= 0 and i // 3 != t["forced"]):
            continue
        sid = st[-1]
        if scrolls[sid]["scholars"] <= t["budget"] and pl.dates >= scroll_cost(state, p, sid):
            out.append(action_id("scroll", i))
    if t["forced"] < 0 or not out:
        # Ruling: after a swap one of the new scrolls must be bought; if none is affordable
        # the obligation lapses (the dinar is spent all the same).
        out.append(PASS)
    if t["bought"] == 0 and t["forced"] < 0 and not pl.swapped and can_pay(state, p, {"dinars": 1}):
        out += [action_id("swap", g) for g in range(4) if all(state.stacks[3 * g : 3 * g + 3])]
    return sorted(out)


@resolve("madrasa", ignore_pass=True)
def _madrasa(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    if a.kind == "swap":
        # Once per round, before the first purchase: 1 dinar, tops of one colour to the bottom.
        pl.swapped = True
        for i in range(3 * a.arg, 3 * a.arg + 3):
            st = state.stacks[i]
            st.insert(0, st.pop())
            state.stack_open[i] = True
        push(state, ask("madrasa", p, budget=t["budget"], bought=0, forced=a.arg))
        pay(state, p, {"dinars": 1})  # any choice of payment comes first
        return
    sid = state.stacks[a.arg][-1]
    pl.dates -= scroll_cost(state, p, sid)
    budget = t["budget"] - state.game.components.scrolls[sid]["scholars"]
    push(state, ask("madrasa", p, budget=budget, bought=t["bought"] + 1, forced=-1))
    take_scroll(state, p, a.arg)


def take_scroll(state: Board, p: int, stack: int) -> None:
    """Take the top scroll of ``stack``; instant scrolls act at once."""
    sid = state.stacks[stack].pop()
    state.stack_open[stack] = False  # the next scroll is revealed at the end of the turn
    state.players[p].scrolls.append(sid)
    entry = state.game.components.scrolls[sid]
    if entry["timing"] == "instant":
        run_effects(state, p, entry["effect"], f"scroll {sid}")


def _take_scroll_special(state: Board, p: int, e: Effect) -> None:
    push(state, ask("special_scroll", p, scholars=e["scholars"], dates=e["dates"]))


@options("special_scroll")
def _special_scroll_options(state: Board, t: Task) -> list[int]:
    pl = state.players[t["p"]]
    if pl.dates < t["dates"]:
        return []
    groups = range(4) if t["scholars"] == 0 else [SCROLL_COLOURS.index("orange")]
    return [PASS] + [
        action_id("scroll", i)
        for g in groups
        for i in range(3 * g, 3 * g + 3)
        if state.stack_open[i] and state.stacks[i]
    ]


@resolve("special_scroll", ignore_pass=True)
def _special_scroll(state: Board, t: Task, a: Action) -> None:
    # Scroll 58 (a 7-scholar scroll for 1 date) and desert town 10 (any scroll, free).
    state.players[t["p"]].dates -= t["dates"]
    take_scroll(state, t["p"], a.arg)


SPECIALS["take_scroll"] = _take_scroll_special
