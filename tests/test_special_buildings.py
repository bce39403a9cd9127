"""New Special Buildings (Walls & Guards module 5).

The rulebook (*Walls & Guards*, "New Special Buildings") has no
worked example; each of its statements for the buildings this toolkit can play is a test:

- setup: 2 buildings dealt, 1 kept (:func:`test_two_players_are_dealt_two_each_and_keep_one`),
  the building's keshi with its deployment bonus and its resources instead of the usual
  ones (:func:`test_start_combination_replaces_the_usual_resources`), 3 yellow scrolls
  drawn and 1 kept, an instant one carried out, the rest in 3 stacks
  (:func:`test_three_yellow_scrolls_drawn_one_kept_rest_restacked`);
- buildings that need a module the game lacks are never dealt, nor is the Jeweler (its
  necklace board is not described)
  (:func:`test_only_usable_buildings_are_dealt`,
  :func:`test_the_jeweler_is_not_dealt_and_the_university_only_with_the_experts`);
- University: once per game 1 used expert flipped back; 2 points per expert tile at the
  end (:func:`test_university_flips_one_used_expert_back_once_per_game`,
  :func:`test_university_scores_2_points_for_each_expert_tile_used_or_not`);
- Great Well: 1 resource of choice from its space with a water vendor's water, not with
  other water; refilled when empty at the end of the turn
  (:func:`test_great_well_adds_a_resource_to_a_water_vendors_water`);
- Flying Merchant: once per round any goods keshis, 1 fewer; 1 more point per good
  (:func:`test_flying_merchant_pays_any_goods_one_fewer_once_per_round`);
- Woodcutter: +1 wood for 1-2, +2 for 3 or more; once per round 1 wood for 1 resource
  (:func:`test_woodcutter_adds_wood`, :func:`test_woodcutter_gives_wood_for_a_resource`);
- Watchtower: hiring costs exactly 1 resource of choice; its watchman tile protects the
  first unrepaired section and a brigand repelled there earns 2 extra points
  (:func:`test_watchtower_hires_for_one_resource`,
  :func:`test_watchtower_tile_repels_a_brigand_for_two_extra_points`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marrakesh_checks import blank, give, hold_experts, legal, others_with, run
from test_chess import action_sequence, assert_bad_file
from test_walls_guards import BRIGAND, ScriptedTower

from tower.marrakesh import Game, GameConfig, IllegalActionError, RandomAgent, State, play
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import special_buildings as sb
from tower.marrakesh.rules import T, advance, pay_any

SB = "special_buildings"
WG = "walls_guards"
ID = {b["name"]: i for i, b in sb.load()["building"].items()}


def own(state: State, p: int, name: str) -> None:
    """Give player ``p`` the building ``name`` (marker active, well filled), taking it from
    whoever had it."""
    for pl in state.players:
        if pl.ext[SB]["building"] == ID[name]:
            pl.ext[SB].update(building=0, marker=False, well={})
    me = state.players[p].ext[SB]
    me["building"] = ID[name]
    me["marker"] = bool(sb.load()["building"][ID[name]]["marker"])
    if name == "great_well":
        sb.mine(state, p)["well"] = {}
        sb.turn_end(state, p)


def setup_until(state: State, kind: str) -> None:
    """Take the first option of every setup decision until decision ``kind`` is on top."""
    while state.stack[-1]["t"] == "ask" and state.stack[-1]["k"] != kind:
        state.apply(state.legal_action_ids()[0])
    assert state.stack[-1].get("k") == kind


# -- data -------------------------------------------------------------------------------
def test_data_eight_buildings_markers_necklace_and_watchman_tile():
    data = sb.load()
    assert len(data["building"]) == 8 and len(data["start"]) == 8
    markers = [b["marker"] for b in data["building"].values() if b["marker"]]
    assert len(markers) == data["special_buildings"]["markers"] == 4
    assert sorted(markers) == ["game", "round", "round", "round"]
    assert data["special_buildings"]["watchman_tiles"] == 1
    assert data["necklace"]["spaces"] == len(data["necklace_layout"]["upper"]) + 1
    assert all(len(s) == 2 for s in data["necklace_layout"]["upper"])
    assert all(s["source"] == "assumed" for s in data["start"].values())


def test_only_usable_buildings_are_dealt():
    assert [sb.load()["building"][i]["name"] for i in sb.usable(frozenset())] == [
        "great_well",
        "flying_merchant",
    ]
    assert sorted(sb.load()["building"][i]["name"] for i in sb.usable(frozenset({WG}))) == [
        "flying_merchant",
        "great_well",
        "watchtower",
        "woodcutter",
    ]
    for seed in range(8):
        state = Game(GameConfig(players=4, modules=frozenset({SB}))).new_initial_state(seed)
        while state.stack[-1]["t"] == "ask":
            state.apply(state.legal_action_ids()[0])
        owned = sorted(pl.ext[SB]["building"] for pl in state.players)
        assert owned == [0, 0, ID["great_well"], ID["flying_merchant"]]


# -- setup ------------------------------------------------------------------------------
def test_two_players_are_dealt_two_each_and_keep_one():
    state = Game(GameConfig(players=2, modules=frozenset({SB, WG}))).new_initial_state(4)
    setup_until(state, "sb_building")
    first = state.stack[-1]
    assert len(first["offer"]) == 2 and legal(state) == ["choice:0", "choice:1"]
    kept, other = first["offer"][1], first["offer"][0]
    state.apply("choice:1")
    assert state.players[first["p"]].ext[SB]["building"] == kept
    second = state.stack[-1]
    assert second["k"] == "sb_building" and second["p"] != first["p"]
    # Enough buildings for everyone: the one not kept goes back in the box.
    assert other not in second["offer"] and kept not in second["offer"]
    check(state)


def test_short_pool_returns_the_other_building_and_leaves_the_last_players_without():
    state = Game(GameConfig(players=4, modules=frozenset({SB}))).new_initial_state(0)
    setup_until(state, "sb_building")
    p0 = state.stack[-1]["p"]
    assert sorted(state.stack[-1]["offer"]) == [ID["great_well"], ID["flying_merchant"]]
    state.apply("choice:0")
    # The second player's only building is taken without a choice; the others get none.
    while state.stack[-1].get("k") != "sb_scroll":
        state.apply(state.legal_action_ids()[0])
    buildings = [pl.ext[SB]["building"] for pl in state.players]
    assert sorted(buildings) == sorted([0, 0, ID["flying_merchant"], ID["great_well"]])
    assert buildings[p0] != 0
    for pl in state.players:
        if not pl.ext[SB]["building"]:
            assert (pl.water, pl.dates, pl.dinars) == (1, 1, 1)  # the usual start
    check(state)


def test_start_combination_replaces_the_usual_resources():
    state = Game(GameConfig(players=2, modules=frozenset({SB, WG}))).new_initial_state(1)
    setup_until(state, "sb_building")
    p = state.stack[-1]["p"]
    names = [sb.load()["building"][i]["name"] for i in state.stack[-1]["offer"]]
    choice = names.index("woodcutter") if "woodcutter" in names else 0
    state.apply(f"choice:{choice}")
    bid = state.players[p].ext[SB]["building"]
    start = sb.load()["start"][bid]
    while state.stack[-1].get("p") != p or state.stack[-1].get("k") not in (
        "place_wg",
        "sb_scroll",
    ):
        state.apply(state.legal_action_ids()[0])
    pl = state.players[p]
    score = pl.score
    if state.stack[-1]["k"] == "place_wg":  # a green or brown keshi: orchard or sahara
        state.apply("sector:green")  # the date orchard: 1 point
        assert pl.score == score + 1
    while state.stack[-1].get("k") != "sb_scroll":
        state.apply(state.legal_action_ids()[0])
    res = start["resources"]
    assert pl.keshis[start["keshi"]] >= 1
    assert (pl.water, pl.dates, pl.dinars) == tuple(
        res.get(r, 0) for r in ("water", "dates", "dinars")
    )
    assert pl.wood == 1 + res.get("wood", 0)  # Walls & Guards' starting wood and the building's
    check(state)


def test_three_yellow_scrolls_drawn_one_kept_rest_restacked():
    game = Game(GameConfig(players=3, modules=frozenset({SB})))
    state = game.new_initial_state(2)
    yellow = sorted(s for s, e in game.components.scrolls.items() if e["colour"] == "yellow")
    setup_until(state, "sb_scroll")
    offers = state.ext[SB]["offers"]
    assert sorted(len(o) for o in offers.values()) == [3, 3, 3]
    drawn = [s for o in offers.values() for s in o]
    assert len(set(drawn)) == 9 and set(drawn) <= set(yellow)
    assert not any(state.stacks[3:6])
    kept = []
    while state.stack[-1].get("k") == "sb_scroll":
        p = state.stack[-1]["p"]
        kept.append(offers[str(p)][2])
        state.apply("choice:2")
        while state.stack[-1]["t"] == "ask" and state.stack[-1]["k"] != "sb_scroll":
            if state.stack[-1]["k"] in ("track", "disc", "provision"):
                break
            state.apply(state.legal_action_ids()[0])  # an instant scroll's decisions
    for pl in state.players:
        assert len([s for s in pl.scrolls if s in yellow]) == 1
    stacked = [s for i in (3, 4, 5) for s in state.stacks[i]]
    assert sorted(stacked + kept) == yellow
    sizes = [len(state.stacks[i]) for i in (3, 4, 5)]
    assert max(sizes) - min(sizes) <= 1 and all(state.stack_open[3:6])
    check(state)


def test_an_instant_yellow_scroll_is_carried_out_at_once():
    game = Game(GameConfig(players=2, modules=frozenset({SB})))
    state = game.new_initial_state(0)
    setup_until(state, "sb_scroll")
    p = state.stack[-1]["p"]
    # Put scroll 37 (instant: 2 yellow goods keshis) first in the player's offer.
    offer = state.ext[SB]["offers"][str(p)]
    where = next(x for x in [*state.ext[SB]["offers"].values(), state.ext[SB]["bag"]] if 37 in x)
    where[where.index(37)], offer[0] = offer[0], 37
    assert game.components.scrolls[37]["timing"] == "instant"
    yellow = state.players[p].keshis["yellow"]
    state.apply("choice:0")
    assert 37 in state.players[p].scrolls
    assert state.players[p].keshis["yellow"] == yellow + 2
    check(state)


# -- the Great Well ---------------------------------------------------------------------
def test_great_well_adds_a_resource_to_a_water_vendors_water():
    state = blank(modules=(SB,))
    own(state, 0, "great_well")
    pl = state.players[0]
    pl.vendors = {"gray": 1}
    state.issued["red"] += 1
    assert sb.mine(state, 0)["well"] == {"water": 1, "dates": 1, "dinars": 1}
    water, dinars = pl.water, pl.dinars
    run(state, T("vendor_water", p=0, s="gray", action=True))
    assert pl.water == water + 1
    assert legal(state) == ["choice:0", "choice:1", "choice:2"]  # water, date, dinar
    state.apply("choice:2")
    assert pl.dinars == dinars + 1 and sb.mine(state, 0)["well"]["dinars"] == 0
    # ... not refilled while something is left ...
    run(state, T("assist_turn", k=0))  # player 0 starts; no assistants left
    assert sb.mine(state, 0)["well"]["dinars"] == 0
    # Water from anything else does not touch the well.
    run(state, T("fx", p=0, e={"op": "gain", "water": 1}))
    assert not state.stack
    # Emptied (the last resource on the space is taken without a choice) ...
    run(state, T("vendor_water", p=0, s="gray", action=True))
    assert legal(state) == ["choice:0", "choice:1"]  # water, date
    state.apply("choice:0")
    run(state, T("vendor_water", p=0, s="gray", action=True))
    assert not any(sb.mine(state, 0)["well"].values())
    run(state, T("vendor_water", p=0, s="gray", action=True))
    assert not state.stack  # nothing left on the space
    run(state, T("assist_turn", k=0))  # ... and refilled at the end of the turn when empty
    assert sb.mine(state, 0)["well"] == {"water": 1, "dates": 1, "dinars": 1}
    check(state)


def test_great_well_holds_wood_with_walls_and_guards():
    state = blank(modules=(SB, WG))
    own(state, 0, "great_well")
    assert sb.mine(state, 0)["well"] == {"water": 1, "dates": 1, "dinars": 1, "wood": 1}


# -- the Flying Merchant ----------------------------------------------------------------
def _three_goods(state: State) -> int:
    """Put a good costing 3 goods keshis on top of shop 0; player 0 holds no goods."""
    for c in ("yellow", "purple", "orange"):
        state.issued[c] -= state.players[0].keshis[c]
        state.players[0].keshis[c] = 0
    lux = next(i for i, e in state.game.components.luxuries.items() if sum(e["cost"].values()) == 3)
    for stack in state.shops:
        if lux in stack:
            stack.remove(lux)
    state.shops[0].append(lux)
    state.shop_open[0] = True
    return lux


def test_flying_merchant_pays_any_goods_one_fewer_once_per_round():
    state = blank(modules=(SB,))
    own(state, 0, "flying_merchant")
    pl = state.players[0]
    lux = _three_goods(state)  # costs 1 yellow, 1 purple, 1 orange
    give(state, 0, "orange", 2)
    printed = sum(
        e["n"] for e in state.game.components.luxuries[lux]["reward"] if e["op"] == "points"
    )
    score = pl.score
    run(state, T("action", p=0, s="souk"))
    assert "shop:0" in legal(state)  # only with the merchant: 2 orange for 3 different
    state.apply("shop:0")
    while state.stack and state.stack[-1]["k"] == "sb_merchant_pay":
        assert legal(state) == ["colour:orange"]
        state.apply("colour:orange")
    assert pl.luxuries == [lux] and pl.keshis["orange"] == 0
    assert pl.score == score + printed + 1
    assert not sb.mine(state, 0)["marker"]
    check(state)
    # The marker is used: the same round, a second good must be paid as printed.
    lux2 = _three_goods(state)
    give(state, 0, "orange", 2)
    state.stack = []
    run(state, T("action", p=0, s="souk"))
    assert "shop:0" not in legal(state)
    with pytest.raises(IllegalActionError):
        state.apply("shop:0")
    # The next round flips it back.
    state.stack = []
    sb.round_start(state)
    assert sb.mine(state, 0)["marker"]
    assert lux2 in state.shops[0]


def test_flying_merchant_chooses_printed_price_or_merchant():
    state = blank(modules=(SB,))
    own(state, 0, "flying_merchant")
    pl = state.players[0]
    lux = _three_goods(state)
    for c in ("yellow", "purple", "orange"):
        give(state, 0, c)
    run(state, T("action", p=0, s="souk"))
    state.apply("shop:0")
    assert state.stack[-1]["k"] == "sb_merchant"
    state.apply("choice:0")  # as printed: the marker stays active
    assert pl.luxuries == [lux] and sb.mine(state, 0)["marker"]
    assert sum(pl.keshis[c] for c in ("yellow", "purple", "orange")) == 0


# -- the Woodcutter ---------------------------------------------------------------------
@pytest.mark.parametrize("received,extra", [(1, 1), (2, 1), (3, 2), (5, 2)])
def test_woodcutter_adds_wood(received, extra):
    state = blank(modules=(SB, WG))
    own(state, 0, "woodcutter")
    pl = state.players[0]
    wood = pl.wood
    run(state, T("fx", p=0, e={"op": "gain", "wood": received}))
    assert pl.wood == wood + received + extra
    other = state.players[1]
    wood = other.wood
    run(state, T("fx", p=1, e={"op": "gain", "wood": received}))
    assert other.wood == wood + received  # not a woodcutter


def test_woodcutter_adds_wood_to_the_date_orchard_harvest():
    state = blank(modules=(SB, WG))
    own(state, 0, "woodcutter")
    pl = state.players[0]
    give(state, 0, "brown", 3)
    pl.sahara = [False] * 10
    pl.orchard_brown = 3
    wood = pl.wood
    run(state, T("action", p=0, s="green"))
    assert pl.wood == wood + 3 + 2


def test_woodcutter_gives_wood_for_a_resource():
    state = blank(modules=(SB, WG))
    own(state, 0, "woodcutter")
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars, pl.wood = 1, 1, 1, 2
    pay_any(state, 0, 2)  # 2 resources of the player's choice
    advance(state)
    assert "choice:0" in legal(state)  # 1 wood instead
    state.apply("choice:0")
    assert pl.wood == 1 and not sb.mine(state, 0)["marker"]
    assert "choice:0" not in legal(state)  # once per round
    state.apply("resource:water")
    assert (pl.water, pl.dates, pl.dinars, pl.wood) == (0, 1, 1, 1)
    # Scroll 33's water or dates for a missing dinar are not "a resource of choice".
    sb.round_start(state)
    pay_any(state, 0, 1, among=("water", "dates"))
    advance(state)
    assert not state.stack and pl.dates == 0 and pl.wood == 1


# -- the Watchtower ---------------------------------------------------------------------
@pytest.mark.parametrize("tower", [False, True])
def test_watchtower_hires_for_one_resource(tower):
    state = blank(modules=(SB, WG))
    if tower:
        own(state, 0, "watchtower")
    else:
        own(state, 1, "watchtower")
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 0, 1, 0
    run(state, T("action", p=0, s="brown"))  # nothing to fire: the hiring is asked
    if not tower:  # a date alone hires nobody at the printed costs
        assert not state.stack and pl.recruited == 0
        return
    assert state.stack[-1]["k"] == "hire"
    # The top space prints 3 resources; with the Watchtower any 1 resource hires it.
    assert legal(state) == ["pass", "slot:0", "slot:1", "slot:2"]
    state.apply("slot:2")
    assert (pl.water, pl.dates, pl.dinars) == (0, 0, 0) and pl.recruited == 1
    assert not state.stack  # nothing left to pay with
    check(state)


def test_watchtower_and_scroll_82_hire_for_nothing():
    state = blank(modules=(SB, WG))
    own(state, 0, "watchtower")
    pl = state.players[0]
    pl.scrolls.append(82)  # 1 fewer resource per watchman
    pl.water = pl.dates = pl.dinars = 0
    run(state, T("action", p=0, s="brown"))
    for k in ("slot:0", "slot:1", "slot:2"):
        state.apply(k)
    assert pl.recruited == 3 and pl.posts == [False, False, False]


def test_watchtower_tile_repels_a_brigand_for_two_extra_points():
    tower = ScriptedTower([[BRIGAND, BRIGAND]])
    game = Game(GameConfig(players=2, modules=frozenset({SB, WG}), tower=tower))
    state = game.new_initial_state(0)
    while state.stack[-1]["t"] == "ask":
        state.apply(state.legal_action_ids()[0])
    own(state, 0, "watchtower")
    own(state, 1, "great_well")
    state.season, state.start = 2, 0
    from tower.marrakesh.modules import walls_guards as wgm

    pl = state.players[0]
    if not pl.explored[0]:
        pl.explored[0] = pl.sahara[2] = True
        pl.keshis["brown"] += 1
        state.issued["brown"] += 1
    pl.wall = [pl.bricks[0]]
    check(state)
    score = pl.score
    run(state, *wgm.season_tasks(state)[:1])
    state.sample_chance()
    # Section 1 is repaired (1 point), section 2 is the tile's: a brigand repelled, 1 + 2.
    assert pl.score == score + 2 + 2
    assert all(x.get("k") != "malus_pay" for x in state.stack)  # no attacker got through


# -- whole games ------------------------------------------------------------------------
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    others=others_with(SB),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=400),
)
def test_hypothesis_action_sequences_with_special_buildings(seed, players, others, picks):
    """Any legal choices with the buildings and any other modules: invariants, illegal
    actions refused without a change, exact JSON round trip and replay."""
    game = Game(GameConfig(players=players, modules=frozenset({SB, *others})))
    action_sequence(game, seed, picks)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    others=others_with(SB),
    agent=st.integers(0, 10_000),
)
def test_whole_games_with_special_buildings(seed, players, others, agent):
    """Whole games (random agents): invariants after every action; every building that
    can be dealt is dealt; the game ends."""
    game = Game(GameConfig(players=players, modules=frozenset({SB, *others})))
    agents = [RandomAgent(agent + k) for k in range(players)]
    final = play(game, agents, seed=seed, on_action=check)
    assert final.is_terminal()
    owned = [pl.ext[SB]["building"] for pl in final.players]
    assert sum(b > 0 for b in owned) == min(players, len(sb.usable(game.config.modules)))


# -- bad data files ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "old,new,field",
    [
        ('keshi = "gray"', 'keshi = "grey"', "start 1.keshi"),
        ('marker = "round"\nnomads', 'marker = "often"\nnomads', "building 3"),
        ('requires = "gems"', 'requires = "dragons"', "building 1"),
        ('id = 8\nsource = "assumed"', 'id = 8\nsource = "guessed"', "start[7]"),
    ],
)
def test_a_bad_data_file_names_file_and_field(tmp_path, old, new, field):
    assert_bad_file(tmp_path, sb.load, "special_buildings.toml", old, new, field)


def test_flying_merchant_and_imam_discounts_add_up():
    state = blank(modules=(SB, "imam_sultan"))
    own(state, 0, "flying_merchant")
    state.pawns["imam"] = [0, state.pawns["imam"][1]]
    pl = state.players[0]
    lux = _three_goods(state)
    give(state, 0, "purple")
    run(state, T("action", p=0, s="souk"))
    # 3 goods - 1 (merchant) - 1 (imam): any 1 goods keshi; the only one pays, unasked.
    state.apply("shop:0")
    assert pl.luxuries == [lux] and pl.keshis["purple"] == 0
    check(state)


def test_the_terminal_board_names_the_buildings_and_the_choices():
    from tower.marrakesh.ui import format_options, render

    state = Game(GameConfig(players=2, modules=frozenset({SB, WG}))).new_initial_state(3)
    setup_until(state, "sb_building")
    menu = format_options(state.describe_actions())
    names = [sb.load()["building"][b]["name"] for b in state.stack[-1]["offer"]]
    assert all(f"keep the {n.replace('_', ' ')} (" in menu for n in names)
    state.apply("choice:0")
    assert f"special building: {names[0].replace('_', ' ')}" in render(state, 0) + render(state, 1)


def test_views_show_buildings_to_all_and_offers_only_to_their_owner():
    from tower.marrakesh.adapters.views import TensorLayout, view

    game = Game(GameConfig(players=2, modules=frozenset({SB, WG})))
    state = game.new_initial_state(5)
    setup_until(state, "sb_building")
    p = state.current_player
    offer = state.stack[-1]["offer"]
    assert view(state, p)[SB]["building_offer"] == offer
    assert view(state, 1 - p)[SB]["building_offer"] is None
    layout = TensorLayout(game)
    d = layout.views(layout.encode(state, p))
    assert sorted(d[f"{SB}.building_offer"].nonzero()[0]) == sorted(offer)
    assert not layout.views(layout.encode(state, 1 - p))[f"{SB}.building_offer"].any()
    state.apply("choice:0")
    kept = state.players[p].ext[SB]["building"]
    assert view(state, 1 - p)[SB]["players"][p]["building"] == kept
    d = layout.views(layout.encode(state, 1 - p))
    assert d[f"{SB}.building"][p, kept] == 1
    setup_until(state, "sb_scroll")
    q = state.current_player
    mine_offer = state.ext[SB]["offers"][str(q)]
    assert view(state, q)[SB]["scroll_offer"] == mine_offer
    assert view(state, 1 - q)[SB]["scroll_offer"] != mine_offer


def test_buildings_are_chosen_after_the_brick_tiles_are_laid_out():
    # A building's keshi may explore a brick tile: Walls & Guards' setup decisions come
    # first (the module is ``setup_last``), whichever order the modules are listed in.
    for mods in ({SB, WG}, {WG, SB}):
        state = Game(GameConfig(players=3, modules=frozenset(mods))).new_initial_state(2)
        kinds = [t["k"] for t in reversed(state.stack) if t["t"] == "ask"]
        deals = [i for i, t in enumerate(reversed(state.stack)) if t["t"] == "sb_deal"]
        bricks = [i for i, t in enumerate(reversed(state.stack)) if t.get("k") == "bricks"]
        assert kinds.count("bricks") == 9 and max(bricks) < min(deals)


# -- the University and the Jeweler -----------------------------------------------------
def test_the_jeweler_is_not_dealt_and_the_university_only_with_the_experts():
    """A dealt building works: the Jeweler's special necklace board is not described by the
    text, so it is not dealt, even with Gems; the University comes with the Experts."""

    def names(*modules: str) -> set[str]:
        return {sb.load()["building"][i]["name"] for i in sb.usable(frozenset(modules))}

    assert names("gems") == {"great_well", "flying_merchant"}
    assert names("experts") == {"great_well", "flying_merchant", "university"}
    assert names("gems", "experts", WG) == {
        "great_well",
        "flying_merchant",
        "university",
        "watchtower",
        "woodcutter",
    }


def _university(used: list[bool]) -> State:
    """Player 0 owns the University and holds expert tiles, ``used`` or not."""
    state = blank(2, (SB, "experts"))
    own(state, 0, "university")
    hold_experts(state, 0, used)
    check(state)
    return state


def test_university_scores_2_points_for_each_expert_tile_used_or_not():
    """Seed 001, The University: "The player receives 2 points for each Expert tile
    (whether used or unused)"; the same position without the building scores 4 fewer."""
    state = _university([True, False])
    plain = state.clone()
    plain.players[0].ext[SB].update(building=0, marker=False)
    for s in (state, plain):
        run(s, T("final_scoring"))
    assert [0, 4, "university: expert tiles"] in state.score_events
    assert state.players[0].score - plain.players[0].score == 4


def test_university_flips_one_used_expert_back_once_per_game():
    """Seed 001, The University: "Once per game, the player may flip 1 already-used Expert
    back to its front side" (offered at the start of the owner's turn)."""
    state = _university([False, True, True])
    state.players[0].assistants = {"souk": 1}
    run(state, T("assist_turn", k=0))
    assert legal(state) == ["pass", "choice:0", "choice:1"]
    state.apply("choice:1")  # the second used tile
    tiles = state.players[0].ext["experts"]["tiles"]
    assert [u for _, u in tiles] == [False, True, False]
    assert state.players[0].ext[SB]["marker"] is False
    check(state)
    state.stack = []
    state.players[0].assistants = {"souk": 1}
    run(state, T("assist_turn", k=0))
    assert state.stack[-1]["k"] == "assistant"  # used: not offered again
