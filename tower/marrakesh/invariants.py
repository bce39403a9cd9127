"""Checks that hold after every action of every game (used by the tests and the slow run).

:func:`check` raises ``AssertionError`` naming the broken invariant:

- no negative resource (water, dates, dinars, keshis on boards, in the display);
- no sector over capacity (8 keshis of its colour, 1 water vendor; the main square and the
  sahara agree with their spaces; committed guards are guards);
- every keshi accounted for: screens, hands, claimed-not-deployed, boards (water vendors
  included), oasis tracks, the tower, the display and (Walls & Guards) the tower's base
  during the battles, the keshis carried into the next throw and those of a pending battle
  throw together hold exactly the keshis that left the common supply;
- each score equals the sum of its logged score events;
- Walls & Guards: no negative wood; the date orchard holds at most 8 green and brown
  keshis and the sahara's spaces agree with its keshis; the wall holds fired tiles of the
  player's own sahara, explored first; each player's 3 watchmen are on the board, by the
  tower (recruited), in the tower or its base; the 3 brigands are by the tower, in it or in
  its base.
"""

from __future__ import annotations

from collections import Counter

from tower.marrakesh.actions import VENDOR_SECTORS
from tower.marrakesh.modules import battle, walls_guards
from tower.marrakesh.rules import hooks
from tower.marrakesh.state import State
from tower.pieces import KESHI_COLOURS, Kind


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
    where.update(p.colour for p in walls_guards.tower_pieces(state) if p.kind is Kind.KESHI)
    where.update(state.carry)
    where.update({c: n for c, n in state.display.items() if n})
    return where


def check(state: State) -> None:
    wg = state.game.has("walls_guards")
    for i, pl in enumerate(state.players):
        for r in ("water", "dates", "dinars"):
            assert getattr(pl, r) >= 0, f"player {i} has {getattr(pl, r)} {r}"
        for c, n in pl.keshis.items():
            assert n >= 0, f"player {i} has {n} {c} keshis"
            if c in VENDOR_SECTORS and not (wg and c in ("green", "brown")):
                assert n <= 8, f"player {i}: sector {c} holds {n} keshis"
        assert set(pl.vendors) <= set(VENDOR_SECTORS), f"player {i}: vendors {pl.vendors}"
        assert pl.keshis["pink"] == sum(pl.square), f"player {i}: main square disagrees"
        if wg:
            _check_walls_guards(state, i)
        else:
            assert pl.keshis["brown"] == sum(pl.sahara), f"player {i}: sahara disagrees"
        assert pl.watchtower >= 0, f"player {i}: more gates than guards"
        assert len(pl.screen) + len(pl.hand) <= 12, f"player {i}: screen {pl.screen}"
        events = sum(d for p, d, _ in state.score_events if p == i)
        assert pl.score == events, f"player {i}: score {pl.score} but events sum to {events}"
    for c, n in state.display.items():
        assert n >= 0, f"display has {n} {c}"
    if wg:
        watchmen, brigands = walls_guards.census(state)
        for p in range(state.num_players):
            c = walls_guards.colour(p)
            assert watchmen[c] == battle.WATCHMEN_PER_PLAYER, (
                f"player {p}: {watchmen[c]} {c} watchmen on the board, by, in or under the tower"
            )
        assert brigands == battle.BRIGANDS_IN_BOX, f"{brigands} brigands accounted for"
    for invariants in hooks(state, "invariants"):
        invariants(state)
    have = census(state)
    for c in KESHI_COLOURS:
        assert have[c] == state.issued[c], (
            f"{c} keshis: {have[c]} found on screens/boards/tower/display, "
            f"{state.issued[c]} left the supply"
        )


def _check_walls_guards(state: State, i: int) -> None:
    pl = state.players[i]
    green, brown = walls_guards.orchard(pl)
    assert pl.wood >= 0, f"player {i} has {pl.wood} wood"
    assert green >= 0 and brown >= 0, f"player {i}: date orchard holds {green}/{brown}"
    assert green + brown <= 8, f"player {i}: date orchard holds {green + brown} keshis"
    in_sahara = pl.keshis["brown"] - brown + len(pl.sahara_green)
    assert in_sahara == sum(pl.sahara), f"player {i}: sahara disagrees"
    assert all(pl.sahara[s] for s in pl.sahara_green), f"player {i}: sahara greens"
    assert len(set(pl.wall)) == len(pl.wall) <= battle.SECTIONS, f"player {i}: wall {pl.wall}"
    assert all(t in pl.bricks and pl.explored[pl.bricks.index(t)] for t in pl.wall), (
        f"player {i}: wall {pl.wall} holds a tile not explored in the sahara"
    )
    assert pl.recruited >= 0, f"player {i}: {pl.recruited} watchmen recruited"
