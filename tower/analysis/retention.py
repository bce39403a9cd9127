"""Retention and dislodge statistics of throw sequences, from traces or from any model.

Both sources are reduced to a :class:`SequenceRecord`: for each throw, how many pieces
went in, the entry throw of every piece that came out, how many stayed inside, and how
many of the thrown colours came out in the same throw. From records follow

- the equilibrium number of pieces inside,
- pieces out per throw against pieces in,
- the fresh-versus-old share among pieces out,
- how many throws a piece stays inside,
- the chance that a thrown colour comes out in the same throw,

as aggregate tables (:func:`summarize`) and as per-sequence statistics and feature
vectors (:func:`sequence_stats`, :func:`feature_matrix`) for two-sample tests.

Examples
--------
>>> from tower.model import BaselineModel
>>> recs = model_records(BaselineModel(), keshi_plans(200, 12, 12), seed=1)
>>> s = summarize(recs)
>>> 9 < s["equilibrium_inside"] < 15
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.model.interface import TowerModel
from tower.pieces import Piece, mixed_keshis
from tower.traces import TraceSequence

#: A throw plan: the pieces of each throw of one sequence.
Plan = list[list[Piece]]


@dataclass(frozen=True)
class SequenceRecord:
    """What a sequence of throws did, independent of where it came from.

    Parameters
    ----------
    thrown : tuple of int
        Pieces thrown in each throw.
    left : tuple of tuple of int
        For each throw, the (0-based) entry throw of every piece that came out, sorted.
    inside : tuple of int
        Pieces inside after each throw.
    colour_hits : tuple of (int, int)
        For each throw: thrown colours (kind:colour) that had a piece out, and thrown colours.
    out_kinds : tuple of tuple of str
        For each throw: the kinds of the pieces out, sorted (for per-kind statistics).
    """

    thrown: tuple[int, ...]
    left: tuple[tuple[int, ...], ...]
    inside: tuple[int, ...]
    colour_hits: tuple[tuple[int, int], ...]
    out_kinds: tuple[tuple[str, ...], ...] = ()

    @property
    def out(self) -> list[int]:
        """Pieces out in each throw."""
        return [len(x) for x in self.left]

    @property
    def fresh_out(self) -> list[int]:
        """Pieces out in each throw that were thrown in that throw."""
        return [sum(1 for s in x if s == t) for t, x in enumerate(self.left)]


def _hits(thrown: Sequence[Piece], out: Iterable[Piece]) -> tuple[int, int]:
    colours = set(thrown)
    return len(colours & set(out)), len(colours)


def trace_record(seq: TraceSequence) -> SequenceRecord:
    """The record of one traced sequence."""
    entry: dict[int, int] = {}
    left, inside, hits, thrown, kinds = [], [], [], [], []
    for t, throw in enumerate(seq.throws):
        for pid in throw.thrown:
            entry[pid] = t
        left.append(tuple(sorted(entry[pid] for pid in throw.out)))
        kinds.append(tuple(sorted(seq.pieces[pid].kind.value for pid in throw.out)))
        inside.append(len(throw.inside))
        thrown.append(len(throw.thrown))
        hits.append(
            _hits([seq.pieces[i] for i in throw.thrown], (seq.pieces[i] for i in throw.out))
        )
    return SequenceRecord(tuple(thrown), tuple(left), tuple(inside), tuple(hits), tuple(kinds))


def trace_plan(seq: TraceSequence) -> Plan:
    """The pieces thrown in each throw of a traced sequence (to replay it on a model)."""
    return [[seq.pieces[i] for i in throw.thrown] for throw in seq.throws]


def model_record(model: TowerModel, plan: Plan, rng: random.Random) -> SequenceRecord:
    """Run ``model`` on ``plan`` from an empty tower and record it.

    Entry throws of the pieces out are read from the residents' ``since`` before and
    after each throw, so this works for any model that keeps ``since`` honestly.
    """
    state = model.new_state()
    left, inside, hits, thrown, kinds = [], [], [], [], []
    for t, pieces in enumerate(plan):
        before = Counter(r.since for r in state.residents)
        out, state = model.throw(state, pieces, rng)
        after = Counter(r.since for r in state.residents)
        entries = [s for s in before for _ in range(before[s] - after[s])]
        entries += [t] * (len(pieces) - after[t])
        if len(entries) != len(out):
            raise ValueError(f"model {model.name} lost track of pieces in throw {t}")
        left.append(tuple(sorted(entries)))
        inside.append(len(state.residents))
        thrown.append(len(pieces))
        hits.append(_hits(pieces, out))
        kinds.append(tuple(sorted(p.kind.value for p in out)))
    return SequenceRecord(tuple(thrown), tuple(left), tuple(inside), tuple(hits), tuple(kinds))


def model_records(model: TowerModel, plans: Sequence[Plan], seed: int) -> list[SequenceRecord]:
    """One record per plan; sequence ``i`` uses its own generator seeded from ``seed``."""
    master = random.Random(seed)
    return [model_record(model, plan, random.Random(master.getrandbits(64))) for plan in plans]


def keshi_plans(sequences: int, size: int, throws: int = 12) -> list[Plan]:
    """``sequences`` plans of ``throws`` throws of ``size`` mixed keshis."""
    return [[mixed_keshis(size) for _ in range(throws)] for _ in range(sequences)]


# ---------------------------------------------------------------- per-sequence statistics

#: Per-sequence statistics tested one by one in model validation.
STATISTICS: dict[str, str] = {
    "out_total": "pieces out over the whole sequence",
    "inside_mean": "mean pieces inside after the second half's throws (equilibrium)",
    "out_first": "pieces out in the first throw",
    "out_sd": "standard deviation of pieces out per throw (throws 2..)",
    "fresh_share": "share of fresh pieces among pieces out (throws 2..)",
    "stay_mean": "mean throws inside of the pieces that came out",
    "stay_long": "pieces that stayed inside three throws or more",
    "colour_hit": "share of thrown colours that came out in the same throw",
}


def sequence_stats(rec: SequenceRecord) -> dict[str, float]:
    """The :data:`STATISTICS` of one sequence."""
    out = rec.out
    fresh = rec.fresh_out
    half = len(out) // 2
    later_out = sum(out[1:])
    stays = [t - s for t, x in enumerate(rec.left) for s in x]
    last = len(out) - 1
    entered = Counter({t: n for t, n in enumerate(rec.thrown)})
    for x in rec.left:
        entered.subtract(x)
    still = sum(c for s, c in entered.items() if last - s >= 3)
    hits = sum(h for h, _ in rec.colour_hits)
    colours = sum(c for _, c in rec.colour_hits)
    return {
        "out_total": float(sum(out)),
        "inside_mean": float(np.mean(rec.inside[half:])) if rec.inside else 0.0,
        "out_first": float(out[0]) if out else 0.0,
        "out_sd": float(np.std(out[1:])) if len(out) > 1 else 0.0,
        "fresh_share": sum(fresh[1:]) / later_out if later_out else 1.0,
        "stay_mean": float(np.mean(stays)) if stays else 0.0,
        "stay_long": float(sum(1 for s in stays if s >= 3) + still),
        "colour_hit": hits / colours if colours else 0.0,
    }


def feature_matrix(records: Sequence[SequenceRecord], per_throw: bool = True) -> np.ndarray:
    """Feature vectors for a classifier two-sample test.

    Returns
    -------
    features : (n, 3 * T + len(STATISTICS)) float
        Per throw: pieces out, fresh pieces out, pieces inside (when ``per_throw``; all
        records must then have the same number of throws ``T``); then the statistics.
    """
    lengths = {len(r.thrown) for r in records}
    if per_throw and len(lengths) > 1:
        raise ValueError(f"records of different lengths {sorted(lengths)}")
    rows = []
    for r in records:
        stats = [sequence_stats(r)[k] for k in STATISTICS]
        rows.append([*r.out, *r.fresh_out, *r.inside, *stats] if per_throw else stats)
    return np.asarray(rows, dtype=float)


# ---------------------------------------------------------------- aggregate summary


def summarize(records: Sequence[SequenceRecord]) -> dict[str, Any]:
    """Aggregate retention statistics of sequences (usually of one throw size).

    Returns a JSON-ready dict: ``inside_by_throw`` (mean after each throw),
    ``equilibrium_inside`` (mean over the second half), ``out_by_throw``,
    ``out_per_in`` (pieces out / pieces in over the second half), ``out_hist``
    (counts of pieces out per throw over the second half), ``fresh_share`` (throws 2..),
    ``stay_hist`` (throws inside of the pieces thrown in the first half, ``None`` key
    for pieces still inside at the end as ``"censored"``), ``colour_hit``.
    """
    if not records:
        raise ValueError("no sequences to summarize")
    T = min(len(r.thrown) for r in records)
    half = T // 2
    out = np.array([r.out[:T] for r in records], dtype=float)
    inside = np.array([r.inside[:T] for r in records], dtype=float)
    thrown = np.array([r.thrown[:T] for r in records], dtype=float)
    fresh = np.array([r.fresh_out[:T] for r in records], dtype=float)
    stay: Counter[str] = Counter()
    for r in records:
        left_at = {}
        for t, x in enumerate(r.left[:T]):
            for s in x:
                left_at.setdefault(s, []).append(t - s)
        for s in range(half):
            stays = left_at.get(s, [])
            stay.update(str(d) for d in stays)
            stay["censored"] += r.thrown[s] - len(stays)
    hits = sum(h for r in records for h, _ in r.colour_hits[:T])
    colours = sum(c for r in records for _, c in r.colour_hits[:T])
    later_out = out[:, 1:].sum()
    total_stay = sum(stay.values())
    return {
        "sequences": len(records),
        "throws": T,
        "inside_by_throw": inside.mean(axis=0).round(4).tolist(),
        "inside_sd_by_throw": inside.std(axis=0).round(4).tolist(),
        "equilibrium_inside": round(float(inside[:, half:].mean()), 4),
        "out_by_throw": out.mean(axis=0).round(4).tolist(),
        "out_per_in": round(float(out[:, half:].sum() / thrown[:, half:].sum()), 4),
        "out_hist": {
            str(k): int(v)
            for k, v in sorted(Counter(out[:, half:].astype(int).ravel().tolist()).items())
        },
        "fresh_share": round(float(fresh[:, 1:].sum() / later_out), 4) if later_out else 1.0,
        "stay_share": {
            k: round(v / total_stay, 4)
            for k, v in sorted(
                stay.items(), key=lambda kv: (kv[0] == "censored", len(kv[0]), kv[0])
            )
        },
        "colour_hit": round(hits / colours, 4) if colours else 0.0,
    }


def format_summary(size: int, s: dict[str, Any]) -> str:
    """A few human lines for one throw size."""
    stays = ", ".join(f"{k}: {v:.1%}" for k, v in s["stay_share"].items())
    return "\n".join(
        [
            f"throws of {size} ({s['sequences']} sequences of {s['throws']} throws)",
            f"  equilibrium pieces inside   {s['equilibrium_inside']:.2f}",
            f"  pieces out per piece in     {s['out_per_in']:.3f}"
            f"  (out by throw: {', '.join(f'{x:.1f}' for x in s['out_by_throw'])})",
            f"  fresh share among out       {s['fresh_share']:.1%}",
            f"  throws a piece stays inside {stays}",
            f"  thrown colour out same throw {s['colour_hit']:.1%}",
        ]
    )


def model_summaries(
    model: TowerModel, sizes: Iterable[int], sequences: int, throws: int = 12, seed: int = 0
) -> dict[int, dict[str, Any]]:
    """Throw size -> :func:`summarize` of ``sequences`` model sequences of ``throws``
    throws of that many keshis (size ``n`` seeded with ``seed + n``)."""
    return {
        n: summarize(model_records(model, keshi_plans(sequences, n, throws), seed=seed + n))
        for n in sizes
    }


def trace_summaries(
    paths: Iterable[Any], sizes: Iterable[int]
) -> tuple[dict[int, dict[str, Any]], list[int]]:
    """Throw size -> :func:`summarize` of the trace sequences (in the files ``paths``)
    that throw that many pieces every time, and the sizes no sequence throws."""
    from tower.traces import read_traces

    wanted = set(sizes)
    grouped: dict[int, list[SequenceRecord]] = {}
    for path in paths:
        for seq in read_traces(path):
            counts = {len(t.thrown) for t in seq.throws}
            if len(counts) == 1 and (n := counts.pop()) in wanted:
                grouped.setdefault(n, []).append(trace_record(seq))
    missing = sorted(wanted - set(grouped))
    return {n: summarize(recs) for n, recs in sorted(grouped.items())}, missing
