"""The hook API: a toy module registered for the test shows where module data lives (the
per-module slots survive JSON, clone and replay, and stay out of the views), the hook
order, season steps, config checks and the fixed action space."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tower.marrakesh import ConfigError, Game, GameConfig, RandomAgent, State, play
from tower.marrakesh.actions import ActionSpaceError, action_id, add_kinds
from tower.marrakesh.adapters.views import view
from tower.marrakesh.hooks import (
    REGISTRY,
    Module,
    RegistryError,
    RuleSet,
    SeasonStep,
    everything,
    refusal,
    register,
)
from tower.marrakesh.invariants import check
from tower.marrakesh.rules import T, ask, score

LOG: list[str] = []
#: The toy modules' own rules (``Module.adds``): in a game only when the toy is on.
TOY_TALLY = RuleSet()
TOY_TURNS = RuleSet()


@TOY_TALLY.task("toy_tally")
def _toy_tally(state: State, t: dict) -> None:
    state.ext["toy_tally"]["steps"].append(t["who"])


def _tally(who: str):
    def tasks(state: State) -> list[dict]:
        return [T("toy_tally", who=who)]

    return tasks


class ToyTally(Module):
    """Logs its season steps in its slot; scores a third of the logged steps at the end."""

    name = "toy_tally"
    adds = TOY_TALLY
    season_steps = (SeasonStep("toy_tally", after="river", tasks=_tally("tally")),)

    def setup(self, state: State) -> None:
        LOG.append(self.name)
        state.ext[self.name] = {"steps": [], "first_to_20": None}
        for pl in state.players:
            pl.ext[self.name] = {"secret": state.rng.randrange(100)}

    def after_score(self, state: State, p: int, delta: int, reason: str) -> None:
        slot = state.ext.get(self.name)  # none yet at the setup's start scores
        if slot and slot["first_to_20"] is None and state.players[p].score >= 20:
            slot["first_to_20"] = [p, len(state.score_events)]

    def final_scoring(self, state: State, p: int) -> None:
        score(state, p, len(state.ext[self.name]["steps"]) // 3, "toy: seasons")

    def invariants(self, state: State) -> None:
        assert len(state.ext[self.name]["steps"]) <= 3 * 3

    def census(self, state: State) -> Counter[str]:
        return Counter()


class AardvarkStep(Module):
    """Sorts before toy_tally: its step anchored at the same place runs first."""

    name = "aardvark_step"
    requires = frozenset({"toy_tally"})
    season_steps = (SeasonStep("aardvark", after="river", tasks=_tally("aardvark")),)

    def setup(self, state: State) -> None:
        LOG.append(self.name)


@pytest.fixture
def toys():
    register(ToyTally)
    register(AardvarkStep())
    LOG.clear()
    yield
    del REGISTRY["toy_tally"], REGISTRY["aardvark_step"]


def test_module_slots_survive_json_clone_and_replay_and_stay_hidden(toys):
    game = Game(GameConfig(players=3, modules=frozenset({"toy_tally", "aardvark_step"})))
    final = play(game, [RandomAgent(k) for k in range(3)], seed=4, on_action=check)
    steps = final.ext["toy_tally"]["steps"]
    # Hooks in name order: aardvark's step before toy_tally's, once per season.
    assert steps == ["aardvark", "tally"] * 3
    assert LOG[:2] == ["aardvark_step", "toy_tally"]
    assert [0, 2, "toy: seasons"] in final.score_events  # 6 steps // 3
    # after_score saw the first player to reach 20 points, at that very event.
    totals, first = [0, 0, 0], None
    for n, (p, delta, _) in enumerate(final.score_events, start=1):
        totals[p] += delta
        if first is None and totals[p] >= 20:
            first = [p, n]
    assert final.ext["toy_tally"]["first_to_20"] == first is not None
    data = json.loads(json.dumps(final.to_json()))
    assert State.from_json(game, data).to_json() == final.to_json()
    twin = final.clone()
    twin.ext["toy_tally"]["steps"].append("x")
    twin.players[0].ext["toy_tally"]["secret"] = -1
    assert len(final.ext["toy_tally"]["steps"]) == 6
    assert final.players[0].ext["toy_tally"]["secret"] >= 0
    assert game.replay(4, final.history).to_json() == final.to_json()
    assert "ext" not in view(final, 0)["players"][0]


def test_config_checks_and_unknown_features(toys):
    with pytest.raises(ConfigError, match="needs the modules"):
        GameConfig(modules=frozenset({"aardvark_step"}))
    with pytest.raises(RegistryError, match="already registered"):
        register(ToyTally)

    class Bad(Module):
        name = "bad_feature"
        replaces = frozenset({"gravity"})

    with pytest.raises(RegistryError, match="unknown features"):
        register(Bad)
    assert "bad_feature" not in REGISTRY


def test_action_space_is_fixed_once_a_game_exists():
    Game(GameConfig(players=2))
    with pytest.raises(ActionSpaceError, match="fixed once a game exists"):
        add_kinds("late", (("late_kind", 2),))


def test_season_step_needs_a_known_anchor():
    from tower.marrakesh.hooks import Hooks

    class Lost(Module):
        name = "lost_step"
        season_steps = (SeasonStep("lost", after="nowhere", tasks=_tally("lost")),)

    register(Lost)
    try:
        with pytest.raises(RegistryError, match="comes after 'nowhere'"):
            Hooks({"lost_step"})
    finally:
        del REGISTRY["lost_step"]


@TOY_TURNS.task("toy_round")
def _toy_round(state: State, t: dict) -> None:
    state.ext["toy_turns"]["rounds"].append(t["when"])


@TOY_TURNS.option("toy_ping")
def _toy_ping_options(state: State, t: dict) -> list[int]:
    return [action_id("choice", 0), action_id("choice", 1)]


@TOY_TURNS.label("toy_ping")
def _toy_ping_label(state: State, t: dict, a) -> str:
    return ("answer no", "answer yes")[a.arg]


@TOY_TURNS.resolution("toy_ping")
def _toy_ping(state: State, t: dict, a) -> None:
    state.players[t["p"]].ext["toy_turns"]["answers"].append(a.arg)


class ToyTurns(Module):
    """A decision at the start of every phase-3 turn; a log of every round's start and end."""

    name = "toy_turns"
    adds = TOY_TURNS

    def setup(self, state: State) -> None:
        state.ext[self.name] = {"rounds": []}
        for pl in state.players:
            pl.ext[self.name] = {"answers": []}

    def round_tasks(self, state: State, when: str) -> list[dict]:
        return [T("toy_round", when=when)]

    def turn_tasks(self, state: State, p: int, when: str) -> list[dict]:
        return [ask("toy_ping", p)] if when == "start" else []


def test_round_and_turn_hooks_add_decisions():
    register(ToyTurns)
    try:
        game = Game(GameConfig(players=3, modules=frozenset({"toy_turns"})))
        final = play(game, [RandomAgent(k) for k in range(3)], seed=2, on_action=check)
        assert final.ext["toy_turns"]["rounds"] == ["start", "end"] * 12
        asked = [h for h in final.history if h.split(" ", 1)[1].startswith("choice")]
        assert all(len(pl.ext["toy_turns"]["answers"]) == 12 for pl in final.players)
        assert len(asked) >= 36  # one decision per player and round, besides the others
        assert game.replay(2, final.history).to_json() == final.to_json()
    finally:
        del REGISTRY["toy_turns"]


def test_season_step_before_an_anchor():
    """A step anchored ``before`` a step runs right before it, after the steps anchored
    after the step preceding it, whatever the module names' order."""
    from tower.marrakesh.hooks import Hooks

    class Early(Module):  # sorts first, anchored before the provisions
        name = "aa_before_step"
        season_steps = (SeasonStep("early", "", _tally("early"), before="provisions"),)

    class Late(Module):  # sorts last, anchored after the river
        name = "zz_after_step"
        season_steps = (SeasonStep("late", after="river", tasks=_tally("late")),)

    class Both(Module):
        name = "both_anchors"
        season_steps = (SeasonStep("both", "river", _tally("both"), before="provisions"),)

    for mod in (Early, Late, Both):
        register(mod)
    try:
        steps = [n for n, _ in Hooks({"aa_before_step", "zz_after_step"}).season]
        assert steps == ["river", "late", "early", "provisions", "prepare"]
        with pytest.raises(RegistryError, match="two anchors"):
            Hooks({"both_anchors"})
    finally:
        for mod in (Early, Late, Both):
            del REGISTRY[mod.name]


TOY_MARK = RuleSet()


@TOY_MARK.task("toy_mark")
def _toy_mark(state: State, t: dict) -> None:
    state.ext["toy_after_prepare"].append(f"{t['what']} s{state.season}")


class AfterPrepare(Module):
    """A season step anchored after ``prepare``, beside a mark at each round's start."""

    name = "toy_after_prepare"
    adds = TOY_MARK
    season_steps = (
        SeasonStep("toy_after_prepare", "prepare", lambda s: [T("toy_mark", what="step")]),
    )

    def setup(self, state: State) -> None:
        state.ext[self.name] = []

    def round_tasks(self, state: State, when: str) -> list[dict]:
        return [T("toy_mark", what="round")] if when == "start" and state.round == 1 else []

    def final_scoring(self, state: State, p: int) -> None:
        if p == 0:
            state.ext[self.name].append("final")


def test_season_step_after_prepare_runs_before_the_next_round():
    """A step anchored after ``prepare`` runs in its season's scoring: before the next
    season's first round (after ``next_season``), and before the final scoring."""
    register(AfterPrepare)
    try:
        game = Game(GameConfig(players=2, modules=frozenset({"toy_after_prepare"})))
        final = play(game, [RandomAgent(k) for k in range(2)], seed=5, on_action=check)
        assert final.ext["toy_after_prepare"] == [
            "round s1",
            "step s2",
            "round s2",
            "step s3",
            "round s3",
            "step s3",
            "final",
        ]
    finally:
        del REGISTRY["toy_after_prepare"]


def test_every_hook_has_a_docstring_and_a_declared_tuple():
    """Each hook documents its contract; ``Hooks`` declares a tuple for each hook a game
    calls (``read_tables`` runs at load and ``sahara`` when the hooks are built)."""
    import ast
    from pathlib import Path

    from tower.marrakesh import hooks
    from tower.marrakesh.hooks import HOOKS, Hooks

    undocumented = [h for h in (*HOOKS, "check_config") if not getattr(Module, h).__doc__]
    assert undocumented == []
    # Read from the file: the module may run compiled (setup.py), without its source.
    text = (Path(hooks.__file__).parent / "hooks.py").read_text(encoding="utf-8")
    cls = next(n for n in ast.parse(text).body if getattr(n, "name", "") == "Hooks")
    init = next(n for n in cls.body if getattr(n, "name", "") == "__init__")
    source = ast.get_source_segment(text, init)
    called = set(HOOKS) - {"read_tables", "sahara"}
    assert sorted(h for h in called if f"self.{h}: tuple[" not in source) == []
    assert all(getattr(Hooks(()), h) == () for h in called)
    walls = Hooks({"walls_guards"})
    assert walls.setup and walls.room and walls.luxury_buy == ()


def test_module_rules_exist_only_in_games_that_switch_the_module_on():
    """A module's tasks, decisions, labels and effects are data on its class (``adds``),
    which a game merges into its rule set only when the module is on; importing the
    modules adds nothing to the core's tables."""
    from tower.marrakesh.hooks import RULE_TABLES
    from tower.marrakesh.rules import CORE, known

    def entries(rs: RuleSet) -> set[tuple[str, str]]:
        return {(name, str(k)) for name in RULE_TABLES for k in getattr(rs, name)}

    for name in RULE_TABLES:
        table = getattr(CORE, name)
        owners = (
            {getattr(v, "__module__", "") for v in table.values()}
            if isinstance(table, dict)
            else set()
        )
        assert not any(o.startswith("tower.marrakesh.modules") for o in owners), name
    base = entries(Game(GameConfig(players=2)).ruleset)
    assert base == entries(CORE)
    playable = [m for m in REGISTRY.values() if m.playable and m.name.isidentifier()]
    with_adds = [m for m in playable if entries(m.adds)]
    assert {"gems", "walls_guards", "experts", "special_buildings"} <= {m.name for m in with_adds}
    for mod in with_adds:
        own = entries(mod.adds)
        on = frozenset({mod.name, *mod.requires})
        players = next(n for n in (4, 3, 2) if refusal(n, on) is None)
        assert own <= entries(Game(GameConfig(players=players, modules=on)).ruleset), mod.name
        assert not own & base, mod.name
        others = frozenset(
            n for n in everything(players) if n != mod.name and mod.name not in REGISTRY[n].requires
        )
        if refusal(players, others) is None:
            assert not own & entries(Game(GameConfig(players=players, modules=others)).ruleset)
    assert entries(known()) >= base | set().union(*(entries(m.adds) for m in with_adds))


def test_room_hook_is_asked_only_about_its_colours():
    """``room_colours`` limits the colours a module's ``room`` hook is asked about: by
    default every colour, Walls & Guards green and brown; the room of the others is the
    core's."""
    from tower.marrakesh import sectors
    from tower.marrakesh.hooks import Hooks
    from tower.pieces import KESHI_COLOURS

    asked: list[str] = []

    class Cramped(Module):
        name = "cramped_room"

        def room(self, state: object, p: int, colour: str) -> int | None:
            asked.append(colour)
            return 0 if colour == "white" else None

    register(Cramped)
    try:
        every = Hooks({"cramped_room"}).room_for
        assert all(len(every[c]) == 1 for c in KESHI_COLOURS)
        walls = Hooks({"walls_guards", "cramped_room"}).room_for
        assert {c for c in KESHI_COLOURS if len(walls[c]) == 2} == {"green", "brown"}
        state = Game(GameConfig(players=2, modules=frozenset({"cramped_room"}))).new_initial_state(
            0
        )
        assert sectors.room(state, 0, "white") == 0
        assert sectors.room(state, 0, "black") == 8 - state.players[0].keshis["black"]
        assert sectors.room(state, 0, "yellow") == 99  # goods: no module is asked
        assert asked == ["white", "black"]
    finally:
        del REGISTRY["cramped_room"]


def test_a_resolution_that_ignores_pass_never_sees_one():
    from tower.marrakesh.actions import Action

    rs = RuleSet()
    seen: list[str] = []

    @rs.resolution("toy_ignore", ignore_pass=True)
    def _toy(state: object, t: dict, a: Action) -> None:
        seen.append(str(a))

    rs.resolve["toy_ignore"](None, {}, Action("pass"))
    rs.resolve["toy_ignore"](None, {}, Action("colour", 0))
    assert seen == [str(Action("colour", 0))]
