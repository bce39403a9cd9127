"""The track of claimed oases on the supply board (*Marrakesh*, "Sahara",
claim oases): a claimed oasis takes the next space, and what it covers acts (a keshi to
deploy, an exchange of keshis, a scroll).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import (
    COLOUR_INDEX,
    SECTOR_INDEX,
    SECTORS,
    VENDOR_SECTORS,
    Action,
    action_id,
)
from tower.marrakesh.effects import PASS
from tower.marrakesh.rules import T, Task, ask, options, push, resolve
from tower.marrakesh.sectors.deploy import reached, room
from tower.marrakesh.sectors.madrasa import take_scroll
from tower.marrakesh.sectors.main_square import entertainer_slots
from tower.pieces import KESHI_COLOURS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


def claim_oasis(state: Board, p: int, oid: int) -> None:
    """Put a claimed oasis on the next track space and use what it covers."""
    pl = state.players[p]
    pl.claimed.append(oid)
    slot = state.game.hooks.first("track_slot", state, p)
    if slot is None:
        slot = len(pl.claimed) - 1
    track = state.game.components["sahara"]["track"]
    icon = track[slot] if slot < len(track) else "none"
    reached(state, p, "track", slot)
    if str(slot) in pl.track:
        colour = pl.track.pop(str(slot))
        pl.held.append(colour)
        push(state, ask("track_keshi", p, c=colour))
    elif icon == "exchange":
        push(state, ask("exchange_return", p))
    elif icon == "scroll":
        push(state, ask("track_scroll", p))


@options("track_keshi")
def _track_keshi_options(state: Board, t: Task) -> list[int]:
    out = [PASS]
    if room(state, t["p"], t["c"]) > 0:
        out.append(action_id("choice", 0))
    return out


@resolve("track_keshi")
def _track_keshi(state: Board, t: Task, a: Action) -> None:
    p, c = t["p"], t["c"]
    if a.kind == "pass":
        # Ruling: a covered keshi the player does not deploy goes back to the supply.
        state.players[p].held.remove(c)
        state.issued[c] -= 1
    else:
        push(state, T("deploy", p=p, c=c, src="held"))


def returnable(state: Board, p: int) -> list[str]:
    """Keshis the exchange icon may return: not caravans next to an oasis (with Walls &
    Guards: not the sahara's keshis), committed guards or goods."""
    pl = state.players[p]
    out = [c for c in ("green", "gray", "white", "black", "pink", "turquoise") if pl.keshis[c] > 0]
    for hook in state.game.hooks.returnable:
        out = hook(state, p, out)
    if pl.watchtower > 0:
        out.append("beige")
    if pl.vendors:
        out.append("red")
    return sorted(out, key=COLOUR_INDEX.get)


@options("exchange_return")
def _exchange_return_options(state: Board, t: Task) -> list[int]:
    return [PASS] + [action_id("colour", COLOUR_INDEX[c]) for c in returnable(state, t["p"])]


@resolve("exchange_return", ignore_pass=True)
def _exchange_return(state: Board, t: Task, a: Action) -> None:
    p = t["p"]
    pl = state.players[p]
    c = KESHI_COLOURS[a.arg]
    push(state, ask("exchange_take", p, c=c))
    if c in ("red", "pink"):
        push(state, ask("return_" + c, p))  # which vendor, which entertainer
        return
    for hook in state.game.hooks.return_keshi:
        if hook(state, p, c):
            return
    pl.keshis[c] -= 1
    state.issued[c] -= 1


@options("return_red")
def _return_red_options(state: Board, t: Task) -> list[int]:
    vendors = state.players[t["p"]].vendors
    return [action_id("sector", SECTOR_INDEX[s]) for s in VENDOR_SECTORS if s in vendors]


@resolve("return_red")
def _return_red(state: Board, t: Task, a: Action) -> None:
    del state.players[t["p"]].vendors[SECTORS[a.arg]]
    state.issued["red"] -= 1


@options("return_pink")
def _return_pink_options(state: Board, t: Task) -> list[int]:
    return entertainer_slots(state, t["p"])


@resolve("return_pink")
def _return_pink(state: Board, t: Task, a: Action) -> None:
    pl = state.players[t["p"]]
    pl.square[a.arg] = False
    pl.keshis["pink"] -= 1
    state.issued["pink"] -= 1


@options("exchange_take")
def _exchange_take_options(state: Board, t: Task) -> list[int]:
    return [action_id("colour", i) for i, c in enumerate(KESHI_COLOURS) if c != t["c"]]


@resolve("exchange_take")
def _exchange_take(state: Board, t: Task, a: Action) -> None:
    push(state, T("deploy", p=t["p"], c=KESHI_COLOURS[a.arg], src="supply"))


@options("track_scroll")
def _track_scroll_options(state: Board, t: Task) -> list[int]:
    # A scroll that needs exactly 3 scholars (the yellow stacks), free of scholars and dates.
    return [PASS] + [
        action_id("scroll", i) for i in (3, 4, 5) if state.stack_open[i] and state.stacks[i]
    ]


@resolve("track_scroll", ignore_pass=True)
def _track_scroll(state: Board, t: Task, a: Action) -> None:
    take_scroll(state, t["p"], a.arg)
