"""Expert keshis through a tower model: how many come out per round, how long one sticks.

*The Experts* (Gems & Experts, ``../shared/seeds/003_c6ac3dd487abab3d.txt``) throws, each
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
