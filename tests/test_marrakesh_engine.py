"""The Marrakesh engine as a whole: random games with invariants after every action,
Hypothesis-driven action sequences, JSON round trips and replays, illegal actions."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marrakesh_checks import legal_sequence, play_checked

from tower.errors import TowerError
from tower.marrakesh import (
    CHANCE,
    MODULES,
    NUM_ACTIONS,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    ConfigError,
    Game,
    GameConfig,
    IllegalActionError,
    RandomAgent,
    State,
    play,
)
from tower.marrakesh.catalogue import CATALOGUE, GEMS_EXPERTS
from tower.marrakesh.hooks import REGISTRY, maximal_sets, refusal
from tower.marrakesh.invariants import check

#: Every combination of the modules that the rules allow.
COMBOS = [
    frozenset(c)
    for r in range(len(MODULES) + 1)
    for c in itertools.combinations(MODULES, r)
    if refusal(4, c) is None
]


def _game(i: int) -> tuple[Game, int]:
    """Game number ``i`` of a sweep over 2, 3, 4 players and every module combination."""
    players = 2 + i % 3
    return Game(GameConfig(players=players, modules=COMBOS[i % len(COMBOS)])), players


def _random_games(n: int, offset: int = 0) -> int:
    played = 0
    for i in range(offset, offset + n):
        game, players = _game(i)
        final = play(
            game, [RandomAgent(97 * i + k) for k in range(players)], seed=i, on_action=check
        )
        assert final.is_terminal() and final.current_player == TERMINAL
        assert final.season == 3 and final.round == 4
        assert all(not pl.screen and not pl.hand for pl in final.players)
        played += 1
    return played


def test_random_games_keep_every_invariant():
    # 60 games: every module combination, with 2, 3 and 4 players.
    assert _random_games(60) == 60


def playable_modules() -> tuple[str, ...]:
    """Every registered module the engine plays (new modules join as they register)."""
    return tuple(sorted(name for name, m in REGISTRY.items() if m.playable))


def slow_run_config(i: int) -> tuple[int, frozenset[str]]:
    """Game ``i`` of the slow run: 2, 3 or 4 players; every 10th game with every
    compatible module on (taking turns among :func:`maximal_sets`), the others with a
    random combination (each module on with probability 1/2, drawn in a random order, a
    module the rules do not allow with those drawn before it left out)."""
    players = 2 + i % 3
    mods = list(playable_modules())
    if i % 10 == 0:
        sets = maximal_sets(players)
        return players, sets[(i // 10) % len(sets)]
    rng = random.Random(7919 * i)
    rng.shuffle(mods)
    chosen: set[str] = set()
    for m in mods:
        if rng.random() < 0.5 and refusal(players, chosen | {m}) is None:
            chosen.add(m)
    return players, frozenset(chosen)


SLOW_GAMES = 3000
SLOW_PARTS = 10


@pytest.mark.slow
@pytest.mark.parametrize("part", range(SLOW_PARTS))
def test_slow_random_module_combinations_keep_every_invariant(part):
    """3,000 games over 2-4 players (in 10 parts of 300), 300 of them with every
    compatible module on, the invariants checked after every action."""
    per_part = SLOW_GAMES // SLOW_PARTS
    everything = frozenset(playable_modules())
    maximal = maximal_sets()
    played = with_all = 0
    seen: set[str] = set()
    for i in range(part * per_part, (part + 1) * per_part):
        players, modules = slow_run_config(i)
        final = play(
            Game(GameConfig(players=players, modules=modules)),
            [RandomAgent(97 * i + k) for k in range(players)],
            seed=10_000 + i,
            on_action=check,
        )
        assert final.is_terminal() and final.season == 3 and final.round == 4
        played += 1
        with_all += modules in maximal
        seen |= modules
    assert played == per_part and with_all >= per_part // 10  # random draws add more
    assert seen == everything  # every registered module played in this part


def test_slow_run_plan_covers_the_registry():
    """The slow run's plan: 3,000 games, 1,000 each with 2, 3 and 4 players, 300 with
    every compatible module on, every module on in about half of the others (a third
    of them for each of two modules that exclude each other), and no combination the
    rules refuse."""
    plan = [slow_run_config(i) for i in range(SLOW_GAMES)]
    everything = frozenset(playable_modules())
    assert everything == frozenset(MODULES) and len(everything) >= 6
    assert sum(m in maximal_sets(p) for p, m in plan) >= 300
    assert all(refusal(p, m) is None for p, m in plan)
    assert {p: sum(q == p for q, _ in plan) for p in (2, 3, 4)} == {2: 1000, 3: 1000, 4: 1000}
    for name in everything:
        assert sum(name in m for _, m in plan) > 1000
    # All seven Gems & Experts modules (issue 15) are in the plan and in the largest sets.
    gems_experts = {e.name for e in CATALOGUE if e.rulebook == GEMS_EXPERTS}
    assert len(gems_experts) == 7 and gems_experts <= everything
    assert all(gems_experts - {"closed_madrasa", "second_hand_shop"} <= m for m in maximal_sets())


def _record(game: Game, seed: int, agent_seed: int, stop: int | None = None):
    """Play with random agents; returns (state, player actions, json at step ``stop``)."""
    rng = random.Random(agent_seed)
    state = game.new_initial_state(seed)
    actions: list[Action] = []
    snapshot = None
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.sample_chance()
            continue
        if stop is not None and len(actions) == stop:
            snapshot = json.loads(json.dumps(state.to_json()))
        a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply(a)
    return state, actions, snapshot


@pytest.mark.parametrize("players,modules", [(2, frozenset()), *[(4, m) for m in maximal_sets()]])
def test_replay_and_json_reproduce_a_game_exactly(players, modules):
    game = Game(GameConfig(players=players, modules=modules))
    final, actions, snap = _record(game, seed=11, agent_seed=5, stop=150)
    # Replay from the seed and the player actions.
    assert game.replay(11, actions).to_json() == final.to_json()
    # Replay from action ids and from their string forms.
    assert game.replay(11, [a.id for a in actions]).to_json() == final.to_json()
    assert game.replay(11, [str(a) for a in actions]).to_json() == final.to_json()
    # Restore the mid-game JSON and play the remaining actions.
    restored = State.from_json(game, snap)
    assert restored.to_json() == snap
    for a in actions[150:]:
        while restored.is_chance_node():
            restored.sample_chance()
        restored.apply(a)
    while restored.is_chance_node():  # Walls & Guards: the last battles follow the last choice
        restored.sample_chance()
    assert restored.to_json() == final.to_json()
    assert restored.scores() == final.scores() and restored.score_events == final.score_events


def test_clone_is_independent_and_equal():
    game = Game(GameConfig(players=3))
    state = game.new_initial_state(2)
    rng = random.Random(0)
    for _ in range(40):
        if state.is_chance_node():
            state.sample_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
    twin = state.clone()
    assert twin.to_json() == state.to_json()
    rng_a, rng_b = random.Random(9), random.Random(9)
    for s, r in ((state, rng_a), (twin, rng_b)):
        for _ in range(60):
            if s.is_chance_node():
                s.sample_chance()
            elif not s.is_terminal():
                s.apply(r.choice(s.legal_actions()))
    assert twin.to_json() == state.to_json()
    twin.players[0].water += 5
    assert twin.players[0].water != state.players[0].water


def test_same_seed_same_game_and_different_seeds_differ():
    game = Game(GameConfig(players=4))
    a = play(game, [RandomAgent(k) for k in range(4)], seed=3)
    b = play(game, [RandomAgent(k) for k in range(4)], seed=3)
    c = play(game, [RandomAgent(k) for k in range(4)], seed=4)
    assert a.to_json() == b.to_json()
    assert a.to_json() != c.to_json()


def test_random_agent_draws_as_random_choice():
    """RandomAgent spells out ``rng.choice`` of the legal ids: the same games."""

    class Choosing:
        def __init__(self, seed: int) -> None:
            self.rng = random.Random(seed)

        def step(self, state, player):
            return self.rng.choice(state.legal_actions(player))

    game = Game(GameConfig(players=3, modules=frozenset({"gems", "walls_guards"})))
    a = play(game, [RandomAgent(k) for k in range(3)], seed=6)
    b = play(game, [Choosing(k) for k in range(3)], seed=6)
    assert a.history == b.history and len(a.history) > 300


def test_the_engine_generator_shuffles_as_random_does():
    """Draws spells out ``random.Random.shuffle``: the same orders, the same state after."""
    from tower.marrakesh.board import Draws

    for n in range(40):
        for seed in range(5):
            a, b = list(range(n)), list(range(n))
            ours, theirs = Draws(seed), random.Random(seed)
            ours.shuffle(a)
            theirs.shuffle(b)
            assert a == b and ours.getstate() == theirs.getstate()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    modules=st.sets(st.sampled_from(MODULES)).filter(lambda m: refusal(4, m) is None),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=300),
)
def test_hypothesis_action_sequences(seed, players, modules, picks):
    """Any sequence of legal choices keeps the invariants, survives JSON, and an action
    outside the legal set is refused without changing the state."""
    legal_sequence(Game(GameConfig(players=players, modules=frozenset(modules))), seed, picks)


def test_illegal_actions_name_the_action_and_reason_and_change_nothing():
    game = Game(GameConfig(players=2))
    state = game.new_initial_state(0)
    # Setup decision: the oasis-track order asks for a colour.
    before = state.to_json()
    with pytest.raises(IllegalActionError, match=r"illegal action select:.*not a legal choice"):
        state.apply("select:green+gray+white")
    with pytest.raises(IllegalActionError, match="is to move, not player"):
        state.apply(state.legal_actions()[0], player=1 - state.current_player)
    with pytest.raises(IllegalActionError, match="unknown action"):
        state.apply("fly:away")
    with pytest.raises(IllegalActionError, match="ids run from 0"):
        state.apply(NUM_ACTIONS)
    assert state.to_json() == before
    assert isinstance(IllegalActionError("pass", "x"), TowerError)
    # Drive to the simultaneous selection and to the chance node.
    rng = random.Random(1)
    while state.current_player != SIMULTANEOUS:
        state.apply(rng.choice(state.legal_actions()))
    p = state.pending_players()[0]
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="must select 3 different keshis"):
        state.apply("colour:red", player=p)
    assert state.to_json() == before
    state.apply(state.legal_actions(p)[0], player=p)
    with pytest.raises(IllegalActionError, match="is not choosing keshis now"):
        state.apply(state.legal_actions(1 - p)[0], player=p)
    while not state.is_chance_node():
        state.apply(rng.choice(state.legal_actions()))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="chance node"):
        state.apply("pass")
    assert state.to_json() == before
    final = play(game, [RandomAgent(1), RandomAgent(2)], seed=0)
    with pytest.raises(IllegalActionError, match="game is over"):
        final.apply("pass")


def test_simultaneous_selection_is_hidden_until_everyone_chose():
    game = Game(GameConfig(players=3))
    state = game.new_initial_state(4)
    rng = random.Random(4)
    while state.current_player != SIMULTANEOUS:
        state.apply(rng.choice(state.legal_actions()))
    assert state.pending_players() == [0, 1, 2]
    assert len(state.legal_actions(1)) == 220  # 3 of 12 different colours
    state.apply("select:green+gray+white", player=1)
    assert state.pending_players() == [0, 2]
    assert state.players[1].hand == [] and len(state.players[1].screen) == 12
    state.apply("select:red+yellow+purple", player=0)
    state.apply("select:pink+brown+beige", player=2)
    assert state.players[1].hand == ["green", "gray", "white"]
    assert state.players[0].hand == ["red", "yellow", "purple"]
    assert len(state.players[2].screen) == 9


def test_config_errors_and_action_space():
    with pytest.raises(ConfigError, match="2 to 4 players"):
        GameConfig(players=5)
    with pytest.raises(ConfigError, match="unknown modules"):
        GameConfig(modules=frozenset({"battle"}))
    game = Game(GameConfig())
    # The core's 407 actions, then the kinds the registered modules declare.
    assert game.num_distinct_actions == NUM_ACTIONS >= 407
    for i in range(NUM_ACTIONS):
        a = game.action_from_id(i)
        assert a.id == i and Action.parse(str(a)) == a


def test_bad_state_json_is_refused():
    game = Game(GameConfig(players=2))
    data = game.new_initial_state(0).to_json()
    with pytest.raises(TowerError, match="players/modules differ"):
        State.from_json(Game(GameConfig(players=3)), data)
    broken = dict(data)
    del broken["board"]
    with pytest.raises(TowerError, match="malformed state"):
        State.from_json(game, broken)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["board"]["display"].update(green=1), "green keshis: 4 found.*3 left"),
        (lambda d: d["player_states"][1].update(dates=-1), "player 1 has -1 dates"),
        (lambda d: d["player_states"][0].update(score=99), "player 0: score 99"),
    ],
)
def test_a_broken_position_is_refused_with_the_invariant_it_breaks(tmp_path, edit, message):
    """``State.from_json`` checks the invariants: a wrong edit of a position (a keshi from
    nowhere, a negative resource, a score without its events) is one clear error."""
    from tower.errors import InputFileError
    from tower.marrakesh.state_file import load_state

    game = Game(GameConfig(players=2))
    data = json.loads(json.dumps(game.new_initial_state(0).to_json()))
    assert State.from_json(game, data).to_json() == data
    edit(data)
    with pytest.raises(InputFileError, match=f"field <invariants>: not a position.*{message}"):
        State.from_json(game, data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputFileError, match=f"edited.json.*{message}") as err:
        load_state(game, path)
    assert "\n" not in str(err.value)


def _to_chance(state: State, rng: random.Random) -> None:
    while not state.is_chance_node():
        state.apply(rng.choice(state.legal_actions()))


def test_tower_throw_is_a_chance_node_drawn_from_the_model():
    from tower.model import NoRetentionModel

    game = Game(GameConfig(players=3, tower=NoRetentionModel()))
    state = game.new_initial_state(8)
    rng = random.Random(8)
    _to_chance(state, rng)
    assert state.current_player == CHANCE and state.legal_actions() == []
    thrown = sorted(c for pl in state.players for c in pl.hand)
    law = state.chance_outcomes()
    assert len(law) == 1 and law[0][1] == 1.0
    out = state.sample_chance()
    assert sorted(p.split(":")[1] for p in out) == thrown
    assert sum(state.display.values()) == 9 and state.tower.residents == ()


def test_keshis_stuck_in_the_tower_stay_across_rounds_and_seasons():
    game = Game(GameConfig(players=4))  # the baseline model keeps 1/3 of thrown keshis
    state = game.new_initial_state(5)
    rng = random.Random(5)
    seen_old = False
    while not state.is_terminal():
        if state.is_chance_node():
            if state.tower.throws == 0:  # the exact law is costly later on (many residents)
                law = state.chance_outcomes()
                assert abs(sum(p for _, p in law) - 1.0) < 1e-9
            throws = state.tower.throws
            state.sample_chance()
            assert state.tower.throws == throws + 1
            seen_old |= any(r.since < state.tower.throws - 4 for r in state.tower.residents)
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert state.tower.throws == 12
    assert seen_old  # some keshi outlived a whole season inside the tower
    check(state)


def test_replay_from_history_with_selections_in_any_order():
    game = Game(GameConfig(players=3))
    state = game.new_initial_state(21)
    rng = random.Random(21)
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance()
        elif state.current_player == SIMULTANEOUS:
            p = state.pending_players()[-1]  # the last pending player chooses first
            state.apply(rng.choice(state.legal_actions(p)), player=p)
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert game.replay(21, state.history).to_json() == state.to_json()


def test_engine_knows_the_tower_only_through_the_model_interface():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tower.marrakesh import Game, GameConfig, RandomAgent, play\n"
        "play(Game(GameConfig(players=2)), [RandomAgent(0), RandomAgent(1)], seed=0)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pybullet', 'trimesh')\n"
        "       or m.startswith(('tower.physics', 'tower.geometry'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    players=st.integers(2, 4),
    modules=st.sets(st.sampled_from(MODULES)).filter(lambda m: refusal(4, m) is None),
    chooser=st.randoms(use_true_random=False),
)
def test_hypothesis_whole_games(seed, players, modules, chooser):
    """Whole games with Hypothesis choosing every action (and the seed, players, modules):
    the invariants hold throughout and the final scores are the logged events' sums."""
    game = Game(GameConfig(players=players, modules=frozenset(modules)))
    state = play_checked(game.new_initial_state(seed), chooser.choice)
    assert state.season == 3 and len(state.winners()) >= 1
