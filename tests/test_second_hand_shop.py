"""The Second-Hand Shop (Gems & Experts) in the Marrakesh engine.

The rulebook's worked examples, played through the engine:

- Marie offers a yellow scroll: she chooses an offer tile and places it with the scroll on
  an empty yellow space (:func:`test_rulebook_marie_offers_a_yellow_scroll`);
- Sarah buys the gray scroll Lukas offers for 3 dinars and 2 points: she gives Lukas 3
  dinars and loses 2 points, Lukas gains 2 points and takes his offer tile back, the
  scroll gets a used tile (:func:`test_rulebook_sarah_buys_lukas_gray_scroll`);
- Jan sells an activated oasis: the others stay where they are, the next oasis he
  activates fills the freed space and its bonus is used again
  (:func:`test_rulebook_jan_sells_an_oasis_and_refills_the_gap`).

Then the clearance of gray scrolls at the season's end, shelf spaces, used tiles, the
souk condition, oases 39 and 40, and the rulings.
"""

from __future__ import annotations

import pytest
from marrakesh_checks import blank, give, legal, legal_sequence, round_trip, run, sequences_with

from tower.marrakesh import Game, GameConfig
from tower.marrakesh.invariants import check
from tower.marrakesh.rules import T
from tower.marrakesh.sectors import claim_oasis
from tower.marrakesh.worth import oasis_value

SHOP = ("second_hand_shop",)


def own_scroll(state, p: int, colour: str, timing: str = "permanent") -> int:
    """Move a scroll of ``colour`` from the stacks to player ``p``; returns its id."""
    scrolls = state.game.components.scrolls
    for st in state.stacks:
        for sid in st:
            if scrolls[sid]["colour"] == colour and scrolls[sid]["timing"] == timing:
                st.remove(sid)
                state.players[p].scrolls.append(sid)
                return sid
    raise AssertionError(f"no {timing} {colour} scroll left")


def turn_start(state, p: int, souk: int = 1) -> None:
    """Player ``p``'s phase-3 turn begins, with ``souk`` assistants in the souk."""
    state.start = p
    state.players[p].assistants = {"souk": souk} if souk else {"gray": 1}
    run(state, T("assist_turn", k=0))


def to_buy(state) -> None:
    """Skip the offer (a player with nothing to offer is not asked)."""
    if state.stack and state.stack[-1].get("k") == "shop_sell":
        state.apply("pass")


def offer(state, p: int, item: int, tile_choice: int = 0) -> None:
    turn_start(state, p)
    state.apply(f"shop_sell:{item}")
    if state.stack[-1].get("k") == "shop_price":
        state.apply(f"choice:{tile_choice}")
    state.stack = []
    state.turn = -1


def test_rulebook_marie_offers_a_yellow_scroll():
    state = blank(3, SHOP)
    marie = state.players[0]
    sid = own_scroll(state, 0, "yellow")
    turn_start(state, 0)
    assert f"shop_sell:{sid}" in legal(state)
    state.apply(f"shop_sell:{sid}")
    assert legal(state) == ["choice:0", "choice:1", "choice:2", "choice:3"]  # 4 scroll tiles
    state.apply("choice:1")
    assert state.ext["second_hand_shop"]["offers"] == [[sid, 0, 2]]
    assert sid not in marie.scrolls and marie.ext["second_hand_shop"]["tiles"] == [1, 3, 4, 5]
    check(state)


def test_rulebook_sarah_buys_lukas_gray_scroll():
    state = blank(3, SHOP)
    lukas, sarah = state.players[0], state.players[1]
    sid = own_scroll(state, 0, "gray")
    offer(state, 0, sid, tile_choice=2)  # offer tile 3: 3 dinars and 2 points
    sarah.dinars, sarah.dates = 4, 0
    give(state, 1, "gray")
    l_points, s_points, l_dinars = lukas.score, sarah.score, lukas.dinars
    turn_start(state, 1)
    to_buy(state)  # Sarah offers nothing
    assert legal(state) == ["pass", f"shop_buy:{sid}"]
    state.apply(f"shop_buy:{sid}")
    assert sid in sarah.scrolls and sarah.dinars == 1 and sarah.score == s_points - 2
    assert lukas.dinars == l_dinars + 3 and lukas.score == l_points + 2
    assert lukas.ext["second_hand_shop"]["tiles"] == [1, 2, 3, 4, 5]
    assert state.ext["second_hand_shop"]["used"] == [sid]
    check(state)
    # A used scroll is never offered again.
    state.stack = []
    turn_start(state, 1)
    assert f"shop_sell:{sid}" not in legal(state)


def test_buying_a_scroll_needs_a_scholar_and_the_price():
    state = blank(3, SHOP)
    sid = own_scroll(state, 0, "pink")
    offer(state, 0, sid, tile_choice=0)  # 1 dinar and 1 point
    sarah = state.players[1]
    sarah.dinars = 5
    turn_start(state, 1)
    assert state.stack == [] or f"shop_buy:{sid}" not in legal(state)  # no scholar
    state.stack = []
    give(state, 1, "gray")
    sarah.dinars = 0
    turn_start(state, 1)
    assert state.stack == [] or f"shop_buy:{sid}" not in legal(state)  # no dinar
    state.stack = []
    sarah.dinars = 1
    turn_start(state, 1)
    to_buy(state)
    assert f"shop_buy:{sid}" in legal(state)


def test_rulebook_jan_sells_an_oasis_and_refills_the_gap():
    state = blank(2, SHOP)
    jan = state.players[0]
    for c in jan.track.values():  # the track's keshis: not needed here
        state.issued[c] -= 1
    jan.track = {}
    give(state, 0, "white")  # something to exchange
    for oid in jan.oases[:3]:  # track spaces 0 (keshi), 1 (exchange), 2 (keshi)
        claim_oasis(state, 0, oid)
        state.stack = []
    sold = jan.oases[1]
    offer(state, 0, 100 + sold)
    assert jan.claimed == [jan.oases[0], jan.oases[2]]
    assert jan.ext["second_hand_shop"]["gaps"] == [1]
    claim_oasis(state, 0, jan.oases[3])
    run(state)
    # The freed space 1 is filled first, and its exchange bonus can be used again.
    assert jan.ext["second_hand_shop"]["slots"][str(jan.oases[3])] == 1
    assert state.stack[-1]["k"] == "exchange_return"
    state.stack = []
    claim_oasis(state, 0, jan.oases[4])  # then the track goes on to the right: space 3
    assert jan.ext["second_hand_shop"]["slots"][str(jan.oases[4])] == 3
    assert jan.ext["second_hand_shop"]["gaps"] == []
    state.stack = []
    check(state)


def test_bought_oasis_goes_onto_the_buyers_track_with_a_used_tile():
    state = blank(2, SHOP)
    jan, other = state.players
    for c in jan.track.values():
        state.issued[c] -= 1
    jan.track = {}
    claim_oasis(state, 0, jan.oases[0])
    state.stack = []
    offer(state, 0, 100 + jan.oases[0])  # the oasis offer tile: 4 dinars, 3 points
    other.dinars = 4
    turn_start(state, 1)
    to_buy(state)
    state.apply(f"shop_buy:{100 + jan.oases[0]}")
    assert other.claimed == [jan.oases[0]] and jan.dinars == 1 + 4
    assert other.ext["second_hand_shop"]["slots"] == {str(jan.oases[0]): 0}
    check(state)


def test_unsold_gray_scrolls_go_to_the_clearance_at_the_seasons_end():
    state = blank(3, SHOP)
    gray = own_scroll(state, 0, "gray")
    yellow = own_scroll(state, 0, "yellow")
    offer(state, 0, gray)
    offer(state, 0, yellow)
    run(state, T("shop_clearance"))
    ext = state.ext["second_hand_shop"]
    assert ext["clearance"] == [gray] and [o[0] for o in ext["offers"]] == [yellow]
    assert 1 in state.players[0].ext["second_hand_shop"]["tiles"]  # the gray's tile back
    # 1 dinar to the supply and 1 point; the original owner gets nothing.
    buyer, owner = state.players[1], state.players[0]
    give(state, 1, "gray")
    points, dinars, owner_points = buyer.score, buyer.dinars, owner.score
    turn_start(state, 1)
    to_buy(state)
    state.apply(f"shop_buy:{gray}")
    assert (buyer.score, buyer.dinars, owner.score) == (points - 1, dinars - 1, owner_points)
    check(state)


def test_clearance_is_a_season_scoring_step_after_the_provisions():
    game = Game(GameConfig(players=2, modules=frozenset(SHOP)))
    steps = [name for name, _ in game.hooks.season]
    assert steps == ["river", "provisions", "shop_clearance", "prepare"]


@pytest.mark.parametrize("players,gray_spaces", [(3, 2), (4, 3)])
def test_shelf_spaces(players, gray_spaces):
    state = blank(players, SHOP)
    ids = [own_scroll(state, 0, "gray") for _ in range(gray_spaces + 1)]
    for sid in ids[:gray_spaces]:
        mine = state.players[0].ext["second_hand_shop"]
        mine["tiles"] = [1, 2, 3, 4, 5]  # offer tiles back, so only the shelf limits
        offer(state, 0, sid)
        state.ext["second_hand_shop"]["offers"][-1][2] = 0
    state.players[0].ext["second_hand_shop"]["tiles"] = [1, 2, 3, 4, 5]
    turn_start(state, 0)
    assert f"shop_sell:{ids[-1]}" not in legal(state)


def test_no_shop_without_an_assistant_in_the_souk():
    state = blank(2, SHOP)
    own_scroll(state, 0, "gray")
    turn_start(state, 0, souk=0)
    assert state.stack[-1]["k"] == "assistant"


def test_bought_instant_scroll_acts_for_its_buyer():
    state = blank(2, SHOP)
    scrolls = state.game.components.scrolls
    sid = next(
        s
        for st in state.stacks
        for s in st
        if scrolls[s]["colour"] == "gray" and scrolls[s]["effect"][0]["op"] == "gain"
    )
    for st in state.stacks:
        if sid in st:
            st.remove(sid)
    state.players[0].scrolls.append(sid)
    offer(state, 0, sid)
    buyer = state.players[1]
    give(state, 1, "gray")
    buyer.dinars = 5
    before = {r: getattr(buyer, r) for r in ("water", "dates", "dinars")}
    turn_start(state, 1)
    to_buy(state)
    state.apply(f"shop_buy:{sid}")
    gain = scrolls[sid]["effect"][0]
    for r in ("water", "dates"):
        assert getattr(buyer, r) == before[r] + gain.get(r, 0)


def test_oases_39_and_40_count_used_tiles():
    state = blank(2, SHOP)
    pl = state.players[0]
    state.ext["second_hand_shop"]["used"] = [5, 6, 100 + 2]
    pl.scrolls, pl.claimed = [5, 6], [2]
    assert oasis_value(state, 0, 39) == 2 * 3
    assert oasis_value(state, 0, 40) == 5 * 1
    pl.claimed = []
    assert oasis_value(state, 0, 40) == 0


@sequences_with("second_hand_shop", examples=15)
def test_hypothesis_action_sequences_with_the_shop(seed, players, modules, picks):
    legal_sequence(Game(GameConfig(players=players, modules=modules)), seed, picks)


@pytest.mark.parametrize("players", [2, 4])
def test_json_and_replay_exact_with_the_shop(players):
    game = Game(GameConfig(players=players, modules=frozenset(SHOP)))
    round_trip(game, 6, 6, lambda s: bool(s.ext["second_hand_shop"]["offers"]))


def test_one_offer_and_one_purchase_per_turn_whatever_the_souk_assistants():
    """Second-Hand-Shop: "In your turn in addition to the regular Souk action, you may
    sell 1 scroll or oasis and buy 1 scroll or oasis" (3 souk assistants: still one
    offer, then one purchase decision, then the assistants)."""
    state = blank(2, SHOP)
    own_scroll(state, 0, "gray")
    own_scroll(state, 0, "yellow")
    turn_start(state, 0, souk=3)
    asked = []
    while state.stack[-1].get("k") != "assistant":
        asked.append(state.stack[-1]["k"])
        state.apply(state.legal_actions()[-1])
    assert asked.count("shop_sell") == 1 and asked.count("shop_buy") <= 1
    assert sum(o[1] == 0 for o in state.ext["second_hand_shop"]["offers"]) == 1
