"""Alms (Gems & Experts) in the Marrakesh engine.

The rulebook has no worked example for the alms; these tests play its rules: the two
piles (tiles 1-6 on top), one tile face up per round and all 12 used in a game, the alms
in place of the exchange office (once per souk action, not with a luxury good), costs in
points, resources and keshis, the free city gate, the Gems-only options, and the Walls &
Guards tiles joining the piles.
"""

from __future__ import annotations

import pytest
from marrakesh_checks import blank, give, legal, legal_sequence, round_trip, run, sequences_with

from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.marrakesh.invariants import check
from tower.marrakesh.rules import T

ALMS = ("alms",)


def at_souk(state, tile: int, p: int = 0) -> None:
    """Turn ``tile`` face up (swapped with the face-up one) and start a souk action."""
    alms = state.ext["alms"]
    if alms["up"] != tile:
        i = alms["deck"].index(tile)
        alms["deck"][i], alms["up"] = alms["up"], tile
    run(state, T("action", p=p, s="souk"))


def test_setup_piles_tiles_1_to_6_on_top():
    for seed in range(5):
        state = blank(2, ALMS, seed=seed)
        alms = state.ext["alms"]
        order = alms["deck"] + [alms["up"]]
        assert sorted(order[-6:]) == [1, 2, 3, 4, 5, 6]
        assert sorted(order[:6]) == [7, 8, 9, 10, 11, 12]


def test_one_tile_a_round_and_all_twelve_used():
    seen: list[int] = []
    last = [None]

    def watch(state):
        check(state)
        up = state.ext["alms"]["up"]
        if up != last[0]:
            last[0] = up
            seen.append(up)

    game = Game(GameConfig(players=3, modules=frozenset(ALMS)))
    final = play(game, [RandomAgent(k) for k in range(3)], seed=4, on_action=watch)
    start = game.new_initial_state(4).ext["alms"]
    assert seen[0] == start["up"] and seen[-1] is None and final.ext["alms"]["deck"] == []
    assert seen[:-1] == [start["up"], *reversed(start["deck"])]
    assert sorted(seen[:-1]) == list(range(1, 13))


def test_alms_replace_the_exchange_office():
    state = blank(2, ALMS)
    pl = state.players[0]
    give(state, 0, "yellow")
    water, points = pl.water, pl.score
    at_souk(state, 1)
    assert "colour:yellow" not in legal(state)  # no exchange office any more
    assert {"pass", "choice:0", "choice:1"} <= set(legal(state))
    state.apply("choice:0")  # -2 points -> 2 water
    assert (pl.water, pl.score) == (water + 2, points - 2)
    assert state.stack == []  # one option, once per action
    check(state)


def test_lower_option_pays_goods_keshis_of_the_players_choice():
    state = blank(2, ALMS)
    pl = state.players[0]
    give(state, 0, "yellow")
    give(state, 0, "orange", 2)
    dates, points = pl.dates, pl.score
    at_souk(state, 7)  # lower: 2 goods keshis -> 2 points + 2 dates
    state.apply("choice:1")
    assert set(legal(state)) == {"colour:yellow", "colour:orange"}
    state.apply("colour:orange")
    state.apply("colour:yellow")
    assert (pl.keshis["yellow"], pl.keshis["orange"]) == (0, 1)
    assert (pl.dates, pl.score) == (dates + 2, points + 2)
    check(state)


def test_an_option_needs_its_cost_and_gems_options_need_gems():
    state = blank(2, ALMS)
    pl = state.players[0]
    give(state, 0, "yellow", 3)
    pl.score = 9
    state.score_events = [[0, 9, "set"], *[e for e in state.score_events if e[0] != 0]]
    at_souk(state, 11)  # upper: -10 points; lower: 3 goods -> a gem (Gems only)
    assert "choice:0" not in legal(state) and "choice:1" not in legal(state)
    pl.score, state.score_events[0][1] = 10, 10
    state.stack = []
    at_souk(state, 11)
    assert "choice:0" in legal(state) and "choice:1" not in legal(state)
    state.apply("choice:0")
    assert (pl.score, pl.dinars, pl.dates, pl.water) == (0, 4, 5, 5)
    check(state)


def test_no_alms_after_a_luxury_good():
    state = blank(2, ALMS)
    lux = state.shops[2][-1]
    for c, n in state.game.components.luxuries[lux]["cost"].items():
        give(state, 0, c, n)
    at_souk(state, 1)
    state.apply("shop:2")
    assert state.stack == [] or "choice:0" not in legal(state)


def test_free_city_gate_of_the_leftmost_workshop_scores_nothing():
    state = blank(2, ALMS)
    pl = state.players[0]
    at_souk(state, 9)
    assert "choice:0" not in legal(state)  # needs a guard on the watchtower
    state.stack = []
    give(state, 0, "beige")
    points = pl.score
    at_souk(state, 9)
    state.apply("choice:0")  # -8 points -> a free gate + 2 water + 1 date
    colour = state.workshops[0][0]
    gates = [a for a in legal(state) if a.startswith("gate:")]
    assert gates and all(a.startswith("gate:w0/") for a in gates)
    state.apply(f"gate:w0/{colour}")
    space = next(a for a in legal(state) if a.startswith("slot:"))
    matching = state.game.components["medina"]["gate_spaces"][int(space[5:])] == colour
    state.apply(space)
    while state.stack:
        state.apply(legal(state)[0])
    bonus = state.game.components["medina"]["matching_gate_points"] if matching else 0
    assert pl.score >= points - 8 + bonus  # the gate itself: 0 points, not negative
    assert [e for e in state.score_events if e[2] == "medina: city gate"] == []
    assert pl.gates.count(colour) == 1
    check(state)


def test_walls_guards_tiles_join_the_piles():
    state = blank(2, ("alms", "walls_guards"))
    alms = state.ext["alms"]
    order = alms["deck"] + [alms["up"]]
    assert len(order) == 14 and 13 in order[-7:] and 14 in order[:7]
    pl = state.players[0]
    pl.wood = 1
    points = pl.score
    at_souk(state, 13)  # lower: 1 wood -> 2 points
    state.apply("choice:1")
    assert (pl.wood, pl.score) == (0, points + 2)
    check(state)


def test_listing_order_of_modules_does_not_matter():
    a = Game(GameConfig(players=2, modules=frozenset(["walls_guards", "alms"])))
    b = Game(GameConfig(players=2, modules=frozenset(["alms", "walls_guards"])))
    ga = play(a, [RandomAgent(k) for k in range(2)], seed=8)
    gb = play(b, [RandomAgent(k) for k in range(2)], seed=8)
    assert ga.to_json() == gb.to_json()


@sequences_with("alms", examples=15)
def test_hypothesis_action_sequences_with_alms(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


@pytest.mark.parametrize("players", [2, 4])
def test_json_and_replay_exact_with_alms(players):
    game = Game(GameConfig(players=players, modules=frozenset(ALMS)))
    round_trip(game, 5, 5, lambda s: s.current_player >= 0 and s.stack[-1].get("k") == "alms_souk")


def _plain(effects: list[dict]) -> dict[str, int]:
    """What an effect list gives: resources, points, steps and specials by name."""
    out: dict[str, int] = {}
    for e in effects:
        if e["op"] == "gain":
            out |= {k: v for k, v in e.items() if k != "op"}
        elif e["op"] == "points":
            out["points"] = e["n"]
        elif e["op"] == "special":
            out[e["name"]] = e.get("n", 1)
        else:
            out[e["op"]] = e.get("n", 1)
    return out


#: The 11 tiles of the rulebook's list ("Lose 2 VP -> gain 2 water; or pay 1 date -> gain
#: 2 VP", ...), in its order: (upper cost, upper gain, lower cost, lower gain).
PRINTED = [
    ({"points": 2}, {"water": 2}, {"dates": 1}, {"points": 2}),
    ({"points": 2}, {"dates": 2}, {"water": 1}, {"points": 2}),
    ({"points": 3}, {"dates": 2, "water": 1}, {"dinars": 1}, {"points": 2}),
    ({"points": 3}, {"dinars": 2, "dates": 1}, {"water": 2}, {"points": 3}),
    ({"points": 4}, {"dinars": 1, "dates": 1, "water": 1}, {"dates": 2}, {"points": 2, "stair": 1}),
    ({"points": 4}, {"dinars": 2, "water": 2}, {"dinars": 2}, {"points": 4}),
    (
        {"points": 5},
        {"keshi_exchange": 1, "dinars": 1, "dates": 1, "water": 1},
        {"goods": 2},
        {"points": 2, "dates": 2},
    ),
    (
        {"points": 5},
        {"both_stairs": 1, "dinars": 1, "dates": 1, "water": 1},
        {"goods": 2},
        {"points": 2, "water": 2},
    ),
    (
        {"points": 8},
        {"alms_gate": 1, "water": 2, "dates": 1},
        {"resources": 3},
        {"points": 3, "keshi": 1},
    ),
    ({"points": 8}, {"alms_gate": 1, "dinars": 2, "water": 1}, {"workers": 3}, {"gem_search": 2}),
    ({"points": 10}, {"dinars": 3, "dates": 4, "water": 4}, {"goods": 3}, {"gem_search": 1}),
]


@pytest.mark.parametrize("tile", range(1, 12))
def test_the_eleven_printed_tiles(tile):
    """Gems & Experts, Alms, "The alms tiles": each listed tile's two options."""
    entry = blank(2, ALMS).game.components.tables["alms"][tile]
    up_cost, up_gain, low_cost, low_gain = PRINTED[tile - 1]
    assert entry["upper"]["cost"] == up_cost and _plain(entry["upper"]["gain"]) == up_gain
    assert entry["lower"]["cost"] == low_cost and _plain(entry["lower"]["gain"]) == low_gain
    gated = {9: "guard", 10: "guard"}
    assert entry["upper"].get("needs") == gated.get(tile)
    assert entry["lower"].get("needs") == ("gems" if tile in (10, 11) else None)


def test_the_two_walls_and_guards_tiles():
    """Walls & Guards, New Alms Tiles: "-3 points -> +2 wood" / "-1 wood -> +2 points";
    "-6 points -> +2 wood + 1 date + 1 keshi exchange" / "-3 wood -> 3 points + 2 goods
    keshis of your choice"."""
    game = Game(GameConfig(players=2, modules=frozenset({"alms", "walls_guards"})))
    left, right = (game.components.tables["wg_alms"][i] for i in (1, 2))
    assert (left["upper"]["cost"], _plain(left["upper"]["gain"])) == ({"points": 3}, {"wood": 2})
    assert (left["lower"]["cost"], _plain(left["lower"]["gain"])) == ({"wood": 1}, {"points": 2})
    assert right["upper"]["cost"] == {"points": 6}
    assert _plain(right["upper"]["gain"]) == {"wood": 2, "dates": 1, "keshi_exchange": 1}
    assert right["lower"]["cost"] == {"wood": 3}
    goods = [e for e in right["lower"]["gain"] if e["op"] == "keshi"]
    assert _plain(right["lower"]["gain"])["points"] == 3
    assert len(goods) == 2 and all(e["colour"] == "goods" for e in goods)
