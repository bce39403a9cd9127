"""Chess (Walls & Guards module 3): the 5 chess-set luxury goods.

The rulebook (*Walls & Guards*, "Chess") has no worked example;
each of its statements is played through the engine here:

- setup: 1 random chess set is shuffled into each of the 5 stacks of 5 luxury goods
  (:func:`test_setup_shuffles_one_chess_set_into_each_shop`);
- buying one costs the shown goods keshis and 4 points, deploys both shown keshis from the
  supply with their deployment bonus, and gives 2 dinars
  (:func:`test_buying_a_chess_set_costs_goods_and_4_points_and_deploys_two_keshis`);
- the red tile's keshis come without a choice (:func:`test_the_red_tile_has_no_choice`);
- without 4 points a chess set cannot be bought, and trying changes nothing
  (:func:`test_fewer_than_4_points_cannot_buy_a_chess_set`).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marrakesh_checks import blank, decisions, give, legal, others_with, play_checked, run

from tower.errors import InputFileError
from tower.marrakesh import Game, GameConfig, IllegalActionError, RandomAgent, State, play
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import chess
from tower.marrakesh.rules import T

CHESS = ("chess",)


def top_of_shop(state: State, shop: int, lux: int) -> None:
    """Put luxury good ``lux`` on top of ``shop`` (taking it from wherever it lies)."""
    for stack in state.shops:
        if lux in stack:
            stack.remove(lux)
    state.shops[shop].append(lux)
    state.shop_open[shop] = True


def buy(state: State, lux: int, p: int = 0) -> None:
    """Give player ``p`` the goods for ``lux``, open the souk and buy it from shop 0."""
    top_of_shop(state, 0, lux)
    for c, n in state.game.components.luxuries[lux]["cost"].items():
        give(state, p, c, n)
    run(state, T("action", p=p, s="souk"))
    state.apply("shop:0")
    check(state)


def test_data_five_chess_sets_with_provenance():
    sets = chess.load()
    assert sorted(sets["chess_set"]) == [26, 27, 28, 29, 30]
    assert sets["chess"]["points_cost"] == 4 and sets["chess"]["dinars"] == 2
    assert all(s["source"] in ("rulebook", "assumed") for s in sets["chess_set"].values())
    assert all(len(s["keshis"]) == 2 for s in sets["chess_set"].values())
    # Exactly one tile (the red one) offers no choice.
    fixed = [
        i for i, s in sets["chess_set"].items() if all(isinstance(k, str) for k in s["keshis"])
    ]
    assert fixed == [30] and "red" in sets["chess_set"][30]["keshis"]


def test_components_join_the_luxury_goods_only_with_the_module():
    base = Game(GameConfig(players=2)).components
    with_chess = Game(GameConfig(players=2, modules=frozenset(CHESS))).components
    assert sorted(base.luxuries) == list(range(1, 26))
    assert sorted(with_chess.luxuries) == list(range(1, 31))
    assert {with_chess.luxuries[i]["good"] for i in range(26, 31)} == {"chess"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_setup_shuffles_one_chess_set_into_each_shop(seed):
    state = Game(GameConfig(players=3, modules=frozenset(CHESS))).new_initial_state(seed)
    assert [len(s) for s in state.shops] == [6] * 5
    per_shop = [[x for x in s if x >= 26] for s in state.shops]
    assert all(len(x) == 1 for x in per_shop)
    assert sorted(x[0] for x in per_shop) == [26, 27, 28, 29, 30]
    base = Game(GameConfig(players=3)).new_initial_state(seed)
    assert [len(s) for s in base.shops] == [5] * 5
    # Shuffled in: over many seeds the chess set is not always at the same depth.
    depths = set()
    for s in range(30):
        st_ = Game(GameConfig(players=2, modules=frozenset(CHESS))).new_initial_state(s)
        depths.update(next(i for i, x in enumerate(stack) if x >= 26) for stack in st_.shops)
    assert len(depths) >= 4


def test_buying_a_chess_set_costs_goods_and_4_points_and_deploys_two_keshis():
    state = blank(modules=CHESS)
    pl = state.players[0]
    score, dinars = pl.score, pl.dinars
    buy(state, 27)  # purple + orange; keshis green|pink, then white|black
    assert pl.luxuries == [27]
    assert pl.keshis["purple"] == pl.keshis["orange"] == 0
    assert [0, -4, "souk: luxury good 27 costs points"] in state.score_events
    # First keshi: green or pink.
    assert legal(state) == ["choice:0", "choice:1"]
    state.apply("choice:1")  # pink: the main square asks for a space
    assert state.stack[-1]["k"] == "place_pink"
    square = state.game.components["main_square"]["spaces"]
    space = next(i for i, e in enumerate(square) if e == [{"op": "gain", "water": 1}])
    water = pl.water
    state.apply(f"slot:{space}")  # deployment bonus: 1 water
    assert pl.keshis["pink"] == 1 and pl.square[space] and pl.water == water + 1
    # Second keshi: white or black.
    state.apply("choice:0")
    assert pl.keshis["white"] == 1
    assert pl.dinars == dinars + 2
    assert pl.score == score - 4
    check(state)


def test_green_keshi_of_a_chess_set_scores_its_deployment_bonus():
    state = blank(modules=CHESS)
    pl = state.players[0]
    score = pl.score
    buy(state, 27)
    state.apply("choice:0")  # green: a date picker, 1 point
    state.apply("choice:0")
    assert pl.keshis["green"] == 1 and pl.score == score - 4 + 1


def test_the_red_tile_has_no_choice():
    state = blank(modules=CHESS)
    pl = state.players[0]
    buy(state, 30)
    # The red keshi: only where it goes is asked (a sector without a water vendor).
    assert state.stack[-1]["k"] == "place_red"
    state.apply("sector:gray")
    assert pl.vendors == {"gray": 1} or pl.vendors == {"gray": 2}
    assert pl.keshis["white"] == 1
    check(state)


def test_fewer_than_4_points_cannot_buy_a_chess_set():
    state = blank(modules=CHESS)
    pl = state.players[0]
    top_of_shop(state, 0, 26)
    top_of_shop(state, 1, 1)  # an ordinary good for comparison
    for lux in (26, 1):
        for c, n in state.game.components.luxuries[lux]["cost"].items():
            give(state, 0, c, n)
    pl.score = 3
    state.score_events.append([0, -7, "test: down to 3 points"])
    run(state, T("action", p=0, s="souk"))
    assert "shop:0" not in legal(state) and "shop:1" in legal(state)
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(IllegalActionError):
        state.apply("shop:0")
    assert json.dumps(state.to_json(), sort_keys=True) == before


def test_imam_pays_one_goods_keshi_fewer_for_a_chess_set_too():
    state = blank(modules=(*CHESS, "imam_sultan"))
    pl = state.players[0]
    state.pawns["imam"] = [0, state.pawns["imam"][1]]
    top_of_shop(state, 0, 26)  # yellow + purple
    give(state, 0, "yellow")
    run(state, T("action", p=0, s="souk"))
    assert "shop:0" in legal(state)
    state.apply("shop:0")  # the imam waives the missing purple
    assert pl.luxuries == [26] and pl.keshis["yellow"] == 0
    check(state)


def test_a_chess_set_lost_in_battle_costs_no_printed_points():
    state = blank(modules=(*CHESS, "walls_guards"))
    pl = state.players[0]
    buy(state, 30)
    state.apply("sector:gray")
    score = pl.score
    assert not state.stack  # the souk is done
    run(state, T("malus", p=0, pen="luxury_good"))  # the only good: no choice
    assert pl.luxuries == [] and pl.score == score
    check(state)


def action_sequence(game: Game, seed: int, picks: list[int]) -> State:
    """Play ``picks`` (indices into the legal actions) from ``seed``: before each choice an
    action outside the legal set is refused without a change; the invariants hold after
    every action; the JSON round trip and the replay from the history are exact."""
    n = game.num_distinct_actions
    state = game.new_initial_state(seed)
    for k in decisions(state, picks):
        p = state.current_player
        p = state.pending_players()[0] if p < 0 else p
        legal = state.legal_action_ids(p)
        illegal = next(i % n for i in range(k, k + n) if i % n not in legal)
        before = json.dumps(state.to_json(), sort_keys=True)
        with pytest.raises(IllegalActionError):
            state.apply(illegal, player=p)
        assert json.dumps(state.to_json(), sort_keys=True) == before
        state.apply(legal[k % len(legal)], player=p)
        check(state)
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    while state.is_chance_node():  # a replay draws the throws after the last choice too
        state.sample_chance()
    assert game.replay(seed, state.history).to_json() == state.to_json()
    return state


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    others=others_with("chess"),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=400),
)
def test_hypothesis_action_sequences_with_chess(seed, players, others, picks):
    action_sequence(
        Game(GameConfig(players=players, modules=frozenset({"chess", *others}))), seed, picks
    )


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    others=others_with("chess"),
    chooser=st.randoms(use_true_random=False),
)
def test_hypothesis_games_with_chess(seed, players, others, chooser):
    """Whole games with chess and any other modules: invariants after every action, JSON
    round trip at the end."""
    game = Game(GameConfig(players=players, modules=frozenset({"chess", *others})))
    state = play_checked(game.new_initial_state(seed), chooser.choice)
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()


def test_random_games_buy_chess_sets():
    """Chess sets are bought in random games and the game ends with the invariants kept."""
    bought = 0
    for seed in range(6):
        game = Game(GameConfig(players=2 + seed % 3, modules=frozenset(CHESS)))
        agents = [RandomAgent(random.Random(seed).randrange(99) + k) for k in range(4)]
        final = play(game, agents[: game.config.players], seed=seed, on_action=check)
        bought += sum(x >= 26 for pl in final.players for x in pl.luxuries)
    assert bought > 0


@pytest.mark.parametrize(
    "old,new,field",
    [
        ('keshis = ["red", "white"]', 'keshis = ["red", "violet"]', "chess_set 30.keshis[1]"),
        ('keshis = ["red", "white"]', 'keshis = ["red"]', "chess_set 30"),
        ("id = 30", "id = 26", "chess_set[4]"),
    ],
)
def test_a_bad_data_file_names_file_and_field(tmp_path, old, new, field):
    assert_bad_file(tmp_path, chess.load, "chess.toml", old, new, field)


def assert_bad_file(tmp_path, load, name: str, old: str, new: str, field: str) -> None:
    """Write data file ``name`` with ``old`` replaced by ``new``: ``load`` refuses it
    with an InputFileError naming the file and ``field``."""
    text = (chess.DATA / name).read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / name
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        load(str(bad))
    assert err.value.field == field and str(bad) in str(err.value)


def test_a_negative_score_still_buys_goods_without_a_points_price():
    state = blank(modules=CHESS)
    pl = state.players[0]
    top_of_shop(state, 0, 1)
    top_of_shop(state, 1, 26)
    for lux in (1, 26):
        for c, n in state.game.components.luxuries[lux]["cost"].items():
            give(state, 0, c, n)
    pl.score = -2
    state.score_events.append([0, -12, "test: down to -2 points"])
    run(state, T("action", p=0, s="souk"))
    assert "shop:0" in legal(state) and "shop:1" not in legal(state)


def test_a_free_luxury_good_still_costs_a_chess_sets_points():
    """Gems & Experts, The Closed Madrasa, scroll 20: "You do not have to pay the
    indicated goods keshis. You must still pay all other potentially depicted costs on
    it": a chess set taken for free still costs its 4 points."""
    state = blank(modules=CHESS)
    top_of_shop(state, 0, 27)
    pl = state.players[0]
    run(state, T("fx", p=0, e={"op": "special", "name": "free_luxury"}, why="scroll 20"))
    state.apply("shop:0")
    assert (
        pl.luxuries == [27] and [0, -4, "souk: luxury good 27 costs points"] in state.score_events
    )
