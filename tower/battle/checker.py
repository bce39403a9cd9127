"""The battle checker: a season's Battles at the Wall under a tower model.

:func:`analyse` takes a :class:`Situation` (season, battle order, each player's recruited
watchmen and wall) and a :class:`TowerStart` (a given tower state, or a pool of steady-state
towers from the model) and returns, per player, the law of attackers repelled and of
breaches, the expected points and losses, and how hiring 0 to 3 watchmen changes them.
The first battle is exact when the model gives :meth:`~tower.model.TowerModel.distribution`
and the outcomes to enumerate are few (:func:`outcome_bound`); everything else is Monte
Carlo with its standard error. :func:`check` scores an observed throw (what went in, what
came out) by a tail probability under the model.

Examples
--------
>>> from tower.model import BaselineModel
>>> model = BaselineModel()
>>> situation = Situation.default(players=2, season=1, recruited=1, repaired=1)
>>> result = analyse(model, situation, empty_tower(model), samples=500, seed=1, hiring=False)
>>> [p.player for p in result.players]
['red', 'yellow']
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tower.battle.season import Method, OutcomeTally, PlayerStats, Situation, TowerStart
from tower.errors import TowerError
from tower.marrakesh.wall_battle import (
    WATCHMEN_PER_PLAYER,
    BattleOutcome,
    Wall,
    battle_throw,
    cheapest_hire,
    hiring_cost,
    resolve_battle,
)
from tower.model.interface import TowerModel, TowerState
from tower.pieces import KESHI_COLOURS, Kind, Piece

#: Exact laws are used when the outcomes to enumerate stay below this bound. Whatever the
#: model, the pieces out are a sub-multiset of the residents and the pieces thrown, so a
#: state admits at most prod(count + 1) outcomes over its distinct pieces.
EXACT_MAX_OUTCOMES = 20000


def outcome_bound(
    states: Iterable[TowerState], thrown: Sequence[Piece], cap: int | None = None
) -> int:
    """Upper bound on the outcomes to enumerate for exact laws from ``states``; with
    ``cap``, counting stops once the bound is past it (all a caller deciding whether to
    enumerate needs).

    >>> from tower.pieces import mixed_keshis
    >>> outcome_bound([TowerState()], mixed_keshis(3) + mixed_keshis(1))
    12
    """
    total = 0
    for state in states:
        bound = 1
        for n in Counter([*state.pieces, *thrown]).values():
            bound *= n + 1
        total += bound
        if cap is not None and total > cap:
            break
    return total


class ImpossibleObservation(TowerError, ValueError):
    """An observed battle that cannot happen: pieces out that never went in, or zero
    probability under the model."""


# --------------------------------------------------------------------------------------
# Situations and tower starts
# --------------------------------------------------------------------------------------


def empty_tower(model: TowerModel) -> TowerStart:
    """An empty tower."""
    return TowerStart("empty tower", (model.new_state(),))


def given_tower(state: TowerState, label: str = "given tower state") -> TowerStart:
    """A tower in a known state."""
    return TowerStart(label, (state,))


def ordinary_round(players: int, rng: random.Random) -> list[Piece]:
    """The keshis of one ordinary Marrakesh round: 3 per player ("all selected keshis ...
    all at once"), colours drawn at random."""
    return [Piece.keshi(rng.choice(KESHI_COLOURS)) for _ in range(3 * players)]


def warm_tower(
    model: TowerModel, players: int, rounds: int, *, states: int = 200, seed: int = 0
) -> TowerStart:
    """``states`` independent towers, each after ``rounds`` ordinary rounds from empty
    (the physics cross-check can simulate exactly this start)."""
    if states < 1 or rounds < 0:
        raise ValueError("need states >= 1 and rounds >= 0")
    pool = []
    for i in range(states):
        rng = random.Random(f"warm/{seed}/{i}")
        state = model.new_state()
        for _ in range(rounds):
            _, state = model.throw(state, ordinary_round(players, rng), rng)
        pool.append(state)
    mean = sum(len(s.residents) for s in pool) / len(pool)
    label = (
        f"{model.name}: {states} towers after {rounds} rounds of {3 * players} keshis from "
        f"empty ({mean:.1f} pieces inside on average)"
    )
    return TowerStart(label, tuple(pool))


def steady_tower(
    model: TowerModel,
    players: int = 4,
    *,
    states: int = 200,
    burn_in: int = 24,
    thin: int = 3,
    seed: int = 0,
) -> TowerStart:
    """A pool of steady-state towers: one long run of ordinary Marrakesh rounds.

    Each round throws 3 keshis per player ("all selected keshis ... all at once") in
    random colours. After ``burn_in`` rounds every ``thin``-th state is kept.
    """
    if states < 1 or burn_in < 0 or thin < 1:
        raise ValueError("need states >= 1, burn_in >= 0, thin >= 1")
    rng = random.Random(seed)
    state = model.new_state()
    pool: list[TowerState] = []
    rounds = 0
    while len(pool) < states:
        _, state = model.throw(state, ordinary_round(players, rng), rng)
        rounds += 1
        if rounds > burn_in and (rounds - burn_in) % thin == 0:
            pool.append(state)
    mean = sum(len(s.residents) for s in pool) / len(pool)
    label = (
        f"steady state of {model.name}: {states} towers after rounds of {3 * players} keshis "
        f"(burn-in {burn_in}, thinned by {thin}; {mean:.1f} pieces inside on average)"
    )
    return TowerStart(label, tuple(pool))


# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------


def exact_first_battle(
    model: TowerModel, situation: Situation, tower: TowerStart
) -> PlayerStats | None:
    """The first player's battle computed exactly from ``model.distribution``.

    Returns ``None`` when the model has no exact law or the enumeration could exceed
    :data:`EXACT_MAX_OUTCOMES` outcomes (see :func:`outcome_bound`).
    """
    distinct = tower.distinct()
    player = situation.order[0]
    thrown = battle_throw(situation.season, player, situation.recruited.get(player, 0), None)
    if outcome_bound(distinct, thrown, EXACT_MAX_OUTCOMES) > EXACT_MAX_OUTCOMES:
        return None
    wall = situation.walls[player]
    by_summary: Counter[Summary] = Counter()
    example: dict[Summary, tuple[Piece, ...]] = {}
    try:
        for state, mult in distinct.items():
            for out, p in model.distribution(state, thrown).items():
                key = summarise(out)  # the battle depends on the summary only
                by_summary[key] += p * mult
                example.setdefault(key, out)
    except NotImplementedError:
        return None
    tally = OutcomeTally()
    for key, p in by_summary.items():
        tally.add(resolve_battle(player, example[key], wall), p)
    return tally.stats(player, situation.recruited.get(player, 0), "exact")


def simulate(
    model: TowerModel,
    situation: Situation,
    tower: TowerStart,
    samples: int,
    seed: int,
    *,
    hiring: bool = False,
    batched: bool = True,
) -> tuple[list[PlayerStats], dict[tuple[str, int], PlayerStats]]:
    """Monte Carlo over ``samples`` seasons of battles.

    Returns one :class:`PlayerStats` per player in battle order and, with ``hiring``, the
    stats of each (player, watchmen hired 0-3). A hiring variant branches off the simulated
    season just before that player's battle (everything before it is unchanged by their
    choice), and the season continues from the variant that was actually hired.

    With ``batched`` a distilled model plays the seasons in lockstep on its numpy batch
    path (:func:`tower.battle.batched.simulate_batched`: the same law, other random
    draws).
    Otherwise the seasons are played one throw at a time, and the four variants of one
    battle share one random stream (common random numbers), so their differences are
    sharper than their standard errors suggest.
    """
    from tower.model.distilled import DistilledModel

    if batched and isinstance(model, DistilledModel):
        from tower.battle.batched import simulate_batched

        return simulate_batched(model, situation, tower, samples, seed, hiring=hiring)
    if samples < 2:
        raise ValueError(f"Monte Carlo needs at least 2 samples, got {samples}")
    rng = random.Random(seed)
    brng = random.Random(0)
    order, walls = situation.order, situation.walls
    tallies = {p: OutcomeTally() for p in order}
    variants = (
        {(p, k): OutcomeTally() for p in order for k in range(WATCHMEN_PER_PLAYER + 1)}
        if hiring
        else {}
    )
    for r in range(samples):
        state = tower.draw(rng)
        base: list[Piece] | None = None
        for i, player in enumerate(order):
            hired = situation.recruited.get(player, 0)
            brng.seed(f"{seed}/{r}/{i}")
            branch = brng.getstate()
            after: tuple[list[Piece], TowerState] | None = None
            for k in range(WATCHMEN_PER_PLAYER + 1) if hiring else (hired,):
                brng.setstate(branch)
                out, new = model.throw(state, battle_throw(situation.season, player, k, base), brng)
                if hiring:
                    variants[player, k].add(resolve_battle(player, out, walls[player]))
                if k == hired:
                    after = (out, new)
            assert after is not None
            base, state = after
            tallies[player].add(resolve_battle(player, base, walls[player]))
    return (
        [tallies[p].stats(p, situation.recruited.get(p, 0), "monte carlo") for p in order],
        {key: t.stats(key[0], key[1], "monte carlo") for key, t in variants.items()},
    )


@dataclass(frozen=True)
class HiringRow:
    """One player's outcome if they hire ``hired`` watchmen (others as in the situation)."""

    player: str
    hired: int
    cost: dict[str, int]
    stats: PlayerStats


@dataclass(frozen=True)
class Analysis:
    """Everything :func:`analyse` found."""

    model: str
    tower: str
    situation: Situation
    seed: int
    players: tuple[PlayerStats, ...]
    hiring: tuple[HiringRow, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (schema ``tower.battle-analysis/1``)."""
        return {
            "format": "tower.battle-analysis/1",
            "model": self.model,
            "tower": self.tower,
            "seed": self.seed,
            "situation": self.situation.to_json(),
            "players": [p.to_json() for p in self.players],
            "hiring": [
                {"player": h.player, "hired": h.hired, "cost": h.cost, **h.stats.to_json()}
                for h in self.hiring
            ],
        }


def analyse(
    model: TowerModel,
    situation: Situation,
    tower: TowerStart,
    *,
    samples: int = 4000,
    seed: int = 0,
    hiring: bool = True,
) -> Analysis:
    """Each player's battle, and (``hiring``) each player's outcome when hiring 0 to 3
    (see :func:`simulate`); the first battle is exact where :func:`exact_first_battle` is."""
    base, variants = simulate(model, situation, tower, samples, seed, hiring=hiring)
    first = situation.order[0]
    exact = exact_first_battle(model, situation, tower)
    if exact is not None:
        base[0] = exact
    rows: list[HiringRow] = []
    for (player, k), stats in variants.items():
        if player == first:
            stats = exact_first_battle(model, situation.with_recruited(first, k), tower) or stats
        rows.append(HiringRow(player, k, hiring_cost(cheapest_hire(k)), stats))
    return Analysis(model.name, tower.label, situation, seed, tuple(base), tuple(rows))


# --------------------------------------------------------------------------------------
# Checking an observed battle
# --------------------------------------------------------------------------------------

#: A throw's summary for the check: count of pieces out per class (watchmen by colour,
#: brigands, keshis of any colour), as a sorted tuple of (class, count).
Summary = tuple[tuple[str, int], ...]


def piece_class(piece: Piece) -> str:
    """The class a piece counts in for a battle: ``watchman:<colour>``, ``brigand`` or
    ``keshi`` (keshi colours play no part in a battle)."""
    if piece.kind is Kind.WATCHMAN:
        return str(piece)
    if piece.kind is Kind.BRIGAND:
        return "brigand"
    return "keshi"


def summarise(out: Sequence[Piece]) -> Summary:
    """The battle summary of a multiset of pieces out."""
    return tuple(sorted(Counter(piece_class(p) for p in out).items()))


@dataclass(frozen=True)
class Observation:
    """An observed battle throw: what went in, what came out, and optionally whose battle
    it was and their wall (then the battle outcome is reported too)."""

    thrown: tuple[Piece, ...]
    out: tuple[Piece, ...]
    player: str | None = None
    wall: Wall | None = None


@dataclass(frozen=True)
class CheckResult:
    """How plausible an observation is: ``tail`` is the probability, under the model, of a
    summary at most as likely as the one observed (1 = typical, small = surprising)."""

    summary: Summary
    probability: float
    tail: float
    tail_se: float
    tail_low: float
    tail_high: float
    method: Method
    samples: int
    outcome: BattleOutcome | None
    note: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (schema ``tower.battle-check/1``)."""
        out: dict[str, Any] = {
            "format": "tower.battle-check/1",
            "summary": dict(self.summary),
            "probability": self.probability,
            "tail": self.tail,
            "tail_se": self.tail_se,
            "tail_low": self.tail_low,
            "tail_high": self.tail_high,
            "method": self.method,
            "samples": self.samples,
            "note": self.note,
        }
        if self.outcome is not None:
            o = self.outcome
            out["outcome"] = {
                "player": o.player,
                "repelled": o.repelled,
                "points": o.points,
                "breaches": [s + 1 for s in o.breaches],
                "penalties": [p.value for p in o.penalties],
            }
        return out


def _feasible(obs: Observation, tower: TowerStart) -> None:
    """Raise :class:`ImpossibleObservation` if ``obs.out`` cannot come from ``obs.thrown``
    and any of the tower's start states."""
    out = Counter(piece_class(p) for p in obs.out)
    thrown = Counter(piece_class(p) for p in obs.thrown)
    inside = Counter[str]()
    for s in tower.distinct():
        for cls, n in Counter(piece_class(p) for p in s.pieces).items():
            inside[cls] = max(inside[cls], n)
    for cls, n in sorted(out.items()):
        if n > thrown[cls] + inside[cls]:
            raise ImpossibleObservation(
                f"impossible observation: {n} × {cls} came out, but only {thrown[cls]} went "
                f"in and the tower ({tower.label}) holds at most {inside[cls]}"
            )
    for cls, n in sorted(thrown.items()):
        limit = 3 if cls != "keshi" else None
        if limit is not None and n > limit:
            raise ImpossibleObservation(
                f"impossible observation: {n} × {cls} thrown, but the game has only {limit}"
            )


def check(
    model: TowerModel,
    obs: Observation,
    tower: TowerStart,
    *,
    samples: int = 20000,
    seed: int = 0,
) -> CheckResult:
    """Score ``obs`` by the tail probability of its battle summary under ``model``.

    Exact when ``model.distribution`` exists and the outcomes to enumerate are few;
    otherwise the law of the summary is estimated from ``samples`` throws (the tail's
    standard error is the binomial one).

    Raises :class:`ImpossibleObservation` when pieces came out that could not be there, or
    when the exact law gives the observation probability 0.
    """
    _feasible(obs, tower)
    observed = summarise(obs.out)
    law: Counter[Summary] = Counter()
    method: Method = "exact"
    distinct = tower.distinct()
    try:
        if outcome_bound(distinct, obs.thrown, EXACT_MAX_OUTCOMES) > EXACT_MAX_OUTCOMES:
            raise NotImplementedError
        total = sum(distinct.values())
        for state, mult in distinct.items():
            for out, p in model.distribution(state, obs.thrown).items():
                law[summarise(out)] += p * mult / total
    except NotImplementedError:
        method = "monte carlo"
        if samples < 2:
            raise ValueError(f"Monte Carlo needs at least 2 samples, got {samples}") from None
        law.clear()
        rng = random.Random(seed)
        for _ in range(samples):
            out, _state = model.throw(tower.draw(rng), list(obs.thrown), rng)
            law[summarise(out)] += 1.0 / samples
    p_obs = law.get(observed, 0.0)
    if method == "exact" and p_obs <= 0.0:
        raise ImpossibleObservation(
            f"impossible observation: the model {model.name!r} gives probability 0 to "
            f"{dict(observed)} coming out of {dict(summarise(obs.thrown))}"
        )
    tol = 1e-12
    tail = min(1.0, sum(p for p in law.values() if p <= p_obs + tol))
    low = high = tail
    if method == "exact":
        se, note = 0.0, "exact law of the summary from model.distribution"
    else:
        se = math.sqrt(tail * (1.0 - tail) / samples)
        # Which summaries count as "at most as likely" depends on estimated probabilities;
        # moving p_obs by about 3 standard errors of a difference of two estimates
        # (4 sqrt(p/N)) brackets that ordering uncertainty.
        delta = 4.0 * math.sqrt(max(p_obs, 1.0 / samples) / samples)
        low = sum(p for p in law.values() if p <= p_obs - delta + tol)
        high = min(1.0, sum(p for p in law.values() if p <= p_obs + delta + tol))
        note = (
            f"law of the summary estimated from {samples} model throws; the ordering of "
            f"nearly equally likely summaries puts the tail between {low:.3f} and {high:.3f}"
        )
        if p_obs == 0.0:
            tail, se = 0.0, 0.0
            note = (
                f"law of the summary estimated from {samples} model throws; the observation "
                f"never occurred: tail < {3 / samples:.2g} (95% bound)"
            )
            low, high = 0.0, 3 / samples
    outcome = None
    if obs.player is not None and obs.wall is not None:
        outcome = resolve_battle(obs.player, obs.out, obs.wall)
    return CheckResult(
        observed,
        p_obs,
        tail,
        se,
        low,
        high,
        method,
        0 if method == "exact" else samples,
        outcome,
        note,
    )
