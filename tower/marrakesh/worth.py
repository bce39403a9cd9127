"""What a player's holdings are worth: filled sectors and oases.

Read by the sector actions (scroll 68 scores a discovered oasis, scroll 71 a claimed
one) and by the final scoring (:mod:`tower.marrakesh.scoring`), so it sits below both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tower.marrakesh.actions import VENDOR_SECTORS

if TYPE_CHECKING:
    from tower.marrakesh.board import Board


def filled(state: Board, p: int, sector: str) -> bool:
    """8 keshis of the sector's colour and a water vendor (the souk never counts); a
    module's ``filled`` hook may say otherwise."""
    answer = state.game.hooks.first("filled", state, p, sector)
    if answer is not None:
        return bool(answer)
    pl = state.players[p]
    return pl.keshis[sector] >= 8 and sector in pl.vendors


def oasis_value(state: Board, p: int, oid: int, consume: bool = False) -> int:
    """Points oasis ``oid`` is worth to player ``p`` now. With ``consume`` the resources
    an oasis 19-21 asks for are returned to the supply.

    Ruling: for oases 19-21 the player returns as many resources as allowed (12 at most);
    each is worth 1 point there and only half a point as a remaining resource.
    """
    o = state.game.components.oases[oid]
    pl = state.players[p]
    kind = o["kind"]
    added = state.game.ruleset.oasis_kinds.get(kind)  # an oasis kind of a module
    if added is not None:
        return added(state, p, o)
    if kind == "gates":
        return o["points"] * sum(g in o["colours"] for g in pl.gates if g is not None)
    if kind == "keshis":
        n = (
            len(pl.vendors) + (1 if pl.souk_vendor else 0)
            if o["colour"] == "red"
            else pl.keshis[o["colour"]]
        )
        return 3 + n
    if kind == "luxury":
        goods = [state.game.components.luxuries[x]["good"] for x in pl.luxuries]
        return o["points"] * goods.count(o["good"])
    if kind == "resource":
        n = min(12, getattr(pl, o["resource"]))
        if consume:
            setattr(pl, o["resource"], getattr(pl, o["resource"]) - n)
        return 3 + n
    if kind == "per_luxury":
        return 3 + len(pl.luxuries)
    if kind == "per_scroll":
        return 3 + len(pl.scrolls)
    if kind == "sparse_sectors":
        return 4 * sum(pl.keshis[s] <= 3 for s in VENDOR_SECTORS)
    if kind == "full_sectors":
        return 4 * sum(filled(state, p, s) for s in VENDOR_SECTORS)
    if kind == "claimed_oases":
        return 3 * len(pl.claimed)
    if kind == "stair_top":
        return 7 if getattr(pl, o["which"]) >= state.game.components["staircase"]["final"] else 0
    if kind == "thresholds":
        th = state.game.components["staircase"]["thresholds"]
        crossed = sum(pl.mosque >= x for x in th) + sum(pl.palace >= x for x in th)
        return 7 if crossed >= 5 else 0
    if kind == "jetty":
        return 7 if pl.jetty >= 0 else 0
    raise AssertionError(f"unknown oasis kind {kind!r}")
