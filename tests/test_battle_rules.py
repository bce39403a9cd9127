"""The Battle at the Wall rules: worked examples of the rulebook, mali, procedure, costs."""

from __future__ import annotations

import random

import pytest

from tower.marrakesh.wall_battle import (
    BRICK_WOOD,
    SECTIONS,
    WALL_SECTIONS,
    Payment,
    Penalty,
    Wall,
    aftermath,
    battle_order,
    brigands,
    brigands_for_season,
    cheapest_hire,
    fight_season,
    firing_cost,
    hiring_cost,
    pay,
    payment_options,
    payment_ways,
    resolve_battle,
    standing_spaces,
    token_kinds,
    watchmen,
)
from tower.pieces import Kind, Piece


def test_worked_battle_gives_3_points_and_costs_1_keshi():
    # "2 brigands, 2 other players' watchmen, and 1 of Sarah's own watchmen fell out ...
    # she receives 3 points ... She loses 1 keshi of her choice." Wall: 2 repaired sections.
    out = brigands(2) + watchmen("blue", 1) + watchmen("yellow", 1) + watchmen("green", 1)
    for seed in range(5):  # the order the pieces are listed in does not matter
        random.Random(seed).shuffle(out)
        r = resolve_battle("green", out, Wall(repaired=2))
        assert (r.defenders, r.brigands, r.other_watchmen) == (1, 2, 2)
        assert r.guarded == (2,)  # the own watchman takes section 3, the first gap
        assert r.repelled == 3 and r.points == 3
        assert r.breaches == (3,)  # the 4th attacker meets section 4
        assert r.penalties == (Penalty.ANY_KESHI,)
    holdings = {"keshi:red": 1, "keshi:gray": 2, "resource:water": 3}
    options = payment_options(Penalty.ANY_KESHI, holdings)
    assert {o.taken for o in options} == {(("keshi:gray", 1),), (("keshi:red", 1),)}
    assert all(o.full and o.paid == 1 for o in options)
    assert pay(holdings, options[0]) == {"keshi:red": 1, "keshi:gray": 1, "resource:water": 3}


def test_wall_data_is_complete_and_marks_provenance():
    assert SECTIONS == 6 and [s.number for s in WALL_SECTIONS] == [1, 2, 3, 4, 5, 6]
    assert {s.penalty for s in WALL_SECTIONS} == set(Penalty)
    assert WALL_SECTIONS[3].penalty is Penalty.ANY_KESHI and WALL_SECTIONS[3].source == "rulebook"
    assert all(s.source in ("rulebook", "derived", "assumed") for s in WALL_SECTIONS)
    with pytest.raises(ValueError, match="6 sections"):
        Wall(repaired=7)


def test_own_watchmen_protect_first_gaps_and_attackers_go_left_to_right():
    # No brick: one own watchman guards section 1; two attackers: 1 repelled, 1 breach.
    r = resolve_battle("red", watchmen("red", 1) + brigands(2), Wall(0))
    assert r.guarded == (0,) and r.repelled == 1 and r.breaches == (1,)
    assert r.penalties == (Penalty.TWO_RESOURCES,)
    # Own watchmen beyond the last gap guard nothing; keshis take no part.
    r = resolve_battle("red", [*watchmen("red", 3), Piece.keshi("red")], Wall(5))
    assert r.guarded == (5,) and r.repelled == 0 and r.points == 0 and not r.breaches
    # Attackers but no protection at all: every attacker breaks through, left to right.
    r = resolve_battle("red", brigands(3), Wall(0))
    assert r.breaches == (0, 1, 2) and r.points == 0
    assert r.penalties == (Penalty.GOODS_KESHI, Penalty.TWO_RESOURCES, Penalty.TWO_STEPS)


def test_attackers_beyond_the_last_section_neither_score_nor_cost():
    out = brigands(3) + watchmen("blue", 3) + watchmen("yellow", 2)
    r = resolve_battle("red", out, Wall(4))
    assert r.attackers == 8 and r.unopposed == 2
    assert r.repelled == 4 and r.breaches == (4, 5)


def test_watchtower_tile_guards_first_gap_and_pays_2_for_a_brigand():
    wall = Wall(repaired=1, watchtower=True)
    # tile on section 2, own watchman on section 3; 3 attackers all repelled, +2 brigand bonus
    r = resolve_battle("red", watchmen("red", 1) + brigands(1) + watchmen("blue", 2), wall)
    assert r.guarded == (2,) and r.repelled == 3 and r.points == 5
    # only other players' watchmen reach the tile: no bonus
    r = resolve_battle("red", watchmen("blue", 2), wall)
    assert r.repelled == 2 and r.points == 2
    # the attackers stop before the tile's section: no bonus
    assert resolve_battle("red", brigands(1), wall).points == 1


def test_partial_payment_and_forfeit():
    two = payment_options(Penalty.TWO_RESOURCES, {"resource:date": 1, "wood:wood": 4})
    assert [o.taken for o in two] == [(("resource:date", 1),)]  # wood is no resource
    assert not two[0].full and two[0].paid == 1 and not two[0].forfeited
    (gone,) = payment_options(Penalty.LUXURY_GOOD, {"keshi:red": 2})
    assert gone.forfeited and gone.taken == ()
    both = payment_options(Penalty.TWO_RESOURCES, {"resource:date": 1, "resource:water": 1})
    assert [o.taken for o in both] == [(("resource:date", 1), ("resource:water", 1))]


def test_staircase_malus_comes_off_one_staircase_in_full_if_possible():
    full = payment_options(Penalty.TWO_STEPS, {"step:black": 1, "step:white": 3})
    assert [o.taken for o in full] == [(("step:white", 2),)]
    partial = payment_options(Penalty.TWO_STEPS, {"step:black": 1, "step:white": 1})
    assert {o.taken for o in partial} == {(("step:black", 1),), (("step:white", 1),)}
    with pytest.raises(ValueError, match="not a legal way"):
        pay({"step:black": 1, "step:white": 3}, Payment(Penalty.TWO_STEPS, (("step:black", 1),)))


def test_goods_keshi_malus_only_takes_goods_keshis():
    opts = payment_options(Penalty.GOODS_KESHI, {"keshi:red": 3, "keshi:purple": 1})
    assert [o.taken for o in opts] == [(("keshi:purple", 1),)]


def test_a_malus_reads_only_the_token_kinds_it_may_take():
    # The engine lists only the holdings of token_kinds(penalty) (a malus follows most
    # battles): the ways to pay must be those of the whole holdings.
    tokens = [
        *(f"resource:{r}" for r in ("water", "date", "dinar")),
        "wood:wood",
        "step:black",
        "step:white",
        *(f"keshi:{c}" for c in ("orange", "purple", "yellow", "red", "gray", "green")),
        "luxury:3",
        "luxury:12",
        "gate:0",
        "gate:5",
    ]
    rng = random.Random(7)
    for _ in range(300):
        held = {t: rng.choice([0, 1, 1, 2, 3]) for t in rng.sample(tokens, rng.randint(0, 16))}
        for pen in Penalty:
            kinds = token_kinds(pen)
            mine = {t: n for t, n in held.items() if t.partition(":")[0] in kinds}
            ways = payment_ways(pen, held)
            assert payment_ways(pen, mine) == ways
            assert [o.taken for o in payment_options(pen, held)] == ways
    assert token_kinds(Penalty.ANY_KESHI) == {"keshi"}
    assert token_kinds(Penalty.TWO_RESOURCES) == {"resource"}


def test_the_next_throw_lies_in_the_pieces_own_order():
    base = [Piece.keshi("yellow"), Piece(Kind.EXPERT, "white"), Piece.keshi("turquoise")]
    base += [Piece.keshi("turquoise"), *brigands(1), *watchmen("red", 1)]
    for seed in range(5):
        random.Random(seed).shuffle(base)
        after = aftermath(base).next_throw
        assert after == tuple(sorted(p for p in base if p.kind in (Kind.KESHI, Kind.EXPERT)))


def test_season_procedure_throws_what_the_rulebook_says():
    seen: list[list[Piece]] = []
    stuck = Piece(Kind.WATCHMAN, "yellow")

    def throw(pieces: list[Piece]) -> list[Piece]:
        # a scripted tower: in the first battle one yellow watchman stays inside and a green
        # keshi from an earlier round falls out; later battles give back what was thrown
        seen.append(sorted(pieces))
        out = list(pieces)
        if len(seen) == 1:
            out.remove(stuck)
            out.append(Piece.keshi("green"))
        return sorted(out)

    order = battle_order(["red", "yellow", "green"], "yellow")
    assert order == ("yellow", "green", "red")
    walls = {p: Wall(1) for p in order}
    season = fight_season(2, order, {"yellow": 2, "green": 1, "red": 0}, walls, throw)
    assert seen[0] == sorted(watchmen("yellow", 2) + brigands(2))
    # green throws everything that fell out so far plus their own recruit
    assert seen[1] == sorted(
        watchmen("yellow", 1) + brigands(2) + [Piece.keshi("green")] + watchmen("green", 1)
    )
    assert seen[2] == sorted(seen[1])  # red recruited nobody: the base only
    first = season.steps[0].outcome
    assert first.defenders == 1 and first.attackers == 2 and first.points == 2
    assert season.steps[1].outcome.attackers == 3  # brigands and the yellow watchman
    after = season.aftermath
    assert after.next_throw == (Piece.keshi("green"),)
    assert after.returned == {"green": 1, "yellow": 1} and after.brigands == 2
    assert aftermath([]).next_throw == ()


def test_procedure_rejects_impossible_situations():
    with pytest.raises(ValueError, match="season"):
        brigands_for_season(4)
    assert brigands_for_season(3, available=1) == 1
    with pytest.raises(ValueError, match="recruited 4"):
        fight_season(1, ["red"], {"red": 4}, {"red": Wall()}, lambda p: p)
    with pytest.raises(ValueError, match="no wall"):
        fight_season(1, ["red"], {"red": 1}, {}, lambda p: p)
    with pytest.raises(ValueError, match="round tracker"):
        battle_order(["red", "blue"], "green")


def test_firing_two_explored_bricks_with_one_brickworks_keshi_costs_5_wood():
    # "Sarah fires her two explored brick tiles. Since 1 keshi is already deployed in the
    # brick kiln, this costs her a total of 5 wood (3-1 + 4-1)."
    three = [t for t, w in BRICK_WOOD.items() if w == 3]
    four = [t for t, w in BRICK_WOOD.items() if w == 4]
    for a in three:
        for b in four:
            assert firing_cost([a, b], brickworks_keshis=1) == 5
    assert firing_cost([5], brickworks_keshis=0) == 5
    assert firing_cost([], brickworks_keshis=2) == 0
    assert sorted(BRICK_WOOD.values()) == [3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5]
    with pytest.raises(ValueError, match="brickworks"):
        firing_cost([1], brickworks_keshis=3)
    with pytest.raises(ValueError, match="once"):
        firing_cost([1, 1], brickworks_keshis=0)
    with pytest.raises(ValueError, match="unknown brick"):
        firing_cost([12], brickworks_keshis=0)


def test_hiring_costs():
    # "Sarah hires 2 watchmen; this costs her 1 dinar (bottom) or 1 water and 1 date (middle)."
    assert hiring_cost(cheapest_hire(2)) == {"date": 1, "dinar": 1, "water": 1}
    assert hiring_cost(["bottom"]) == {"dinar": 1}
    assert hiring_cost(["middle"]) == {"date": 1, "water": 1}
    assert hiring_cost([]) == {}
    # The Watchtower: "exactly 1 resource of their choice (instead of the printed cost)"
    assert hiring_cost(["bottom", "middle", "top"], watchtower=True) == {"any": 3}
    # a stuck watchman leaves the top space empty: only the lower spaces can be hired
    assert standing_spaces(2) == ("bottom", "middle")
    with pytest.raises(ValueError, match="cannot hire 3"):
        cheapest_hire(3, on_board=2)
    with pytest.raises(ValueError, match="one watchman"):
        hiring_cost(["bottom", "bottom"])
    with pytest.raises(ValueError, match="unknown watchman spaces"):
        hiring_cost(["roof"])
