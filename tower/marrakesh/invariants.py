"""Checks that hold after every action of every game (used by the tests and the slow run,
and by :meth:`tower.marrakesh.state.State.from_json` on every position it reads).

:func:`check` raises ``AssertionError`` naming the broken invariant:

- no negative resource (water, dates, dinars, keshis on boards, in the display);
- no sector over capacity (8 keshis of its colour, 1 water vendor; the main square and the
  sahara agree with their spaces; committed guards are guards);
- every keshi accounted for: screens, hands, claimed-not-deployed, boards (water vendors
  included), oasis tracks, the tower, the display, the keshis carried into the next throw
  and those a module holds elsewhere (its ``census`` hook; Walls & Guards: the tower's
  base during the battles, a pending battle throw) together hold exactly the keshis that
  left the common supply;
- each score equals the sum of its logged score events;
- every enabled module's own invariants (its ``invariants`` hook; e.g. Walls & Guards:
  no negative wood; the date orchard holds at most 8 green and brown keshis and the
  sahara's spaces agree with its keshis; the wall holds fired tiles of the player's own
  sahara, explored first; each player's 3 watchmen and the 3 brigands are accounted for).
"""

from __future__ import annotations

from collections import Counter

from tower.marrakesh.actions import VENDOR_SECTORS
from tower.marrakesh.board import Board
from tower.pieces import KESHI_COLOURS, Kind


def census(state: Board) -> Counter[str]:
    """Keshis outside the common supply, by colour."""
    where: Counter[str] = Counter()
    for pl in state.players:
        where.update(pl.screen)
        where.update(pl.hand)
        where.update(pl.held)
        where.update({c: n for c, n in pl.keshis.items() if n})
        where["red"] += len(pl.vendors) + (1 if pl.souk_vendor else 0)
        where.update(pl.track.values())
    where.update(r.piece.colour for r in state.tower.residents if r.piece.kind is Kind.KESHI)
    where.update(state.carry)
    where.update({c: n for c, n in state.display.items() if n})
    for hook in state.game.hooks.census:
        where.update(hook(state))
    return where


def check(state: Board) -> None:
    # A module that places green and brown keshis itself checks their sectors.
    green_brown = "green_brown" in state.game.hooks.replaced
    for i, pl in enumerate(state.players):
        for r in ("water", "dates", "dinars"):
            assert getattr(pl, r) >= 0, f"player {i} has {getattr(pl, r)} {r}"
        for c, n in pl.keshis.items():
            assert n >= 0, f"player {i} has {n} {c} keshis"
            if c in VENDOR_SECTORS and not (green_brown and c in ("green", "brown")):
                assert n <= 8, f"player {i}: sector {c} holds {n} keshis"
        assert set(pl.vendors) <= set(VENDOR_SECTORS), f"player {i}: vendors {pl.vendors}"
        assert pl.keshis["pink"] == sum(pl.square), f"player {i}: main square disagrees"
        if not green_brown:
            assert pl.keshis["brown"] == sum(pl.sahara), f"player {i}: sahara disagrees"
        assert pl.watchtower >= 0, f"player {i}: more gates than guards"
        assert len(pl.screen) + len(pl.hand) <= 12, f"player {i}: screen {pl.screen}"
        events = sum(d for p, d, _ in state.score_events if p == i)
        assert pl.score == events, f"player {i}: score {pl.score} but events sum to {events}"
    for c, n in state.display.items():
        assert n >= 0, f"display has {n} {c}"
    for module_check in state.game.hooks.invariants:
        module_check(state)
    have = census(state)
    for c in KESHI_COLOURS:
        assert have[c] == state.issued[c], (
            f"{c} keshis: {have[c]} found on screens/boards/tower/display, "
            f"{state.issued[c]} left the supply"
        )
