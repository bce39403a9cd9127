"""Checks that hold after every action of every game (used by the tests and the slow run).

:func:`check` raises ``AssertionError`` naming the broken invariant:

- no negative resource (water, dates, dinars, keshis on boards, in the display);
- no sector over capacity (8 keshis of its colour, 1 water vendor; the main square and the
  sahara agree with their spaces; committed guards are guards);
- every keshi accounted for: screens, hands, claimed-not-deployed, boards (water vendors
  included), oasis tracks, the tower and the display together hold exactly the keshis that
  left the common supply;
- each score equals the sum of its logged score events.
"""

from __future__ import annotations

from collections import Counter

from tower.marrakesh.actions import VENDOR_SECTORS
from tower.marrakesh.state import State
from tower.pieces import KESHI_COLOURS


def census(state: State) -> Counter[str]:
    """Keshis outside the common supply, by colour."""
    where: Counter[str] = Counter()
    for pl in state.players:
        where.update(pl.screen)
        where.update(pl.hand)
        where.update(pl.held)
        where.update({c: n for c, n in pl.keshis.items() if n})
        where["red"] += len(pl.vendors) + (1 if pl.souk_vendor else 0)
        where.update(pl.track.values())
    where.update(r.piece.colour for r in state.tower.residents)
    where.update({c: n for c, n in state.display.items() if n})
    return where


def check(state: State) -> None:
    for i, pl in enumerate(state.players):
        for r in ("water", "dates", "dinars"):
            assert getattr(pl, r) >= 0, f"player {i} has {getattr(pl, r)} {r}"
        for c, n in pl.keshis.items():
            assert n >= 0, f"player {i} has {n} {c} keshis"
            if c in VENDOR_SECTORS:
                assert n <= 8, f"player {i}: sector {c} holds {n} keshis"
        assert set(pl.vendors) <= set(VENDOR_SECTORS), f"player {i}: vendors {pl.vendors}"
        assert pl.keshis["pink"] == sum(pl.square), f"player {i}: main square disagrees"
        assert pl.keshis["brown"] == sum(pl.sahara), f"player {i}: sahara disagrees"
        assert pl.watchtower >= 0, f"player {i}: more gates than guards"
        assert len(pl.screen) + len(pl.hand) <= 12, f"player {i}: screen {pl.screen}"
        events = sum(d for p, d, _ in state.score_events if p == i)
        assert pl.score == events, f"player {i}: score {pl.score} but events sum to {events}"
    for c, n in state.display.items():
        assert n >= 0, f"display has {n} {c}"
    have = census(state)
    for c in KESHI_COLOURS:
        assert have[c] == state.issued[c], (
            f"{c} keshis: {have[c]} found on screens/boards/tower/display, "
            f"{state.issued[c]} left the supply"
        )
