"""Conformance vectors: what any port of the reference sampler must reproduce.

A port of :mod:`tower.model.reference` to another language is right when, for the same
model file, it computes the same exact laws and its draws follow them. The vectors are
cases taken from the Python reference along random games (Marrakesh rounds of 6, 9 and
12 keshis, rounds with experts, Walls & Guards battles), and one crowd of 53 pieces
thrown into an empty tower, whose groups no level has seen (the per-piece fallback):

``cases``
    One per (group, context): the group name, the context (``fields``: :data:`FIELDS`), the
    bucketed context, the per-piece law of the fallback, the exact ``out_law`` and the
    exact ``outcome_probability`` of several destination-count vectors (all of them
    when ``m <= 3``). A port must reproduce every number to ``1e-12``.
``games``
    Whole games through :class:`~tower.model.distilled.DistilledModel` with a
    ``random.Random(seed)``: each throw's pieces, the pieces out, the state after and the
    exact law of the count out (:meth:`~tower.model.distilled.DistilledModel.count_distribution`;
    ``null`` for a throw that the model's copula couples, whose law a port need not
    compute: section 8.1 of ``docs/model-format.md``). A port that
    also implements Python's Mersenne Twister (and, for a model with a copula, its
    ``gauss`` and ``shuffle``) reproduces them draw for draw.
``chi_square``
    Indices of cases whose out-count law a port's sampler is tested against, with the
    level of the test.
``random``
    The first draws of ``random.Random(seed)`` for a few seeds, to check a Mersenne
    Twister port on its own (``random()``, and for the copula's draws ``gauss()`` and
    ``shuffle()``), reference values of the chi-square survival function, and of the
    copula's normal distribution function (``normal_cdf``).

The file is canonical JSON with schema ``tower.model-vectors/1``; the ``model`` entry names
the model file's checksum, so vectors are never checked against another model.

Examples
--------
>>> from tower.model import load_shipped
>>> vec = conformance_vectors(load_shipped("marrakesh"), games=1, seed=3)
>>> vec["schema"], len(vec["games"]), vec["cases"][0]["group"]
('tower.model-vectors/1', 1, 'fresh.keshi')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

from tower.model.distilled import DistilledModel
from tower.model.interface import TowerState
from tower.model.reference import DESTINATIONS, FIELDS, groups, normal_cdf
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece

SCHEMA = "tower.model-vectors/1"
#: Player colours of the throws in the vectors and on the web page (assumed names).
PLAYER_COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "green")
#: Largest group for which every destination-count vector is listed.
ALL_OUTCOMES_UP_TO = 3
#: Test level of the sampling check.
CHI_SQUARE_LEVEL = 0.01
#: Seeds whose first Mersenne Twister draws the vectors list.
RANDOM_SEEDS: tuple[int, ...] = (0, 1, 42, 2**32 + 5, 12345678901234567890)


def marrakesh_round(players: int, rng: random.Random) -> list[Piece]:
    """Three keshis per player, colours drawn at random (a round of 6, 9 or 12 keshis)."""
    return [Piece.keshi(rng.choice(KESHI_COLOURS)) for _ in range(3 * players)]


def expert_round(players: int, rng: random.Random) -> list[Piece]:
    """A Gems & Experts round: the players' keshis and 1 to 5 experts."""
    experts = [Piece(Kind.EXPERT, rng.choice(KESHI_COLOURS)) for _ in range(rng.randint(1, 5))]
    return marrakesh_round(players, rng) + experts


def battle_throw(players: int, rng: random.Random) -> list[Piece]:
    """A Walls & Guards battle: 0-3 watchmen per player and 1-3 brigands."""
    pieces = [
        Piece(Kind.WATCHMAN, colour)
        for colour in PLAYER_COLOURS[:players]
        for _ in range(rng.randint(0, 3))
    ]
    return pieces + [Piece(Kind.BRIGAND, NEUTRAL)] * rng.randint(1, 3)


def crowd_throw(rng: random.Random) -> list[Piece]:
    """40 keshis, 8 watchmen and 5 experts at once: group sizes no game throws, so the
    per-piece fallback (no level has the context) is exercised whatever the traces were."""
    keshis = [Piece.keshi(rng.choice(KESHI_COLOURS)) for _ in range(40)]
    return keshis + [Piece(Kind.WATCHMAN, PLAYER_COLOURS[0])] * 8 + [Piece(Kind.EXPERT, "blue")] * 5


#: Throw kinds of the random games, drawn with equal chance each throw.
THROWS: tuple[Callable[[int, random.Random], list[Piece]], ...] = (
    marrakesh_round,
    marrakesh_round,
    expert_round,
    battle_throw,
)


def compositions(m: int) -> list[tuple[int, ...]]:
    """Every destination-count vector of ``m`` pieces over the 5 destinations.

    >>> len(compositions(3))
    35
    """
    width = len(DESTINATIONS)
    return [c for c in product(range(m + 1), repeat=width) if sum(c) == m]


def conformance_vectors(
    model: DistilledModel, *, games: int = 40, throws: int = 12, seed: int = 0
) -> dict[str, Any]:
    """The conformance vectors of ``model`` from ``games`` random games of ``throws`` throws.

    Returns a JSON-ready dict (see the module docstring). Equal arguments give equal
    vectors.
    """
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    game_records = []
    for g in range(games):
        game_seed = seed * 1_000_003 + g
        draw = random.Random(game_seed)
        players = 2 + g % 3
        state = model.new_state()
        steps = []
        for _ in range(throws):
            pieces = rng.choice(THROWS)(players, rng)
            cases += _cases(model, state, pieces, rng)
            # a throw the model's copula couples: its law is a quadrature, no port's duty
            law = None if model.couples(state, pieces) else model.count_distribution(state, pieces)
            out, state = model.throw(state, pieces, draw)
            steps.append(
                {
                    "fresh": [str(p) for p in pieces],
                    "out": [str(p) for p in out],
                    "state": state.to_json(),
                    "count_law": law,
                }
            )
        game_records.append({"seed": game_seed, "players": players, "steps": steps})
    cases += _cases(model, model.new_state(), crowd_throw(rng), rng)
    chosen = [i for i, c in enumerate(cases) if c["ctx"][0] >= 2 and _spread(c["out_law"])]
    step = max(1, len(chosen) // 30)
    return {
        "schema": SCHEMA,
        "model": {"name": model.name, "schema": model.doc["schema"], "sha256": model.doc["sha256"]},
        "fields": list(FIELDS),
        "destinations": list(DESTINATIONS),
        "tolerance": 1e-12,
        "cases": cases,
        "games": game_records,
        "chi_square": {"level": CHI_SQUARE_LEVEL, "cases": chosen[::step][:30]},
        "random": _random_reference(),
    }


def _spread(law: Sequence[float]) -> bool:
    """A law worth a sampling test: at least two counts with probability above 1 %."""
    return sum(p > 0.01 for p in law) >= 2


def _cases(
    model: DistilledModel, state: TowerState, pieces: list[Piece], rng: random.Random
) -> list[dict[str, Any]]:
    """Cases of every group of one throw, each at two values of ``o`` (pieces out so far)."""
    sampler = model.sampler
    cls_of = model.piece_class
    residents = [(cls_of(r.piece), r.place.value, r.since, r.piece) for r in state.residents]
    fresh = [(cls_of(p), p) for p in pieces]
    total = len(fresh) + len(residents)
    found = []
    for name, _, ctx, _ in groups(residents, fresh, state.throws, sampler.age_cap):
        # o: none out yet, and a value anywhere up to (and past) the bucket edges
        for o in sorted({0, rng.randint(0, total), rng.choice([rng.randint(0, 9), 150])}):
            found.append(_case(model, name, (*ctx, o), rng))
    return found


def _case(
    model: DistilledModel, group: str, ctx: tuple[int, ...], rng: random.Random
) -> dict[str, Any]:
    sampler = model.sampler
    m = ctx[0]
    capped = sampler._bucketed(ctx)
    if m <= ALL_OUTCOMES_UP_TO:
        targets = compositions(m)
    else:
        targets = {sampler.outcome(group, ctx, rng) for _ in range(6)}
        for _ in range(4):  # a few drawn uniformly, most of them rare or impossible
            cut = sorted(rng.randint(0, m) for _ in range(len(DESTINATIONS) - 1))
            targets.add(tuple(b - a for a, b in zip([0, *cut], [*cut, m], strict=True)))
        targets = sorted(targets)
    return {
        "group": group,
        "ctx": list(ctx),
        "capped": capped,
        "levels_hit": [
            i
            for i, (picks, table) in enumerate(zip(sampler._picks, sampler.tables, strict=True))
            if (group, *[capped[j] for j in picks]) in table
        ],
        "piece_law": sampler.piece_law(group, capped),
        "out_law": sampler.out_law(group, ctx),
        "outcomes": [[list(t), sampler.outcome_probability(group, ctx, t)] for t in targets],
    }


def _random_reference() -> dict[str, Any]:
    """First draws of Python's Mersenne Twister, and chi-square survival values."""
    from scipy.stats import chi2

    draws = {}
    for s in RANDOM_SEEDS:
        r = random.Random(s)
        seq = [r.random() for _ in range(1000)]
        draws[str(s)] = {"first": seq[:3], "draw_999": seq[999]}
    points = [(0.5, 1), (3.84, 1), (6.63, 1), (9.0, 2), (15.0, 7), (30.0, 20), (80.0, 60)]
    gauss, shuffled = {}, {}
    for s in RANDOM_SEEDS:
        r = random.Random(s)
        gauss[str(s)] = [r.gauss(0, 1) for _ in range(9)]
        r, order = random.Random(s), list(range(40))
        r.shuffle(order)
        shuffled[str(s)] = [order, r.random()]
    r = random.Random(7)
    xs = [k / 8 for k in range(-64, 65)] + [r.gauss(0, 3) for _ in range(200)] + [-30.0, -38.5]
    return {
        "python_random": draws,
        "python_gauss": gauss,
        "python_shuffle": shuffled,
        "chi2_sf": [[x, df, float(chi2.sf(x, df))] for x, df in points],
        "normal_cdf": [[x, normal_cdf(x)] for x in xs],
    }
