"""Named decisions: every legal action of every module reads as a sentence.

:meth:`State.describe_action` gives a :class:`~tower.marrakesh.rules.Decision` (``label``,
``gives``, ``costs``); :meth:`State.action_to_string` its label. Random games with every
module combination the rules allow check that each label is non-empty, unique among the
legal actions of its state, and free of action ids and internal keys; the switch
``GameConfig.ask_single`` asks single-option decisions instead of taking them.
"""

from __future__ import annotations

import random
import re

import pytest
from marrakesh_checks import blank, run

from tower.marrakesh import Game, GameConfig, IllegalActionError, RandomAgent, State, play
from tower.marrakesh.hooks import maximal_sets
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import gems
from tower.marrakesh.rules import T, known

#: An action's plain form (``choice:3``, ``shop:2``), an internal key (``gems_souk``), a
#: component number (``#51``) or a number that counts nothing (``3`` not followed by a
#: word: ``3 dinars`` and ``3rd`` are fine).
RAW = re.compile(r"\w:\w|_|#|\b\d+\b(?!\s+[A-Za-z])")


def test_every_decision_kind_has_a_labeller():
    """Every decision kind of the engine and its modules (not a test's own toy kinds)."""
    rules = known()
    engine = {k for k, fn in rules.options.items() if fn.__module__.startswith("tower.marrakesh")}
    assert len(engine) > 90 and sorted(engine - set(rules.labels)) == []


def _labels(state: State) -> list[str]:
    decisions = state.describe_actions()
    assert [d.action for d in decisions] == state.legal_actions()
    labels = [d.label for d in decisions]
    for d in decisions:
        assert d.label and not RAW.search(d.label), (d.kind, d.label)
        labels = state.game.ruleset.labels
        assert d.kind in labels or f"{d.kind}/{d.action.kind}" in labels, d.kind
        assert all(isinstance(n, int) for n in [*d.gives.values(), *d.costs.values()])
        assert state.action_to_string(d.action) == d.label
    assert len(set(labels)) == len(labels), labels
    return labels


@pytest.mark.parametrize("modules", [frozenset(), *maximal_sets(4)], ids=["base", "max1", "max2"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_read_as_sentences_with_every_module(modules, players):
    game = Game(GameConfig(players=players, modules=modules))
    for seed in range(2):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.sample_chance()
                continue
            _labels(state)
            state.apply(rng.choice(state.legal_actions()))


def test_an_illegal_action_is_not_described_and_keeps_its_plain_form():
    state = Game(GameConfig(players=2)).new_initial_state(1)
    illegal = next(i for i in range(400) if i not in state.legal_action_ids())
    with pytest.raises(IllegalActionError, match="not a legal choice now"):
        state.describe_action(illegal)
    assert state.action_to_string(illegal) == str(state.game.action_from_id(illegal))


def test_a_gem_sale_says_what_it_gives_and_costs():
    state = blank(2, ("gems",))
    gems.mine(state, 0)["loose"] = [state.ext["gems"]["supply"].pop()]
    colour = gems.mine(state, 0)["loose"][0]
    run(state, T("action", p=0, s="souk"))
    while state.stack[-1].get("k") != "gems_souk":
        state.apply("pass")
    sale = state.describe_action(f"choice:{gems.COLOURS.index(colour)}")
    assert sale.label == f"sell 1 {colour} gem for 2 dinars"
    assert sale.gives == {"dinars": 2} and sale.costs == {f"{colour} gems": 1}
    assert sale.kind == "gems_souk" and sale.player == 0 and not sale.private


def test_ask_single_asks_decisions_with_one_option():
    """With the switch off, a single-option decision is taken by the engine and never
    shows in the history; with it on, the player is asked (and the history records it)."""
    seen: list[int] = []

    def count(state: State) -> None:
        check(state)
        if not state.is_terminal() and state.current_player >= 0:
            seen.append(len(state.legal_actions()))

    off = play(Game(GameConfig(players=2)), [RandomAgent(1), RandomAgent(2)], seed=3)
    assert off.is_terminal()
    on_game = Game(GameConfig(players=2, ask_single=True))
    on = play(on_game, [RandomAgent(1), RandomAgent(2)], seed=3, on_action=count)
    assert on.is_terminal() and 1 in seen and min(seen) >= 1
    assert len(on.history) > len(off.history)
    assert on_game.replay(3, on.history).to_json() == on.to_json()
