"""Edicts (Walls & Guards) in the Marrakesh engine.

The rulebook's example, played through the engine: Jan (red) moves 2 steps on the mosque
staircase to step 13; the Imam edicts are revealed and Jan chooses first, then Sarah
(:func:`test_rulebook_example_jan_reaches_step_13_and_chooses_first`). The rules text is
checked the same way: the number of edicts per player count, the two thresholds, the
fallback after season 2's scoring, both selection orders with their tie-breaks, the
choice between the instant and the end bonus, rounding down and the maxima, and the end
bonuses scored before every other final scoring step.
"""

from __future__ import annotations

import pytest
from marrakesh_checks import (
    act,
    after_setup,
    legal_sequence,
    refused,
    round_trip,
    run_only,
    sequences_with,
)

from tower.marrakesh import Game, GameConfig, IllegalActionError, State, module_data, play
from tower.marrakesh.agents import RandomAgent
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import edicts
from tower.marrakesh.rules import T, advance

ED = frozenset({"edicts"})


def ed_state(players: int = 2, modules: frozenset[str] = ED, seed: int = 0) -> State:
    """A game with edicts after its setup decisions (first option each)."""
    return after_setup(players, modules, seed)


def top(state: State) -> tuple[str, int]:
    return state.stack[-1]["k"], state.stack[-1]["p"]


# -- the rulebook's example -------------------------------------------------------------
def test_rulebook_example_jan_reaches_step_13_and_chooses_first():
    state = ed_state(players=2)
    jan, sarah = 0, 1
    state.start = sarah  # Jan is not first in turn order: the staircase decides
    state.players[jan].mosque = 11
    state.players[sarah].mosque = 8
    m = edicts.mine(state)
    assert len(m["stacks"]["imam"]) == 3 and m["handed"] == []
    run_only(state, T("stair", p=jan, w="mosque", n=2), T("end_turn", p=jan))
    assert state.players[jan].mosque == 13
    # Jan's move ends with the bonus of the threshold he crossed (step 12); the Imam
    # edicts are due and revealed right after, before the rest of his turn.
    assert m["handed"] == ["imam"] and m["display"] == []
    while top(state)[0] != "edict_pick":
        assert top(state)[1] == jan
        act(state, str(state.legal_actions()[0]))
    assert len(m["display"]) == 3
    assert top(state) == ("edict_pick", jan)
    first = m["display"][0]
    act(state, "choice:0")
    assert top(state) == ("edict_use", jan)
    act(state, "choice:1")  # kept for the end of the game
    assert m["held"][jan] == [[first, "end"]]
    assert top(state) == ("edict_pick", sarah)
    second = m["display"][1]
    act(state, "choice:1")
    act(state, "choice:1")
    assert m["held"][sarah] == [[second, "end"]]
    # The remaining edict goes back to the box; Jan's turn goes on.
    assert m["display"] == [] and m["busy"] == "" and len(m["box"]) == 12 - 3 - 3 + 1
    assert [x["t"] for x in state.stack] == ["end_turn"] or state.is_terminal()


# -- setup and thresholds ---------------------------------------------------------------
@pytest.mark.parametrize("players,drawn", [(2, 3), (3, 4), (4, 5)])
def test_edicts_drawn_per_player_count(players, drawn):
    m = edicts.mine(ed_state(players=players))
    assert {s: len(m["stacks"][s]) for s in edicts.STACKS} == {"imam": drawn, "sultan": drawn}
    data = edicts.load()["edicts"]
    assert all(data[e]["stack"] == s for s in edicts.STACKS for e in m["stacks"][s])
    assert len(m["box"]) == 12 - 2 * drawn


def test_imam_threshold_is_the_12th_step_not_the_11th():
    state = ed_state(players=3)
    state.players[2].mosque = 10
    run_only(state, T("stair", p=2, w="mosque", n=1))
    assert edicts.mine(state)["handed"] == []
    state.players[2].mosque = 11
    run_only(state, T("stair", p=2, w="mosque", n=1))
    assert edicts.mine(state)["handed"] == ["imam"]


def test_sultan_threshold_is_50_points():
    state = ed_state(players=3)
    state.players[1].score = 45
    state.score_events.append([1, 35, "test"])
    run_only(state, T("fx", p=1, e={"op": "points", "n": 4}), T("end_turn", p=1))
    assert edicts.mine(state)["handed"] == []
    run_only(state, T("fx", p=1, e={"op": "points", "n": 1}), T("end_turn", p=1))
    assert edicts.mine(state)["handed"] == ["sultan"]
    check(state)


def test_a_threshold_reached_during_a_selection_is_handed_out_right_after_it():
    state = ed_state(players=2)
    state.players[0].mosque = 12
    state.players[0].score = 48
    state.score_events.append([0, 38, "test"])
    state.start = 0
    _offer(state, "imam", [8, 10, 12])
    m = edicts.mine(state)
    m["stacks"]["sultan"] = [1, 2, 3]
    m["box"] = [e for e in m["box"] if e not in (1, 2, 3)]
    assert top(state) == ("edict_pick", 0)
    act(state, "choice:1")  # edict 10
    act(state, "choice:0")  # now: a water vendor and 2 points: 50 points
    while state.stack[-1]["k"] == "place_red":
        act(state, str(state.legal_actions()[0]))
    assert state.players[0].score == 50
    assert m["busy"] == "imam" and m["handed"] == ["imam"]  # the imam selection goes on
    while m["busy"] == "imam":
        act(state, str(state.legal_actions()[0]))
    assert m["busy"] == "sultan" and m["handed"] == ["imam", "sultan"]


def test_fallback_after_season_two_hands_out_what_is_left_imam_first():
    state = ed_state(players=2)
    assert edicts.season_tasks(state) == []  # season 1: nothing
    state.season = 2
    run_only(state, *edicts.season_tasks(state))
    m = edicts.mine(state)
    assert m["busy"] == "imam" and m["stacks"]["sultan"]  # the sultan's edicts wait
    while state.stack:
        act(state, "choice:0" if state.stack[-1]["k"] == "edict_pick" else "choice:1")
    assert m["handed"] == ["imam", "sultan"]
    assert all(len(h) == 2 for h in m["held"])
    assert sorted(edicts.load()["edicts"][e]["stack"] for e, _ in m["held"][0]) == [
        "imam",
        "sultan",
    ]


def test_fallback_skips_a_stack_already_handed_out():
    state = ed_state(players=2)
    state.season = 2
    edicts.mine(state)["handed"] = ["sultan"]
    edicts.mine(state)["box"] += edicts.mine(state)["stacks"]["sultan"]
    edicts.mine(state)["stacks"]["sultan"] = []
    run_only(state, *edicts.season_tasks(state))
    assert edicts.mine(state)["busy"] == "imam"


# -- the selection order ----------------------------------------------------------------
def test_imam_order_mosque_then_palace_then_turn_order():
    state = ed_state(players=4)
    state.start = 2  # turn order 2, 3, 0, 1
    for p, (mosque, palace) in enumerate([(9, 3), (12, 0), (9, 3), (9, 5)]):
        state.players[p].mosque, state.players[p].palace = mosque, palace
    # 1 is highest; 3 leads the tie on the palace; 2 before 0 in the turn order.
    assert edicts.selection_order(state, "imam") == [1, 3, 2, 0]


def test_sultan_order_fewest_points_first_ties_later_in_turn_order_first():
    state = ed_state(players=4)
    state.start = 0
    for p, pts in enumerate([50, 20, 20, 30]):
        state.players[p].score = pts
    assert edicts.selection_order(state, "sultan") == [2, 1, 3, 0]
    state.start = 2  # turn order 2, 3, 0, 1: now 1 is further back than 2
    assert edicts.selection_order(state, "sultan") == [1, 2, 3, 0]


# -- now or later -----------------------------------------------------------------------
def _offer(state: State, which: str, ids: list[int]) -> None:
    m = edicts.mine(state)
    m["box"] = sorted(set(range(1, 13)) - set(ids))
    m["stacks"] = {s: [] for s in edicts.STACKS}
    m["stacks"][which] = list(ids)
    state.stack = [T("end_turn", p=0)]  # the turn goes on after the selection
    edicts.announce(state, [which])
    advance(state)


def test_instant_bonus_now_and_the_choice_cannot_change():
    state = ed_state(players=2)
    state.players[0].score = state.players[1].score = 10
    state.start = 0  # sultan order: tie, player 1 (further back) first
    _offer(state, "sultan", [1, 4, 5])
    assert top(state) == ("edict_pick", 1)
    act(state, "choice:0")  # edict 01
    before = state.players[1].palace
    act(state, "choice:0")  # instant: 5 steps on the palace staircase
    while state.stack and state.stack[-1]["p"] == 1:  # threshold bonuses of the 5 steps
        act(state, str(state.legal_actions()[0]))
    assert state.players[1].palace == before + 5
    assert edicts.mine(state)["held"][1] == [[1, "instant"]]
    # The edict used now scores nothing at the end.
    edicts.Edicts().final_scoring(state, 1)
    assert not any("edict" in why for _, _, why in state.score_events)


def test_end_bonus_rounded_down_and_capped():
    state = ed_state(players=2)
    pl = state.players[0]
    m = edicts.mine(state)
    m["held"][0] = [[1, "end"], [5, "end"]]
    pl.palace, pl.water, pl.dates, pl.dinars, pl.wood = 7, 3, 2, 1, 1  # 7 resources
    before = pl.score
    edicts.Edicts().final_scoring(state, 0)
    assert pl.score - before == 7 // 2 + 7 // 3
    m["held"][0] = [[5, "end"]]
    pl.water = 30
    before = pl.score
    edicts.Edicts().final_scoring(state, 0)
    assert pl.score - before == 8  # edict 05: at most 8 points


def test_edicts_02_and_09_count_edicts_as_scrolls_others_do_not():
    state = ed_state(players=2)
    pl = state.players[0]
    pl.scrolls = [1, 22]
    m = edicts.mine(state)
    m["held"][0] = [[2, "end"], [9, "instant"]]
    before = pl.score
    edicts.Edicts().final_scoring(state, 0)
    assert pl.score - before == 4  # 2 scrolls + 2 edicts
    assert len(pl.scrolls) == 2  # edicts never join the scrolls


def test_edict_02_instant_pink_scroll_without_dates():
    state = ed_state(players=2)
    pl = state.players[0]
    pl.dates = 0
    run_only(state, T("fx", p=0, e={"op": "special", "name": "free_scroll", "colour": "pink"}))
    legal = [str(a) for a in state.legal_actions()]
    assert "pass" in legal and all(a == "pass" or a.startswith("scroll:pink") for a in legal)
    stack = next(a for a in state.legal_actions() if a.kind == "scroll")
    sid = state.stacks[stack.arg][-1]
    act(state, str(stack))
    assert pl.scrolls[-1] == sid and pl.dates == 0


def test_edict_03_instant_keshi_of_any_colour_but_the_goods():
    state = ed_state(players=2)
    run_only(state, T("fx", p=0, e={"op": "special", "name": "keshi_not_goods"}))
    colours = {a.split(":")[1] for a in map(str, state.legal_actions())}
    assert colours.isdisjoint({"yellow", "purple", "orange"}) and len(colours) == 9
    gray = state.players[0].keshis["gray"]
    act(state, "colour:gray")
    assert state.players[0].keshis["gray"] == gray + 1


def end_of_game(state: State) -> list[str]:
    """Play the third season's scoring and the final scoring (first option at every
    decision); the score reasons of player 0 from then on."""
    state.season, state.round = 3, 4
    start = len(state.score_events)
    run_only(state, T("season_end"))
    while not state.is_terminal():
        act(state, str(state.legal_actions()[0]))
    return [why for p, _, why in state.score_events[start:] if p == 0]


def test_end_bonuses_are_scored_before_every_other_final_step():
    state = ed_state(players=2)
    edicts.mine(state)["held"][0] = [[5, "end"]]
    edicts.mine(state)["handed"] = list(edicts.STACKS)
    state.players[0].water = 9
    finals = [r for r in end_of_game(state) if r.startswith("final")]
    assert finals[0] == "final: edict 5" and finals[-1] == "final: resources and goods"


# -- illegal actions, JSON, random play -------------------------------------------------
def test_illegal_edict_choice_changes_nothing():
    state = ed_state(players=3)
    _offer(state, "imam", [7, 8, 9, 10])
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="edict_pick"):
        state.apply("choice:4")
    with pytest.raises(IllegalActionError):
        state.apply("colour:red")
    assert state.to_json() == before


def test_bad_edict_file_is_refused(tmp_path):
    text = (module_data.DATA / "edicts.toml").read_text()
    bad = tmp_path / "edicts.toml"
    refused(
        edicts.load,
        bad,
        text.replace('stack = "imam"\ninstant', 'stack = "vizier"\ninstant', 1),
        "edict 7",
    )
    refused(edicts.load, bad, text.replace('count = "mosque"', 'count = "camels"'), r"edict 3\.end")
    refused(
        edicts.load,
        bad,
        text.replace("imam_step = 12\n", ""),
        "missing or malformed entry: 'imam_step'",
    )
    refused(edicts.load, bad, text.replace("schema = 1", "schema = 2"), "schema must be 1")


def test_json_round_trip_during_a_selection_and_replay():
    game = Game(GameConfig(players=3, modules=ED | {"walls_guards"}))
    picking = ("edict_pick", "edict_use")
    round_trip(game, 9, 4, lambda s: s.stack[-1].get("k") in picking)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_hand_out_both_stacks(players):
    game = Game(GameConfig(players=players, modules=ED))
    for seed in range(2):
        final = play(game, [RandomAgent(seed + 5 * k) for k in range(players)], seed, check)
        m = edicts.mine(final)
        assert sorted(m["handed"]) == ["imam", "sultan"]
        assert all(len(h) == 2 for h in m["held"])


@sequences_with("edicts")
def test_hypothesis_action_sequences_with_edicts(seed, players, modules, picks):
    """Legal choices keep every invariant, an illegal one changes nothing, JSON is exact."""
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


def test_terminal_board_shows_the_open_edicts_and_what_each_choice_means():
    from tower.marrakesh.ui import format_options, render

    state = ed_state(players=2)
    _offer(state, "sultan", [1, 4, 5])
    m = edicts.mine(state)
    m["stacks"]["imam"] = [7, 8, 9]
    m["box"] = [e for e in m["box"] if e not in (7, 8, 9)]
    menu = format_options(state.describe_actions())
    assert (
        "2) pick the sultan edict (now: 1 goods keshi of one colour, 1 goods keshi of one" in menu
    )
    act(state, "choice:2")
    menu = format_options(state.describe_actions())
    assert "1) use its bonus now" in menu and "2) keep it for its bonus at the end" in menu
    assert "Edicts: waiting imam (3 face down)" in render(state, state.current_player)


@pytest.mark.parametrize(
    ("edict", "instant", "end"),
    [
        # 01: "5 steps on the white palace staircase" / "1 point for every 2 steps ... palace"
        (1, [{"op": "stair", "which": "palace", "n": 5}], {"count": "palace", "per": 2}),
        # 02: "1 pink scroll (no date cost ...)" / "1 point for each ... scrolls (incl. edicts)"
        (
            2,
            [{"op": "special", "name": "free_scroll", "colour": "pink"}],
            {"count": "scrolls_and_edicts", "per": 1},
        ),
        # 03: "1 keshi of your choice (except orange/yellow/purple)" / "every 2 steps ... mosque"
        (3, [{"op": "special", "name": "keshi_not_goods"}], {"count": "mosque", "per": 2}),
        # 04: "2 goods keshis of your choice" / "1 point for each ... luxury goods. Maximum 8"
        (
            4,
            [{"op": "keshi", "colour": "goods", "n": 1}] * 2,
            {"count": "luxuries", "per": 1, "max": 8},
        ),
        # 05: "4 resources of your choice" / "1 point for every 3 resources ... Maximum 8"
        (5, [{"op": "resource", "n": 4}], {"count": "resources", "per": 3, "max": 8}),
    ],
)
def test_the_printed_edicts(edict, instant, end):
    """Edicts, "The Edicts": edicts 01-05 as printed (06-12 are not in the text)."""
    entry = edicts.load()["edicts"][edict]
    assert entry["instant"] == instant and entry["end"] == end
    assert entry["source"] == "rulebook"
