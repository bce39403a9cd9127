"""Expert keshis through a tower model: how many come out per round, how long one sticks.

*The Experts* (*Gems & Experts*) throws, each
round, as many expert keshis as there are face-up expert tiles together with the players'
keshis. An expert that sticks stays in the tower until a later throw dislodges it; while
it is inside it cannot be thrown again (the engine's ruling: only the keshis on the expert
board are thrown). :func:`expert_rounds` plays that loop on any
:class:`~tower.model.interface.TowerModel` with ``k`` face-up tiles every round:

1. ``thrown = min(k, on the board)`` expert keshis go in with ``keshis`` mixed keshis;
2. the expert keshis that come out (fresh or dislodged) go back onto the board at the
   end of the round, claimed or not (a claimed one is put back at once).

:func:`summarize_experts` turns the records into the law of expert keshis out per round,
the mean per round index, and how many rounds a stuck expert stays (0 = out in the round
it was thrown), with Monte Carlo standard errors over independent sequences.
:func:`expert_estimates` gives every statistic unrounded with its standard error, and
:func:`compare_experts` sets a model's against another source's, usually physics (the
same loop in simulated towers: :mod:`tower.analysis.experts_physics`), with a verdict
(:class:`ExpertComparison` states the rule).

Examples
--------
>>> from tower.model import BaselineModel
>>> recs = expert_rounds(BaselineModel(), k=3, sequences=100, seed=1)
>>> s = summarize_experts(recs)
>>> abs(sum(s["out_law"].values()) - 1) < 1e-3, 0 < s["out_mean"] <= 3
(True, True)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.model.interface import TowerModel
from tower.pieces import Kind, Piece, mixed_keshis

#: The expert keshis of the box and their colour in the engine (``data/experts.toml``).
EXPERT_KESHIS = 5
EXPERT = Piece(Kind.EXPERT, "neutral")


@dataclass(frozen=True)
class ExpertRecord:
    """One sequence of rounds.

    Parameters
    ----------
    thrown, out : tuple of int
        Expert keshis thrown and out in each round.
    stays : tuple of int
        For each expert keshi that came out: rounds it stayed inside (0: out at once).
    stuck_at_end : tuple of int
        For each expert keshi still inside after the last round: rounds inside so far
        (censored stays).
    """

    thrown: tuple[int, ...]
    out: tuple[int, ...]
    stays: tuple[int, ...]
    stuck_at_end: tuple[int, ...]


def expert_record(
    model: TowerModel, k: int, keshis: int, rounds: int, rng: random.Random
) -> ExpertRecord:
    """Play ``rounds`` rounds of ``k`` face-up tiles and ``keshis`` keshis on ``model``."""
    state = model.new_state()
    board = EXPERT_KESHIS
    thrown, out_n, stays = [], [], []
    for r in range(rounds):
        n = min(k, board)
        board -= n
        before = Counter(x.since for x in state.residents if x.piece.kind is Kind.EXPERT)
        out, state = model.throw(state, [*mixed_keshis(keshis), *[EXPERT] * n], rng)
        after = Counter(x.since for x in state.residents if x.piece.kind is Kind.EXPERT)
        t = state.throws - 1  # the index of this throw (``since`` of fresh pieces)
        gone = [s for s in before for _ in range(before[s] - after[s])]
        gone += [t] * (n - after[t])
        m = sum(p.kind is Kind.EXPERT for p in out)
        if m != len(gone):
            raise ValueError(f"model {model.name} lost track of expert keshis in round {r}")
        stays += [t - s for s in gone]
        board += m
        thrown.append(n)
        out_n.append(m)
    t = state.throws - 1
    stuck = tuple(t - x.since for x in state.residents if x.piece.kind is Kind.EXPERT)
    return ExpertRecord(tuple(thrown), tuple(out_n), tuple(stays), stuck)


def expert_rounds(
    model: TowerModel,
    k: int,
    keshis: int = 12,
    rounds: int = 12,
    sequences: int = 2000,
    seed: int = 0,
) -> list[ExpertRecord]:
    """``sequences`` independent records; sequence ``i`` draws from its own generator
    seeded from ``seed`` (the same seed gives the same records)."""
    if not 1 <= k <= EXPERT_KESHIS:
        raise ValueError(f"k (face-up expert tiles) must be 1..{EXPERT_KESHIS}, not {k}")
    master = random.Random(seed)
    return [
        expert_record(model, k, keshis, rounds, random.Random(master.getrandbits(64)))
        for _ in range(sequences)
    ]


def summarize_experts(records: Sequence[ExpertRecord]) -> dict[str, Any]:
    """JSON-ready statistics of expert records.

    ``out_law`` (share of rounds with 0, 1, ... expert keshis out), ``out_mean`` and
    ``out_se`` (per round; the SE from the spread of the sequences' means),
    ``out_by_round``, ``thrown_mean``, ``offered_none`` (share of rounds with no expert
    keshi out: nobody can take an expert), ``stay_law`` (rounds inside of the expert
    keshis that came out, plus ``censored``: still inside at the end), ``stuck_share``
    (share of thrown expert keshis that did not come out in their round) and
    ``stuck_rounds_mean`` (mean rounds inside of those that stuck and came out later).
    """
    if not records:
        raise ValueError("no sequences to summarize")
    out = np.array([r.out for r in records], dtype=float)
    thrown = np.array([r.thrown for r in records], dtype=float)
    law = Counter(int(x) for x in out.ravel())
    total = out.size
    stays = Counter(s for r in records for s in r.stays)
    stays["censored"] = sum(len(r.stuck_at_end) for r in records)
    n_stays = sum(stays.values())
    fresh_out = stays.get(0, 0)
    stuck_later = [s for r in records for s in r.stays if s > 0]
    per_seq = out.mean(axis=1)
    return {
        "sequences": len(records),
        "rounds": out.shape[1],
        "out_law": {str(n): round(c / total, 4) for n, c in sorted(law.items())},
        "out_mean": round(float(out.mean()), 4),
        "out_se": round(float(per_seq.std(ddof=1) / np.sqrt(len(per_seq))), 4)
        if len(per_seq) > 1
        else 0.0,
        "out_by_round": out.mean(axis=0).round(4).tolist(),
        "thrown_mean": round(float(thrown.mean()), 4),
        "offered_none": round(law.get(0, 0) / total, 4),
        "stay_law": {
            str(k): round(v / n_stays, 4)
            for k, v in sorted(
                stays.items(), key=lambda kv: (kv[0] == "censored", str(kv[0]).zfill(3))
            )
        },
        "stuck_share": round(1 - fresh_out / thrown.sum(), 4) if thrown.sum() else 0.0,
        "stuck_rounds_mean": round(float(np.mean(stuck_later)), 4) if stuck_later else 0.0,
    }


def format_experts(k: int, s: dict[str, Any]) -> str:
    """A few human lines."""
    law = ", ".join(f"{n}: {p:.1%}" for n, p in s["out_law"].items())
    stays = ", ".join(f"{n}: {p:.1%}" for n, p in s["stay_law"].items())
    return "\n".join(
        [
            f"{k} face-up expert tiles ({s['sequences']} sequences of {s['rounds']} rounds)",
            f"  expert keshis thrown per round   {s['thrown_mean']:.2f}",
            f"  expert keshis out per round      {s['out_mean']:.3f} +- {s['out_se']:.3f}"
            f"  (law: {law})",
            f"  rounds with no expert on offer   {s['offered_none']:.1%}",
            f"  thrown expert keshis that stick  {s['stuck_share']:.1%}",
            f"  rounds an expert stays inside    {stays}",
            f"  mean rounds of a stuck expert    {s['stuck_rounds_mean']:.2f}",
        ]
    )


# ------------------------------------------------------------------ model against physics

#: Below this many sequences on a side, a comparison says its standard errors are rough.
FEW_SEQUENCES = 30
#: Fewest events (and non-events) a share must expect on the smaller side, at the pooled
#: rate, and fewest observations a mean needs on each side, to enter a comparison.
MIN_EXPECTED = 5


@dataclass(frozen=True)
class Estimate:
    """A statistic as a ratio of sums over sequences, ``value = sum(a) / sum(b)``, with its
    Monte Carlo standard error (the ratio estimator's, sequences being independent while
    the rounds of one sequence are not). ``kind`` is ``"share"`` (of ``count`` rounds or
    expert keshis) or ``"mean"`` (over ``count`` observations)."""

    value: float
    se: float
    count: int
    kind: str


def _ratio(a: np.ndarray, b: np.ndarray, kind: str) -> Estimate:
    total = float(b.sum())
    if total == 0:
        return Estimate(0.0, 0.0, 0, kind)
    value = float(a.sum()) / total
    n = len(a)
    se = float(np.sqrt(n / (n - 1) * np.sum((a - value * b) ** 2)) / total) if n > 1 else 0.0
    return Estimate(value, se, int(total), kind)


def expert_estimates(records: Sequence[ExpertRecord], k: int) -> dict[str, Estimate]:
    """The expert statistics of :func:`summarize_experts`, unrounded, with standard errors.

    ``thrown_mean``, ``out_mean``, ``offered_none``, ``out_law j`` for ``j = 1..k-1`` and
    ``out_law k+`` (``k`` or more out: a throw may also dislodge experts stuck before),
    ``stuck_share``, ``stuck_rounds_mean``, and the stays of thrown expert keshis:
    ``stay_law 1``, ``stay_law 2``, ``stay_law 3+`` and ``stay_law censored`` (``stay_law
    0`` is ``1 - stuck_share``, and ``out_law 0`` is ``offered_none``: not repeated).
    """
    if not records:
        raise ValueError("no sequences to estimate from")
    out = np.array([r.out for r in records], dtype=float)
    rounds = np.full(len(records), out.shape[1], dtype=float)
    thrown = np.array([sum(r.thrown) for r in records], dtype=float)

    def per_seq(f: Any) -> np.ndarray:
        return np.array([f(r) for r in records], dtype=float)

    est = {
        "thrown_mean": _ratio(thrown, rounds, "mean"),
        "out_mean": _ratio(out.sum(axis=1), rounds, "mean"),
        "offered_none": _ratio((out == 0).sum(axis=1), rounds, "share"),
    }
    for j in range(1, k):
        est[f"out_law {j}"] = _ratio((out == j).sum(axis=1), rounds, "share")
    est[f"out_law {k}+"] = _ratio((out >= k).sum(axis=1), rounds, "share")
    est["stuck_share"] = _ratio(thrown - per_seq(lambda r: r.stays.count(0)), thrown, "share")
    est["stuck_rounds_mean"] = _ratio(
        per_seq(lambda r: sum(s for s in r.stays if s > 0)),
        per_seq(lambda r: sum(s > 0 for s in r.stays)),
        "mean",
    )
    for name, hit in (("1", lambda s: s == 1), ("2", lambda s: s == 2), ("3+", lambda s: s >= 3)):
        est[f"stay_law {name}"] = _ratio(
            per_seq(lambda r, hit=hit: sum(map(hit, r.stays))), thrown, "share"
        )
    est["stay_law censored"] = _ratio(per_seq(lambda r: len(r.stuck_at_end)), thrown, "share")
    return est


@dataclass(frozen=True)
class StatisticComparison:
    """One statistic, model against physics: ``z`` is the difference over the combined
    standard error; ``tested`` is False when too few observations make the SE unreliable
    (see :data:`MIN_EXPECTED`)."""

    name: str
    model: Estimate
    physics: Estimate
    tested: bool

    @property
    def se(self) -> float:
        """Combined standard error."""
        return float(np.hypot(self.model.se, self.physics.se))

    @property
    def z(self) -> float:
        """``(physics - model) / se``; 0 for equal values, infinite for unequal ones with
        no spread at all."""
        diff = self.physics.value - self.model.value
        if self.se == 0:
            return 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
        return diff / self.se

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (an infinite ``z`` is written as a string)."""
        z = self.z
        return {
            "statistic": self.name,
            "model": self.model.value,
            "model_se": self.model.se,
            "physics": self.physics.value,
            "physics_se": self.physics.se,
            "se": self.se,
            "z": z if np.isfinite(z) else str(z),
            "tested": self.tested,
        }


def _testable(m: Estimate, p: Estimate) -> bool:
    if min(m.count, p.count) == 0:
        return False
    if m.kind == "mean":
        return min(m.count, p.count) >= MIN_EXPECTED
    pooled = (m.value * m.count + p.value * p.count) / (m.count + p.count)
    return min(pooled, 1 - pooled) * min(m.count, p.count) >= MIN_EXPECTED


@dataclass(frozen=True)
class ExpertComparison:
    """Model against physics over every expert statistic, with the verdict.

    The rule: each tested statistic's ``z`` is compared with the two-sided Bonferroni
    limit ``z_limit`` for ``alpha`` over the ``m`` tested statistics (``alpha = 0.05``,
    ``m = 12``: 2.87), so if model and physics had the same law the verdict would wrongly
    say "differ" at most ``alpha`` of the time. The two sides *agree within their Monte
    Carlo error* when no tested ``|z|`` exceeds ``z_limit``. Rows with ``2 < |z| <=
    z_limit`` are marked, not failed: about one in twenty such rows is expected by chance.
    """

    rows: tuple[StatisticComparison, ...]
    alpha: float = 0.05
    #: Sequences on each side (the standard errors are rough below about 30).
    sequences: tuple[int, int] = (0, 0)

    @property
    def tested(self) -> list[StatisticComparison]:
        """The rows that enter the verdict."""
        return [r for r in self.rows if r.tested]

    @property
    def z_limit(self) -> float:
        """Two-sided Bonferroni limit for ``alpha`` over the tested rows."""
        from statistics import NormalDist

        return NormalDist().inv_cdf(1 - self.alpha / (2 * max(1, len(self.tested))))

    @property
    def agree(self) -> bool:
        """No tested statistic beyond :attr:`z_limit` (and at least one tested)."""
        return bool(self.tested) and all(abs(r.z) <= self.z_limit for r in self.tested)

    @property
    def verdict(self) -> str:
        """The verdict in words (undecided when no statistic could be tested)."""
        if not self.tested:
            return "undecided: too few observations to test any statistic"
        return "agree within MC error" if self.agree else "differ beyond MC error"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "rule": f"agree iff every tested |z| <= z_limit (two-sided Bonferroni, "
            f"alpha {self.alpha} over the tested statistics)",
            "alpha": self.alpha,
            "z_limit": self.z_limit,
            "agree": self.agree,
            "verdict": self.verdict,
            "model_sequences": self.sequences[0],
            "physics_sequences": self.sequences[1],
            "rows": [r.to_json() for r in self.rows],
        }


def compare_experts(
    model_records: Sequence[ExpertRecord],
    physics_records: Sequence[ExpertRecord],
    k: int,
    alpha: float = 0.05,
) -> ExpertComparison:
    """Every statistic of :func:`expert_estimates`, model against physics.

    >>> from tower.model import BaselineModel
    >>> a = expert_rounds(BaselineModel(), k=2, sequences=200, seed=1)
    >>> b = expert_rounds(BaselineModel(), k=2, sequences=200, seed=2)
    >>> compare_experts(a, b, 2).agree
    True
    """
    m, p = expert_estimates(model_records, k), expert_estimates(physics_records, k)
    enough = min(len(model_records), len(physics_records)) >= 2  # an SE needs two
    rows = tuple(StatisticComparison(n, m[n], p[n], enough and _testable(m[n], p[n])) for n in m)
    return ExpertComparison(rows, alpha, (len(model_records), len(physics_records)))


def format_comparison(cmp: ExpertComparison) -> str:
    """The comparison as a table, one statistic a line, and the verdict."""
    lines = [
        f"{'statistic':<20} {'model':>9} {'physics':>15} {'se':>8} {'z':>7}",
    ]
    for r in cmp.rows:
        mark = "" if not r.tested else ("DIFFERS" if abs(r.z) > cmp.z_limit else "")
        if r.tested and not mark and abs(r.z) > 2:
            mark = "(|z| > 2)"
        if not r.tested:
            mark = "(too few to test)"
        lines.append(
            f"{r.name:<20} {r.model.value:9.4f} {r.physics.value:8.4f}+-{r.physics.se:.4f} "
            f"{r.se:8.4f} {r.z:7.2f}  {mark}".rstrip()
        )
    lines.append(
        f"verdict: {cmp.verdict} (rule: every tested |z| <= {cmp.z_limit:.2f}, the two-sided "
        f"Bonferroni limit for alpha {cmp.alpha} over {len(cmp.tested)} statistics)"
    )
    if min(cmp.sequences) < FEW_SEQUENCES:
        lines.append(
            f"note: {min(cmp.sequences)} sequences on one side: the standard errors come from "
            f"so few independent sequences that they are rough (give {FEW_SEQUENCES} or more)"
        )
    return "\n".join(lines)
