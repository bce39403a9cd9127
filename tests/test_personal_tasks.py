"""Personal Tasks (Walls & Guards) in the Marrakesh engine.

The rulebook gives no worked example with numbers; its rules are checked one by one
through the engine: 2 secret cards per player, cards needing a module not in play are
replaced (Camels and Nomads are never in play, brick tiles and wood need Walls & Guards),
the decision after season 2's scoring with the colour markers, the reward tables
(1/3/7/13/21/32 for the kept card, 1/3/7 for another player's open card, never for its
owner), the sector conditions counting the water vendor (and, with Walls & Guards, every
green and brown keshi of the date orchard or the sahara), resources that are shown but
not paid, the landing space reached during season 3, and the scoring order (after the
edicts, before every other final step).
"""

from __future__ import annotations

import json

import pytest
from marrakesh_checks import act, after_setup, legal_sequence, round_trip, run_only, sequences_with

from tower.errors import InputFileError
from tower.marrakesh import (
    ConfigError,
    Game,
    GameConfig,
    IllegalActionError,
    State,
    module_data,
    play,
)
from tower.marrakesh.adapters.views import TensorLayout, view
from tower.marrakesh.agents import RandomAgent
from tower.marrakesh.hooks import maximal_sets
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import personal_tasks as pt
from tower.marrakesh.rules import T

PT = frozenset({"personal_tasks"})


def pt_state(players: int = 3, modules: frozenset[str] = PT, seed: int = 0) -> State:
    """A game with personal tasks after its setup decisions (first option each)."""
    return after_setup(players, modules, seed)


def give_card(state: State, p: int, card: int) -> None:
    """Player ``p`` keeps ``card`` (swapped in from wherever it was)."""
    m = pt.mine(state)
    for pile in [m["deck"], m["discarded"], *m["hands"]]:
        if card in pile:
            pile.remove(card)
    m["discarded"] += m["hands"][p]
    m["hands"][p] = [card]


# -- the cards --------------------------------------------------------------------------
def test_sixteen_cards_of_six_sub_goals_in_the_printed_structure():
    cards = pt.load()["cards"]
    assert sorted(cards) == list(range(1, 17))
    for conds in cards.values():
        kinds = [c["kind"] for c in conds]
        assert kinds[:3] == ["sector_filled", "sector_at_least", "sector_at_most"]
        assert [c["n"] for c in conds[1:3]] == [6, 3]
        assert kinds[5] == "resources"
        assert len({c["sector"] for c in conds[:3]}) == 3


def test_reward_tables():
    assert [pt.points_for(list(range(n)))[0] for n in range(7)] == [0, 1, 3, 7, 13, 21, 32]
    assert [pt.points_for(list(range(n)))[1] for n in range(7)] == [0, 1, 3, 7, 7, 7, 7]


@pytest.mark.parametrize("modules", [PT, PT | {"walls_guards"}, *maximal_sets()])
def test_cards_that_cannot_be_fulfilled_are_replaced(modules):
    cards = pt.load()["cards"]
    for seed in range(30):
        state = Game(GameConfig(players=4, modules=modules)).new_initial_state(seed)
        m = pt.mine(state)
        dealt = [c for h in m["hands"] for c in h]
        assert all(len(h) == 2 for h in m["hands"])
        kinds = {c: {x["kind"] for x in cards[c]} for c in cards}
        for c in dealt:
            assert not kinds[c] & {"nomads", "camel"}  # Nomads, Camels: never in play
            if "walls_guards" not in modules:
                assert "wall_bricks" not in kinds[c] and not cards[c][5].get("wood")
            elif "gems" not in modules:
                assert c not in (10, 16)  # 8 gems OR 4 activated oases: neither possible
        assert all(not pt.possible(cards[c], state.game.config.modules) for c in m["discarded"])


def test_a_configuration_without_enough_possible_cards_is_refused(monkeypatch):
    cards = dict(pt.load()["cards"])
    for cid in range(1, 11):  # 1-10 now need the Camels, 13 needs Walls & Guards: 5 left
        cards[cid] = [*cards[cid][:4], {"kind": "camel", "n": 20}, cards[cid][5]]
    monkeypatch.setitem(pt.load(), "cards", cards)
    GameConfig(players=2, modules=PT)
    with pytest.raises(ConfigError, match=r"only 5 order cards .* 6 needed"):
        GameConfig(players=3, modules=PT)


def test_with_walls_guards_green_and_brown_keshis_count_where_they_stand():
    state = pt_state(players=2, modules=PT | {"walls_guards"})
    pl = state.players[0]
    # 3 date pickers and 2 caravan keshis in the date orchard, 1 date picker in the sahara.
    pl.keshis["green"], pl.keshis["brown"] = 4, 2
    pl.orchard_brown = 2
    pl.sahara[0] = True
    pl.sahara_green = [0]
    pl.vendors["green"] = 1
    assert pt.sector_count(state, 0, "green") == 3 + 2 + 1
    assert pt.sector_count(state, 0, "brown") == 1
    plain = pt_state(players=2)
    plain.players[0].keshis["green"] = 4
    assert pt.sector_count(plain, 0, "green") == 4


# -- the decision after season 2 --------------------------------------------------------
def test_decision_after_season_two_keeps_one_card_and_lays_the_other_open():
    state = pt_state(players=3)
    m = pt.mine(state)
    hands = [list(h) for h in m["hands"]]
    assert pt.season_tasks(state) == []  # season 1: no decision
    state.season = 2
    state.start = 1
    run_only(state, *pt.season_tasks(state))
    assert state.stack[-1]["k"] == "task_keep" and state.stack[-1]["p"] == 1
    act(state, "choice:1")
    # Player 1's choice stays hidden from the others until everyone has chosen.
    assert "personal_tasks" not in view(state, 2)["players"][1]
    assert view(state, 1)["players"][1]["personal_tasks"]["chosen"] == 1
    assert m["open"] == []
    act(state, "choice:0")  # player 2
    act(state, "choice:0")  # player 0
    assert m["hands"] == [[hands[0][0]], [hands[1][1]], [hands[2][0]]]
    assert sorted(m["open"]) == sorted([[hands[0][1], 0], [hands[1][0], 1], [hands[2][1], 2]])


def test_own_cards_are_secret_open_cards_are_not():
    state = pt_state(players=3)
    v = view(state, 0)
    own = v["players"][0]["personal_tasks"]
    assert own["hand"] == pt.mine(state)["hands"][0]
    assert v["personal_tasks"]["hand_sizes"] == [2, 2, 2]
    assert all("personal_tasks" not in v["players"][i] for i in (1, 2))
    assert "personal_tasks" not in json.dumps(v["players"][1:])
    layout = TensorLayout(state.game)
    assert layout.size == len(layout.encode(state, 0))
    d = layout.views(layout.encode(state, 0))
    assert sorted(d["personal_tasks.own_hand"].nonzero()[0] + 1) == sorted(own["hand"])
    other = layout.views(layout.encode(state, 1))["personal_tasks.own_hand"]
    assert sorted(other.nonzero()[0] + 1) == sorted(pt.mine(state)["hands"][1])


# -- final scoring ----------------------------------------------------------------------
def test_kept_card_scores_by_conditions_fulfilled_open_card_scores_for_the_others():
    state = pt_state(players=3)
    m = pt.mine(state)
    give_card(state, 0, 11)  # beige filled, black >= 6, gray <= 3, 5 scrolls/3 colours, ...
    give_card(state, 1, 5)
    give_card(state, 2, 6)
    m["open"] = [[4, 1]]  # laid open by player 1
    m["deck"] = [c for c in m["deck"] if c != 4]
    pl = state.players[0]
    pl.keshis["beige"] = 8
    pl.vendors["beige"] = 1  # condition 1: filled
    pl.keshis["black"] = 5
    pl.vendors["black"] = 1  # condition 2: 5 + the water vendor
    pl.keshis["gray"] = 4  # condition 3 broken: 4 > 3
    pl.scrolls = [1, 2, 22, 43, 61]  # condition 4: 5 scrolls of 4 colours
    pl.palace = 14  # condition 5 broken
    pl.water, pl.dates = 3, 1  # condition 6: shown, not paid
    assert pt.card_fulfilled(state, 0, 11) == [0, 1, 3, 5]
    # Open card 4: turquoise filled, pink >= 6, black <= 3 (broken: 6 black), jetty in
    # season 3, 3 scrolls and 3 luxuries, 3 water + 1 dinar.
    pl.luxuries = [1, 6, 11]
    pl.dinars = 1
    assert pt.card_fulfilled(state, 0, 4) == [4, 5]
    state.players[1].luxuries = [2, 7, 12]
    state.players[1].scrolls = [3, 4, 23]
    before = state.scores()
    for p in range(3):
        pt.PersonalTasks().final_scoring(state, p)
    gained = [a - b for a, b in zip(state.scores(), before, strict=True)]
    assert gained[0] == 13 + 3  # 4 of own card; 2 of player 1's open card
    kept1 = len(pt.card_fulfilled(state, 1, 5))
    assert gained[1] == pt.points_for([0] * kept1)[0]  # nothing for their own open card
    assert (pl.water, pl.dates, pl.dinars) == (3, 1, 1)  # resources are kept


def test_landing_space_during_season_three():
    state = pt_state(players=2)
    jetty = {"kind": "jetty_season3"}
    state.players[0].jetty = 1
    state.season = 2
    assert not pt.fulfilled(state, 0, jetty)  # season 2's landing does not count
    run_only(state, T("river_reset"))
    state.season = 3
    assert not pt.fulfilled(state, 0, jetty)  # and the fisherman went back
    state.players[0].jetty = 0
    run_only(state, T("river_reset"))  # season 3's river evaluation leaves him at the jetty
    assert pt.fulfilled(state, 0, jetty) and not pt.fulfilled(state, 1, jetty)


def test_tasks_scored_after_edicts_and_before_the_other_final_steps():
    from test_edicts import end_of_game

    from tower.marrakesh.modules import edicts

    state = pt_state(players=2, modules=PT | {"edicts"})
    edicts.mine(state)["held"][0] = [[5, "end"]]
    edicts.mine(state)["handed"] = list(edicts.STACKS)
    give_card(state, 0, 1)
    give_card(state, 1, 6)
    pl = state.players[0]
    pl.water, pl.dates, pl.dinars = 19, 12, 9  # card 1, condition 6, after the provisions
    reasons = [r for r in end_of_game(state) if r.startswith("final")]
    assert reasons[:2] == ["final: edict 5", "final: personal task 1"]
    assert all("task" not in r and "edict" not in r for r in reasons[2:])
    assert reasons[-1] == "final: resources and goods"


# -- illegal actions, bad data, random play ---------------------------------------------
def test_illegal_keep_choice_changes_nothing():
    state = pt_state(players=2)
    state.season = 2
    run_only(state, *pt.season_tasks(state))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="task_keep"):
        state.apply("choice:2")
    assert state.to_json() == before


def test_bad_card_file_is_refused(tmp_path):
    text = (module_data.DATA / "personal_tasks.toml").read_text()
    bad = tmp_path / "personal_tasks.toml"
    bad.write_text(text.replace('{kind = "jetty_season3"}', '{kind = "camels_race"}', 1))
    with pytest.raises(InputFileError, match=r"card 4\.conditions\[3\]"):
        pt.load(str(bad))
    bad.write_text(text.replace("kept_points = [0, 1, 3, 7, 13, 21, 32]", "kept_points = [1]"))
    with pytest.raises(InputFileError, match="rules"):
        pt.load(str(bad))


def test_json_round_trip_at_the_decision_and_replay():
    game = Game(GameConfig(players=4, modules=PT | {"walls_guards", "edicts"}))

    def half_chosen(state: State) -> bool:  # some players have chosen, some have not
        keep = state.stack[-1].get("k") == "task_keep"
        return keep and any(c >= 0 for c in pt.mine(state)["chosen"])

    round_trip(game, 21, 3, half_chosen)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_score_every_kept_and_open_card(players):
    game = Game(GameConfig(players=players, modules=PT))
    for seed in range(2):
        final = play(game, [RandomAgent(seed + 3 * k) for k in range(players)], seed, check)
        m = pt.mine(final)
        assert all(len(h) == 1 for h in m["hands"]) and len(m["open"]) == players
        kept = [e for e in final.score_events if e[2].startswith("final: personal task")]
        expected = sum(
            pt.points_for(pt.card_fulfilled(final, p, m["hands"][p][0]))[0] > 0
            for p in range(players)
        )
        assert len(kept) == expected


@sequences_with("personal_tasks")
def test_hypothesis_action_sequences_with_personal_tasks(seed, players, modules, picks):
    """Legal choices keep every invariant, an illegal one changes nothing, JSON is exact."""
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


def test_terminal_board_shows_own_cards_only_and_the_choice():
    from tower.marrakesh.ui import format_options, render

    state = pt_state(players=2)
    state.season = 2
    run_only(state, *pt.season_tasks(state))
    p = state.current_player
    own, other = pt.mine(state)["hands"][p], pt.mine(state)["hands"][1 - p]
    text = render(state, p)
    assert all(f"personal task #{c}:" in text for c in own)
    assert not any(f"task #{c}" in text for c in set(other) - set(own))
    assert "personal tasks: 2 secret" in text
    menu = format_options(state.describe_actions(p))
    assert "1) keep the task card: " in menu and "2) keep the task card: " in menu


@pytest.mark.parametrize(("module", "kind"), [("gems", "gems"), ("experts", "experts")])
def test_gems_and_experts_conditions_count_with_their_modules(module, kind):
    """Cards: "at least 8 gems on the necklace board", "at least 3 expert tiles": fulfilled
    with the module on, never without it."""
    from tower.marrakesh.modules.personal_tasks import fulfilled

    n = 8 if kind == "gems" else 3
    cond = {"kind": kind, "n": n}
    plain = Game(GameConfig(players=2, modules=PT)).new_initial_state(0)
    assert not fulfilled(plain, 0, cond)
    state = Game(GameConfig(players=2, modules=PT | {module})).new_initial_state(0)
    mine = state.players[0].ext[module]
    if kind == "gems":
        mine["necklace"][: n - 1] = ["yellow"] * (n - 1)
        assert not fulfilled(state, 0, cond)
        mine["necklace"][n - 1] = "blue"
    else:
        mine["tiles"] += [[1, False], [2, True]]
        assert not fulfilled(state, 0, cond)
        mine["tiles"].append([3, False])
    assert fulfilled(state, 0, cond)


def _ids(table: dict[int, dict], key: str, values: list[str]) -> list[int]:
    """Different ids of ``table`` whose ``key`` is each of ``values`` in turn."""
    out: list[int] = []
    for v in values:
        out.append(next(i for i in sorted(table) if table[i][key] == v and i not in out))
    return out


@pytest.mark.parametrize(
    ("condition", "meet", "miss"),
    [
        # "at least 1 gate of each shown color"
        (
            {"kind": "gates", "colours": ["green", "pink"]},
            {"gates": ["green", "pink"]},
            {"gates": ["green"]},
        ),
        # "at least 15 steps on the black mosque staircase"
        ({"kind": "stair", "which": "mosque", "n": 15}, {"mosque": 15}, {"mosque": 14}),
        # "at least 25 steps in total"
        (
            {"kind": "stairs_total", "n": 25},
            {"mosque": 12, "palace": 13},
            {"mosque": 12, "palace": 12},
        ),
        # "at least 5 scrolls in total; ... of at least 3 different types"
        (
            {"kind": "scrolls", "n": 5, "colours": 3},
            {"scrolls": ["gray"] * 3 + ["pink", "orange"]},
            {"scrolls": ["gray"] * 4 + ["pink"]},
        ),
        # "at least 5 luxury goods in total; ... of at least 3 different types"
        (
            {"kind": "luxuries", "n": 5, "types": 3},
            {"goods": ["necklace"] * 3 + ["dagger", "tajine"]},
            {"goods": ["necklace"] * 4 + ["dagger"]},
        ),
        # "at least 3 scrolls and at least 3 luxury goods"
        (
            {"kind": "scrolls_luxuries", "scrolls": 3, "luxuries": 3},
            {"scrolls": ["gray"] * 3, "goods": ["dagger"] * 3},
            {"scrolls": ["gray"] * 2, "goods": ["dagger"] * 3},
        ),
        # "at least 1 orange scroll and 1 'necklace' luxury good"
        (
            {"kind": "scroll_and_good", "colour": "orange", "good": "necklace"},
            {"scrolls": ["orange"], "goods": ["necklace"]},
            {"scrolls": ["pink"], "goods": ["necklace"]},
        ),
        # "at least 4 luxury goods of the same type"
        (
            {"kind": "luxuries_same", "n": 4},
            {"goods": ["dagger"] * 4},
            {"goods": ["dagger"] * 3 + ["tajine"]},
        ),
        # "luxury goods of at least 5 different types"
        (
            {"kind": "luxury_types", "n": 5},
            {"goods": ["dagger", "tajine", "necklace", "oil_lamp", "slipper"]},
            {"goods": ["dagger", "tajine", "necklace", "oil_lamp"]},
        ),
        # "at least 5 scrolls of the same type (color)"
        (
            {"kind": "scrolls_same", "n": 5},
            {"scrolls": ["gray"] * 5},
            {"scrolls": ["gray"] * 4 + ["pink"]},
        ),
        # "at least 4 activated oases"
        ({"kind": "oases", "n": 4}, {"claimed": 4}, {"claimed": 3}),
    ],
)
def test_each_printed_sub_goal(condition, meet, miss):
    """Personal Tasks, "Order Card Conditions": each sub-goal of the list, met and not."""
    for setting, expected in ((meet, True), (miss, False)):
        state = pt_state(players=2)
        pl = state.players[0]
        for key, value in setting.items():
            if key == "gates":
                pl.gates = [*value, *[None] * (len(pl.gates) - len(value))]
            elif key == "scrolls":
                pl.scrolls = _ids(state.game.components.scrolls, "colour", value)
            elif key == "goods":
                pl.luxuries = _ids(state.game.components.luxuries, "good", value)
            elif key == "claimed":
                pl.claimed = list(pl.oases[:value])
            else:
                setattr(pl, key, value)
        assert pt.fulfilled(state, 0, condition) is expected, (setting, condition)
