"""Nothing is dealt that the engine does not play: every component of every module
combination has its rules, and every combination plays.

For every module alone, every pair the rules allow and the largest combinations, the
assembled components of a game are checked against what the engine implements: every
special effect is in the game's rule set (``Game.ruleset.specials``), every scroll's
modifier is one the engine reads (``has_mod``/``mod_values`` in its source), every oasis
and desert town has a value, and every special building that can be dealt is one whose
ability the engine asks for (``owns(state, p, name)`` in its source). Then a random game
of the combination is played with the invariants checked after every action, and each
special building that can be dealt is played by its owner.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tower.marrakesh import MODULES, Game, GameConfig, RandomAgent, play
from tower.marrakesh.hooks import maximal_sets, refusal
from tower.marrakesh.invariants import check
from tower.marrakesh.modules import special_buildings as sb
from tower.marrakesh.rules import known
from tower.marrakesh.scoring import town_value
from tower.marrakesh.worth import oasis_value

ENGINE = Path(__file__).resolve().parent.parent / "tower" / "marrakesh"
SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in sorted(ENGINE.rglob("*.py")))
#: Scroll modifiers the engine reads, and special buildings whose ability it asks for.
READ_MODIFIERS = {
    name
    for call in re.findall(r"(?:has_mod|mod_values)\((.*)", SOURCE)
    for name in re.findall(r"\"(\w+)\"", call)
}
ASKED_BUILDINGS = set(re.findall(r"owns\([^)]*?\"(\w+)\"", SOURCE))

COMBINATIONS = sorted(
    {frozenset()}
    | {frozenset({m}) for m in MODULES if refusal(4, frozenset({m})) is None}
    | {
        frozenset(pair)
        for pair in itertools.combinations(MODULES, 2)
        if refusal(4, frozenset(pair)) is None
    }
    | set(maximal_sets(4)),
    key=lambda s: (len(s), sorted(s)),
)


def specials(value: Any) -> set[str]:
    """Names of the special effects anywhere in a component structure."""
    if isinstance(value, dict):
        own = {value["name"]} if value.get("op") == "special" else set()
        return own.union(*(specials(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(specials(v) for v in value))
    return set()


def test_every_special_effect_of_the_data_files_is_registered():
    """The modules' own files too (edicts, gifts, gems, experts, ...), on or off."""
    files = sorted((ENGINE / "data").glob("*.toml"))
    named = specials([tomllib.loads(f.read_text(encoding="utf-8")) for f in files])
    every = set(known().specials)
    assert named and named <= every, named - every


def test_the_source_scan_finds_what_it_looks_for():
    assert {"dinars_substitute", "orchard_alternative"} <= READ_MODIFIERS
    assert {"great_well", "university"} <= ASKED_BUILDINGS


@pytest.mark.parametrize("modules", COMBINATIONS, ids=lambda s: "+".join(sorted(s)) or "base")
def test_every_component_dealt_has_its_rules_and_the_game_plays(modules):
    players = 4 if refusal(4, modules) is None else 2
    game = Game(GameConfig(players=players, modules=modules))
    comps = game.components
    dealt = [comps.scrolls, comps.oases, comps.luxuries, comps.desert_towns]
    dealt += [comps.river_tiles, comps.provisions, comps.exchange_offices]
    # The game's rule set has the effects of what it deals; the raw file and the modules'
    # own tables (read on or off) need some module's.
    assert specials(dealt) <= set(game.ruleset.specials), specials(dealt)
    assert specials([comps.tables, comps.raw]) <= set(known().specials)
    unread = {s.get("modifier") for s in comps.scrolls.values()} - READ_MODIFIERS - {None}
    assert not unread, f"scroll modifiers nobody reads: {unread}"
    state = game.new_initial_state(0)
    assert all(isinstance(oasis_value(state, 0, oid), int) for oid in comps.oases)
    assert all(isinstance(town_value(state, 0, tid), int) for tid in comps.desert_towns)
    if "special_buildings" in modules:
        dealt = {sb.load()["building"][b]["name"] for b in sb.usable(modules)}
        assert dealt <= ASKED_BUILDINGS, f"dealt but not implemented: {dealt - ASKED_BUILDINGS}"
    final = play(game, [RandomAgent(k) for k in range(players)], seed=1, on_action=check)
    assert final.is_terminal()


@pytest.mark.parametrize(
    "name",
    sorted({sb.load()["building"][b]["name"] for m in maximal_sets(4) for b in sb.usable(m)}),
)
def test_every_special_building_that_can_be_dealt_is_played(name):
    """A game in which player 0 keeps ``name`` (whenever it is offered) runs to its end
    with the invariants; the building is theirs at the end."""
    modules = next(m for m in maximal_sets(4) if sb.load()["by_name"][name] in sb.usable(m))
    game = Game(GameConfig(players=2, modules=modules))
    for seed in range(40):
        state = game.new_initial_state(seed)
        while state.stack[-1]["t"] == "ask":
            top = state.stack[-1]
            if top["k"] == "sb_building" and sb.load()["by_name"][name] in top["offer"]:
                state.apply(f"choice:{top['offer'].index(sb.load()['by_name'][name])}")
            else:
                state.apply(state.legal_action_ids()[0])
        if sb.owns(state, 0, name) or sb.owns(state, 1, name):
            break
    else:
        pytest.fail(f"{name} was never dealt in 40 games")
    final = play_on(state)
    assert sb.owns(final, 0, name) or sb.owns(final, 1, name)


def play_on(state):
    """Play a started game to its end with random agents, checking the invariants."""
    agents = [RandomAgent(7), RandomAgent(8)]
    while not state.is_terminal():
        if state.is_chance_node():
            state.sample_chance()
            continue
        p = state.current_player
        p = state.pending_players()[0] if p < 0 else p
        state.apply(agents[p].step(state, p), player=p)
        check(state)
    return state
