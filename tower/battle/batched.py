"""The battle seasons of :func:`tower.battle.checker.simulate` on the numpy batch path.

A distilled model's seasons are played in lockstep: one
:class:`~tower.model.batch.BatchTowers` holds every replicate's tower, with the pieces a
battle tells apart as labels (keshis, brigands, each player's watchmen), so a player's
battle is one lockstep throw for all seasons (and, with the hiring table, for the four
variants of each season at once). The law is the reference sampler's, piece by piece
(tested against the one-throw-at-a-time seasons); the random streams differ.

A battle's outcome depends only on how many of the player's own watchmen, of brigands
and of other players' watchmen came out, so each distinct count is resolved once by
:func:`~tower.marrakesh.wall_battle.resolve_battle` and tallied as often as it
occurred.

Examples
--------
>>> from tower.battle.checker import Situation, empty_tower
>>> from tower.model import load_shipped
>>> model = load_shipped("marrakesh")
>>> situation = Situation.default(players=2, season=1, recruited=1, repaired=1)
>>> players, _ = simulate_batched(model, situation, empty_tower(model), 500, seed=1)
>>> [p.samples for p in players]
[500, 500]
"""

from __future__ import annotations

import numpy as np

from tower.battle.season import OutcomeTally, PlayerStats, Situation, TowerStart
from tower.marrakesh.wall_battle import (
    PLAYER_COLOURS,
    WATCHMEN_PER_PLAYER,
    Wall,
    brigands_for_season,
    resolve_battle,
)
from tower.model.batch import BatchTowers
from tower.model.distilled import DistilledModel
from tower.model.reference import PLACES
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece

#: The pieces a battle tells apart, as labels of the batch towers.
KESHI, BRIGAND = "keshi", "brigand"
LABELS: tuple[str, ...] = (KESHI, BRIGAND, *(f"watchman:{c}" for c in PLAYER_COLOURS))


def label_of(piece: Piece) -> str:
    """The label of a battle piece (any keshi colour is one label)."""
    if piece.kind is Kind.KESHI:
        return KESHI
    if piece.kind is Kind.BRIGAND:
        return BRIGAND
    return str(piece)


def _example(label: str) -> Piece:
    """A piece of ``label``."""
    if label == KESHI:
        return Piece(Kind.KESHI, KESHI_COLOURS[0])
    if label == BRIGAND:
        return Piece(Kind.BRIGAND, NEUTRAL)
    return Piece.parse(label)


def start_residents(model: DistilledModel, tower: TowerStart) -> np.ndarray:
    """(states, places, labels, age buckets): the residents of each start state."""
    cap = model.sampler.age_cap
    index = {name: i for i, name in enumerate(LABELS)}
    pool = np.zeros((len(tower.states), len(PLACES), len(LABELS), cap), dtype=np.int64)
    for s, state in enumerate(tower.states):
        for r in state.residents:
            age = min(state.throws - r.since, cap)
            pool[s, PLACES.index(r.place.value), index[label_of(r.piece)], age - 1] += 1
    return pool


#: Seasons played in one lockstep batch (four times as many towers with the hiring
#: table): bounds the memory to some tens of MB whatever the number of seasons.
CHUNK = 5000


def simulate_batched(
    model: DistilledModel,
    situation: Situation,
    tower: TowerStart,
    samples: int,
    seed: int,
    *,
    hiring: bool = False,
) -> tuple[list[PlayerStats], dict[tuple[str, int], PlayerStats]]:
    """:func:`tower.battle.checker.simulate` for a distilled model, in lockstep.

    Every season starts from a state drawn uniformly from ``tower``. With ``hiring``,
    each player's battle is thrown four times from the same tower (hiring 0 to 3), and
    the season goes on from the variant the player actually hired. Seasons are played
    :data:`CHUNK` at a time.
    """
    if samples < 2:
        raise ValueError(f"Monte Carlo needs at least 2 samples, got {samples}")
    labels = {name: model.piece_class(_example(name)) for name in LABELS}
    towers = BatchTowers(model.doc["model"], min(samples, CHUNK), seed, labels)
    rng = np.random.default_rng([seed, 1])
    pool = start_residents(model, tower)
    seen = np.asarray([state.throws for state in tower.states], dtype=np.int64)
    order = situation.order
    tallies = {p: OutcomeTally() for p in order}
    choices = range(WATCHMEN_PER_PLAYER + 1)
    variants = {(p, k): OutcomeTally() for p in order for k in choices} if hiring else {}
    for first in range(0, samples, CHUNK):
        starts = rng.integers(len(pool), size=min(CHUNK, samples - first))
        towers.reset(pool[starts], seen[starts])
        _seasons(towers, situation, tallies, variants)
    return (
        [tallies[p].stats(p, situation.recruited.get(p, 0), "monte carlo") for p in order],
        {key: t.stats(key[0], key[1], "monte carlo") for key, t in variants.items()},
    )


def _seasons(
    towers: BatchTowers,
    situation: Situation,
    tallies: dict[str, OutcomeTally],
    variants: dict[tuple[str, int], OutcomeTally],
) -> None:
    """Play the battles of a season in each of ``towers``, in lockstep, adding each
    player's to ``tallies`` and, if ``variants`` is not empty, each hiring variant's."""
    n = towers.n
    base = np.zeros((n, len(LABELS)), dtype=np.int64)
    base[:, LABELS.index(BRIGAND)] = brigands_for_season(situation.season)
    for player in situation.order:
        hired = situation.recruited.get(player, 0)
        choices = list(range(WATCHMEN_PER_PLAYER + 1)) if variants else [hired]
        if variants:
            towers.tile(len(choices))
        fresh = np.tile(base, (len(choices), 1))
        fresh[:, LABELS.index(f"watchman:{player}")] += np.repeat(choices, n)
        out = towers.throw(fresh).out_by_label.reshape(len(choices), n, len(LABELS))
        wall = situation.walls[player]
        for j, k in enumerate(choices):
            if variants:
                _tally(variants[player, k], player, out[j], wall)
        j = choices.index(hired)
        base = out[j]
        _tally(tallies[player], player, base, wall)
        if variants:
            towers.keep(j * n, (j + 1) * n)


def _tally(tally: OutcomeTally, player: str, out: np.ndarray, wall: Wall) -> None:
    """Add the battles of ``player`` with the pieces out ``out`` (seasons, labels)."""
    own = LABELS.index(f"watchman:{player}")
    brigands = out[:, LABELS.index(BRIGAND)]
    watchmen = out[:, [LABELS.index(f"watchman:{c}") for c in PLAYER_COLOURS]].sum(axis=1)
    other = next(c for c in PLAYER_COLOURS if c != player)
    # (defenders, brigands, other watchmen) as the digits of one code
    radix = int(watchmen.max(initial=0) + brigands.max(initial=0)) + 1
    codes = (out[:, own] * radix + brigands) * radix + watchmen - out[:, own]
    seen, counts = np.unique(codes, return_counts=True)
    for code, count in zip(seen.tolist(), counts.tolist(), strict=True):
        defenders, attacking, others = code // radix**2, code // radix % radix, code % radix
        pieces = [Piece(Kind.WATCHMAN, player)] * defenders
        pieces += [Piece(Kind.BRIGAND, NEUTRAL)] * attacking
        pieces += [Piece(Kind.WATCHMAN, other)] * others
        tally.add(resolve_battle(player, pieces, wall), count=count)
