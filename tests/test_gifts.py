"""Luxury Goods: Gifts (Gems & Experts): a stack of gifts, one face up, won by a luxury-good
purchase that meets its condition.

Rulebook: *Gems & Experts*, "Luxury Goods: Gifts" (no worked
example). Each rule statement is played through the engine below: setup, every condition,
the bonus, the next gift only after the turn, the season discard, the empty stack, and the
rulings (free goods and statuettes win no gift).
"""

from __future__ import annotations

import json

import pytest
from marrakesh_checks import (
    blank,
    give,
    legal,
    legal_sequence,
    openspiel_sim,
    pettingzoo_api,
    round_trip,
    run,
    season_scoring,
    sequences_with,
)

from tower.errors import InputFileError
from tower.marrakesh import Game, GameConfig, State
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import gifts
from tower.marrakesh.rules import T

MODS = ("gifts",)


def gift_up(state: State, gift: int) -> None:
    """Turn ``gift`` face up (the one face up before goes back on the stack)."""
    g = state.ext["gifts"]
    if g["face_up"] is not None:
        g["stack"].insert(0, g["face_up"])
    if gift in g["stack"]:
        g["stack"].remove(gift)
    g["face_up"] = gift


def shops(state: State, heights: list[int], tops: list[int]) -> None:
    """Rebuild the 5 stacks: ``heights`` goods each, good ``tops[i]`` on top of stack i."""
    pool = [x for x in range(1, 26) if x not in tops]
    state.shops = []
    for h, t in zip(heights, tops, strict=True):
        state.shops.append([pool.pop() for _ in range(h - 1)] + [t])
    state.shop_open = [True] * 5


def buy_from(state: State, shop: int, p: int = 0) -> None:
    for c, n in state.game.components.luxuries[state.shops[shop][-1]]["cost"].items():
        give(state, p, c, n)
    state.stack = []  # a new souk assistant
    run(state, T("action", p=p, s="souk"))
    state.apply(f"shop:{shop}")
    while state.stack and state.stack[-1].get("k") not in (None, "souk"):
        state.apply(legal(state)[0])


def price(state: State, lux: int) -> int:
    return sum(state.game.components.luxuries[lux]["cost"].values())


def test_data_10_gifts_7_from_the_rulebook():
    data = gifts.load()["gift"]
    assert sorted(data) == list(range(1, 11))
    assert [i for i, e in data.items() if e["source"] == "rulebook"] == list(range(1, 8))
    for e in data.values():
        assert e["reward"][0] == {"op": "points", "n": 1}  # "always ... a bonus 1 point"
    assert data[1]["reward"][1] == {"op": "stair", "which": "mosque", "n": 1}
    assert data[2]["reward"][1] == {"op": "river", "n": 1}
    assert [data[i].get("shop") for i in (3, 4, 5)] == [4, 0, 2]


def test_bad_condition_names_the_field(tmp_path):
    bad = tmp_path / "gifts.toml"
    text = gifts.PATH.read_text(encoding="utf-8").replace('"cheapest"', '"cheap"')
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match="gift 2"):
        gifts.load(str(bad))


def test_setup_shuffled_stack_top_turned_over():
    tops = set()
    for seed in range(8):
        state = Game(GameConfig(players=2, modules=frozenset(MODS))).new_initial_state(seed)
        g = state.ext["gifts"]
        assert len(g["stack"]) == 9 and g["face_up"] not in g["stack"] and g["box"] == []
        tops.add(g["face_up"])
    assert len(tops) > 3


@pytest.mark.parametrize(
    ("gift", "heights", "shop", "wins"),
    [
        (3, [5, 5, 5, 5, 5], 4, True),  # outermost right
        (3, [5, 5, 5, 5, 5], 3, False),
        (4, [5, 5, 5, 5, 5], 0, True),  # outermost left
        (5, [5, 5, 5, 5, 5], 2, True),  # middle
        (5, [5, 5, 5, 5, 5], 1, False),
        (6, [2, 5, 2, 4, 3], 2, True),  # one of the smallest stacks
        (6, [2, 5, 2, 4, 3], 4, False),
        (7, [2, 5, 2, 5, 3], 3, True),  # one of the highest stacks
        (7, [2, 5, 2, 5, 3], 4, False),
    ],
)
def test_stack_conditions(gift, heights, shop, wins):
    state = blank(modules=MODS)
    shops(state, heights, [1, 2, 3, 4, 5])
    gift_up(state, gift)
    pl = state.players[0]
    check(state)
    buy_from(state, shop)
    check(state)
    assert (pl.ext["gifts"] == [gift]) is wins
    assert (state.ext["gifts"]["face_up"] is None) is wins


def test_most_expensive_and_cheapest_compare_the_openly_displayed_goods():
    state = blank(modules=MODS)
    goods = sorted(range(1, 26), key=lambda x: price(state, x))
    cheap, dear = goods[0], goods[-1]
    middle = next(x for x in goods if price(state, cheap) < price(state, x) < price(state, dear))
    others = [x for x in goods if x not in (cheap, dear, middle)][:2]
    shops(state, [5] * 5, [cheap, dear, middle, *others])
    most = gifts.CONDITIONS["most_expensive"]
    least = gifts.CONDITIONS["cheapest"]
    assert most(state, 1, {}) and not most(state, 2, {})
    assert least(state, 0, {}) and not least(state, 2, {})
    state.shop_open[1] = False  # a good not yet revealed is not openly displayed
    assert most(state, 2, {}) == (price(state, middle) >= max(price(state, x) for x in others))
    # Through the engine: the cheapest good wins gift 2 (1 point and 1 river step).
    state.shop_open[1] = True
    gift_up(state, 2)
    pl = state.players[0]
    score, river = pl.score, pl.river
    reward = state.game.components.luxuries[cheap]["reward"]
    buy_from(state, 0)
    assert pl.ext["gifts"] == [2] and pl.river >= river + 1
    points = sum(e["n"] for e in reward if e["op"] == "points")
    assert pl.score >= score + points + 1


def test_the_bonus_is_1_point_and_the_printed_resource():
    state = blank(modules=MODS)
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    gift_up(state, 4)  # leftmost stack: 1 point + 1 date
    pl = state.players[0]
    score, dates = pl.score, pl.dates
    lux_points = sum(
        e["n"] for e in state.game.components.luxuries[1]["reward"] if e["op"] == "points"
    )
    buy_from(state, 0)
    assert pl.score == score + lux_points + 1 and pl.dates >= dates + 1
    assert [0, 1, "gift 4"] in state.score_events


def test_next_gift_only_after_the_turn_and_one_gift_per_turn():
    state = blank(modules=MODS)
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    gift_up(state, 4)
    buy_from(state, 0)
    g = state.ext["gifts"]
    assert g["face_up"] is None
    state.shop_open[0] = True  # (as if revealed) a matching purchase, but no gift face up
    buy_from(state, 0)
    assert state.players[0].ext["gifts"] == [4]
    left = len(g["stack"])
    run(state, T("gifts_turn_over"))  # the end of the turn (hook turn_tasks)
    assert g["face_up"] is not None and len(g["stack"]) == left - 1
    check(state)


def test_turn_end_task_comes_from_the_turn_hook():
    state = blank(modules=MODS)
    assert [t["t"] for t in state.game.hooks.turn_tasks[0](state, 0, "end")] == ["gifts_turn_over"]
    assert state.game.hooks.turn_tasks[0](state, 0, "start") == []


def test_season_scoring_boxes_the_top_gift_and_turns_over_the_next():
    state = blank(modules=MODS)
    g = state.ext["gifts"]
    top, below = g["face_up"], g["stack"][-1]
    assert "gifts" in [name for name, _ in state.game.hooks.season]
    run(state, T("gifts_season"))
    assert g["box"] == [top] and g["face_up"] == below
    check(state)


def test_empty_stack_no_more_gifts():
    state = blank(modules=MODS)
    g = state.ext["gifts"]
    for _ in range(10):
        run(state, T("gifts_season"))
    assert g["face_up"] is None and g["stack"] == [] and len(g["box"]) == 10
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    buy_from(state, 0)
    assert state.players[0].ext["gifts"] == []
    check(state)


def test_ruling_a_free_luxury_good_wins_no_gift():
    state = blank(modules=MODS)
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    gift_up(state, 4)
    run(state, T("fx", p=0, e={"op": "special", "name": "free_luxury"}, why="test"))
    state.apply("shop:0")
    assert state.players[0].luxuries and state.players[0].ext["gifts"] == []
    assert state.ext["gifts"]["face_up"] == 4


def test_ruling_a_statuette_wins_no_gift():
    state = blank(modules=(*MODS, "statuettes"))
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    for gift in range(1, 11):  # whatever gift lies face up
        gift_up(state, gift)
        s = state.ext["statuettes"]
        lux = s["stack"][-1]
        s["open"] = True
        for c, n in state.game.components.luxuries[lux]["cost"].items():
            give(state, 0, c, n)
        state.stack = []
        run(state, T("action", p=0, s="souk"))
        state.apply("choice:0")
        while state.stack and state.stack[-1].get("k") not in (None, "souk"):
            state.apply(legal(state)[0])
        assert state.players[0].ext["gifts"] == [] and state.ext["gifts"]["face_up"] == gift
        if not s["stack"]:
            break


def test_invariant_catches_a_doubled_gift():
    state = blank(modules=MODS)
    g = state.ext["gifts"]
    g["box"].append(g["stack"][0])
    with pytest.raises(AssertionError, match="gifts"):
        check(state)


def test_view_is_public():
    from tower.marrakesh.adapters.views import view

    state = blank(modules=MODS)
    v = view(state, 1)
    assert v["gifts"]["face_up"] == state.ext["gifts"]["face_up"] and v["gifts"]["stack"] == 9
    assert json.loads(json.dumps(v["gifts"])) == v["gifts"]


@sequences_with("gifts")
def test_hypothesis_action_sequences_with_gifts(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


def test_json_and_replay_exact_after_a_gift():
    game = Game(GameConfig(players=2, modules=frozenset(MODS)))
    won = lambda s: any(pl.ext["gifts"] for pl in s.players)  # noqa: E731
    round_trip(game, 4, 0, won)


def test_openspiel_random_sim_test_with_gifts():
    openspiel_sim("gifts")


def test_pettingzoo_api_test_with_gifts():
    pettingzoo_api(("gifts",))


def test_tensor_shows_the_face_up_gift_and_the_players_gifts():
    from tower.marrakesh.adapters.views import TensorLayout

    state = blank(modules=MODS)
    shops(state, [5] * 5, [1, 2, 3, 4, 5])
    gift_up(state, 4)
    layout = TensorLayout(state.game)
    before = layout.views(layout.encode(state, 1))
    assert before["gifts.face_up"][3] == 1 and before["gifts.face_up"].sum() == 1
    buy_from(state, 0)
    after = layout.views(layout.encode(state, 1))
    assert after["gifts.face_up"].sum() == 0 and after["gifts.players"][0, 3] == 1


def test_season_scoring_boxes_the_top_gift_before_season_2_begins():
    """Seed 003, Gifts: "At the season scoring, the top gift is put back into the box and
    the next gift is turned over", played through the season scoring up to season 2's
    first selection."""
    state = blank(modules=MODS)
    g = state.ext["gifts"]
    top, below = g["face_up"], g["stack"][-1]
    season_scoring(state)
    assert (state.season, state.round) == (2, 1)
    assert g["box"] == [top] and g["face_up"] == below
    check(state)
