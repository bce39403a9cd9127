"""Walls & Guards in the Marrakesh engine.

The rulebook's worked examples, played through the engine:

- the battle: 2 brigands, 2 other players' watchmen and 1 own watchman come out against a
  wall with 2 repaired sections: 3 points and 1 keshi lost
  (:func:`test_rulebook_battle_through_the_engine`);
- firing two explored bricks (3 and 4 wood) with 1 keshi in the brickworks costs 5 wood,
  and pays 1 goods keshi and 2 resources (:func:`test_rulebook_firing_two_bricks`);
- hiring 2 watchmen costs 1 dinar (bottom) and 1 water and 1 date (middle)
  (:func:`test_rulebook_hiring_costs`);
- a green keshi next to brick 02 gives 1 date and explores the tile
  (:func:`test_green_keshi_explores_a_brick_tile`);
- the date orchard: 2 date pickers and 3 caravans give 2 dates and 3 wood
  (:func:`test_rulebook_date_orchard_action`).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from marrakesh_checks import run_only

from tower.marrakesh import (
    CHANCE,
    Action,
    Game,
    GameConfig,
    IllegalActionError,
    RandomAgent,
    State,
    play,
)
from tower.marrakesh import wall_battle as bt
from tower.marrakesh.hooks import maximal_sets
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import walls_guards as wg
from tower.marrakesh.rules import T, thrown
from tower.model.baseline import BaselineModel
from tower.model.interface import Resident, TowerModel, TowerState
from tower.pieces import NEUTRAL, Kind, Piece, Place

WG = frozenset({"walls_guards"})
BRIGAND = Piece(Kind.BRIGAND, NEUTRAL)


def watchman(colour: str) -> Piece:
    return Piece(Kind.WATCHMAN, colour)


class ScriptedTower(TowerModel):
    """A tower whose throws let out the scripted pieces (the rest stays inside)."""

    name = "scripted"

    def __init__(self, outs: list[list[Piece]]) -> None:
        self.outs = list(outs)
        self.thrown: list[list[Piece]] = []

    def throw(self, state, pieces, rng):
        self.thrown.append(sorted(pieces))
        out = sorted(self.outs.pop(0)) if self.outs else []
        inside = Counter(r.piece for r in state.residents) + Counter(pieces)
        inside.subtract(out)
        assert min(inside.values(), default=0) >= 0, "script lets out a piece not thrown"
        stay = [
            Resident(p, Place.FLOOR1, state.throws) for p, n in inside.items() for _ in range(n)
        ]
        return out, TowerState(tuple(stay), state.throws + 1)


def wg_state(players: int = 3, tower: TowerModel | None = None, seed: int = 0) -> State:
    """A Walls & Guards game after its setup decisions (first option each)."""
    game = Game(GameConfig(players=players, modules=WG, tower=tower or BaselineModel()))
    state = game.new_initial_state(seed)
    while state.stack[-1]["t"] == "ask":
        state.apply(state.legal_action_ids()[0])
    assert state.stack[-1]["t"] == "select"
    return state


def give(state: State, p: int, colour: str, n: int = 1) -> None:
    state.players[p].keshis[colour] += n
    state.issued[colour] += n


def explore(state: State, p: int, *indices: int, brickworks: int = 0) -> None:
    """Brown keshis next to brick tiles ``indices`` (0-5) and in the brickworks."""
    pl = state.players[p]
    for i in indices:
        pl.sahara[i + 2] = pl.explored[i] = True
    for s in range(brickworks):
        pl.sahara[s] = True
    give(state, p, "brown", len(indices) + brickworks)


def in_orchard(state: State, p: int, green: int, brown: int) -> None:
    """Date pickers and caravans in player ``p``'s date orchard."""
    give(state, p, "green", green)
    give(state, p, "brown", brown)
    state.players[p].orchard_brown = brown


def act(state: State, text: str) -> None:
    state.apply(Action.parse(text))
    check(state)


# -- the rulebook's examples ------------------------------------------------------------
def test_rulebook_battle_through_the_engine():
    tower = ScriptedTower(
        [[BRIGAND, BRIGAND, watchman("yellow"), watchman("yellow"), watchman("red")]]
    )
    state = wg_state(3, tower)
    state.season, state.start = 2, 0
    sarah, other = state.players[0], state.players[1]
    explore(state, 0, 0, 1)
    sarah.wall = [sarah.bricks[0], sarah.bricks[1]]  # 2 repaired sections
    sarah.posts, sarah.recruited = [False, True, True], 1
    give(state, 0, "gray")
    give(state, 0, "white")
    # Two of the other player's watchmen are stuck in the tower from an earlier season.
    other.posts = [False, False, True]
    stuck = [Resident(watchman("yellow"), Place.FLOOR1, 0)] * 2
    state.tower = TowerState(tuple(stuck), 5)
    check(state)
    run_only(state, *wg.season_tasks(state))
    # The battle throw is a chance node of the tower model, with pawns as pawns.
    assert state.current_player == CHANCE
    assert sorted(thrown(state, state.stack[-1])) == sorted([watchman("red"), BRIGAND, BRIGAND])
    check(state)
    before = sarah.score
    state.sample_chance()
    assert state.score_events[-1] == [0, 3, "battle at the wall: 3 repelled"]
    assert sarah.score == before + 3
    # The fourth attacker breaks through: 1 keshi of her choice.
    assert state.current_player == 0 and state.stack[-1]["k"] == "malus_pay"
    choices = state.stack[-1]["ways"]
    assert sorted(choices) == [[["keshi:gray", 1]], [["keshi:white", 1]]]
    act(state, f"choice:{choices.index([['keshi:gray', 1]])}")
    assert sarah.keshis["gray"] == 0 and sarah.keshis["white"] == 1
    # The next player throws everything that fell out with their own recruited watchmen (0).
    assert state.current_player == CHANCE
    assert sorted(thrown(state, state.stack[-1])) == sorted(
        [BRIGAND, BRIGAND, watchman("yellow"), watchman("yellow"), watchman("red")]
    )


def test_rulebook_firing_two_bricks():
    state = wg_state(2)
    pl = state.players[0]
    explore(state, 0, 0, 1, brickworks=1)  # a 3-wood and a 4-wood tile
    assert [bt.BRICK_WOOD[t] for t in pl.bricks[:2]] == [3, 4]
    pl.wood = 5
    res = (pl.water, pl.dates, pl.dinars)
    check(state)
    run_only(state, T("action", p=0, s="brown"))
    assert state.stack[-1]["k"] == "fire"
    assert {str(a) for a in state.legal_actions()} == {"pass", "slot:2", "slot:3"}
    act(state, "slot:2")  # (3 - 1) wood; wall section 1: 1 goods keshi
    assert pl.wood == 3 and state.stack[-1]["k"] == "keshi_colour"
    act(state, "colour:yellow")
    act(state, "slot:3")  # (4 - 1) wood; wall section 2: any 2 resources
    act(state, "resource:water")
    act(state, "resource:dates")
    assert pl.wood == 0 and pl.wall == pl.bricks[:2]
    assert pl.keshis["yellow"] == 1
    assert (pl.water, pl.dates, pl.dinars) == (res[0] + 1, res[1] + 1, res[2])


def test_firing_is_refused_without_the_wood():
    state = wg_state(2)
    pl = state.players[0]
    explore(state, 0, 0, 1, brickworks=1)
    pl.wood = 4
    run_only(state, T("action", p=0, s="brown"))
    act(state, "slot:2")
    act(state, "colour:yellow")
    assert pl.wood == 2
    assert state.stack[-1]["k"] == "hire"  # the 4-wood tile (3 with the brickworks) is too dear
    with pytest.raises(IllegalActionError, match="illegal action slot:3"):
        state.apply("slot:3")


def test_rulebook_hiring_costs():
    state = wg_state(2)
    pl = state.players[0]
    pl.water = pl.dates = pl.dinars = 1
    run_only(state, T("action", p=0, s="brown"))
    assert state.stack[-1]["k"] == "hire"
    assert {str(a) for a in state.legal_actions()} == {"pass", "slot:0", "slot:1", "slot:2"}
    act(state, "slot:0")  # bottom: 1 dinar
    assert (pl.water, pl.dates, pl.dinars) == (1, 1, 0)
    assert {str(a) for a in state.legal_actions()} == {"pass", "slot:1"}  # top needs a dinar
    act(state, "slot:1")  # middle: 1 water and 1 date
    assert (pl.water, pl.dates, pl.dinars) == (0, 0, 0)
    assert pl.recruited == 2 and pl.posts == [False, False, True]
    assert bt.hiring_cost(["bottom", "middle"]) == {"date": 1, "dinar": 1, "water": 1}


def test_scroll_82_hires_for_one_resource_fewer_of_the_players_choice():
    state = wg_state(2)
    pl = state.players[0]
    pl.scrolls.append(82)
    pl.water, pl.dates, pl.dinars = 1, 1, 0
    run_only(state, T("action", p=0, s="brown"))
    act(state, "slot:0")  # bottom: 1 dinar - 1 = free
    act(state, "slot:1")  # middle: water or date
    assert state.stack[-1]["k"] == "hire_waive" and len(state.legal_actions()) == 2
    act(state, "choice:0")
    assert pl.water + pl.dates == 1 and pl.recruited == 2


def test_green_keshi_explores_a_brick_tile():
    state = wg_state(2)
    pl = state.players[0]
    pl.bricks[0] = 2  # brick 02: brown 1 wood, green 1 date
    dates, score = pl.dates, pl.score
    run_only(state, T("deploy", p=0, c="green", src="supply"))
    assert {str(a) for a in state.legal_actions()} == {"sector:green", "slot:0", "slot:2", "slot:5"}
    act(state, "slot:2")
    assert pl.dates == dates + 1 and pl.explored[0] and pl.sahara_green == [2]
    run_only(state, T("deploy", p=0, c="brown", src="supply"))
    act(state, "sector:green")  # into the date orchard: 1 point
    assert pl.score == score + 1 and wg.orchard(pl) == (0, 1)
    run_only(state, T("deploy", p=0, c="brown", src="supply"))
    act(state, "slot:0")  # the brickworks: no bonus, cheaper bricks
    assert wg.fire_cost(state, 0, 1) == 2 and pl.dates == dates + 1  # tile 01: 3 wood


def test_rulebook_date_orchard_action():
    state = wg_state(2)
    pl = state.players[0]
    in_orchard(state, 0, 2, 3)
    dates, wood = pl.dates, pl.wood
    check(state)
    run_only(state, T("action", p=0, s="green"))
    assert (pl.dates, pl.wood) == (dates + 2, wood + 3)


# -- the battle procedure ---------------------------------------------------------------
def test_battles_of_a_season_and_their_aftermath():
    out1 = [watchman("red"), BRIGAND]  # red's battle
    out2 = [watchman("red"), BRIGAND, Piece.keshi("black")]  # yellow's battle
    out3 = [watchman("red"), Piece.keshi("black")]  # green's battle: the last one
    tower = ScriptedTower([out1, out2, out3])
    state = wg_state(3, tower)
    state.season, state.start = 3, 0
    red, yellow, _ = state.players
    red.posts, red.recruited = [False, False, True], 2
    yellow.posts, yellow.recruited = [True, True, False], 1
    state.tower = TowerState((Resident(Piece.keshi("black"), Place.FLOOR2, 0),), 3)
    state.issued["black"] += 1
    check(state)
    run_only(state, *wg.season_tasks(state))
    # Season 3: the first player throws their 2 watchmen and 3 brigands.
    assert sorted(thrown(state, state.stack[-1])) == sorted([watchman("red")] * 2 + [BRIGAND] * 3)
    state.sample_chance()
    check(state)
    assert state.brigands == 0
    # Red: own watchman guards section 1, the brigand is repelled there: 1 point.
    assert state.score_events[-1][:2] == [0, 1]
    # Yellow throws everything out so far with their own recruited watchman.
    assert sorted(thrown(state, state.stack[-1])) == sorted([*out1, watchman("yellow")])
    state.sample_chance()
    while state.current_player >= 0:  # yellow pays what the breaches cost
        state.apply(state.legal_action_ids()[0])
        check(state)
    assert sorted(thrown(state, state.stack[-1])) == sorted(out2)
    state.sample_chance()
    while state.current_player >= 0:
        state.apply(state.legal_action_ids()[0])
    check(state)
    # After the last battle: the keshi goes into the next throw, the red watchman that fell
    # out returns to the bottom space, the others stay in the tower.
    assert state.carry == ["black"] and state.battle_base == []
    assert red.posts == [True, False, True] and red.recruited == 0
    inside = Counter(r.piece for r in state.tower.residents)
    assert inside[watchman("red")] == 1 and inside[watchman("yellow")] == 1
    assert inside[BRIGAND] == 3 and state.brigands == 0
    assert Piece.keshi("black") in thrown(state, {"t": "throw"})


def test_stuck_watchman_falling_out_of_a_round_throw_joins_the_battle_ready():
    state = wg_state(2, BaselineModel(p_fresh=0.0, p_old=1.0))
    yellow = state.players[1]
    yellow.posts = [True, True, False]
    state.brigands = 2
    stuck = (Resident(watchman("yellow"), Place.FLOOR1, 0), Resident(BRIGAND, Place.FLOOR1, 0))
    state.tower = TowerState(stuck, 2)
    check(state)
    while not state.is_chance_node():
        for p in state.pending_players():
            state.apply(state.legal_action_ids(p)[0], player=p)
        while state.current_player >= 0:
            state.apply(state.legal_action_ids()[0])
    state.sample_chance()
    check(state)
    assert yellow.recruited == 1 and state.brigands == 3
    assert sum(state.display.values()) == 0  # pawns are never keshis


def test_partial_payment_and_forfeit():
    state = wg_state(2)
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 1, 0, 0
    pl.luxuries = []
    run_only(state, T("malus", p=0, pen="two_resources"), T("malus", p=0, pen="luxury_good"))
    assert state.is_terminal()  # one way each: pay the 1 water, forfeit the luxury good
    assert (pl.water, pl.dates, pl.dinars) == (0, 0, 0)


def test_two_steps_back_never_move_a_pawn_off_the_final_staircase_space():
    # Ruling: a pawn on the final space stays there for the rest of the game (base rules).
    state = wg_state(2)
    final = state.game.components["staircase"]["final"]
    pl = state.players[0]
    pl.mosque, pl.palace = final, 5
    run_only(state, T("malus", p=0, pen="two_steps"))
    assert state.is_terminal()  # the only way: 2 steps back on the palace staircase
    assert (pl.mosque, pl.palace) == (final, 3)
    pl.palace = final
    run_only(state, T("malus", p=0, pen="two_steps"))
    assert state.is_terminal() and (pl.mosque, pl.palace) == (final, final)  # forfeited
    pl.mosque, pl.palace = final - 1, final
    run_only(state, T("malus", p=0, pen="two_steps"))
    assert (pl.mosque, pl.palace) == (final - 3, final)


def test_river_tile_22_protects_the_whole_wall():
    tower = ScriptedTower([[BRIGAND, BRIGAND]])
    state = wg_state(2, tower)
    state.season, state.start = 2, 0
    state.wall_protected = 0
    run_only(state, *wg.season_tasks(state))
    state.sample_chance()
    assert state.score_events[-1] == [0, 2, "battle at the wall: 2 repelled"]


def test_battle_chance_node_has_the_models_exact_law():
    state = wg_state(2)
    state.season, state.start = 1, 0
    state.players[0].posts, state.players[0].recruited = [False, True, True], 1
    run_only(state, *wg.season_tasks(state))
    law = dict(state.chance_outcomes())
    assert abs(sum(law.values()) - 1) < 1e-9
    assert ("brigand:neutral", "watchman:red") in law and () in law


# -- components, setup, whole games -----------------------------------------------------
def test_components_with_walls_guards():
    base = Game(GameConfig(players=2)).components
    game = Game(GameConfig(players=2, modules=WG))
    c = game.components
    assert (len(c.scrolls), len(c.river_tiles), len(c.provisions)) == (78, 24, 18)
    assert len(c.exchange_offices) == 20 and len(c.tables["brick"]) == 11
    assert c["river"]["rapid_bonuses"][1][0]["op"] == "choose"  # overlay: or 1 wood
    assert base["river"]["rapid_bonuses"][1] == [{"op": "resource", "n": 1}]
    assert c["staircase"]["spaces"]["river"]["effect"] == [{"op": "gain", "wood": 1}]
    assert c["main_square"]["spaces"][4] == [{"op": "gain", "wood": 1}]
    assert all(e["source"] in ("rulebook", "assumed") for e in c.tables["brick"].values())
    state = game.new_initial_state(4)
    assert sorted(s for st in state.stacks for s in st) == sorted(c.scrolls)
    assert all(pl.wood == 1 and pl.oases == [] and not pl.held for pl in state.players)
    assert state.brigands == 3 and all(pl.posts == [True] * 3 for pl in state.players)


def test_setup_brick_choice_is_a_decision():
    game = Game(GameConfig(players=2, modules=WG))
    state = game.new_initial_state(1)
    seen = []
    while state.stack[-1]["t"] == "ask":
        top = state.stack[-1]
        if top["k"] == "bricks":
            seen.append((top["p"], top["wood"]))
        state.apply(state.legal_action_ids()[-1])
    assert sorted(seen) == [(p, w) for p in (0, 1) for w in (3, 4, 5)]
    for pl in state.players:
        assert [bt.BRICK_WOOD[t] for t in pl.bricks] == [3, 4, 5, 3, 4, 5]
        assert len(set(pl.bricks)) == 6


@pytest.mark.parametrize("players,modules", [(2, WG), (3, WG), *[(4, m) for m in maximal_sets()]])
def test_random_games_with_walls_guards_keep_every_invariant(players, modules):
    game = Game(GameConfig(players=players, modules=modules))
    for seed in range(3):
        final = play(
            game, [RandomAgent(31 * seed + k) for k in range(players)], seed=seed, on_action=check
        )
        assert final.is_terminal() and final.season == 3


def test_json_round_trip_and_replay_with_walls_guards():
    game = Game(GameConfig(players=3, modules=WG))
    rng = random.Random(2)
    state = game.new_initial_state(7)
    actions, snaps = [], []
    battle_snaps = 0
    while not state.is_terminal():
        top = state.stack[-1]
        in_battle = top.get("after") == "battle" or top.get("k") == "malus_pay"
        if in_battle and battle_snaps < 4:  # a pending battle throw, a malus to pay
            battle_snaps += 1
            snaps.append((len(actions), json.loads(json.dumps(state.to_json()))))
        if state.is_chance_node():
            state.sample_chance()
            continue
        if len(actions) % 97 == 0:
            snaps.append((len(actions), json.loads(json.dumps(state.to_json()))))
        a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply(a)
    assert battle_snaps == 4 and any("watchman" in h for h in state.history)
    assert game.replay(7, actions).to_json() == state.to_json()
    for at, snap in snaps:
        restored = State.from_json(game, snap)
        assert restored.to_json() == snap
        for a in actions[at:]:
            while restored.is_chance_node():
                restored.sample_chance()
            restored.apply(a)
        while restored.is_chance_node():
            restored.sample_chance()
        assert restored.to_json() == state.to_json()


# -- the new scrolls, river tiles and provision tiles -----------------------------------
def test_scrolls_79_81_and_84():
    state = wg_state(2)
    pl = state.players[0]
    wood = pl.wood
    run_only(state, T("fx", p=0, e=state.game.components.scrolls[79]["effect"][0]))
    assert pl.wood == wood + 2  # scroll 79
    pl.scrolls.append(81)
    palace = pl.palace
    run_only(state, T("stair", p=0, w="palace", n=1))
    assert state.stack[-1]["k"] == "stair_buy" and len(state.legal_actions()) == pl.wood + 1
    act(state, f"number:{pl.wood}")  # 1 wood = 1 further step
    assert pl.palace == palace + 1 + wood + 2 and pl.wood == 0
    explore(state, 0, 0, 3)
    run_only(state, T("fx", p=0, e={"op": "special", "name": "fire_free", "n": 2}))  # scroll 84
    assert {str(a) for a in state.legal_actions()} == {"slot:2", "slot:5"}
    act(state, "slot:5")
    while state.current_player >= 0:
        act(state, str(state.legal_actions()[0]))
    assert sorted(pl.wall) == sorted([pl.bricks[0], pl.bricks[3]]) and pl.wood >= 0


def test_river_tile_23_and_the_fire_discount_provision_tile():
    state = wg_state(2)
    pl = state.players[0]
    explore(state, 0, 0, 1)
    pl.wall = pl.bricks[:2]
    before = pl.score
    tile = state.game.components.river_tiles[23]
    run_only(state, *[T("fx", p=0, e=e, why="river tile 23") for e in tile["first"]])
    assert pl.score == before + 2 * 2  # 2 points per repaired wall section
    assert wg.fire_cost(state, 0, 5) == 5
    pl.provisions.append([14, True])  # 1 fewer wood per brick tile fired
    assert wg.fire_cost(state, 0, 5) == 4


def test_a_state_written_before_walls_guards_still_loads():
    game = Game(GameConfig(players=2))
    state = game.new_initial_state(1)
    old = state.to_json()
    for key in ("brigands", "battle_base", "carry", "wall_protected"):
        del old["board"][key]
    for pl in old["player_states"]:
        del pl["wood"], pl["wall"], pl["posts"]
    assert State.from_json(game, old).to_json() == state.to_json()


def test_scroll_83_watchman_tiles():
    out = [BRIGAND, BRIGAND, BRIGAND, watchman("red")]
    tower = ScriptedTower([out, out])  # the second battle lets everything out again
    state = wg_state(2, tower)
    state.season, state.start = 3, 0
    red = state.players[0]
    red.scrolls.append(83)
    red.posts, red.recruited = [False, True, True], 1
    run_only(state, *wg.season_tasks(state))
    state.sample_chance()
    # Tiles on sections 1 and 2, the watchman on section 3: 3 repelled, 2 by the tiles.
    assert state.score_events[-2:] == [
        [0, 3, "battle at the wall: 3 repelled"],
        [0, 4, "scroll 83: sections defended by watchman tiles"],
    ]
    before = red.score
    while not state.is_terminal():
        state.sample_chance() if state.is_chance_node() else state.apply(
            state.legal_action_ids()[0]
        )
    assert red.posts == [True, True, True]
    wg.WallsGuards().final_scoring(state, 0)
    assert red.score == before + 2 * 3  # 2 points per own watchman on the board


def test_terminal_board_shows_walls_guards():
    from tower.marrakesh.ui import format_options, render

    tower = ScriptedTower([[BRIGAND, BRIGAND, watchman("yellow"), watchman("yellow")]])
    state = wg_state(2, tower)
    state.season, state.start = 2, 0
    state.players[1].posts = [False, False, True]
    state.tower = TowerState((Resident(watchman("yellow"), Place.FLOOR1, 0),) * 2, 4)
    give(state, 0, "gray")
    give(state, 0, "white")
    run_only(state, *wg.season_tasks(state))
    text = render(state, 1)
    assert (
        "Inside the tower: yellow watchman 2 " in text and "pawns inside yellow watchman 2" in text
    )
    state.sample_chance()
    text = render(state, 0)
    assert "wood 1; bricks (path A, path B; * explored) 01 03 05 02 04 06" in text
    # The malus asks for two resources (not a goods keshi): the options say which.
    menu = format_options(state.describe_actions())
    assert "1) give up 1 date, 1 dinar" in menu and "keshi" not in menu


@pytest.mark.parametrize("towns", [(), (8,), (8, 9)])
def test_ruling_with_desert_towns_a_filled_sahara_needs_its_8_spaces_and_both_town_slots(towns):
    """Walls & Guards: "8 keshis in any combination of brown and green, plus 1 red keshi";
    Desert Towns (expansion 5): "Both keshi slots of the desert town covering tile must be
    occupied (in addition to all other keshi spaces)". The ruling follows both."""
    state = Game(GameConfig(players=2, modules=WG | {"desert_towns"})).new_initial_state(0)
    pl = state.players[0]
    explore(state, 0, 0, 1, 2, 3, 4, 5, brickworks=2)  # the 8 spaces
    pl.vendors["brown"] = 1
    for s in towns:
        pl.sahara[s] = True
    give(state, 0, "brown", len(towns))
    assert wg.filled(state, 0, "brown") is (len(towns) == 2)
    if towns:  # 6 brick-tile spaces and both town slots are 8 keshis, not filled either
        pl.sahara[0] = pl.sahara[1] = False
        pl.sahara[8] = pl.sahara[9] = True
        assert wg.filled(state, 0, "brown") is False
    # Without the desert towns the 8 spaces are enough.
    plain = wg_state(players=2)
    explore(plain, 0, 0, 1, 2, 3, 4, 5, brickworks=2)
    plain.players[0].vendors["brown"] = 1
    assert wg.filled(plain, 0, "brown") is True


#: The 11 brick tiles of "Brick Tiles" (tile 10's camel steps and nomads need modules
#: outside the three rulebooks: its wood and dinars remain): (wood, brown, green).
BRICKS = {
    1: (
        3,
        [{"op": "stair", "which": "mosque", "n": 1}],
        [{"op": "stair", "which": "palace", "n": 1}],
    ),
    2: (3, [{"op": "gain", "wood": 1}], [{"op": "gain", "dates": 1}]),
    3: (4, "2 different goods keshis", [{"op": "resource", "n": 2}]),
    4: (4, [{"op": "gain", "dinars": 2}], [{"op": "gain", "water": 2}]),
    5: (5, [{"op": "gain", "wood": 3}], [{"op": "special", "name": "yellow_scroll"}]),
    6: (5, [{"op": "points", "n": 3}], [{"op": "river", "n": 3}]),
    7: (3, [{"op": "gain", "wood": 1}], [{"op": "stair", "which": "palace", "n": 1}]),
    8: (3, [{"op": "stair", "which": "mosque", "n": 1}], [{"op": "gain", "dates": 1}]),
    9: (
        4,
        [{"op": "special", "name": "keshi_exchange"}],
        [{"op": "stair", "which": "mosque", "n": 1}, {"op": "stair", "which": "palace", "n": 1}],
    ),
    10: (4, [{"op": "gain", "wood": 2}], [{"op": "gain", "dinars": 2}]),
    11: (
        5,
        [
            {"op": "keshi", "colour": "white", "n": 1},
            {"op": "special", "name": "free_gate", "workshops": [0, 1]},
        ],
        [{"op": "keshi", "colour": "pink", "n": 1}, {"op": "keshi", "colour": "gray", "n": 1}],
    ),
}


@pytest.mark.parametrize("tile", sorted(BRICKS))
def test_the_printed_brick_tiles(tile):
    """Walls & Guards, "Brick Tiles": each tile's wood cost and its brown and green bonus."""
    wood, brown, green = BRICKS[tile]
    entry = wg_state(2).game.components.tables["brick"][tile]
    assert bt.BRICK_WOOD[tile] == wood and entry["green"] == green
    if isinstance(brown, str):  # "any 2 different goods keshis": the 3 pairs to choose
        pairs = [{e["colour"] for e in o} for o in entry["brown"][0]["options"]]
        assert sorted(map(sorted, pairs)) == sorted(
            sorted(p) for p in ({"yellow", "purple"}, {"yellow", "orange"}, {"purple", "orange"})
        )
    else:
        assert entry["brown"] == brown


def _river_tile(state: State, tile: int, half: str = "first") -> None:
    effects = state.game.components.river_tiles[tile][half]
    run_only(state, *[T("fx", p=0, e=e, why=f"river tile {tile}") for e in effects])


def test_river_tiles_19_20_21_and_24():
    """New River Tiles: 19 "may deploy 1 brown or 1 green keshi"; 20 "1 harvest
    GREEN/BROWN"; 21 "two keshis of their choice ... deploy them"; 24 "3 points for each
    pair of one green and one brown keshi in the Sahara OR the date orchard", the second
    player resources of their choice."""
    state = wg_state(2)
    _river_tile(state, 19)
    assert state.stack[-1]["k"] == "choose" and len(state.legal_actions()) == 3  # or none
    state = wg_state(2)
    pl = state.players[0]
    in_orchard(state, 0, 2, 3)
    dates, wood = pl.dates, pl.wood
    _river_tile(state, 20)
    assert (pl.dates, pl.wood) == (dates + 2, wood + 3)
    state = wg_state(2)
    _river_tile(state, 21)
    asked = 0
    while state.stack and state.current_player >= 0:
        asked += state.stack[-1]["k"] == "keshi_colour"
        act(state, str(state.legal_actions()[0]))
    assert asked == 2
    state = wg_state(2)
    pl = state.players[0]
    in_orchard(state, 0, 2, 2)  # 2 green and 2 brown in the date orchard: 2 pairs
    score = pl.score
    _river_tile(state, 24)
    assert pl.score == score + 2 * 3
    _river_tile(state, 24, "second")
    assert state.stack[-1]["k"] == "resource"


def test_scroll_80_a_threshold_also_gives_1_wood():
    """Scroll 80: crossing a threshold on a staircase gives 1 wood besides the dinar."""
    state = wg_state(2)
    pl = state.players[0]
    first = state.game.components["staircase"]["thresholds"][0]
    pl.mosque = first - 1
    wood, dinars = pl.wood, pl.dinars
    run_only(state, T("stair", p=0, w="mosque", n=1))
    while state.stack and state.current_player >= 0:
        act(state, str(state.legal_actions()[0]))
    without = (pl.wood - wood, pl.dinars - dinars)
    state = wg_state(2)
    pl = state.players[0]
    pl.scrolls.append(80)
    for st in state.stacks:
        if 80 in st:
            st.remove(80)
    pl.mosque = first - 1
    wood, dinars = pl.wood, pl.dinars
    run_only(state, T("stair", p=0, w="mosque", n=1))
    while state.stack and state.current_player >= 0:
        act(state, str(state.legal_actions()[0]))
    assert (pl.wood - wood, pl.dinars - dinars) == (without[0] + 1, without[1])
    assert without[1] >= 1  # the threshold's dinar


def test_the_any_keshi_malus_spares_sahara_keshis_and_committed_guards():
    """Summary of mali: "Giving up a keshi that is already standing next to an explored
    or activated brick tile, or a beige guard keshi that is already guarding a city gate,
    is NOT allowed." """
    state = wg_state(2)
    pl = state.players[0]
    explore(state, 0, 0, brickworks=1)  # 2 brown keshis in the sahara
    give(state, 0, "beige", 2)
    pl.gates[0] = "gray"  # one guard guards a gate
    give(state, 0, "green", 1)  # a date picker in the orchard
    may = wg.malus_keshis(state, 0)
    assert "brown" not in may and may["beige"] == 1 and may["green"] == 1


def test_each_player_gets_a_desert_town_without_an_instant_effect_on_the_wall():
    """Setup 12: "sort out all tiles with an instant effect (No. 10, 11, 12). Each player
    is randomly assigned one of the remaining tiles"; it scores once the wall is
    complete (ruling, ``wall_towns``)."""
    for seed in range(4):
        state = wg_state(3, seed=seed)
        towns = [pl.wall_town for pl in state.players]
        assert len(set(towns)) == 3 and not {10, 11, 12} & set(towns)
    pl = state.players[0]
    assert wg.wall_towns(state, 0) == []
    pl.wall = list(pl.bricks)
    assert wg.wall_towns(state, 0) == [pl.wall_town]


def test_the_gate_wall_bonus_needs_a_free_guard_and_takes_a_leftmost_gate():
    """Wall bonus: "1 gate from the leftmost or second-from-left workshop space ... no
    dinar ... points as usual ... a keshi of the matching color"; "the player needs 1
    free watchman keshi on their watchtower"."""
    state = wg_state(2)
    pl = state.players[0]
    explore(state, 0, 0, 1, 2, 3, 4)
    pl.wall = list(pl.bricks[:5])  # the next section covers the gate bonus
    give(state, 0, "beige", 1)
    dinars = pl.dinars
    run_only(state, T("fx", p=0, e=state.game.components["walls_guards"]["wall"]["bonuses"][5][0]))
    gates = state.legal_actions()
    assert gates and all(a.kind == "gate" and a.arg // 12 in (0, 1) for a in gates)
    act(state, str(gates[0]))
    while state.stack and state.current_player >= 0:
        act(state, str(state.legal_actions()[0]))
    assert sum(g is not None for g in pl.gates) == 1 and pl.dinars == dinars
    state = wg_state(2)  # no free guard: no gate
    run_only(state, T("fx", p=0, e=state.game.components["walls_guards"]["wall"]["bonuses"][5][0]))
    assert not state.stack or state.stack[-1].get("k") != "free_gate"


def test_the_city_gate_malus_puts_a_gate_back_without_dinars_or_points():
    """Malus: "Place 1 city gate of your choice back on the leftmost or second-from-left
    workshop space ... no dinars ... neither gains nor loses points ... do not lose a
    keshi ... the watchmen keshi ... back onto the watchtower"."""
    state = wg_state(2)
    pl = state.players[0]
    give(state, 0, "beige", 1)
    give(state, 0, "gray", 1)
    pl.gates[0] = "gray"
    score, dinars, guards = pl.score, pl.dinars, pl.watchtower
    shop = list(state.workshops[1])
    run_only(state, T("malus", p=0, pen="city_gate"))  # the one gate is given up
    assert state.stack[-1]["k"] == "gate_back"
    assert [str(a) for a in state.legal_actions()] == ["choice:0", "choice:1"]
    act(state, "choice:1")  # the second-from-left workshop
    assert sorted(state.workshops[1]) == sorted([*shop, "gray"])
    assert (pl.score, pl.dinars, pl.keshis["gray"]) == (score, dinars, 1)
    assert pl.gates[0] is None and pl.watchtower == guards + 1


def test_the_staircase_malus_crosses_a_threshold_without_dinar_or_bonus():
    """Malus: "2 steps backwards ... If a player's pawn crosses a white or black threshold
    during such a movement, they receive neither 1 dinar nor the connection bonus"."""
    state = wg_state(2)
    pl = state.players[0]
    first = state.game.components["staircase"]["thresholds"][0]
    pl.mosque, pl.palace = first + 1, 0
    dinars, score = pl.dinars, pl.score
    run_only(state, T("malus", p=0, pen="two_steps"))
    while state.stack and state.current_player >= 0:
        act(state, str(state.legal_actions()[0]))
    assert pl.mosque == first - 1 and (pl.dinars, pl.score) == (dinars, score)
    assert not state.stack


def test_the_hire_discount_provision_tile():
    """New Provision Tiles: "Whenever the player hires one or more watchmen, they must give
    up 1 fewer resource of their choice per watchman" (from its activation)."""
    state = wg_state(2)
    pl = state.players[0]
    assert [sorted(c) for c in wg.hire_costs(state, 0, 1)] == [["dates", "water"]]
    pl.provisions.append([13, True])
    assert sorted(map(sorted, wg.hire_costs(state, 0, 1))) == [["dates"], ["water"]]
    assert wg.hire_costs(state, 0, 0) == [{}]  # the bottom watchman: 1 dinar, now nothing
