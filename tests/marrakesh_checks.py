"""Checks shared by the tests of the Marrakesh modules (not a test file itself).

- :func:`blank` is a game after its setup with nothing pending and player 0 to start;
  :func:`give` puts keshis on a player's board; :func:`legal` lists the legal actions as
  text; :func:`run` pushes tasks and runs them to the first real decision;
- :func:`after_setup` starts a game and takes the first option of every setup decision;
  :func:`run_only` drops a state's pending work and runs some tasks instead; :func:`act`
  applies an action by its text and checks the invariants; :func:`season_scoring` plays
  a season's scoring through to the next season's first selection; :func:`hold_experts`
  gives a player expert tiles;
- :func:`sequences_with` is the Hypothesis decorator of such a test: a seed, 2-4 players,
  the module with a random set of the others, and the picks;
- :func:`legal_sequence` plays a sequence of legal choices picked by integers (as drawn by
  Hypothesis), trying an illegal action before each one: it must be refused and change
  nothing; the invariants hold after every action; the state survives JSON.
- :func:`round_trip` plays a random game, keeps the state's JSON at the first node where a
  predicate holds, and checks that both the replay from the seed and the restored JSON
  played on reproduce the final state exactly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tower.errors import InputFileError
from tower.marrakesh import MODULES, Action, Game, GameConfig, IllegalActionError, State
from tower.marrakesh.hooks import refusal
from tower.marrakesh.invariants import check
from tower.marrakesh.rules import T, Task, advance, push


def after_setup(players: int, modules: frozenset[str], seed: int = 0) -> State:
    """A game after its setup decisions (the first option of each)."""
    state = Game(GameConfig(players=players, modules=modules)).new_initial_state(seed)
    while state.stack[-1]["t"] == "ask":
        state.apply(state.legal_action_ids()[0])
    return state


def blank(players: int = 2, modules: tuple[str, ...] = (), seed: int = 0) -> State:
    """A state after setup (first option of each setup choice), nothing pending, player 0
    starting."""
    state = Game(GameConfig(players=players, modules=frozenset(modules))).new_initial_state(seed)
    while state.current_player >= 0:
        state.apply(state.legal_actions()[0])
    state.stack = []
    state.start = state.season_start = 0
    return state


def run(state: State, *tasks: Task) -> None:
    """Put ``tasks`` on the stack and run until the first real decision."""
    push(state, *tasks)
    advance(state)


def give(state: State, p: int, colour: str, n: int = 1) -> None:
    """Put keshis straight onto player ``p``'s board (counted as out of the supply)."""
    pl = state.players[p]
    for _ in range(n):
        if colour == "pink":
            pl.square[pl.square.index(False)] = True
        elif colour == "brown":
            pl.sahara[pl.sahara.index(False, 2)] = True
        pl.keshis[colour] += 1
        state.issued[colour] += 1


def legal(state: State, player: int | None = None) -> list[str]:
    """The legal actions of ``player`` (default: the current one) as text."""
    return [str(a) for a in state.legal_actions(player)]


def run_only(state: State, *tasks: Task) -> None:
    """Replace the game's pending work by ``tasks`` and run them to the first decision."""
    state.stack = []
    push(state, *tasks)
    advance(state)


def hold_experts(state: State, p: int, used: list[bool], colour: str = "") -> list[int]:
    """Give player ``p`` expert tiles from the face-down stack (of ``colour`` if given),
    ``used`` or not, and put the expert keshis of a cleared throw back on the board;
    returns the tile ids."""
    from tower.marrakesh.modules import experts

    g = state.ext["experts"]
    pick = [t for t in g["stack"] if not colour or experts.tile(state, t)["colour"] == colour]
    tiles = [[pick[i], u] for i, u in enumerate(used)]
    g["stack"] = [t for t in g["stack"] if t not in {tid for tid, _ in tiles}]
    state.players[p].ext["experts"]["tiles"] = tiles
    g["board"] = 0
    g["board"] = experts.data()["board"]["keshis"] - sum(experts.expert_keshis(state).values())
    return [tid for tid, _ in tiles]


def season_scoring(state: State) -> None:
    """Play the current season's scoring from its last round's end (every keshi of the
    screens used), the first option of each decision, up to the next season's first
    selection or the end of the game."""
    for pl in state.players:
        for c in pl.screen:
            state.issued[c] -= 1
        pl.screen = []
    state.round = 4
    run_only(state, T("season_end"))
    while state.stack and state.stack[-1]["t"] != "select":
        state.apply(state.legal_action_ids()[0])


def act(state: State, text: str) -> None:
    state.apply(Action.parse(text))
    check(state)


def others_with(module: str) -> st.SearchStrategy[set[str]]:
    """Sets of the other modules that the rules allow together with ``module``."""
    return st.sets(st.sampled_from([m for m in MODULES if m != module])).filter(
        lambda s: refusal(4, s | {module}) is None
    )


def sequences_with(module: str, examples: int = 20) -> Callable[[Callable], Callable]:
    """Run the decorated test ``f(seed, players, modules, picks)`` on Hypothesis examples
    whose ``modules`` hold ``module`` and any of the others."""
    others = others_with(module)

    def deco(f: Callable) -> Callable:
        return settings(
            max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        )(
            given(
                seed=st.integers(0, 10_000),
                players=st.integers(2, 4),
                modules=others.map(lambda s: frozenset(s | {module})),
                picks=st.lists(st.integers(0, 10_000), min_size=50, max_size=600),
            )(f)
        )

    return deco


def decisions(state: State, picks: Iterable[int]) -> Iterator[int]:
    """The picks that fall on a decision of ``state``, as the caller acts on each: a pick
    that falls on a chance node draws it instead, and the picks stop when the game ends."""
    for k in picks:
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.sample_chance()
            continue
        yield k


def play_checked(state: State, choose: Callable[[list[Action]], Action]) -> State:
    """Play ``state`` to its end, ``choose`` picking among the legal actions of the player
    to act (the first pending one at a simultaneous node); the invariants are checked
    after every step, chance draws included."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance()
        else:
            p = state.current_player
            p = state.pending_players()[0] if p < 0 else p
            state.apply(choose(state.legal_actions(p)), player=p)
        check(state)
    return state


def refused(load: Callable[[str], object], bad: Path, text: str, match: str) -> None:
    """Write ``text`` to the data file ``bad``: ``load`` refuses it with an
    :class:`InputFileError` whose message matches ``match``."""
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=match):
        load(str(bad))


def legal_sequence(game: Game, seed: int, picks: list[int]) -> State:
    state = game.new_initial_state(seed)
    n = game.num_distinct_actions
    for k in decisions(state, picks):
        legal = state.legal_action_ids()
        assert legal and len(set(legal)) == len(legal) and all(0 <= i < n for i in legal)
        before = state.to_json()
        wrong = next(i for i in range(k % n, k % n + n + 1) if i % n not in legal) % n
        with pytest.raises(IllegalActionError):
            state.apply(wrong)
        assert state.to_json() == before
        state.apply(legal[k % len(legal)])
        check(state)
    again = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    return state


def _settle(state: State) -> None:
    while state.is_chance_node():
        state.sample_chance()


def round_trip(game: Game, seed: int, agent_seed: int, when: Callable[[State], bool]) -> State:
    """The final state of a random game; asserts that ``when`` held at some node and that
    replay and JSON restore reproduce the game from there."""
    rng = random.Random(agent_seed)
    state = game.new_initial_state(seed)
    actions, snap = [], None
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance()
            continue
        if snap is None and when(state):
            snap = (len(actions), json.loads(json.dumps(state.to_json())))
        a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply(a)
    assert snap is not None, "the game never reached the node to snapshot"
    assert game.replay(seed, actions).to_json() == state.to_json()
    at, data = snap
    restored = State.from_json(game, data)
    assert restored.to_json() == data
    for a in actions[at:]:
        _settle(restored)
        restored.apply(a)
    _settle(restored)
    assert restored.to_json() == state.to_json()
    return state


def openspiel_sim(modules: str, players: int = 3) -> None:
    """OpenSpiel's ``random_sim_test`` (with serialisation) with ``modules`` on (names
    joined by ``+``, or ``all``: a comma cannot pass through the serialised game string)."""
    pyspiel = pytest.importorskip("pyspiel")
    import tower.marrakesh.adapters.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_marrakesh", {"players": players, "modules": modules})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def pettingzoo_api(modules: tuple[str, ...], players: int = 3) -> None:
    """PettingZoo's ``api_test`` with ``modules`` on."""
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from tower.marrakesh.adapters.pettingzoo import MarrakeshEnv

    api_test(MarrakeshEnv(players=players, modules=modules), num_cycles=200, verbose_progress=False)
