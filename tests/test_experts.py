"""The Experts (*Gems & Experts*): the rulebook's
worked examples and rules as tests, the rulings, and action sequences with the module on.

Examples and rules covered:

1. Setup: 12 tiles face down, 5 expert keshis on the board; scrolls 77/78 and oases 41/42
   mixed in.
2. "It is the third round and so far nobody has taken an expert tile. 3 expert tiles are
   on display and thus 3 expert keshis are thrown into the tower." (and no 6th tile).
3. Expert keshis through the game's tower model: one that sticks stays in the tower state
   across rounds and seasons; only those on the board are thrown.
4. "Lilli chooses one of the two expert keshis in the display. She pays 1 dinar, 1 water,
   and 1 date to take the purple expert." The other keshi goes back at the round's end.
5. "Lilli uses the purple expert's ability and takes a luxury good for free" (only goods
   predominantly purple, ties allowed; the more expensive one; no 5 points at the end).
6. The other abilities (red, teal, green, pink), the virtual 9th keshi, scrolls 77/78,
   oases 41/42, 5 points per unused expert.
7. Hypothesis action sequences, JSON and replay, illegal actions, the invariants.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marrakesh_checks import decisions, run

from tower.marrakesh import MODULES, Game, GameConfig
from tower.marrakesh.actions import action_id
from tower.marrakesh.adapters.views import TensorLayout, view
from tower.marrakesh.components import load
from tower.marrakesh.hooks import refusal
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import experts as ex
from tower.marrakesh.rules import IllegalActionError, T, advance, thrown
from tower.marrakesh.state import State
from tower.marrakesh.worth import oasis_value
from tower.model.baseline import BaselineModel
from tower.model.interface import Resident, TowerModel, TowerState
from tower.pieces import Kind, Piece, Place

EXPERTS = frozenset({"experts"})


class Sieve(TowerModel):
    """A test tower: every keshi falls out; expert keshis stick (``keep``) or fall out."""

    name = "sieve"

    def __init__(self, keep: bool) -> None:
        self.keep = keep

    def throw(self, state: TowerState, pieces: Sequence[Piece], rng: random.Random):
        stuck = self.keep
        everything = [*state.pieces, *pieces]
        out = sorted(p for p in everything if not (stuck and p.kind is Kind.EXPERT))
        inside = [
            Resident(p, Place.FLOOR1, state.throws)
            for p in everything
            if stuck and p.kind is Kind.EXPERT
        ]
        return out, TowerState(tuple(inside), state.throws + 1)


def play_until(state: State, stop, rng: random.Random | None = None, experts: bool = False):
    """Play (first legal action, or random with ``rng``; expert claims only if
    ``experts``) until ``stop(state)`` holds at a chance node or decision."""
    claim_expert = action_id("choice", 0)
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            state.sample_chance()
            continue
        p = state.pending_players()[0] if state.pending_players() else state.current_player
        legal = state.legal_action_ids(p)
        top = state.stack[-1]
        if top["t"] == "ask" and top["k"] == "claim" and not experts:
            legal = [a for a in legal if a < claim_expert or a > claim_expert + 15] or legal
        state.apply(rng.choice(legal) if rng else legal[0], player=p)
        check(state)
    return state


def at_throw(round_: int, season: int = 1):
    return lambda s: s.is_chance_node() and s.round == round_ and s.season == season


def fresh(players: int = 2, model: TowerModel | None = None, seed: int = 1) -> State:
    config = GameConfig(players=players, modules=EXPERTS, tower=model or BaselineModel())
    return Game(config).new_initial_state(seed)


def quiet(players: int = 2, seed: int = 1) -> State:
    """A state after setup with nothing pending (player 0 starts), to build positions."""
    state = fresh(players, seed=seed)
    play_until(state, lambda s: s.stack[-1]["t"] == "select")
    state.stack = []  # drops the round's pending throw and its expert keshi
    state.start = 0
    b = ex.board(state)
    b["stack"] += b["display"]
    b["display"], b["board"] = [], 5
    return state


def experts_thrown(state: State) -> int:
    throw = state.stack[-1]
    return sum(Piece.parse(s).kind is Kind.EXPERT for s in throw.get("extra", []))


# -- 1. setup ---------------------------------------------------------------------------
def test_setup_components_and_data_provenance():
    state = fresh(3)
    b = ex.board(state)
    assert len(b["stack"]) == 12 and b["display"] == [] and b["board"] == 5 and b["out"] == 0
    comps = state.game.components
    assert {77, 78} <= set(comps.scrolls) and {41, 42} <= set(comps.oases)
    d = ex.data()
    assert all(t["source"] in ("rulebook", "assumed") for t in d["tiles"].values())
    abilities = {t["ability"] for t in d["tiles"].values()}
    assert abilities == set(ex.ABILITIES)
    goods = sorted(t["colour"] for t in d["tiles"].values() if t["ability"] == "luxury")
    assert goods == ["orange", "purple", "yellow"]
    # Without the module, nothing of it is in the game.
    plain = Game(GameConfig(players=3)).new_initial_state(1)
    assert 77 not in plain.game.components.scrolls and "experts" not in plain.ext


def test_bad_component_file_names_the_field(tmp_path):
    text = ex.PATH.read_text(encoding="utf-8").replace('ability = "river"', 'ability = "fly"', 1)
    bad = tmp_path / "experts.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match=r"tile 3\.ability"):
        ex.data(str(bad))


@pytest.mark.parametrize("other", sorted(set(MODULES) - EXPERTS))
def test_combinable_with_every_other_module(other):
    state = Game(GameConfig(players=2, modules=EXPERTS | {other})).new_initial_state(2)
    check(state)


# -- 2. and 3. tiles and expert keshis through the tower --------------------------------
def test_round_3_with_no_expert_taken_throws_3_expert_keshis():
    state = fresh(2, Sieve(keep=False))
    for r in (1, 2, 3):
        play_until(state, at_throw(r))
        b = ex.board(state)
        assert len(b["display"]) == r
        assert experts_thrown(state) == r, "as many expert keshis as face-up tiles"
        assert b["board"] == 5 - r
        out = state.sample_chance()
        assert out.count("expert:neutral") == r and ex.board(state)["out"] == r
        check(state)
    # Nobody takes one: at the end of the round they go back onto the board.
    play_until(state, at_throw(4))
    assert ex.board(state)["out"] == 0 and ex.board(state)["board"] == 1
    play_until(state, at_throw(1, season=2))
    b = ex.board(state)
    assert len(b["display"]) == 5, "no new tile once 5 lie face up"
    assert len(b["stack"]) == 7 and experts_thrown(state) == 5


def test_a_stuck_expert_stays_in_the_tower_across_rounds_and_seasons():
    state = fresh(2, Sieve(keep=True))
    play_until(state, at_throw(1))
    state.sample_chance()
    assert ex.expert_keshis(state)["tower"] == 1 and ex.board(state)["out"] == 0
    play_until(state, at_throw(2))
    assert experts_thrown(state) == 2, "2 tiles, 4 keshis on the board"
    state.sample_chance()
    play_until(state, at_throw(3))
    # Ruling: only the keshis left on the board are thrown (3 tiles, 2 on the board).
    assert ex.board(state)["board"] == 0 and experts_thrown(state) == 2
    play_until(state, at_throw(1, season=2))
    assert ex.expert_keshis(state)["tower"] == 5
    assert sum(r.piece.kind is Kind.EXPERT for r in state.tower.residents) == 5
    assert experts_thrown(state) == 0, "nothing left on the board to throw"


def test_experts_go_through_the_shipped_model():
    from tower.model.distilled import load_shipped

    state = fresh(3, load_shipped("marrakesh"), seed=4)
    play_until(state, at_throw(3), random.Random(4), experts=True)
    before = ex.expert_keshis(state)
    state.sample_chance()
    after = ex.expert_keshis(state)
    assert sum(before.values()) == sum(after.values()) == 5
    check(state)


def test_exact_law_of_a_throw_includes_the_expert_keshis():
    state = fresh(2)
    play_until(state, at_throw(1))
    law = state.chance_outcomes()
    assert abs(sum(p for _, p in law) - 1) < 1e-9
    assert any("expert:neutral" in out for out, _ in law)
    assert any("expert:neutral" not in out for out, _ in law)


# -- 4. claiming an expert --------------------------------------------------------------
def _display(state: State, tiles: list[int], out: int) -> None:
    b = ex.board(state)
    for tid in tiles:
        b["stack"].remove(tid)
    b["display"] = list(tiles)
    b["out"], b["board"] = out, 5 - out


def test_lilli_pays_1_dinar_1_water_1_date_for_the_purple_expert():
    state = quiet()
    _display(state, [3, 11, 7], out=2)  # two expert keshis in the keshi display
    lilli = state.players[0]
    lilli.dinars, lilli.water, lilli.dates = 2, 1, 3
    run(state, T("claim_turn", k=0))
    purple = action_id("choice", 1)
    assert purple in state.legal_action_ids()
    state.apply(purple)
    assert (lilli.dinars, lilli.water, lilli.dates) == (1, 0, 2)
    assert ex.mine(state, 0)["tiles"] == [[11, False]]
    b = ex.board(state)
    assert b["display"] == [3, 7] and b["out"] == 1 and b["board"] == 4
    check(state)
    run(state, T("experts_round_end"))
    assert ex.board(state)["out"] == 0 and ex.board(state)["board"] == 5


def test_no_expert_without_the_cost_or_without_an_expert_keshi_out():
    state = quiet()
    _display(state, [3, 11], out=1)
    state.players[0].water = 0
    assert ex.Experts().claim_options(state, 0) == []
    state.players[0].water = 1
    experts = [action_id("choice", 0), action_id("choice", 1)]
    # Nothing else to claim: the expert is optional (pass forfeits the phase).
    assert ex.Experts().claim_options(state, 0) == [action_id("pass"), *experts]
    state.display["yellow"] = 1
    state.issued["yellow"] += 1
    assert ex.Experts().claim_options(state, 0) == experts
    ex.board(state)["out"], ex.board(state)["board"] = 0, 5
    assert ex.Experts().claim_options(state, 0) == []


def test_scroll_77_takes_an_expert_for_1_point_once():
    state = quiet()
    _display(state, [3, 11], out=2)
    pl = state.players[0]
    pl.scrolls.append(77)
    pl.water = pl.dates = pl.dinars = 0
    score = pl.score
    assert ex.Experts().claim(state, 0, state.game.action_from_id(action_id("choice", 0)))
    advance(state)
    assert pl.score == score - 1 and ex.mine(state, 0)["s77"]
    assert ex.Experts().claim_options(state, 0) == [], "once in the game, and no resources"
    pl.water = pl.dates = pl.dinars = 1
    assert ex.Experts().claim_options(state, 0)[-1] == action_id("choice", 0)


# -- 5. Lilli's purple expert -----------------------------------------------------------
def test_lilli_takes_the_more_expensive_purple_luxury_good_for_free():
    state = quiet()
    lilli = state.players[0]
    ex.mine(state, 0)["tiles"] = [[11, False]]
    ex.board(state)["stack"].remove(11)
    # Five shops: the outer three show purple predominantly (ties allowed), the two in
    # the middle no purple.
    tops = [5, 1, 4, 3, 2]  # (y,p,o) 6 pts; y; o o; (y,p) 3 pts; (p,o) 4 pts
    state.shops = [[lux] for lux in tops]
    state.shop_open = [True] * 5
    lilli.keshis["yellow"] = 1  # so that the souk action that follows has a choice
    state.issued["yellow"] += 1
    keshis = dict(lilli.keshis)
    state.turn = 0
    run(state, T("action", p=0, s="souk"))
    top = state.stack[-1]
    assert top["k"] == "experts_use"
    assert [shop for _, shop in top["ways"]] == [0, 3, 4]
    score = lilli.score
    state.apply(action_id("choice", 0))  # the 6-point good of shop 0
    assert lilli.luxuries == [5] and lilli.score == score + 6
    assert lilli.keshis == keshis, "no goods keshis paid"
    assert ex.mine(state, 0)["tiles"] == [[11, True]]
    assert state.stack[-1]["k"] == "souk", "the souk action follows"
    state.stack = []
    before = lilli.score
    ex.Experts().final_scoring(state, 0)
    assert lilli.score == before, "a used expert is not worth 5 points"


def test_luxury_expert_condition():
    state = quiet()
    assert ex.luxury_ok(state, "purple", 5) and ex.luxury_ok(state, "purple", 3)
    assert not ex.luxury_ok(state, "purple", 1) and not ex.luxury_ok(state, "purple", 4)
    assert ex.luxury_ok(state, "orange", 4) and not ex.luxury_ok(state, "yellow", 4)
    # Fewer purple goods keshis than of another colour: not allowed (a printed good of
    # that kind is made here, the assumed luxury data have none).
    base = load()
    fewer = {**base.luxuries[1], "cost": {"purple": 1, "orange": 2}}
    comps = dataclasses.replace(base, luxuries={**base.luxuries, 1: fewer})
    state = Game(GameConfig(modules=EXPERTS), components=comps).new_initial_state(0)
    assert not ex.luxury_ok(state, "purple", 1) and ex.luxury_ok(state, "orange", 1)


# -- 6. the other abilities -------------------------------------------------------------
def _put(state: State, p: int, colour: str, n: int, vendor: bool = False) -> None:
    """``n`` keshis of ``colour`` on player ``p``'s board, and a water vendor in that
    sector if ``vendor`` (all out of the supply)."""
    state.players[p].keshis[colour] += n
    state.issued[colour] += n
    if vendor:
        state.players[p].vendors[colour] = 1
        state.issued["red"] += 1


def _use(state: State, p: int, tid: int, sector: str) -> None:
    ex.mine(state, p)["tiles"] = [[tid, False]]
    ex.board(state)["stack"].remove(tid)
    state.turn = p
    run(state, T("action", p=p, s=sector))
    assert state.stack[-1]["k"] == "experts_use"
    state.apply(action_id("choice", 0))


def test_teal_expert_one_fish_more_and_5_more_steps():
    state = quiet()
    pl = state.players[0]
    _put(state, 0, "turquoise", 3)
    pl.water = 0
    _use(state, 0, 3, "turquoise")
    assert pl.keshis["turquoise"] == 4 and _river_steps(state, 0) == 4 + 5
    check(state)


def _river_steps(state: State, p: int) -> int:
    """Steps moved on the river, those beyond the jetty (1 point each) included."""
    beyond = sum(d for q, d, why in state.score_events if q == p and "beyond the jetty" in why)
    return state.players[p].river + beyond


def test_teal_expert_on_a_full_river_makes_a_virtual_9th_fish():
    state = quiet()
    pl = state.players[0]
    _put(state, 0, "turquoise", 8, vendor=True)
    pl.water = 0
    _use(state, 0, 3, "turquoise")
    assert pl.keshis["turquoise"] == 8 and ex.virtual(state, 0, "turquoise") == 1
    assert _river_steps(state, 0) == 9 + 5
    check(state)  # the virtual keshi is counted as out of the supply
    # Later river actions count 9 fish ...
    state.stack = []
    run(state, T("action", p=0, s="turquoise"))
    assert _river_steps(state, 0) == 14 + 9
    # ... but at the end the sector scores as 8 keshis (filled, 10 points), not more.
    from tower.marrakesh.worth import filled

    assert filled(state, 0, "turquoise")


def test_green_expert_two_dates_per_date_picker_and_2_water_with_a_vendor():
    state = quiet()
    pl = state.players[0]
    _put(state, 0, "green", 2, vendor=True)
    dates, water = pl.dates, pl.water
    _use(state, 0, 5, "green")
    assert pl.keshis["green"] == 3
    assert pl.dates == dates + 2 * 3
    assert pl.water == water + 1, "the vendor's water (1 given with the assistant) makes 2"
    check(state)


def test_pink_expert_the_chosen_bonus_again_and_both_neighbours():
    from tower.marrakesh.sectors import spectators

    state = quiet()
    pl = state.players[0]
    spaces = state.game.components["main_square"]["spaces"]
    assert spaces[4] == [{"op": "points", "n": 2}] and spaces[3] == [{"op": "gain", "dinars": 1}]
    assert spaces[5] == [{"op": "stair", "which": "palace", "n": 1}]
    pl.square[4] = True
    pl.keshis["pink"] = 1
    state.issued["pink"] += 1
    score, dinars, palace = pl.score, pl.dinars, pl.palace
    _use(state, 0, 7, "pink")  # one entertainer: its space is chosen automatically
    k = spectators(state, 0, 4)
    assert pl.score == score + 2 * (2 * k), "the chosen bonus (times its spectators) twice"
    assert pl.dinars == dinars + 1 and pl.palace == palace + 1, "each neighbour once"
    assert ex.mine(state, 0)["tiles"] == [[7, True]]
    check(state)


def test_red_expert_at_the_end_of_a_turn_with_an_assistant_at_a_vendor():
    state = quiet()
    pl = state.players[0]
    ex.mine(state, 0)["tiles"] = [[1, False]]
    ex.board(state)["stack"].remove(1)
    pl.vendors["gray"] = 1
    state.issued["red"] += 1
    pl.assistants = {"gray": 0}  # an assistant stood in the madrasa this turn
    water, score = pl.water, pl.score
    run(state, T("experts_red_offer", p=0))
    assert state.stack[-1]["k"] == "experts_use_red"
    state.apply(action_id("choice", 0))
    assert state.stack[-1]["k"] == "place_red"
    state.apply(action_id("sector", 0))
    assert len(pl.vendors) == 2 and pl.water == water + 2 and pl.score == score + 2
    assert ex.mine(state, 0)["tiles"] == [[1, True]]
    check(state)
    # No assistant in a sector with a vendor: not offered.
    state.stack = []
    ex.mine(state, 0)["tiles"] = [[1, False]]
    pl.assistants = {"white": 0}
    run(state, T("experts_red_offer", p=0))
    assert not state.stack


def test_scroll_78_uses_a_face_up_expert_which_stays():
    state = quiet()
    _display(state, [3], out=0)
    pl = state.players[0]
    _put(state, 0, "turquoise", 1)
    pl.water = 0
    run(state, T("fx", p=0, e={"op": "special", "name": "experts_scroll_78"}))
    state.apply(action_id("choice", 0))
    assert pl.river == 2 + 5 and ex.board(state)["display"] == [3]
    assert ex.mine(state, 0)["tiles"] == []


def test_unused_experts_and_oases_41_42():
    state = quiet(3)
    for p, tids in enumerate([[1, 2, 3], [4], []]):
        ex.mine(state, p)["tiles"] = [[t, t == 2] for t in tids]
        for t in tids:
            ex.board(state)["stack"].remove(t)
    assert oasis_value(state, 0, 41) == 6 and oasis_value(state, 1, 41) == 2
    assert oasis_value(state, 0, 42) == 9 and oasis_value(state, 1, 42) == 0
    ex.mine(state, 1)["tiles"] += [[5, False], [6, False]]
    ex.board(state)["stack"].remove(5)
    ex.board(state)["stack"].remove(6)
    assert oasis_value(state, 0, 42) == 0, "a tie is not sufficient"
    score = state.players[0].score
    ex.Experts().final_scoring(state, 0)
    assert state.players[0].score == score + 10, "2 unused experts"
    assert oasis_value(state, 0, 42) == 0
    ex.mine(state, 0)["tiles"] += [[t, False] for t in (7, 8, 9)]
    for t in (7, 8, 9):
        ex.board(state)["stack"].remove(t)
    assert oasis_value(state, 0, 42) == 15, "at most 15 points"
    check(state)


# -- 7. invariants, sequences, JSON and replay ------------------------------------------
def test_invariants_catch_a_lost_expert_keshi_and_a_lost_tile():
    state = quiet()
    ex.board(state)["board"] -= 1
    with pytest.raises(AssertionError, match="expert keshis"):
        check(state)
    ex.board(state)["board"] += 1
    ex.board(state)["stack"].pop()
    with pytest.raises(AssertionError, match="expert tiles"):
        check(state)


NUM = Game(GameConfig(modules=EXPERTS)).num_distinct_actions


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    others=st.sets(st.sampled_from(sorted(set(MODULES) - EXPERTS))).filter(
        lambda s: refusal(4, s | EXPERTS) is None  # only combinations the rules allow
    ),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=400),
)
def test_hypothesis_action_sequences_with_experts(seed, players, others, picks):
    """Any sequence of legal choices with the module on (and any other modules) keeps the
    invariants (all 5 expert keshis and 12 tiles accounted for); an expert is on offer at
    a claim exactly when one lies in the display and the player can pay; an illegal
    action changes nothing; the game replays exactly from its history and JSON."""
    game = Game(GameConfig(players=players, modules=EXPERTS | others))
    state = game.new_initial_state(seed)
    choices = {action_id("choice", i) for i in range(16)}
    for k in decisions(state, picks):
        legal = state.legal_action_ids()
        top = state.stack[-1]
        if top["t"] == "ask" and top["k"] == "claim":
            offered = bool(choices & set(legal))
            can = ex.board(state)["out"] > 0 and ex._can_afford(state, top["p"])
            assert offered == (can and bool(ex.board(state)["display"]))
        wrong = k % NUM
        if wrong not in legal:
            snapshot = json.dumps(state.to_json())
            with pytest.raises(IllegalActionError):
                state.apply(wrong)
            assert json.dumps(state.to_json()) == snapshot
        state.apply(legal[k % len(legal)])
        check(state)
    while state.is_chance_node():
        state.sample_chance()  # as the replay does after the last action
    assert game.replay(seed, state.history).to_json() == state.to_json()
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()


@pytest.mark.parametrize("seed", [3, 8])
def test_whole_game_replays_exactly_and_uses_experts(seed):
    game = Game(GameConfig(players=3, modules=EXPERTS))
    state = play_until(game.new_initial_state(seed), lambda s: False, random.Random(seed), True)
    assert state.is_terminal()
    again = game.replay(seed, state.history)
    assert again.to_json() == state.to_json()
    claimed = sum(len(ex.mine(state, p)["tiles"]) for p in range(3))
    assert claimed > 0
    events = [r for _, _, r in state.score_events if r == "experts: unused experts"]
    assert len(events) == sum(1 for p in range(3) if ex.unused(state, p))


def test_openspiel_random_sim_test_with_experts():
    pyspiel = pytest.importorskip("pyspiel")
    import tower.marrakesh.adapters.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_marrakesh", {"players": 3, "modules": "experts"})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_pettingzoo_api_test_with_experts():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from tower.marrakesh.adapters.pettingzoo import MarrakeshEnv

    env = MarrakeshEnv(players=3, modules=("experts",))
    api_test(env, num_cycles=200, verbose_progress=False)


def test_an_expert_left_in_the_tower_base_after_the_battles_joins_the_next_throw():
    """Walls & Guards: keshis in the tower's base after the last battle go into the next
    season's first throw (``battle.role``'s ruling), expert keshis with them."""
    state = Game(GameConfig(players=2, modules=EXPERTS | {"walls_guards"})).new_initial_state(1)
    play_until(state, lambda s: s.stack[-1]["t"] == "select")
    b = ex.board(state)
    b["stack"] += b["display"]
    b["display"], b["board"] = [], 4  # 1 expert keshi in the base
    throw = next(x for x in state.stack if x["t"] == "throw")
    throw["extra"] = []
    state.carry = ["red", "neutral"]
    state.issued["red"] += 1
    check(state)
    # The view and the observation tensor show it (Walls & Guards' carry shows keshis).
    layout = TensorLayout(state.game)
    assert layout.views(layout.encode(state, 0))["experts.keshis"][-1] == 1
    assert view(state, 0)["experts"]["carried"] == 1
    run(state, T("experts_round"))
    assert state.carry == ["red"] and b["board"] == 3 and len(b["display"]) == 1
    assert throw["extra"] == ["expert:neutral", "expert:neutral"]
    check(state)
    play_until(state, lambda s: s.is_chance_node())
    assert sum(p.kind is Kind.EXPERT for p in thrown(state, state.stack[-1])) == 2
