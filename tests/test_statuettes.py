"""Luxury Goods: Statuettes (Gems & Experts): an extra stack of statuettes in 3 pairs.

Rulebook: *Gems & Experts*, "Luxury Goods: Statuettes". Its worked
example (Patty completes a pair) is :func:`test_patty_completes_a_pair`; each rule
statement has a test below; the ruling on the multipliers is
:func:`test_ruling_multipliers_follow_the_tiles_5_4_3`.
"""

from __future__ import annotations

import json

import pytest
from marrakesh_checks import (
    blank,
    give,
    hold_experts,
    legal,
    legal_sequence,
    openspiel_sim,
    pettingzoo_api,
    round_trip,
    run,
    sequences_with,
)

from tower.errors import InputFileError
from tower.marrakesh import Game, GameConfig, IllegalActionError, State
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import experts
from tower.marrakesh.modules import statuettes as st_
from tower.marrakesh.rules import T

MODS = ("statuettes",)


def face_up(state: State, lux: int) -> None:
    """Put statuette ``lux`` face up on the statuette stack."""
    s = state.ext["statuettes"]
    s["stack"].remove(lux)
    s["stack"].append(lux)
    s["open"] = True


def afford(state: State, lux: int, p: int = 0) -> None:
    for c, n in state.game.components.luxuries[lux]["cost"].items():
        give(state, p, c, n)


def own(state: State, lux: int, p: int = 0) -> None:
    """Player ``p`` owns statuette ``lux`` (as if bought earlier)."""
    state.ext["statuettes"]["stack"].remove(lux)
    state.players[p].luxuries.append(lux)


def souk_buy(state: State, lux: int, p: int = 0) -> None:
    face_up(state, lux)
    afford(state, lux, p)
    run(state, T("action", p=p, s="souk"))
    assert "choice:0" in legal(state)
    state.apply("choice:0")
    check(state)


def test_data_6_statuettes_in_3_pairs_with_provenance():
    data = st_.load()
    assert sorted(data["statuette"]) == [51, 52, 53, 54, 55, 56]
    assert all(e["source"] in ("rulebook", "assumed") for e in data["statuette"].values())
    assert {st_.partner(51), st_.partner(53), st_.partner(55)} == {52, 54, 56}
    rewards = {e["figure"]: e["reward"] for e in data["statuette"].values()}
    assert rewards["guardian"] == [{"op": "points", "n": 7}, {"op": "gain", "dates": 1}]
    assert rewards["camel"] == [{"op": "points", "n": 3}, {"op": "gain", "water": 1}]


def test_ruling_multipliers_follow_the_tiles_5_4_3():
    pairs = {p["name"]: p["times"] for p in st_.load()["pair"].values()}
    assert pairs == {"Guardian & Gate": 5, "Woman & Palm tree": 4, "Man & Camel": 3}


def test_bad_pair_data_names_the_field(tmp_path):
    text = st_.PATH.read_text(encoding="utf-8").replace("pair_id = 3", "pair_id = 2", 1)
    bad = tmp_path / "statuettes.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match="pair 2"):
        st_.load(str(bad))


def test_setup_extra_stack_face_up_not_dealt_into_the_5_stacks():
    state = Game(GameConfig(players=2, modules=frozenset(MODS))).new_initial_state(3)
    assert sorted(state.ext["statuettes"]["stack"]) == [51, 52, 53, 54, 55, 56]
    assert st_.top(state) == state.ext["statuettes"]["stack"][-1]
    assert [len(s) for s in state.shops] == [5] * 5
    assert all(x <= 25 for s in state.shops for x in s)
    orders = {
        tuple(
            Game(GameConfig(players=2, modules=frozenset(MODS)))
            .new_initial_state(s)
            .ext["statuettes"]["stack"]
        )
        for s in range(10)
    }
    assert len(orders) > 5  # shuffled


def test_buying_a_statuette_pays_its_price_and_gives_its_reward():
    state = blank(modules=MODS)
    pl = state.players[0]
    score, water = pl.score, pl.water
    souk_buy(state, 56)  # camel: 3 VP + 1 water; no partner owned: no pair bonus
    assert pl.luxuries == [56] and pl.score == score + 3 and pl.water == water + 1
    assert pl.keshis["purple"] == pl.keshis["orange"] == 0
    assert not state.stack or state.stack[-1].get("k") != "choose"
    # Not revealed until the turn ends.
    assert st_.top(state) is None
    run(state, T("statuettes_turn_over"))
    assert st_.top(state) == state.ext["statuettes"]["stack"][-1]


def test_patty_completes_a_pair():
    """ "Patty has created a statuette pair with her purchase and receives the reward and
    the pair bonus of the just purchased statuette." Patty owns the guardian and buys the
    gate: 7 points and 1 water, then 5 times 1 date / 1 dinar / 1 water / 1 point."""
    state = blank(modules=MODS)
    patty = state.players[0]
    own(state, 51)
    score, water, dates, dinars = patty.score, patty.water, patty.dates, patty.dinars
    souk_buy(state, 52)
    picks = ["choice:3", "choice:3", "choice:0", "choice:1", "choice:2"]
    for pick in picks:
        assert state.stack[-1]["k"] == "choose"
        assert legal(state) == [f"choice:{i}" for i in range(4)]
        state.apply(pick)
    check(state)
    assert patty.score == score + 7 + 2
    assert patty.water == water + 1 + 1
    assert (patty.dates, patty.dinars) == (dates + 1, dinars + 1)
    assert sorted(patty.luxuries) == [51, 52]


@pytest.mark.parametrize(("own_", "buy", "times"), [(52, 51, 5), (53, 54, 4), (56, 55, 3)])
def test_pair_bonus_times_per_pair(own_, buy, times):
    state = blank(modules=MODS)
    pl = state.players[0]
    own(state, own_)
    score = pl.score
    souk_buy(state, buy)
    n = 0
    while state.stack and state.stack[-1].get("k") == "choose":
        state.apply("choice:3")  # 1 point each time
        n += 1
    assert n == times
    assert pl.score == score + st_.load()["statuette"][buy]["reward"][0]["n"] + times


def test_no_pair_bonus_for_a_statuette_of_another_pair_or_another_player():
    state = blank(modules=MODS)
    own(state, 53)  # woman: not the gate's partner
    own(state, 51, p=1)  # the guardian belongs to the other player
    souk_buy(state, 52)
    assert not state.stack or state.stack[-1].get("k") != "choose"


def test_cannot_buy_without_the_keshis_and_refusal_changes_nothing():
    state = blank(modules=MODS)
    face_up(state, 51)
    give(state, 0, "yellow", 2)  # purple and orange missing
    run(state, T("action", p=0, s="souk"))
    assert "choice:0" not in legal(state)
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(IllegalActionError):
        state.apply("choice:0")
    assert json.dumps(state.to_json(), sort_keys=True) == before


def test_one_souk_assistant_buys_a_statuette_or_a_good_not_both():
    state = blank(modules=MODS)
    afford(state, 55)
    for c in ("yellow", "purple", "orange"):
        give(state, 0, c, 3)
    face_up(state, 55)
    run(state, T("action", p=0, s="souk"))
    options = legal(state)
    assert "choice:0" in options and any(o.startswith("shop:") for o in options)
    shops = [list(x) for x in state.shops]
    state.apply("choice:0")
    while state.stack:
        assert not any(o.startswith(("shop:", "colour:")) for o in legal(state))
        state.apply(legal(state)[0])
    assert state.players[0].luxuries == [55] and state.shops == shops


def test_the_core_souk_options_still_work_with_a_statuette_face_up():
    state = blank(modules=MODS)
    give(state, 0, "yellow", 1)
    run(state, T("action", p=0, s="souk"))
    exchange = [o for o in legal(state) if o.startswith("colour:")]
    assert exchange  # the exchange office is offered
    state.apply(exchange[0])
    assert state.players[0].keshis["yellow"] == 0
    check(state)


def test_empty_statuette_stack_gives_the_plain_souk():
    state = blank(modules=MODS)
    s = state.ext["statuettes"]
    for lux in list(s["stack"]):
        own(state, lux, p=1)
    s["open"] = False
    check(state)
    run(state, T("action", p=0, s="souk"))
    assert not state.stack or state.stack[-1].get("k") != "statuettes_souk"
    run(state, T("statuettes_turn_over"))
    assert st_.top(state) is None


def test_invariant_catches_a_lost_statuette():
    state = blank(modules=MODS)
    state.ext["statuettes"]["stack"].pop()
    with pytest.raises(AssertionError, match="statuettes"):
        check(state)


def test_view_shows_only_the_face_up_statuette():
    from tower.marrakesh.adapters.views import view

    state = blank(modules=MODS)
    v = view(state, 1)
    assert v["statuettes"] == {"face_up": st_.top(state), "stack": 6}


@sequences_with("statuettes")
def test_hypothesis_action_sequences_with_statuettes(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


@pytest.mark.parametrize("seed", [1, 2])
def test_json_and_replay_exact_after_a_statuette_purchase(seed):
    game = Game(GameConfig(players=3, modules=frozenset({"statuettes", "gifts"})))
    bought = lambda s: any(x > 50 for pl in s.players for x in pl.luxuries)  # noqa: E731
    for agent_seed in range(40):
        try:
            round_trip(game, seed, agent_seed, bought)
            return
        except AssertionError as exc:
            if "never reached" not in str(exc):
                raise
    pytest.fail("no random game bought a statuette")


def test_openspiel_random_sim_test_with_statuettes():
    openspiel_sim("statuettes")


def test_pettingzoo_api_test_with_statuettes():
    pettingzoo_api(("statuettes", "gifts"))


def test_a_statuette_given_up_in_battle_goes_to_the_box():
    state = blank(modules=(*MODS, "walls_guards"))
    pl = state.players[0]
    souk_buy(state, 55)  # man: 3 points + 1 date
    state.stack = []
    score = pl.score
    run(state, T("malus", p=0, pen="luxury_good"))  # the only good: no choice
    assert pl.luxuries == [] and pl.score == score - 3
    check(state)  # the box holds it: not lost


def test_tensor_shows_the_face_up_statuette():
    from tower.marrakesh.adapters.views import TensorLayout

    state = blank(modules=MODS)
    face_up(state, 53)
    layout = TensorLayout(state.game)
    v = layout.views(layout.encode(state, 1))
    assert v["statuettes.face_up"].tolist() == [0, 0, 1, 0, 0, 0]
    assert v["statuettes.stack"][0] == 6


def imam_souk(*colours: str) -> State:
    """Player 0 has the imam, the keshis ``colours`` and a souk action, the man (yellow +
    purple) face up."""
    state = blank(modules=(*MODS, "imam_sultan"))
    state.pawns["imam"] = [0, state.pawns["imam"][1]]
    face_up(state, 55)
    for c in colours:
        give(state, 0, c)
    run(state, T("action", p=0, s="souk"))
    return state


def test_the_imam_waives_one_goods_keshi_of_a_statuette():
    state = imam_souk("yellow")
    pl = state.players[0]
    assert "choice:0" in legal(state)
    state.apply("choice:0")  # the only waiver (the missing purple) is taken at once
    assert pl.luxuries == [55] and pl.keshis["yellow"] == 0 and pl.keshis["purple"] == 0
    check(state)


def test_with_the_imam_and_every_keshi_the_player_chooses_which_to_waive():
    state = imam_souk("yellow", "purple")
    pl = state.players[0]
    state.apply("choice:0")
    assert legal(state) == ["colour:yellow", "colour:purple"]
    state.apply("colour:yellow")
    assert pl.luxuries == [55] and pl.keshis["yellow"] == 1 and pl.keshis["purple"] == 0
    check(state)


def test_a_luxury_goods_expert_takes_the_face_up_statuette_for_free():
    """Seed 003, The Experts: "Note: You can also acquire a 'Luxury Good: Statuette' with
    such an expert" (its goods keshis predominantly the expert's colour, a tie enough)."""
    state = blank(2, ("experts", "statuettes"))
    (tid,) = hold_experts(state, 0, [False], colour="purple")
    face_up(state, 56)  # 1 purple, 1 orange: a tie
    state.turn = 0
    run(state, T("action", p=0, s="souk"))
    assert state.stack[-1]["k"] == "experts_use"
    ways = state.stack[-1]["ways"]
    assert [tid, experts.STATUETTE] in ways
    keshis = dict(state.players[0].keshis)
    state.apply(f"choice:{ways.index([tid, experts.STATUETTE])}")
    assert 56 in state.players[0].luxuries and state.players[0].keshis == keshis
    assert state.players[0].ext["experts"]["tiles"] == [[tid, True]]
    check(state)


def test_a_luxury_goods_expert_does_not_take_a_statuette_of_other_colours():
    state = blank(2, ("experts", "statuettes"))
    hold_experts(state, 0, [False], colour="purple")
    face_up(state, 54)  # 2 yellow, 1 orange: no purple
    state.turn = 0
    run(state, T("action", p=0, s="souk"))
    assert all(s != experts.STATUETTE for _, s in state.stack[-1].get("ways", []))
