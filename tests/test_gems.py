"""Gems (Gems & Experts) in the Marrakesh engine.

Rulebook: *Gems & Experts*, "Gems". Its two worked examples are
played through the engine: Sarah's yellow gem (two possible spaces, 1 point, a goods keshi
and a palace step from the lines it completes) and Sarah's final scoring (5 colours 15
points, the 2nd, 3rd and bottom rows 9, remaining resources 2). Then each rule: setup, every
gem site, the dealer's sales and purchase (once per turn each, sold gems on sale from the
turn's end), scrolls 73-76, the oases printed 39/40, the alms and Madrasa gem options, the
invariant, bad data, Hypothesis sequences, JSON/replay and the adapters.
"""

from __future__ import annotations

from collections import Counter

import pytest
from marrakesh_checks import (
    blank,
    give,
    legal,
    legal_sequence,
    openspiel_sim,
    pettingzoo_api,
    refused,
    round_trip,
    run,
    season_scoring,
    sequences_with,
)

from tower.marrakesh import Game, GameConfig
from tower.marrakesh.effects import run_effects
from tower.marrakesh.invariants import check
from tower.marrakesh.module_data import DATA
from tower.marrakesh.modules import closed_madrasa, gems
from tower.marrakesh.rules import T, advance, ask
from tower.marrakesh.sectors import claim_oasis
from tower.marrakesh.worth import oasis_value

GEMS = ("gems",)


def take(state, colour: str) -> str:
    """Take a gem of ``colour`` out of the supply (to hand it to someone)."""
    state.ext["gems"]["supply"].remove(colour)
    return colour


def necklace(state, p: int, placed: dict[int, str]) -> None:
    """Put gems (taken from the supply) on player ``p``'s necklace spaces."""
    for i, c in placed.items():
        gems.mine(state, p)["necklace"][i] = take(state, c)


def settle(state, limit: int = 50) -> None:
    """Take the first legal option of each pending decision until nothing is pending."""
    for _ in range(limit):
        advance(state)
        if not state.stack:
            return
        state.apply(state.legal_actions()[0])
    raise AssertionError("still pending")


# -- setup ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_puts_every_gem_in_its_place(players):
    state = Game(GameConfig(players=players, modules=frozenset(GEMS))).new_initial_state(players)
    g = state.ext["gems"]
    assert len(g["dealer"]) == len(set(g["dealer"])) == 3  # 3 different colours
    assert len(g["river"]) == 1
    assert len(g["palace"]) == len(g["mosque"]) == len(g["connection"]) == players
    for pl in state.players:
        me = pl.ext["gems"]
        assert len(me["disc"][1]) == 2 and all(me["sites"].values())
        assert me["necklace"] == [None] * 14 and me["loose"] == []
    total = sum(gems.everywhere(state).values())
    assert total == 56 and len(g["supply"]) == 56 - 3 - 1 - 3 * players - 8 * players
    # The setup decision: a section with 1 spectator, and which gem lies on top.
    top = state.stack[-1]
    while top.get("k") != "gems_disc":
        state.apply(state.legal_actions()[0])
        top = state.stack[-1]
    p = top["p"]
    sections = gems.one_spectator_sections(state, p)
    assert sections == [0, 3, 6]  # the pink side of the (assumed) audience disc
    before = list(gems.mine(state, p)["disc"][1])
    assert legal(state) == [f"choice:{i}" for i in range(6)]
    state.apply("choice:3")  # the second section, turned over
    assert gems.mine(state, p)["disc"] == [3, before[::-1]]


def test_scrolls_and_oases_join_the_game_with_other_ids_than_the_shop():
    comps = Game(GameConfig(players=2, modules=frozenset(GEMS))).components
    assert [comps.scrolls[s]["colour"] for s in (73, 74, 75, 76)] == [
        "gray",
        "yellow",
        "pink",
        "orange",
    ]
    assert comps.oases[43]["printed"] == 39 and comps.oases[44]["printed"] == 40
    both = Game(GameConfig(players=2, modules=frozenset({"gems", "second_hand_shop"})))
    assert {39, 40, 43, 44} <= set(both.components.oases)
    assert both.components.oases[39]["kind"] != "gems_owned"


# -- the rulebook's examples ------------------------------------------------------------
def test_rulebook_sarah_places_a_yellow_gem():
    """The rulebook: "Sarah has found a yellow gem. She could place it in two different
    spots and decides on the space in the bottom right. She receives 1 point for placing
    the gem, 1 goods keshi (bonus on the connection to the red gem), as well as 1 step on
    the white palace staircase (bonus on the connection to the blue gem)."
    """
    state = blank(2, GEMS)
    pl = state.players[0]
    necklace(
        state, 0, {0: "yellow", 1: "blue", 2: "red", 3: "green", 4: "yellow", 10: "blue", 11: "red"}
    )
    points, palace, goods = pl.score, pl.palace, sum(pl.keshis[c] for c in gems.GOODS)
    run(state, T("gems_receive", p=0, c=take(state, "yellow")))
    assert legal(state) == ["slot:6", "slot:13"]  # two spots
    state.apply("slot:13")
    assert pl.score == points + 1
    assert legal(state) == ["colour:yellow", "colour:purple", "colour:orange"]  # goods keshi
    state.apply("colour:purple")
    settle(state)
    assert sum(pl.keshis[c] for c in gems.GOODS) == goods + 1 and pl.keshis["purple"] == 1
    assert pl.palace == palace + 1
    assert gems.mine(state, 0)["necklace"][13] == "yellow"
    check(state)


def test_rulebook_sarah_final_scoring():
    """The rulebook: "Sarah has placed gems in all 5 colors. For that, she receives 15
    points. The complete filling of the 2nd, 3rd, and bottom row earns her a total of 9 points. For
    remaining resources, she receives another 2 points."
    """
    state = blank(2, GEMS)
    pl = state.players[0]
    colours = gems.data()["necklace"]["colours"]
    necklace(state, 0, {i: colours[i] for i in range(5, 14)})  # rows 2, 3 and the bottom
    assert gems.necklace_points(state, 0) == 15 + 9
    gems.mine(state, 0)["loose"] = [take(state, "blue"), take(state, "red")]
    pl.water, pl.dates, pl.dinars = 1, 1, 0
    run(state, T("final_scoring"))
    mine = [e for e in state.score_events if e[0] == 0]
    assert [0, 24, "gems: necklace"] in mine
    assert [0, 2, "final: resources and goods"] in mine  # 2 loose gems + 2 resources


def test_a_gem_must_be_placed_when_it_can_and_lies_with_the_resources_otherwise():
    state = blank(2, GEMS)
    orange, blue = take(state, "orange"), take(state, "blue")
    # 12 is no start space and has no placed neighbour: the orange gem lies loose.
    run(state, T("gems_receive", p=0, c=orange), T("gems_receive", p=0, c=blue))
    assert gems.mine(state, 0)["loose"] == ["orange"]
    # The only blue start space: a decision with one option plays itself (no pass).
    assert gems.mine(state, 0)["necklace"][1] == "blue" and not state.stack
    necklace(state, 0, {0: "yellow", 5: "blue"})
    state.stack = [T("gems_receive", p=0, c=take(state, "yellow"))]
    advance(state)
    assert legal(state) == ["slot:4", "slot:6"]  # a start space, or next to a placed gem
    check(state)


# -- the sites --------------------------------------------------------------------------
def test_river_gem_goes_to_the_first_to_reach_the_9th_space_and_one_each_season():
    state = blank(2, GEMS)
    g = state.ext["gems"]
    colour = g["river"][0]
    run(state, T("river_move", p=0, n=8))
    assert g["river"] == [colour]
    run(state, T("river_move", p=0, n=3))  # moves past the space
    settle(state)
    assert g["river"] == [] and colour in gems.possessed(state, 0)
    run(state, T("river_move", p=1, n=10))
    settle(state)
    assert gems.possessed(state, 1) == []
    run(state, T("gems_season"))
    assert len(g["river"]) == 1
    check(state)


def test_staircase_gems_choose_one_once():
    state = blank(3, GEMS)
    g = state.ext["gems"]
    g["supply"] += g["palace"]
    g["palace"] = [take(state, "red"), take(state, "red"), take(state, "green")]
    state.players[0].palace = 10
    run(state, T("stair_move", p=0, w="palace", n=1))
    assert not state.stack or state.stack[-1].get("k") != "gems_pick"
    run(state, T("stair_move", p=0, w="palace", n=2))  # crosses step 12 (and threshold 12)
    while state.stack and state.stack[-1].get("k") != "gems_pick":
        state.apply(state.legal_actions()[0])
    assert legal(state) == ["choice:2", "choice:3"]  # red or green
    state.apply("choice:3")
    settle(state)
    assert sorted(g["palace"]) == ["red", "red"] and "green" in gems.possessed(state, 0)
    run(state, T("stair_move", p=0, w="palace", n=1))
    settle(state)
    assert len(g["palace"]) == 2  # only once
    state.players[1].mosque = 8
    run(state, T("stair_move", p=1, w="mosque", n=1))
    while state.stack and state.stack[-1].get("k") != "gems_pick":
        state.apply(state.legal_actions()[0])
    assert state.stack[-1]["src"] == "mosque"
    settle(state)
    assert len(g["mosque"]) == 2
    check(state)


def test_connection_line_of_the_third_sections_gives_one_extra_gem_once():
    state = blank(2, GEMS)
    g = state.ext["gems"]
    pl = state.players[0]
    pl.mosque, pl.palace = 6, 5  # mosque in segment 2; the palace enters segment 2
    run(state, T("stair_move", p=0, w="palace", n=1))
    assert state.stack[-1]["k"] in ("connection", "gems_place")
    assert len(g["connection"]) == 1 and "connection" in gems.mine(state, 0)["got"]
    settle(state)
    assert len(gems.possessed(state, 0)) == 1
    gems.Gems().reached(state, 0, "connection", [2, 2])  # another crossing of the line
    assert len(g["connection"]) == 1
    state.stack = []
    gems.Gems().reached(state, 1, "connection", [1, 2])  # another line: nothing
    assert len(g["connection"]) == 1 and not state.stack
    check(state)


def test_audience_disc_gems_top_first_then_the_other():
    state = blank(2, GEMS)
    pl = state.players[0]
    me = gems.mine(state, 0)
    section = me["disc"][0]
    bottom, top = me["disc"][1]
    pl.disc = 0
    pl.square[section] = pl.square[(section + 1) % 8] = True
    pl.keshis["pink"] += 2
    state.issued["pink"] += 2
    for k, space in enumerate((section, (section + 1) % 8, section)):
        run(state, ask("square_space", 0))
        state.apply(f"slot:{space}")
        settle(state)
        if k == 0:
            assert me["disc"][1] == [bottom] and top in gems.possessed(state, 0)
        if k == 1:
            assert me["disc"][1] == [bottom]  # another section: nothing
    assert me["disc"][1] == [] and Counter(gems.possessed(state, 0)) == Counter([top, bottom])
    check(state)


def test_player_board_sites():
    state = blank(2, GEMS)
    pl = state.players[0]
    sites = gems.mine(state, 0)["sites"]
    # Medina: a gate with its guard on the gate space of the gem.
    give(state, 0, "beige")
    run(state, ask("gate_space", 0, c="green"))
    state.apply("slot:7")
    assert sites["gate"] is None
    settle(state)
    # Date orchard: the 4th and the 7th date picker; not again after giving one up.
    give(state, 0, "green", 3)
    assert sites["orchard_a"] is not None
    run(state, T("deploy", p=0, c="green", src="supply"))
    assert sites["orchard_a"] is None and sites["orchard_b"] is not None
    settle(state)
    pl.keshis["green"] -= 1
    state.issued["green"] -= 1
    found = len(gems.possessed(state, 0))
    run(state, T("deploy", p=0, c="green", src="supply"))
    settle(state)
    assert len(gems.possessed(state, 0)) == found
    # Sahara: the last oasis of the left path (space 4) when it is discovered.
    pl.revealed[2] = True  # discovered by another rule: found at the turn's end
    run(state, T("gems_turn_end", p=0))
    assert sites["sahara_a"] is None and sites["sahara_b"] is not None
    settle(state)
    # Oasis track: the activated oasis that takes the 4th bonus space.
    for k in range(4):
        claim_oasis(state, 0, pl.oases[k])
        state.stack = [x for x in state.stack if x.get("t") == "gems_receive"]
        assert (sites["track"] is None) == (k == 3)
    settle(state)
    check(state)


def test_sahara_discovery_through_the_core():
    state = blank(2, GEMS)
    pl = state.players[0]
    pl.sahara[0] = pl.sahara[1] = True
    pl.sahara[5] = True
    pl.keshis["brown"] = 3
    state.issued["brown"] += 3
    run(state, ask("place_brown", 0, src="supply"))
    assert "slot:6" in legal(state)
    state.apply("slot:6")
    assert gems.mine(state, 0)["sites"]["sahara_b"] is None
    settle(state)
    check(state)


# -- the gem dealer ---------------------------------------------------------------------
def souk(state, p: int = 0) -> None:
    """A souk action: pass the core's souk, so that the gem dealer comes up."""
    run(state, T("action", p=p, s="souk"))
    if state.stack and state.stack[-1].get("k") == "souk":
        state.apply("pass")


def test_selling_one_gem_for_two_dinars_on_sale_from_the_turns_end():
    state = blank(2, GEMS)
    g = state.ext["gems"]
    g["supply"] += g["dealer"]
    g["dealer"] = []
    me = gems.mine(state, 0)
    me["loose"] = [take(state, "green")]
    dinars = state.players[0].dinars
    souk(state)
    assert legal(state) == ["pass", "choice:3"]  # sell the green gem; nothing to buy
    state.apply("choice:3")
    assert state.players[0].dinars == dinars + 2 and g["pending"] == ["green"]
    assert g["dealer"] == [] and not state.stack  # not on sale yet
    me["loose"] = [take(state, "green")]
    souk(state)  # a second souk assistant: no second sale this turn
    assert not state.stack or state.stack[-1]["k"] != "gems_souk"
    run(state, T("gems_turn_end", p=0))
    assert g["dealer"] == ["green"] and g["pending"] == []
    check(state)


def test_selling_two_gems_of_a_colour_for_a_keshi():
    state = blank(2, GEMS)
    me = gems.mine(state, 0)
    pl = state.players[0]
    me["loose"] = [take(state, "blue"), take(state, "blue")]
    souk(state)
    assert "choice:6" in legal(state)  # 2 blue gems
    state.apply("choice:6")
    settle(state)
    assert pl.keshis["turquoise"] == 1 and me["loose"] == []
    run(state, T("gems_turn_start", p=0))
    me["loose"] = [take(state, "yellow"), take(state, "yellow")]
    souk(state)
    state.apply("choice:5")  # 2 yellow gems: 2 goods keshis of different colours
    assert legal(state) == ["choice:0", "choice:1", "choice:2"]
    state.apply("choice:2")  # purple and orange
    settle(state)
    assert (pl.keshis["purple"], pl.keshis["orange"], pl.keshis["yellow"]) == (1, 1, 0)
    check(state)


def test_buying_one_gem_with_dinars_or_two_goods_keshis_once_per_turn():
    state = blank(2, GEMS)
    g = state.ext["gems"]
    g["supply"] += g["dealer"]
    g["dealer"] = [take(state, "red"), take(state, "green")]
    pl = state.players[0]
    pl.dinars = 2
    souk(state)
    assert not state.stack  # 2 dinars, no goods keshis: nothing to buy
    pl.dinars = 3
    give(state, 0, "orange", 2)
    souk(state)
    assert legal(state) == ["pass", "choice:12", "choice:13"]
    state.apply("choice:12")  # red
    assert legal(state) == ["choice:0", "choice:3"]  # 3 dinars or 2 orange keshis
    state.apply("choice:3")
    settle(state)
    assert pl.keshis["orange"] == 0 and pl.dinars == 3 and g["dealer"] == ["green"]
    assert gems.mine(state, 0)["necklace"][2] == "red"  # placed on the necklace
    souk(state)
    assert not state.stack  # one purchase per turn
    run(state, T("gems_turn_start", p=0))
    souk(state)
    state.apply("choice:13")  # green; 3 dinars is the only way to pay now
    settle(state)
    assert pl.dinars == 0 and g["dealer"] == []
    check(state)


# -- effects ----------------------------------------------------------------------------
def test_scrolls_73_to_76():
    state = blank(2, GEMS)
    comps = state.game.components
    g = state.ext["gems"]
    supply = len(g["supply"])
    run_effects(state, 0, comps.scrolls[75]["effect"], "scroll 75")
    advance(state)
    settle(state)
    assert len(g["supply"]) == supply - 2 and len(gems.possessed(state, 0)) == 2
    # 76: 1 from the supply, 1 chosen from the dealer, a trade of a loose gem.
    gems.mine(state, 0)["loose"].append(take(state, "orange"))
    dealer = list(g["dealer"])
    state.stack = []
    run_effects(state, 0, comps.scrolls[76]["effect"], "scroll 76")
    advance(state)
    while state.stack[-1].get("k") != "gems_pick":
        state.apply(state.legal_actions()[0])
    assert len(legal(state)) == len(set(dealer))
    state.apply(state.legal_actions()[0])
    while state.stack and state.stack[-1].get("k") != "gems_trade":
        state.apply(state.legal_actions()[0])
    assert legal(state)[0] == "pass" and "choice:4" in legal(state)  # the orange gem
    state.apply("choice:4")
    assert g["pending"] == ["orange"]
    settle(state)
    check(state)


def test_alms_gem_search_is_offered_only_with_gems():
    from test_alms import at_souk

    for modules, offered in ((("alms",), False), (("alms", "gems"), True)):
        state = blank(2, modules)
        give(state, 0, "yellow", 3)
        at_souk(state, 11)  # lower: 3 goods keshis -> search for a gem (Gems only)
        assert ("choice:1" in legal(state)) == offered
    state.apply("choice:1")
    while state.stack[-1].get("k") != "gems_pick":
        state.apply(state.legal_actions()[0])
    assert state.stack[-1]["src"] == "supply" and "choice:4" in legal(state)
    oranges = Counter(state.ext["gems"]["supply"])["orange"]
    state.apply("choice:4")  # any gem: an orange one
    assert Counter(state.ext["gems"]["supply"])["orange"] == oranges - 1
    settle(state)
    assert "orange" in gems.possessed(state, 0)
    check(state)


def test_madrasa_scroll_05_draws_a_gem_only_with_gems():
    plain = blank(2, ("closed_madrasa",))
    assert closed_madrasa._effect(plain, 5) == [{"op": "points", "n": 2}]
    state = blank(2, ("closed_madrasa", "gems"))
    effect = closed_madrasa._effect(state, 5)
    run_effects(state, 0, effect, "scroll 05")
    advance(state)
    assert legal(state) == ["choice:0", "choice:1"]
    supply = len(state.ext["gems"]["supply"])
    state.apply("choice:1")
    settle(state)
    assert len(state.ext["gems"]["supply"]) == supply - 1 and gems.possessed(state, 0)
    check(state)


@pytest.mark.parametrize(
    ("placed", "loose", "owned", "colours"),
    [
        ({}, [], 0, 0),
        ({1: "blue", 5: "blue"}, ["orange"], 3, 4),
        ({}, ["yellow"] * 6 + ["blue"] * 6 + ["red"] * 5, 15, 6),  # 17 gems: at most 15
    ],
)
def test_oases_printed_39_and_40(placed, loose, owned, colours):
    state = blank(2, GEMS)
    necklace(state, 0, placed)
    gems.mine(state, 0)["loose"] = [take(state, c) for c in loose]
    assert oasis_value(state, 0, 43) == owned
    assert oasis_value(state, 0, 44) == colours


# -- checks -----------------------------------------------------------------------------
def test_invariant_catches_a_lost_or_misplaced_gem():
    state = blank(2, GEMS)
    check(state)
    state.ext["gems"]["supply"].pop()
    with pytest.raises(AssertionError, match="gems lost"):
        check(state)
    state = blank(2, GEMS)
    necklace(state, 0, {1: "blue"})
    gems.mine(state, 0)["necklace"][1] = "red"
    state.ext["gems"]["supply"].remove("red")
    state.ext["gems"]["supply"].append("blue")
    with pytest.raises(AssertionError, match="red gem on blue space"):
        check(state)


def test_bad_data_names_the_field(tmp_path):
    text = (DATA / "gems.toml").read_text(encoding="utf-8")
    bad = tmp_path / "gems.toml"
    refused(
        gems.data,
        bad,
        text.replace('"orange", "yellow"]', '"purple", "yellow"]'),
        r"necklace\.colours",
    )
    refused(gems.data, bad, text.replace("line = [12, 13]", "line = [0, 13]"), "bonus 10")


@sequences_with("gems")
def test_hypothesis_action_sequences_with_gems(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


def test_json_and_replay_exact_with_gems():
    game = Game(GameConfig(players=3, modules=frozenset(GEMS)))
    round_trip(game, 3, 3, lambda s: s.current_player >= 0 and s.stack[-1].get("k") == "gems_souk")


def test_whole_games_keep_every_gem():
    """Random whole games with gems and every compatible module: invariants after every
    action (gems conserved), and gems actually found and traded."""
    import random

    from tower.marrakesh.hooks import maximal_sets

    seen: Counter[str] = Counter()
    for k, mods in enumerate(maximal_sets(4)):
        assert "gems" in mods
        state = Game(GameConfig(players=4, modules=mods)).new_initial_state(k)
        rng = random.Random(k)
        while not state.is_terminal():
            if state.is_chance_node():
                state.sample_chance()
                continue
            if state.stack[-1].get("k", "").startswith("gems"):
                seen[state.stack[-1]["k"]] += 1
            state.apply(rng.choice(state.legal_actions()))
            check(state)
    assert seen["gems_place"] > 0 and seen["gems_souk"] > 0


#: Every Gems & Experts module but the Second-Hand Shop (it excludes the Closed Madrasa).
GEMS_EXPERTS = ("alms", "closed_madrasa", "experts", "gems", "gifts", "statuettes")


def test_openspiel_with_gems_and_experts():
    openspiel_sim("+".join(GEMS_EXPERTS))


def test_pettingzoo_with_gems_and_experts():
    pettingzoo_api(GEMS_EXPERTS)


def test_madrasa_scroll_19_returns_gems_too():
    """Scroll 19: "2 points for each resource that you return to the supply (incl. gems)",
    12 at most: with Gems, loose gems after the resources, within the same 12."""
    state = blank(2, ("closed_madrasa", "gems"))
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 5, 5, 0
    me = gems.mine(state, 0)
    me["loose"] = [take(state, "red"), take(state, "red"), take(state, "green")]
    supply = len(state.ext["gems"]["supply"])
    points = pl.score
    run_effects(state, 0, closed_madrasa._effect(state, 19), "scroll 19")
    advance(state)
    state.apply("number:5")  # water
    state.apply("number:5")  # dates; no dinars to give: 2 left for gems
    assert legal(state) == ["pass", "choice:2", "choice:3"]
    state.apply("choice:3")
    state.apply("choice:2")
    assert not state.stack  # 12 returned
    assert pl.score == points + 24 and me["loose"] == ["red"]
    assert len(state.ext["gems"]["supply"]) == supply + 2
    check(state)
    plain = blank(2, ("closed_madrasa",))
    assert closed_madrasa._effect(plain, 19)[0].get("then") is None


def test_with_walls_and_guards_no_track_gem_and_explored_paths_give_the_sahara_gems():
    state = blank(2, ("gems", "walls_guards"))
    sites = gems.mine(state, 0)["sites"]
    assert sites["track"] is None and sites["sahara_a"] is not None
    assert sum(gems.everywhere(state).values()) == 56
    state.players[0].explored[2] = True  # path space 4 explored (its brick tile)
    run(state, T("gems_turn_end", p=0))
    settle(state)
    assert sites["sahara_a"] is None and len(gems.possessed(state, 0)) == 1
    check(state)


def test_disc_gems_with_the_spectators_side_of_the_disc():
    """Expansion 4 turns the disc to its purple side: other sections show 1 spectator."""
    state = Game(
        GameConfig(players=2, modules=frozenset({"gems", "spectators"}))
    ).new_initial_state(0)
    assert gems.one_spectator_sections(state, 0) == [2, 5]


def test_alms_worker_keshis_with_walls_and_guards_leave_the_orchard_only():
    """Alms tile 10 (Gems only): "pay 3 worker keshis". With Walls & Guards a date picker
    in the sahara cannot be given up; one in the date orchard can."""
    from test_alms import at_souk

    state = blank(2, ("alms", "gems", "walls_guards"))
    pl = state.players[0]
    give(state, 0, "gray", 2)
    give(state, 0, "green", 1)
    pl.sahara_green = [2]  # that date picker stands in the sahara
    pl.sahara[2] = True
    at_souk(state, 10)  # lower: 3 worker keshis -> 2 gems
    assert "choice:1" not in legal(state)  # 2 gray + 0 in the orchard: too few
    give(state, 0, "green", 1)  # a date picker in the orchard
    state.stack = []
    at_souk(state, 10)
    state.apply("choice:1")
    while state.stack[-1].get("k") != "alms_keshi":
        state.apply(state.legal_actions()[0])
    assert legal(state) == ["colour:green", "colour:gray"]
    state.apply("colour:green")
    assert pl.keshis["green"] == 1 and pl.sahara_green == [2]  # the orchard's one left
    settle(state)
    check(state)


def test_a_new_river_gem_at_the_start_of_seasons_2_and_3_only():
    state = blank(2, GEMS)
    steps = [n for n, _ in state.game.hooks.season]
    assert steps.index("gems_river") > steps.index("prepare")  # after "next_season"
    for season, tasks in ((1, 1), (2, 1), (3, 0)):
        state.season = season
        assert len(gems.season_tasks(state)) == tasks


def test_season_scoring_leaves_a_river_gem_for_the_first_round_of_season_2():
    """Seed 003, Gems: "Draw now and at the beginning of the further seasons exactly 1 gem
    and place it face-up on the 9th space", played through the season scoring: the gem
    lies there when season 2's first selection begins."""
    state = blank(2, GEMS)
    g = state.ext["gems"]
    g["supply"] += g["river"]  # season 1's river gem was taken back
    g["river"] = []
    season_scoring(state)
    assert (state.season, state.round) == (2, 1)
    assert len(g["river"]) == 1
    check(state)
