"""The Closed Madrasa (Gems & Experts) in the Marrakesh engine.

The rulebook's worked example, played through the engine: Lukas has 6 gray scholar
keshis and an assistant in the Madrasa; scrolls under a marker are blocked; he pays 2 dates
for a pink scroll, the pink marker moves onto it, then 1 date for a gray scroll, whose
marker moves too (:func:`test_rulebook_lukas_uses_a_pink_then_a_gray_scroll`). Then each
rule: once per turn, the keshi tiles, the oasis track's yellow scroll, scroll 14's
provisions, the sides, the sorted-out components, every one of the 24 scrolls.
"""

from __future__ import annotations

import random

import pytest
from marrakesh_checks import give, legal, legal_sequence, round_trip, run, sequences_with

from tower.marrakesh import Game, GameConfig, State
from tower.marrakesh.components import load
from tower.marrakesh.game import ConfigError
from tower.marrakesh.invariants import check
from tower.marrakesh.modules.closed_madrasa import MadrasaSidesError, board, with_sides
from tower.marrakesh.rules import T
from tower.marrakesh.sectors import claim_oasis

MADRASA = frozenset({"closed_madrasa"})


def madrasa(players: int = 2, sides: str = "AAAA", seed: int = 0, modules=MADRASA):
    """A state after setup with the Madrasa pieces on ``sides``, nothing pending."""
    game = Game(GameConfig(players=players, modules=modules), with_sides(load(), sides))
    state = game.new_initial_state(seed)
    while state.current_player >= 0:
        state.apply(state.legal_actions()[0])
    state.stack = []
    state.start = state.season_start = 0
    state.turn = 0
    return state


def scrolls_offered(state) -> list[str]:
    return [a for a in legal(state) if a.startswith("scroll:")]


def test_rulebook_lukas_uses_a_pink_then_a_gray_scroll():
    state = madrasa()
    pl = state.players[0]
    give(state, 0, "gray", 6)
    pl.dates = 3
    pl.disc = 2  # main-square spaces 4 (2 points) and 7 face 3 spectators
    run(state, T("action", p=0, s="gray"))
    # The scrolls under the 4 markers (slot 2 of each area) are blocked.
    offered = scrolls_offered(state)
    assert not any(a.endswith("2") for a in offered)
    assert {"scroll:gray0", "scroll:yellow1", "scroll:pink0", "scroll:orange1"} <= set(offered)
    state.apply("scroll:pink0")  # scroll 13: 5 scholars, 2 dates
    assert pl.dates == 1 and state.ext["closed_madrasa"]["markers"][2] == 0
    assert legal(state) == ["slot:4", "slot:7"]  # a space facing 3 spectators, once
    points = pl.score
    state.apply("slot:4")
    assert pl.score == points + 2
    # 1 scholar left: only the gray scrolls (1 scholar, 1 date).
    assert scrolls_offered(state) == ["scroll:gray0", "scroll:gray1"]
    state.apply("scroll:gray1")  # scroll 02: 2 dinars or 1 river step
    assert pl.dates == 0 and state.ext["closed_madrasa"]["markers"][0] == 1
    dinars = pl.dinars
    state.apply("choice:0")
    assert pl.dinars == dinars + 2 and state.stack == []  # no scholar left: done
    assert state.ext["closed_madrasa"]["markers"] == [1, 2, 0, 2]
    check(state)


def test_scholars_and_dates_limit_the_scrolls():
    state = madrasa()
    pl = state.players[0]
    give(state, 0, "gray", 4)
    pl.dates = 5
    run(state, T("action", p=0, s="gray"))
    assert {a[7:-1] for a in scrolls_offered(state)} == {"gray", "yellow"}  # 5 needed for pink
    state.apply("scroll:yellow0")  # 3 scholars: 1 left
    state.apply(legal(state)[0])  # scroll 07's double goods tile
    assert {a[7:-1] for a in scrolls_offered(state)} == {"gray"}
    pl.dates = 0
    state.stack[-1].pop("o")  # options are computed when the decision comes up
    state.stack[-1]["budget"] = 1
    state.stack = [state.stack[-1]]
    run(state)
    assert state.stack == []  # no date left: nothing to use


def test_each_scroll_at_most_once_per_turn():
    state = madrasa()
    pl = state.players[0]
    give(state, 0, "gray", 3)
    pl.dates = 3
    run(state, T("action", p=0, s="gray"))
    state.apply("scroll:gray0")  # scroll 01: a keshi tile
    state.apply("choice:0")
    state.apply("scroll:gray1")  # the marker moves off 01 ...
    state.apply("choice:0")
    assert "scroll:gray0" not in scrolls_offered(state)  # ... but 01 was used this turn
    state.apply("pass")
    state.turn = 1  # another turn: 01 is free again
    state.players[1].dates = 1
    give(state, 1, "gray")
    run(state, T("action", p=1, s="gray"))
    assert "scroll:gray0" in scrolls_offered(state)


def test_keshi_tiles_come_back_when_one_is_left():
    state = madrasa()
    tiles = state.ext["closed_madrasa"]["tiles"]["single"]
    layout = state.game.components["madrasa_layout"]["single"]
    pl = state.players[0]
    for k in range(len(layout) - 1):
        run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_tile", "pool": "single"}))
        colour = tiles["on"][0]
        before = pl.keshis[colour]
        state.apply("choice:0")
        while state.stack:  # where the entertainer or caravan keshi goes
            state.apply(legal(state)[0])
        assert pl.keshis[colour] == before + 1
        if k < len(layout) - 2:
            assert len(tiles["on"]) == len(layout) - k - 1 and colour in tiles["aside"]
        check(state)
    assert tiles["on"] == layout and tiles["aside"] == []  # all back on the scroll


def test_double_tiles_deploy_two_keshis():
    state = madrasa(sides="BBBB")
    pl = state.players[0]
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_tile", "pool": "double"}))
    colour = state.ext["closed_madrasa"]["tiles"]["double"]["on"][3]
    state.apply("choice:3")
    while state.stack:
        state.apply(legal(state)[0])
    assert pl.keshis[colour] == 2
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_tile", "pool": "double_goods"}))
    state.apply("choice:1")
    assert pl.keshis["purple"] == 2
    check(state)


def test_oasis_track_scroll_icon_uses_a_free_yellow_scroll_for_free():
    state = madrasa()
    pl = state.players[0]
    pl.claimed = pl.oases[:3]  # the next oasis lands on the track's scroll icon
    pl.dates = 0
    points = pl.score
    run(state, T("fx", p=0, e={"op": "gain"}))
    claim_oasis(state, 0, pl.oases[3])
    run(state)
    assert set(scrolls_offered(state)) == {"scroll:yellow0", "scroll:yellow1"}
    state.apply("scroll:yellow1")  # scroll 08: 1 dinar, 1 water, 1 date and 2 points
    assert (pl.dates, pl.score) == (1, points + 2)
    assert state.ext["closed_madrasa"]["markers"][1] == 1
    check(state)


def test_scroll_14_reserves_resources_for_the_provisions():
    state = madrasa(sides="AAAA")
    pl = state.players[0]
    pl.provisions = [[1, True], [2, False], [3, False]]  # tile 1 costs 1 dinar and 1 date
    for _ in range(2):
        run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_provisions"}))
        state.apply("resource:dates")
    assert pl.ext["closed_madrasa"] == {
        "reserved": {"water": 0, "dates": 2, "dinars": 0},
        "uses": 2,
    }
    give(state, 0, "gray", 5)
    pl.dates = 2
    state.ext["closed_madrasa"]["markers"][2] = 0
    run(state, T("action", p=0, s="gray"))
    assert "scroll:pink1" not in scrolls_offered(state)  # twice a season at most
    state.stack = []
    pl.water = pl.dinars = pl.dates = 0
    pl.dinars = 1
    run(state, T("madrasa_release", p=0), T("provide", p=0))
    # 1 reserved date paid the tile's date, the other went back to the supply.
    assert (pl.dinars, pl.dates) == (0, 0)
    assert not [e for e in state.score_events if "provided" in e[2]]
    assert pl.ext["closed_madrasa"]["uses"] == 0
    check(state)


def test_components_sides_and_the_sorted_out_tiles():
    state = madrasa(sides="ABBA")
    assert board(state) == [[1, 2, 3], [10, 11, 12], [16, 17, 18], [19, 20, 21]]
    assert board(madrasa(sides="BBBB")) == [[4, 5, 6], [10, 11, 12], [16, 17, 18], [22, 23, 24]]
    comps = state.game.components
    assert 23 not in comps.oases and {3, 10}.isdisjoint(comps.desert_towns)
    assert not any(state.stacks) and all(pl.scrolls == [] for pl in state.players)
    for bad in ("ABC", "AAAAA", "abab"):
        with pytest.raises(MadrasaSidesError):
            with_sides(load(), bad)


@pytest.mark.parametrize(
    "modules", [["closed_madrasa", "second_hand_shop"], ["second_hand_shop", "closed_madrasa"]]
)
def test_config_refuses_the_second_hand_shop(modules):
    with pytest.raises(ConfigError, match="cannot be combined with"):
        GameConfig(players=3, modules=frozenset(modules))


@pytest.mark.parametrize("sid", range(1, 25))
def test_every_printed_scroll_can_be_used_and_resolved(sid):
    """Each of the 24 printed scrolls, used with random follow-up choices on a board
    seeded so that most effects have something to act on."""
    area, side = divmod(sid - 1, 6)
    sides = ["A"] * 4
    sides[area] = "AB"[side // 3]
    state = madrasa(players=3, sides="".join(sides), seed=sid)
    slot = (sid - 1) % 3
    state.ext["closed_madrasa"]["markers"][area] = (slot + 1) % 3
    pl = state.players[0]
    give(state, 0, "gray", 5)
    for c in ("turquoise", "white", "black", "pink", "brown", "beige", "yellow", "orange"):
        give(state, 0, c, 2)
    pl.revealed = [True] * 6
    pl.claimed = [pl.oases[4], pl.oases[5]]
    pl.claimed_at[4] = pl.claimed_at[5] = True
    pl.dates, pl.water, pl.dinars = 6, 4, 4
    pl.provisions[0][1] = True
    pl.disc = 6  # the entertainer on main-square space 0 faces 3 spectators (scroll 12)
    run(state, T("action", p=0, s="gray"))
    colour = ("gray", "yellow", "pink", "orange")[area]
    assert f"scroll:{colour}{slot}" in scrolls_offered(state)
    score_before = pl.score
    state.apply(f"scroll:{colour}{slot}")
    assert sid in state.ext["closed_madrasa"]["used"]["ids"]
    rng = random.Random(sid)
    while not state.is_terminal():
        options = [a for a in state.legal_actions() if not str(a).startswith("scroll:")]
        state.apply(rng.choice(options or state.legal_actions()))
        check(state)
    assert state.ext["closed_madrasa"]["markers"][area] == slot
    assert pl.score >= score_before or sid == 24


def test_scrolls_19_23_and_24():
    state = madrasa()
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 10, 10, 10
    points = pl.score
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_return", "points": 2}))
    state.apply("number:10")  # water
    assert legal(state)[-1] == "number:2"  # 12 resources at most
    state.apply("number:2")
    assert pl.score == points + 24 and state.stack == []
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_sets", "points": 6}))
    assert state.stack == [] and pl.score == points + 24  # no water left for a set
    pl.water = 5
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_sets", "points": 6}))
    assert legal(state)[-1] == "number:3"
    state.apply("number:3")
    assert pl.score == points + 24 + 18 and (pl.water, pl.dates, pl.dinars) == (2, 5, 7)
    pl.claimed = pl.oases[:3]
    run(state, T("fx", p=0, e={"op": "special", "name": "madrasa_score_oases", "n": 2}))
    state.apply("choice:1")
    assert "choice:1" not in legal(state)  # two different oases
    check(state)


@sequences_with("closed_madrasa", examples=15)
def test_hypothesis_action_sequences_with_the_madrasa(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


def test_json_and_replay_exact_with_the_madrasa():
    game = Game(GameConfig(players=3, modules=MADRASA | {"alms", "imam_sultan"}))
    round_trip(
        game, 2, 2, lambda s: s.current_player >= 0 and s.stack[-1].get("k") == "madrasa_use"
    )


def test_scroll_14_release_comes_after_the_battle_right_before_the_provisions():
    """With Walls & Guards the reserved resources join the supply after the Battle at the
    Wall (no malus can take them), right before the provisions."""
    from tower.marrakesh.hooks import Hooks

    for mods in ({"closed_madrasa"}, {"closed_madrasa", "walls_guards", "edicts"}):
        steps = [n for n, _ in Hooks(mods).season]
        at = steps.index("madrasa_provisions")
        assert steps[at + 1] == "provisions" and steps.index("river") < at
        if "walls_guards" in mods:
            assert steps.index("battle") < at


def _outcome(sid: int, pick: str | None) -> tuple[State, dict[str, int]]:
    """Player 0 uses printed scroll ``sid`` (its effect only), taking option ``pick``;
    returns the state and what changed: resources, score, staircase and river steps."""
    from tower.marrakesh.effects import run_effects
    from tower.marrakesh.rules import advance

    state = madrasa()
    pl = state.players[0]
    keys = ("water", "dates", "dinars", "score", "mosque", "palace", "river")
    before = {k: getattr(pl, k) for k in keys}
    effect = state.game.components.tables["madrasa_scroll"][sid]["effect"]
    run_effects(state, 0, effect, f"scroll {sid}")
    advance(state)
    if pick is not None:
        state.apply(pick)
    while state.stack and state.current_player >= 0:
        state.apply(state.legal_actions()[0])
    check(state)
    return state, {k: getattr(pl, k) - before[k] for k in keys if getattr(pl, k) != before[k]}


@pytest.mark.parametrize(
    ("sid", "pick", "changed"),
    [
        (2, "choice:0", {"dinars": 2}),  # "Take 2 dinar or advance 1 step on the river"
        (2, "choice:1", {"river": 1}),
        (3, "choice:0", {"water": 2}),  # "Take 2 water or advance 1 step on the mosque or
        (3, "choice:1", {"palace": 1}),  # palace staircase" (then the first offered: palace)
        (5, None, {"score": 2}),  # "Gain 2 points" (the gem only with Gems)
        (6, "choice:0", {"dates": 3}),  # "Take 3 dates or 2 water"
        (6, "choice:1", {"water": 2}),
        (8, None, {"dinars": 1, "water": 1, "dates": 1, "score": 2}),
        (9, None, {"mosque": 1, "palace": 1, "score": 2}),  # both staircases, 2 points
        (11, None, {"dinars": 1, "water": 1, "score": 3}),
        (18, None, {"water": 3}),  # the souk's water vendor "and immediately take 3 water"
    ],
)
def test_printed_scroll_outcomes(sid, pick, changed):
    """Gems & Experts, The Closed Madrasa, "The Scroll Effects" 02, 03, 05, 06, 08, 09,
    11 and 18: what each printed scroll gives."""
    state, got = _outcome(sid, pick)
    assert got == changed
    if sid == 18:
        assert state.players[0].souk_vendor  # "Place a red water vendor keshi ... Souk"


def test_printed_scrolls_15_17_20_21_22():
    """Scroll 15: 1 sector action of choice; 17: 2 discovered oases activated without
    their costs; 20: a luxury good without its goods keshis; 21: a guard keshi and any
    city gate, then any 1 keshi; 22: 3 keshis of different colours."""
    state, _ = _outcome(15, None)
    assert state.history[-1].endswith("sector:green")  # the first sector offered: done
    state = madrasa()
    pl = state.players[0]
    pl.revealed = [True] * 6
    run(state, T("fx", p=0, e={"op": "special", "name": "claim_oases_free", "n": 2}))
    while state.stack:
        state.apply(next(a for a in state.legal_actions() if str(a) != "pass"))
    assert len(pl.claimed) == 2 and (pl.water, pl.dates, pl.dinars) == (1, 1, 1)
    state, _ = _outcome(20, None)
    assert len(state.players[0].luxuries) == 1
    state = madrasa()
    pl = state.players[0]
    run(
        state,
        *[T("fx", p=0, e=e) for e in state.game.components.tables["madrasa_scroll"][21]["effect"]],
    )
    gates = state.legal_actions()
    state.apply(gates[0])
    while state.stack and state.stack[-1].get("k") != "madrasa_gate_keshi":
        state.apply(state.legal_actions()[0])
    assert sum(g is not None for g in pl.gates) == 1 and pl.keshis["beige"] == 1
    state.apply("colour:white")
    while state.stack:
        state.apply(state.legal_actions()[0])
    assert pl.keshis["white"] == 1
    check(state)
    state, _ = _outcome(22, None)
    taken = [c for c, n in state.players[0].keshis.items() if n]
    assert len(taken) == 3


@pytest.mark.parametrize("scroll", [None, 36])
@pytest.mark.parametrize("pick", ["colour:white", "pass"])
def test_scroll_21_gate_brings_only_the_keshi_it_names(scroll, pick):
    """Scroll 21: "Then you may take any 1 Keshi from the supply; this one does not have
    to correspond to the color of the placed city gate": that keshi (or none) and no other,
    also for a player who kept scroll 36 (New Special Buildings), which changes the keshi
    of a gate one buys (a 4-player game with every module crashed here)."""
    state = madrasa(modules=MADRASA | {"special_buildings"})
    pl = state.players[0]
    if scroll:  # player 0 swaps its kept scroll for this one, wherever it lies
        for holder in [*state.stacks, *(q.scrolls for q in state.players)]:
            if scroll in holder:
                holder[holder.index(scroll)] = pl.scrolls[0]
        pl.scrolls = [scroll]
    effects = state.game.components.tables["madrasa_scroll"][21]["effect"]
    run(state, *[T("fx", p=0, e=e) for e in effects])
    state.apply(state.legal_actions()[-1])  # a gate of the last workshop
    while state.stack and state.stack[-1].get("k") != "madrasa_gate_keshi":
        assert state.stack[-1].get("k") != "gate_keshi"
        state.apply(state.legal_actions()[0])
    before = dict(pl.keshis)
    state.apply(pick)
    while state.stack:
        state.apply(state.legal_actions()[0])
    gained = {c: n - before.get(c, 0) for c, n in pl.keshis.items() if n != before.get(c, 0)}
    assert gained == ({"white": 1} if pick != "pass" else {}), gained
    assert not pl.held
    check(state)


def test_with_special_buildings_each_keeps_one_of_three_permanent_yellow_scrolls():
    """The Closed Madrasa, Notes: with New Special Buildings "you still choose 1 yellow
    scroll each from 3 scrolls you have drawn ... set aside all those that do not have a
    'Permanent Effect.'" """
    game = Game(GameConfig(players=3, modules=MADRASA | {"special_buildings"}))
    state = game.new_initial_state(2)
    scrolls = game.components.scrolls
    offered = []
    while state.stack[-1]["t"] == "ask":
        if state.stack[-1]["k"] == "sb_scroll":
            offer = state.ext["special_buildings"]["offers"][str(state.stack[-1]["p"])]
            offered.append(list(offer))
        state.apply(state.legal_action_ids()[0])
    assert len(offered) == 3 and all(len(o) == 3 for o in offered)
    kept = [sid for pl in state.players for sid in pl.scrolls]
    assert len(kept) == 3
    for sid in [s for o in offered for s in o]:
        assert scrolls[sid]["colour"] == "yellow" and scrolls[sid]["timing"] == "permanent"
    check(state)


def test_scroll_18_water_vendor_waters_souk_assistants_from_the_next_turn():
    """Scroll 18: "From your next turn, you receive 1 water when you place an assistant
    in the Souk" (not in the turn the vendor arrives)."""
    state, _ = _outcome(18, None)
    pl = state.players[0]
    water = pl.water
    run(state, T("vendor_water", p=0, s="souk", action=True))
    assert pl.water == water  # placed this turn: not yet
    run(state, T("end_turn", p=0))
    run(state, T("vendor_water", p=0, s="souk", action=True))
    assert pl.water == water + 1
