"""The rulebook's worked examples and rules, each written as a state and actions.

Rulebook examples and statements covered here (the *Marrakesh* rulebook, and its German summary):

 1. Setup: 10 points, 1 water/date/dinar, 12 keshis behind the screen, 6 oases, 3 provision
    tiles (1 revealed), 2 oasis-track keshis (3 with 2 players), scroll/shop/gate layout.
 2. Phase 1: assistants go to the sectors of the selected colours; red is wild; up to 3 in
    the souk.
 3. Phase 2: up to 2 keshis of one colour; only 1 if only 1 is left; only 1 if 1 space is
    free (the other stays in the base); no claims for a full sector; forfeit.
 4. Water vendors: a red keshi goes to a sector without one; 1 water before either option
    of an assistant there, from the next turn on.
 5. Phase 3 option a: a new keshi from the supply; not for a full sector.
 6. River: 1 step per fish; water buys steps; a later arrival queues behind; the jetty's
    highest free spot; 1 point per further step.
 7. Date orchard: 1 date per date picker; deploying one scores 1 point.
 8. Souk: exchange office for 1 goods keshi; luxury goods; new goods revealed at the end
    of the turn; an empty shop takes half of the largest stack.
 9. Main square: rotate the disc, then one entertainer's bonus times its spectators;
    deployment bonus once.
10. Staircases: crossing a threshold gives 1 dinar and a connection bonus; two thresholds
    in one move give both twice; 1 point per step beyond the final space.
11. Madrasa: scholars are not spent but not reused; dates paid; the 1-dinar swap forces a
    purchase among the new scrolls; reveal at the end of the turn; empty-stack refill.
12. Medina: a gate per guard, price and points, the gate's keshi deployed after all gates,
    2 points on a gate space of its colour.
13. Sahara: start oasis right space before left; no skipping along a path; discovering
    reveals the oasis; claiming pays its cost, fills the oasis track, deploys its keshi.
14. Phase 4: the river bonus of a passed rapid.
15. Season scoring: the river tile to the first fisherman (2 players: nobody second);
    providing for citizens or losing all resources and 4/8/12 points (German summary);
    flipping a tile; the next season's 12 keshis and start player.
16. Final scoring: 10 per filled sector, best 3 oases, resources and goods / 2; tie-break
    on the palace, then the mosque.
17. Scrolls, one test each for a sample of timings (instant, permanent, end of round, end
    of season) and the expansion modules.
"""

from __future__ import annotations

import pytest
from marrakesh_checks import blank, give, legal, run

from tower.marrakesh import Game, GameConfig
from tower.marrakesh.actions import GOODS
from tower.marrakesh.invariants import check
from tower.marrakesh.rules import T, advance
from tower.marrakesh.scoring import river_ranking
from tower.marrakesh.sectors import line_spaces, segment, space_effect
from tower.pieces import KESHI_COLOURS


# -- 1. setup ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players):
    state = Game(GameConfig(players=players)).new_initial_state(7)
    rng = __import__("random").Random(0)
    while state.current_player >= 0:  # the players' setup choices
        state.apply(rng.choice(state.legal_actions()))
    for pl in state.players:
        assert pl.score == 10 and (pl.water, pl.dates, pl.dinars) == (1, 1, 1)
        assert sorted(pl.screen) == sorted(KESHI_COLOURS)
        assert len(pl.oases) == 6 and not any(pl.revealed)
        assert len(pl.provisions) == 3 and sum(shown for _, shown in pl.provisions) == 1
        assert len(pl.track) == (3 if players == 2 else 2)
        # The oasis track's keshis: no caravan, no goods.
        assert set(pl.track.values()) <= set(KESHI_COLOURS) - {"brown", *GOODS}
        assert (pl.river, pl.mosque, pl.palace) == (0, 0, 0)
    assert [len(s) for s in state.stacks] == [7] * 6 + [6] * 3 + [4] * 3
    assert [len(s) for s in state.shops] == [5] * 5 and len(state.offices) == 3
    assert [len(w) for w in state.workshops] == [8] * 4
    assert [state.game.components.river_tiles[t]["season"] for t in state.river_tiles] == [1, 2, 3]
    all_oases = [o for pl in state.players for o in pl.oases]
    assert len(set(all_oases)) == 6 * players
    check(state)


# -- 2. phase 1 -------------------------------------------------------------------------
def test_phase1_assistants_follow_the_selected_colours_and_red_is_wild():
    state = blank()
    state.players[0].hand = ["yellow", "purple", "red"]
    state.players[1].hand = ["green", "white", "black"]
    for pl in state.players:
        for c in pl.hand:
            pl.screen.remove(c)
    run(state, T("deploy_assistants"))
    assert state.players[1].assistants == {"green": 1, "white": 1, "black": 1}
    # Red is wild: any sector, and the souk takes up to 3 assistants.
    assert state.current_player == 0
    options = legal(state)
    assert "sector:souk" in options and len(options) == 9
    state.apply("sector:souk")
    assert state.players[0].assistants == {"souk": 3}


# -- 3. phase 2 -------------------------------------------------------------------------
def test_phase2_claims_two_of_a_colour_or_the_last_one():
    state = blank()
    state.display.update(turquoise=3, gray=1)
    state.issued["turquoise"] += 3
    state.issued["gray"] += 1
    run(state, T("claim_turn", k=0))
    assert state.current_player == 0 and legal(state) == ["colour:gray", "colour:turquoise"]
    state.apply("colour:turquoise")
    assert state.players[0].keshis["turquoise"] == 2 and state.display["turquoise"] == 1
    state.apply("colour:turquoise")  # player 1: only 1 left of that colour
    assert state.players[1].keshis["turquoise"] == 1
    assert state.players[0].keshis["gray"] == 1  # player 0's only choice, taken for them
    assert state.is_terminal()
    check(state)


def test_phase2_one_free_space_leaves_the_other_keshi_and_full_sectors_forfeit():
    state = blank()
    give(state, 0, "black", 7)
    give(state, 1, "black", 8)
    state.display.update(black=2)
    state.issued["black"] += 2
    run(state, T("claim_turn", k=0))
    # Player 0 has one free space: takes 1, the other stays in the base; player 1's sector
    # is full, so player 1 forfeits and the phase ends with a keshi left in the display.
    assert state.players[0].keshis["black"] == 8
    assert state.players[1].keshis["black"] == 8
    assert state.display["black"] == 1 and state.is_terminal()
    assert state.players[1].forfeit
    check(state)


# -- 4. water vendors -------------------------------------------------------------------
def test_red_keshi_goes_to_a_sector_without_vendor_and_waters_next_turn():
    state = blank()
    state.players[0].vendors = {"green": 1}
    state.display.update(red=1)
    state.issued["red"] += 1 + 1
    run(state, T("claim_turn", k=0))
    assert "sector:green" not in legal(state) and "sector:turquoise" in legal(state)
    state.apply("sector:turquoise")
    pl = state.players[0]
    assert pl.vendors == {"green": 1, "turquoise": 1}
    # Phase 3: an assistant in the river with 0 fish takes a new keshi: 1 water first.
    pl.assistants = {"turquoise": 1}
    water = pl.water
    run(state, T("assist_turn", k=0))
    state.apply("assistant:turquoise/keshi")
    assert pl.water == water + 1 and pl.keshis["turquoise"] == 1
    check(state)


def test_vendor_deployed_during_the_turn_waters_only_from_the_next_turn():
    state = blank()
    pl = state.players[0]
    pl.assistants = {"green": 2}
    state.turn = 0
    run(state, T("deploy", p=0, c="red", src="supply"))
    state.apply("sector:green")
    assert pl.vendors["green"] == 2
    water = pl.water
    run(state, T("vendor_water", p=0, s="green", action=True))
    assert pl.water == water
    run(state, T("end_turn", p=0))
    run(state, T("vendor_water", p=0, s="green", action=True))
    assert pl.water == water + 1


# -- 5. phase 3 option a ----------------------------------------------------------------
def test_new_keshi_option_only_for_sectors_with_room():
    state = blank()
    give(state, 0, "gray", 8)
    state.players[0].assistants = {"gray": 1, "white": 1}
    run(state, T("assist_turn", k=0))
    assert set(legal(state)) == {
        "assistant:gray/action",
        "assistant:white/keshi",
        "assistant:white/action",
    }
    state.apply("assistant:white/keshi")
    assert state.players[0].keshis["white"] == 1


# -- 6. river ---------------------------------------------------------------------------
def test_river_steps_water_and_queueing():
    state = blank()
    a, b = state.players
    give(state, 1, "turquoise", 4)
    b.water = 0
    run(state, T("action", p=1, s="turquoise"))
    assert b.river == 4
    give(state, 0, "turquoise", 2)
    a.water = 3
    run(state, T("action", p=0, s="turquoise"))
    assert legal(state) == [f"number:{k}" for k in range(4)]
    state.apply("number:2")
    assert a.river == 4 and a.water == 1
    # Player 0 arrived later on the same space: queued behind player 1.
    assert river_ranking(state) == [1, 0]


def test_river_jetty_highest_free_spot_then_points_per_step():
    state = blank()
    spots = state.game.components["river"]["jetty_spots"]
    jetty = state.game.components["river"]["jetty"]
    for p in (0, 1):
        state.players[p].river = jetty - 1
        state.players[p].water = 0
    score0 = state.players[0].score
    run(state, T("river", p=0, n=3))
    assert state.players[0].river == jetty and state.players[0].score == score0 + spots[0] + 2
    score1 = state.players[1].score
    run(state, T("river", p=1, n=1))
    assert state.players[1].score == score1 + spots[1]
    assert river_ranking(state) == [0, 1]


# -- 7. date orchard --------------------------------------------------------------------
def test_date_orchard():
    state = blank()
    pl = state.players[0]
    before = pl.score
    run(state, T("deploy", p=0, c="green", src="supply"), T("deploy", p=0, c="green", src="supply"))
    assert pl.score == before + 2 and pl.keshis["green"] == 2
    dates = pl.dates
    run(state, T("action", p=0, s="green"))
    assert pl.dates == dates + 2
    check(state)


# -- 8. souk ----------------------------------------------------------------------------
def test_souk_exchange_office():
    state = blank()
    pl = state.players[0]
    give(state, 0, "yellow")
    office = state.game.components.exchange_offices[state.offices[0]]
    gain = {k: v for k, v in office["yellow"][0].items() if k != "op"}
    before = {r: getattr(pl, r) for r in gain}
    run(state, T("action", p=0, s="souk"))
    assert "colour:yellow" in legal(state)
    state.apply("colour:yellow")
    assert pl.keshis["yellow"] == 0
    assert all(getattr(pl, r) == before[r] + n for r, n in gain.items())
    check(state)


def test_luxury_good_bought_and_next_revealed_at_end_of_turn():
    state = blank()
    pl = state.players[0]
    lux = state.shops[2][-1]
    for c, n in state.game.components.luxuries[lux]["cost"].items():
        give(state, 0, c, n)
    run(state, T("action", p=0, s="souk"))
    state.apply("shop:2")
    assert pl.luxuries == [lux] and not state.shop_open[2]
    assert all(pl.keshis[c] == 0 for c in ("yellow", "purple", "orange"))
    run(state, T("end_turn", p=0))
    assert state.shop_open[2] and len(state.shops[2]) == 4
    check(state)


def test_empty_shop_takes_half_of_the_largest_stack():
    state = blank()
    state.shops = [[1], [2, 3, 4, 5, 6], [7, 8], [9], [10, 11, 12]]
    state.shops[0] = []
    run(state, T("end_turn", p=0))
    assert state.shops[0] == [2, 3] and state.shops[1] == [4, 5, 6]
    assert all(state.shop_open)


# -- 9. main square ---------------------------------------------------------------------
def test_main_square_rotates_then_multiplies_by_spectators():
    state = blank()
    pl = state.players[0]
    spaces = state.game.components["main_square"]["spaces"]
    disc = state.game.components["audience_disc"]["pink"]
    water_space = next(i for i, e in enumerate(spaces) if e[0]["op"] == "gain" and "water" in e[0])
    pl.disc = 0
    water = pl.water
    run(state, T("deploy", p=0, c="pink", src="supply"))
    state.apply(f"slot:{water_space}")
    assert pl.water == water + 1  # deployment bonus once
    run(state, T("action", p=0, s="pink"))  # one entertainer: its space is chosen for us
    assert pl.disc == 1
    assert pl.water == water + 1 + disc[(water_space - 1) % 8]
    check(state)


# -- 10. staircases ---------------------------------------------------------------------
def test_two_thresholds_in_one_move_pay_twice():
    state = blank()
    pl = state.players[0]
    pl.mosque = 2
    give(state, 0, "black", 4)
    dinars = pl.dinars
    run(state, T("action", p=0, s="black"))
    assert pl.mosque == 6
    picked = 0
    while not state.is_terminal():
        # Choose a connection bonus that is a plain gain, to keep the example short.
        t = state.stack[-1]
        assert t["k"] == "connection"
        spaces = line_spaces(state, *t["line"])
        gains = [
            i for i, s in enumerate(spaces) if space_effect(state, s)[0]["op"] in ("gain", "points")
        ]
        state.apply(f"choice:{gains[0] if gains else 0}")
        picked += 1
        if state.current_player >= 0 and state.stack[-1]["k"] != "connection":
            break
    assert picked == 2
    assert pl.dinars >= dinars + 2
    assert segment(state, pl.mosque) == 2


def test_final_space_gives_a_point_per_further_step():
    state = blank()
    pl = state.players[0]
    final = state.game.components["staircase"]["final"]
    pl.palace = final - 1
    score = pl.score
    run(state, T("stair_move", p=0, w="palace", n=3))
    assert pl.palace == final and pl.score == score + 2


# -- 11. madrasa ------------------------------------------------------------------------
def test_madrasa_scholars_are_not_reused_and_dates_are_paid():
    state = blank()
    pl = state.players[0]
    give(state, 0, "gray", 3)
    pl.dates = 5
    state.stacks[0] = [1, 20]  # 20: +2 dinars
    state.stacks[1] = [2, 19]  # 19: +2 water
    state.stacks[3] = [23, 22]
    run(state, T("action", p=0, s="gray"))
    assert {"scroll:gray0", "scroll:gray1", "scroll:yellow0"} <= set(legal(state))
    state.apply("scroll:gray0")
    assert pl.scrolls == [20] and pl.dates == 4 and pl.dinars == 3
    # 2 scholars left: no 3-scholar scroll any more; the next gray-0 scroll is hidden.
    assert "scroll:yellow0" not in legal(state) and "scroll:gray0" not in legal(state)
    state.apply("scroll:gray1")
    assert pl.scrolls == [20, 19] and pl.water == 3 and pl.dates == 3
    state.apply("pass")
    run(state, T("end_turn", p=0))
    assert state.stack_open[0] and state.stacks[0] == [1]


def test_madrasa_swap_forces_a_new_scroll():
    state = blank()
    pl = state.players[0]
    give(state, 0, "gray", 1)
    state.stacks[0:3] = [[1, 2], [3, 4], [5, 6]]
    run(state, T("action", p=0, s="gray"))
    state.apply("swap:gray")
    assert pl.dinars == 0 and [s[-1] for s in state.stacks[0:3]] == [1, 3, 5]
    assert "pass" not in legal(state)
    state.apply("scroll:gray1")
    assert pl.scrolls == [3]


def test_empty_scroll_stack_takes_lower_half_of_the_largest():
    state = blank()
    state.stacks[0:3] = [[], [10, 11, 12, 13, 14], [15, 16]]
    run(state, T("end_turn", p=0))
    assert state.stacks[0] == [10, 11] and state.stacks[1] == [12, 13, 14]


# -- 12. medina -------------------------------------------------------------------------
def test_medina_gate_points_keshi_after_all_gates():
    state = blank()
    pl = state.players[0]
    give(state, 0, "beige", 2)
    pl.dinars = 5
    state.workshops = [["green"], ["gray"], ["white"], ["black"]]
    workshops = state.game.components["medina"]["workshops"]
    spaces = state.game.components["medina"]["gate_spaces"]
    score = pl.score
    run(state, T("action", p=0, s="beige"))
    state.apply("gate:w1/gray")
    state.apply(f"slot:{spaces.index('gray')}")
    assert pl.held == ["gray"] and pl.keshis["gray"] == 0  # deployed only at the end
    state.apply("gate:w0/green")
    state.apply(f"slot:{spaces.index('white')}")
    # No uncommitted guard left: passing is the only option and is taken automatically.
    assert state.is_terminal()
    assert pl.keshis["gray"] == 1 and pl.keshis["green"] == 1 and pl.held == []
    gained = workshops[1]["points"] + 2 + workshops[0]["points"] + 1  # +1: date picker bonus
    assert pl.score == score + gained
    assert pl.dinars == 5 - workshops[1]["dinars"] - workshops[0]["dinars"]
    check(state)


# -- 13. sahara -------------------------------------------------------------------------
def test_start_oasis_right_first_then_left_and_no_skipping():
    state = blank()
    pl = state.players[0]
    run(state, T("deploy", p=0, c="brown", src="supply"))
    assert legal(state) == ["slot:0", "slot:2", "slot:5"]
    state.apply("slot:0")
    state.apply("resource:dates")
    state.apply("resource:dates")
    assert pl.dates == 3
    run(state, T("deploy", p=0, c="brown", src="supply"))
    assert legal(state) == ["slot:1", "slot:2", "slot:5"]
    state.apply("slot:5")
    assert pl.revealed == [False, False, False, True, False, False]
    run(state, T("deploy", p=0, c="brown", src="supply"))
    assert legal(state) == ["slot:1", "slot:2", "slot:6"]
    check(state)


def test_claiming_an_oasis_pays_and_uses_the_track():
    state = blank()
    pl = state.players[0]
    for c in pl.track.values():
        state.issued[c] -= 1
    pl.track = {"0": "gray"}
    state.issued["gray"] += 1
    pl.revealed[0] = True
    pl.water, pl.dates, pl.dinars = 3, 3, 3
    cost = state.game.components["sahara"]["claim_costs"][0]
    run(state, T("action", p=0, s="brown"))
    assert legal(state) == ["pass", "slot:2"]
    state.apply("slot:2")
    assert pl.claimed == [pl.oases[0]] and pl.claimed_at[0]
    assert all(getattr(pl, r) == 3 - cost.get(r, 0) for r in ("water", "dates", "dinars"))
    state.apply("choice:0")  # deploy the scholar that stood on the track
    assert pl.keshis["gray"] == 1 and pl.track == {}
    check(state)


# -- 14. phase 4 ------------------------------------------------------------------------
def test_river_bonus_only_from_passed_rapids():
    state = blank()
    rapids = state.game.components["river"]["rapids"]
    state.players[0].river = rapids[1]
    state.players[1].river = rapids[0] - 1
    run(state, T("river_bonus", k=0))
    assert state.current_player == 0 and legal(state) == ["choice:0", "choice:1"]


# -- 15. season scoring -----------------------------------------------------------------
def test_providing_for_citizens_or_losing_everything_and_4_8_12_points():
    state = blank(players=3)
    for season, shown in ((1, 1), (2, 2), (3, 3)):
        state.season = season
        pl = state.players[0]
        for i, tile in enumerate(pl.provisions):
            tile[1] = i < shown
        need = {r: 0 for r in ("water", "dates", "dinars")}
        for tid, s in pl.provisions:
            if s:
                for r, n in state.game.components.provisions[tid]["cost"].items():
                    need[r] += n
        pl.water, pl.dates, pl.dinars = need["water"], need["dates"], need["dinars"] + 1
        score = pl.score
        run(state, T("provide", p=0))
        assert (pl.water, pl.dates, pl.dinars, pl.score) == (0, 0, 1, score)
        pl.water, pl.dates, pl.dinars = need["water"], need["dates"], 0
        if need["dinars"] == 0:
            pl.water = max(0, pl.water - 1) if need["water"] else pl.water
            pl.dates = max(0, pl.dates - 1) if not need["water"] else pl.dates
        run(state, T("provide", p=0))
        assert (pl.water, pl.dates, pl.dinars) == (0, 0, 0)
        assert pl.score == score - 4 * season


def test_river_tile_to_the_first_and_no_second_place_with_two_players():
    state = blank(players=2)
    state.season = 3
    state.river_tiles[2] = 5  # first 7 points, second 3 points
    state.players[0].river, state.players[1].river = 2, 5
    s0, s1 = state.scores()
    run(state, T("river_evaluation"))
    assert state.scores() == [s0, s1 + 7]
    # Ruling (oasis 30): after the third season's evaluation the fishermen stay put.
    assert [pl.river for pl in state.players] == [2, 5]
    state3 = blank(players=3)
    state3.season = 3
    state3.river_tiles[2] = 5
    state3.players[2].river, state3.players[0].river = 6, 3
    before = state3.scores()
    run(state3, T("river_evaluation"))
    assert state3.scores() == [before[0] + 3, before[1], before[2] + 7]


def test_next_season_gives_twelve_keshis_and_passes_the_season_tracker():
    state = blank(players=3)
    state.season_start = 1
    for pl in state.players:
        pl.screen = []
    run(state, T("next_season"))
    assert state.season == 2 and state.start == 2 and state.round == 1
    assert all(sorted(pl.screen) == sorted(KESHI_COLOURS) for pl in state.players)


# -- 16. final scoring ------------------------------------------------------------------
def test_final_scoring_filled_sectors_oases_resources():
    state = blank()
    pl = state.players[0]
    give(state, 0, "gray", 8)
    pl.vendors = {"gray": 1}
    state.issued["red"] += 1
    give(state, 0, "white", 8)  # no vendor: not filled
    pl.claimed = [25, 26, 30, 23]  # 25: 4 per filled sector, 26: 3 per claimed oasis
    pl.scrolls = [1, 2]
    pl.water, pl.dates, pl.dinars = 3, 2, 1
    give(state, 0, "yellow", 1)
    score = pl.score
    run(state, T("final_scoring"))
    oases = sorted([4, 3 * 4, 0, 3 + 2], reverse=True)[:3]
    assert pl.score == score + 10 + sum(oases) + (3 + 2 + 1 + 1) // 2


def test_oasis_30_scores_a_jetty_spot_reached_in_the_last_season():
    # Ruling: after the third season's river evaluation the fishermen stay where they are.
    state = blank()
    state.season = 3
    pl = state.players[0]
    pl.claimed = [30]
    assert state.game.components.oases[30]["kind"] == "jetty"
    pl.river = state.game.components["river"]["jetty"] - 1
    state.river_tiles[2] = 5  # no choice to make: first 7 points
    run(state, T("river_move", p=0, n=1), T("river_evaluation"))
    assert state.is_terminal() and pl.jetty >= 0  # still at the jetty after the evaluation
    events = len(state.score_events)
    run(state, T("final_scoring"))
    assert [0, 7, "final: oasis 30"] in state.score_events[events:]
    # In seasons 1 and 2 the fishermen go back to the start as before.
    state.season = 2
    state.river_tiles[1] = 5
    run(state, T("river_evaluation"))
    assert state.is_terminal() and (pl.river, pl.jetty) == (0, -1)


def test_provision_penalty_has_one_home():
    # The 4 / 8 / 12 points are the revealed tiles' printed penalties (a ruling in
    # scoring._pay_provisions); the unread setup setting is gone.
    comps = Game(GameConfig()).components
    assert "provision_penalty" not in comps["setup"]
    assert {t["penalty"] for t in comps.provisions.values()} == {4}


def test_brickworks_and_desert_towns_share_the_sahara():
    # Ruling (WallsGuards.sahara): the brickworks covers the start oasis whatever else
    # covers it; the desert towns' spaces stay. The modules' order does not matter.
    for modules in (("desert_towns", "walls_guards"), ("walls_guards", "desert_towns")):
        state = blank(players=2, modules=modules)
        assert state.game.hooks.layout == {"start": True, "towns": True}
        pl = state.players[0]
        pl.sahara[2:5] = [True] * 3
        assert legal_spaces(state) == [0, 5, 8]
    state = blank(players=2, modules=("desert_towns",))
    assert legal_spaces(state) == [2, 5]


def legal_spaces(state) -> list[int]:
    from tower.marrakesh.sectors import brown_spaces

    return sorted(brown_spaces(state, 0))


def test_tie_break_palace_then_mosque():
    state = blank(players=3)
    for pl in state.players:
        pl.score = 50
    state.players[0].palace, state.players[1].palace, state.players[2].palace = 4, 6, 6
    state.players[1].mosque, state.players[2].mosque = 2, 3
    assert state.winners() == [2]
    state.players[1].mosque = 3
    assert state.winners() == [1, 2]


# -- 17. scrolls and modules ------------------------------------------------------------
def test_scroll_13_threshold_water_and_48_extra_step():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [13, 48]
    pl.palace = 1
    water = pl.water
    run(state, T("stair", p=0, w="palace", n=1))  # 1 + 1 extra step: crosses step 3
    assert pl.palace == 3 and pl.water == water + 1


def test_scroll_61_claims_two_keshis_of_any_colours():
    state = blank()
    state.players[0].scrolls = [61]
    state.display.update(gray=2, white=1)
    state.issued.update(gray=2, white=1)
    run(state, T("claim_turn", k=0))
    state.apply("colour:gray")
    assert legal(state) == ["colour:gray", "colour:white"]
    state.apply("colour:white")
    assert state.players[0].keshis["gray"] == 1 and state.players[0].keshis["white"] == 1


def test_scroll_33_dates_and_water_stand_in_for_dinars():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [33]
    give(state, 0, "beige")
    pl.dinars, pl.water, pl.dates = 0, 2, 1
    state.workshops = [["green"], ["gray"], ["white"], ["black"]]
    run(state, T("action", p=0, s="beige"))
    assert "gate:w2/white" in legal(state) and "gate:w3/black" in legal(state)
    state.apply("gate:w3/black")
    # Each missing dinar: the player chooses water or dates.
    assert legal(state) == ["resource:water", "resource:dates"]
    state.apply("resource:dates")
    assert (pl.water, pl.dates, pl.dinars) == (0, 0, 0)  # the rest had to be water
    assert state.stack[-1]["k"] == "gate_space"


def test_scroll_72_returns_resources_for_two_points_each():
    state = blank()
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 2, 1, 3
    score = pl.score
    state.stacks[9] = [72]
    give(state, 0, "gray", 7)
    pl.dates = 4
    run(state, T("action", p=0, s="gray"))
    state.apply("scroll:orange0")
    state.apply("number:2")
    state.apply("number:0")
    state.apply("number:3")
    assert pl.score == score + 10 and (pl.water, pl.dates, pl.dinars) == (0, 1, 0)


def test_scroll_69_all_rapid_bonuses_at_end_of_round():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [69]
    pl.river = state.game.components["river"]["rapids"][1]
    score = pl.score
    run(state, T("rapid_bonus", p=0))
    state.apply("resource:water")  # rapid 2: a resource; rapid 1 gave 1 point
    assert pl.score == score + 1 and pl.water == 2


def test_imam_and_sultan_are_picked_up_passed_and_give_their_benefit():
    state = blank(players=3, modules=("imam_sultan",))
    step = state.game.components["staircase"]["imam_sultan_step"]
    a, b, _ = state.players
    a.palace = step - 1
    run(state, T("stair_move", p=0, w="palace", n=1))
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert state.pawns["sultan"][0] == 0
    b.palace = step
    run(state, T("stair_move", p=1, w="palace", n=1))  # passes player 0
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert state.pawns["sultan"][0] == 1
    give(state, 1, "gray", 1)
    state.stacks[0] = [19]
    b.dates = 0
    run(state, T("action", p=1, s="gray"))
    assert "scroll:gray0" in legal(state)  # the sultan pays the 1 date


def test_desert_towns_cover_the_start_oasis_and_score():
    state = blank(players=2, modules=("desert_towns",))
    assert len(state.towns_display) == 3
    pl = state.players[0]
    pl.sahara[2:5] = [True] * 3
    pl.keshis["brown"] = 3
    state.issued["brown"] += 3
    run(state, T("deploy", p=0, c="brown", src="supply"))
    assert legal(state) == ["slot:5", "slot:8"]
    score = pl.score
    town = state.towns_display[0]
    state.apply("slot:8")
    state.apply("choice:0")
    assert pl.towns[0] == town and pl.score == score + 4
    check(state)


def test_staircase_tiles_cover_twelve_spaces_and_spectators_use_purple_discs():
    state = blank(modules=("staircase_tiles", "spectators"))
    assert len(state.covers) == 12
    coverable = {
        k for k, v in state.game.components["staircase"]["spaces"].items() if v["coverable"]
    }
    assert set(state.covers) == coverable
    from tower.marrakesh.sectors import spectators

    state.players[0].disc = 0
    purple = state.game.components["audience_disc"]["purple"]
    assert [spectators(state, 0, i) for i in range(8)] == purple


def test_additional_exchange_offices_join_the_pool():
    seen = set()
    for seed in range(40):
        state = Game(
            GameConfig(players=2, modules=frozenset({"exchange_offices"}))
        ).new_initial_state(seed)
        seen.update(state.offices)
    assert any(o > 12 for o in seen)
    base = {
        o for seed in range(40) for o in Game(GameConfig(players=2)).new_initial_state(seed).offices
    }
    assert max(base) <= 12


def _resolve_randomly(state, rng) -> None:
    """Take random legal choices until the pending work is done."""
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        check(state)


@pytest.mark.parametrize("sid", range(1, 73))
def test_every_scroll_can_be_bought_and_resolved(sid):
    """Each of the 72 scrolls, bought in the madrasa with random follow-up choices (the
    board is seeded so that most effects have something to act on)."""
    import random

    state = blank(players=3, modules=("desert_towns",), seed=sid)
    pl = state.players[0]
    give(state, 0, "gray", 7)
    for c in (
        "turquoise",
        "white",
        "black",
        "pink",
        "brown",
        "beige",
        "yellow",
        "purple",
        "orange",
    ):
        give(state, 0, c, 2)
    pl.revealed = [True] * 6
    pl.claimed = [pl.oases[5]]
    pl.claimed_at[5] = True
    pl.dates, pl.water, pl.dinars = 6, 3, 3
    colour = state.game.components.scrolls[sid]["colour"]
    stack = 3 * ("gray", "yellow", "pink", "orange").index(colour)
    for st in state.stacks:
        if sid in st:
            st.remove(sid)
    state.stacks[stack].append(sid)
    run(state, T("action", p=0, s="gray"))
    state.apply(f"scroll:{colour}0")
    assert sid in pl.scrolls
    rng = random.Random(sid)
    _resolve_randomly(state, rng)
    assert sid in pl.scrolls


def test_random_games_with_every_permanent_scroll_owned():
    """Random games in which each player owns a random half of the non-instant scrolls from
    the start: every modifier's rule runs under the invariants."""
    import random

    from tower.marrakesh import RandomAgent

    game = Game(GameConfig(players=3, modules=frozenset({"desert_towns", "imam_sultan"})))
    lasting = [s for s, e in game.components.scrolls.items() if e["timing"] != "instant"]
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        for pl in state.players:
            pl.scrolls = sorted(rng.sample(lasting, len(lasting) // 2))
            for st in state.stacks:
                st[:] = [s for s in st if s not in pl.scrolls]
        agents = [RandomAgent(seed * 7 + k) for k in range(3)]
        while not state.is_terminal():
            if state.is_chance_node():
                state.sample_chance()
            else:
                p = state.pending_players()[0] if state.current_player < 0 else state.current_player
                state.apply(agents[p].step(state, p), player=p)
            check(state)


def test_scrolls_35_and_50_water_vendor_bonuses():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [35, 50]
    pl.vendors = {"green": 1}
    state.issued["red"] += 1
    water, score = pl.water, pl.score
    run(state, T("vendor_water", p=0, s="green", action=True))
    assert pl.water == water + 2 and pl.score == score + 2
    run(state, T("vendor_water", p=0, s="green", action=False))
    assert pl.water == water + 4 and pl.score == score + 2


def test_scroll_45_claims_an_oasis_for_one_resource():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [45]
    pl.revealed[2] = True
    pl.water, pl.dates, pl.dinars = 0, 0, 1
    run(state, T("action", p=0, s="brown"))
    state.apply("slot:4")
    assert pl.dinars == 0 and pl.claimed == [pl.oases[2]]


def test_scroll_56_jetty_steps_score_double_and_63_two_connection_bonuses():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [56, 63]
    pl.river = state.game.components["river"]["jetty"]
    pl.jetty = 0
    pl.water = 0
    score = pl.score
    run(state, T("river", p=0, n=2))
    assert pl.score == score + 4
    # Scroll 63: two different bonuses of the line (here it has two: both are taken).
    pl.palace = 2
    spaces = line_spaces(state, 0, 1)
    assert len(spaces) == 2
    effects = [e for sp in spaces for e in space_effect(state, sp)]
    assert {e["op"] for e in effects} <= {"gain", "points", "keshi"}
    score, white = pl.score, pl.keshis["white"]
    run(state, T("stair_move", p=0, w="palace", n=1))
    assert legal(state) == ["choice:0", "choice:1"]
    state.apply("choice:0")
    assert state.is_terminal()
    points = sum(e["n"] for e in effects if e["op"] == "points")
    keshis = sum(e["n"] for e in effects if e["op"] == "keshi" and e["colour"] == "white")
    assert pl.score == score + points and pl.keshis["white"] == white + keshis


def test_scrolls_22_32_66_city_gates():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [22, 32, 66]
    give(state, 0, "beige", 2)
    pl.dinars = 0
    state.workshops = [["green"], ["gray"], ["white"], ["black"]]
    score = pl.score
    run(state, T("action", p=0, s="beige"))
    assert "gate:w1/gray" in legal(state)  # 1 dinar less: free
    state.apply("gate:w0/green")  # the left workshop for 0 dinars: no points lost
    state.apply("slot:7")
    assert pl.score == score and pl.held == ["green", "green"]


def test_scrolls_34_46_18_souk_repeats_and_extra_resource():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [46, 18]
    give(state, 0, "yellow", 2)
    run(state, T("action", p=0, s="souk"))
    state.apply("colour:yellow")
    state.apply("resource:dinars")  # scroll 18
    assert "colour:yellow" in legal(state)  # scroll 46: the office again
    state.apply("colour:yellow")
    state.apply("resource:dinars")
    assert pl.keshis["yellow"] == 0 and state.is_terminal()


def test_scroll_65_main_square_twice_and_31_extra_spectator():
    state = blank()
    pl = state.players[0]
    pl.scrolls = [65, 31]
    disc = state.game.components["audience_disc"]["pink"]
    spaces = state.game.components["main_square"]["spaces"]
    space = next(i for i, e in enumerate(spaces) if e[0]["op"] == "points")
    pl.square[space] = True
    pl.keshis["pink"] = 1
    state.issued["pink"] += 1
    pl.disc = 0
    score = pl.score
    run(state, T("action", p=0, s="pink"))
    n = spaces[space][0]["n"]
    expected = n * (disc[(space - 1) % 8] + 1) + n * (disc[(space - 2) % 8] + 1)
    assert pl.disc == 2 and pl.score == score + expected


def test_nobody_wins_the_river_from_the_start_space():
    state = blank(players=3)
    state.river_tiles[0] = 8  # 3 points
    before = state.scores()
    run(state, T("river_evaluation"))
    assert state.scores() == before
    state.players[2].river = 1
    run(state, T("river_evaluation"))
    assert state.scores() == [before[0], before[1], before[2] + 3]


def test_sultan_passes_to_second_place_at_the_top_or_waits_above_a_tie():
    state = blank(players=4, modules=("imam_sultan",))
    final = state.game.components["staircase"]["final"]
    a, b, c, d = state.players
    state.pawns["sultan"] = [0, 5]
    a.palace, b.palace, c.palace, d.palace = final - 1, 7, 9, 2
    run(state, T("stair_move", p=0, w="palace", n=1))
    assert state.pawns["sultan"][0] == 2  # the single player in second position
    state.pawns["sultan"] = [0, 5]
    c.palace = 7
    a.palace = final - 1
    run(state, T("stair_move", p=0, w="palace", n=1))
    assert state.pawns["sultan"] == [-1, 8]  # tied for second: one stair above them
    b.palace = 7
    run(state, T("stair_move", p=1, w="palace", n=1))
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert state.pawns["sultan"][0] == 1


def test_desert_town_claimed_with_three_goods_and_scored():
    state = blank(players=2, modules=("desert_towns",))
    pl = state.players[0]
    pl.towns = [11, 4]  # 11: a luxury good for free; 4: 1 point per palace step
    state.issued["brown"] += 0
    for c in ("yellow", "purple", "orange"):
        give(state, 0, c, 2)
    run(state, T("action", p=0, s="brown"))
    assert legal(state) == ["pass", "slot:8", "slot:9"]
    state.apply("slot:8")
    shop = next(i for i, s in enumerate(state.shops) if s)
    state.apply(f"shop:{shop}")
    assert pl.towns_claimed == [True, False] and len(pl.luxuries) == 1
    assert all(pl.keshis[c] == 1 for c in ("yellow", "purple", "orange"))
    state.apply("slot:9")
    assert pl.towns_claimed == [True, True]
    pl.palace = 9
    score = pl.score
    run(state, T("final_scoring"))
    events = [r for p, d, r in state.score_events if p == 0 and r == "final: desert town"]
    assert events == ["final: desert town"]  # town 11 scores nothing, town 4 scores 9
    resources = (pl.water + pl.dates + pl.dinars) // 2
    assert pl.score == score + 9 + resources
    check(state)


def test_third_season_river_pair_first_chooses_second_gets_the_other():
    state = blank(players=3)
    state.season = 3
    state.river_tiles[2] = 18  # 1 point per 4 keshis, or 2 points per luxury good
    state.players[1].river, state.players[2].river = 5, 3
    state.players[1].luxuries = [1, 2, 3]
    give(state, 2, "gray", 8)
    before = state.scores()
    run(state, T("river_evaluation"))
    assert state.current_player == 1
    state.apply("choice:1")  # luxuries: 6 points; the other bonus goes to player 2
    assert state.scores() == [before[0], before[1] + 6, before[2] + 2]


def test_scroll_44_pays_one_dinar_and_any_resource_per_tile():
    state = blank(players=2)
    pl = state.players[0]
    pl.scrolls = [44]
    for tile in pl.provisions:
        tile[1] = True
    pl.water, pl.dates, pl.dinars = 0, 2, 2
    score = pl.score
    run(state, T("provide", p=0))
    state.apply("choice:1")
    state.apply("resource:dinars")  # then dates for the other two tiles
    assert (pl.water, pl.dates, pl.dinars, pl.score) == (0, 0, 0, score)


def test_scroll_28_gives_each_crossed_rapid_at_season_scoring():
    state = blank(players=2)
    pl = state.players[0]
    pl.scrolls = [28]
    rapids = state.game.components["river"]["rapids"]
    pl.river = rapids[3]
    score = pl.score
    run(state, T("season_end"))
    # Rapid bonuses: 1 point, a resource, a goods keshi, 3 points (then the river tile).
    state.apply("resource:water")
    state.apply("colour:yellow")
    assert pl.score >= score + 4 and pl.keshis["yellow"] == 1


@pytest.mark.parametrize("season", [1, 2, 3])
def test_each_season_has_its_own_exchange_office(season):
    """Preparing the 2nd and 3rd season, 1: "Discard the exchange office tile ... Reveal
    the next exchange office, which will be the active office for the next season"."""
    state = blank()
    state.season = season
    pl = state.players[0]
    offices = state.game.components.exchange_offices
    distinct: dict[str, int] = {}
    for o in sorted(offices):
        distinct.setdefault(str(offices[o]["purple"]), o)
    state.offices = list(distinct.values())[:3]  # three offices that pay differently
    give(state, 0, "purple")
    gains = {k: v for e in offices[state.offices[season - 1]]["purple"] for k, v in e.items()}
    before = {r: getattr(pl, r) for r in ("water", "dates", "dinars")}
    run(state, T("action", p=0, s="souk"))
    state.apply("colour:purple")
    after = {r: getattr(pl, r) - before[r] for r in before}
    assert {r: n for r, n in after.items() if n} == {k: v for k, v in gains.items() if k != "op"}


def test_the_medina_is_filled_by_8_guards_and_a_vendor_whatever_the_gates():
    """Medina: "The Medina sector counts as completely filled when it contains 8 guards
    and 1 water vendor, irrespective of the number of city gates"."""
    from tower.marrakesh.worth import filled

    state = blank()
    pl = state.players[0]
    give(state, 0, "beige", 8)
    pl.vendors = {"beige": 1}
    state.issued["red"] += 1
    assert filled(state, 0, "beige") and pl.watchtower == 8  # no gate at all
    pl.gates[0] = "gray"
    assert filled(state, 0, "beige")
    del pl.vendors["beige"]
    assert not filled(state, 0, "beige")


def test_the_track_exchange_icon_spares_caravans_guards_and_goods():
    """Sahara: "When covering an exchange icon, the player may return any 1 keshi ... You
    may NOT return a brown caravan keshi standing next to a discovered or claimed oasis,
    nor a beige guard keshi committed to a city gate, nor any goods keshi ... but you may
    take one of these in exchange"."""
    from tower.marrakesh.sectors import claim_oasis

    state = blank()
    pl = state.players[0]
    for c in pl.track.values():
        state.issued[c] -= 1
    pl.track = {}
    pl.claimed = [pl.oases[5]]  # the next oasis takes the exchange space
    pl.claimed_at[5] = True
    give(state, 0, "brown")  # a caravan next to a discovered oasis
    pl.revealed[0] = True
    give(state, 0, "beige", 2)
    pl.gates[0] = "gray"  # one guard committed
    give(state, 0, "yellow")
    give(state, 0, "black")
    state.stack = []
    claim_oasis(state, 0, pl.oases[0])
    advance(state)
    assert state.stack[-1]["k"] == "exchange_return"
    assert legal(state) == ["pass", "colour:black", "colour:beige"]
    state.apply("colour:black")
    assert "colour:yellow" in legal(state)  # a goods keshi may be taken in exchange
    state.apply("colour:yellow")
    assert pl.keshis["black"] == 0 and pl.keshis["yellow"] == 2


def test_after_providing_each_player_reveals_one_more_provision_tile():
    """Providing for Citizens: "each player chooses one of their provision tiles that is
    still face down and flips it"."""
    from marrakesh_checks import season_scoring

    state = blank(players=3)
    season_scoring(state)
    assert all(sum(shown for _, shown in pl.provisions) == 2 for pl in state.players)


def test_several_goods_keshis_of_a_bonus_are_of_one_colour():
    """Main square: "if the number of spectators allows more than one goods keshi, they
    must all be of the same color"."""
    state = blank()
    pl = state.players[0]
    run(state, T("fx", p=0, e={"op": "keshi", "colour": "goods", "n": 3}))
    assert legal(state) == ["colour:yellow", "colour:purple", "colour:orange"]
    state.apply("colour:purple")
    assert pl.keshis["purple"] == 3 and pl.keshis["yellow"] == pl.keshis["orange"] == 0


def test_a_gate_keshi_for_a_full_sector_goes_back_to_the_supply():
    """Medina: "If any of these sectors are filled completely, the keshi of that color
    must be returned to the common supply"."""
    state = blank()
    pl = state.players[0]
    give(state, 0, "beige")
    give(state, 0, "gray", 8)
    pl.dinars = 5
    state.workshops = [["gray"], ["gray"], ["white"], ["black"]]
    issued = state.issued["gray"]
    run(state, T("action", p=0, s="beige"))
    state.apply("gate:w1/gray")
    state.apply(f"slot:{state.game.components['medina']['gate_spaces'].index('white')}")
    assert pl.keshis["gray"] == 8 and pl.held == [] and state.issued["gray"] == issued
    check(state)


def test_the_track_scroll_icon_takes_a_3_scholar_scroll_for_free():
    """Sahara: "When covering the scroll icon, the player may take 1 scroll from the
    display that requires exactly 3 scholar keshis, ignoring this requirement and without
    paying 1 date"."""
    from tower.marrakesh.sectors import claim_oasis

    state = blank()
    pl = state.players[0]
    for c in pl.track.values():
        state.issued[c] -= 1
    pl.track = {}
    pl.claimed = list(pl.oases[3:6])  # the next oasis takes the scroll space
    pl.claimed_at[3] = pl.claimed_at[4] = pl.claimed_at[5] = True
    pl.revealed[0] = True
    dates = pl.dates
    state.stack = []
    claim_oasis(state, 0, pl.oases[0])
    advance(state)
    assert state.stack[-1]["k"] == "track_scroll"
    assert legal(state) == ["pass", "scroll:yellow0", "scroll:yellow1", "scroll:yellow2"]
    sid = state.stacks[3][-1]
    state.apply("scroll:yellow0")
    assert sid in pl.scrolls and pl.dates == dates and pl.keshis["gray"] == 0
