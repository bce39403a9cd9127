"""Fitting a distilled tower from simulator traces.

Each throw of each trace is cut into the groups of :mod:`tower.model.reference` (fresh
pieces by class; residents by place, class and age), visited in the sampler's order, and
every group's joint outcome (how many went out, how many ended in each place) is counted
under each level's context key. Per-piece destination frequencies give the multinomial
at the bottom of the back-off, smoothed towards coarser pools (all ages, all classes)
where a group was seen rarely or never.

Examples
--------
>>> from tower.model.synthetic import SyntheticTower
>>> from tower.model.fit import FitSettings, fit_tables
>>> traces = SyntheticTower().traces(50, seed=1)
>>> tables = fit_tables(traces, FitSettings())
>>> sorted(tables)[:3]
['age_cap', 'alpha', 'base']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from math import factorial, log, prod
from typing import Any

from tower.model.reference import (
    DESTINATIONS,
    FIELDS,
    MAKEUP,
    PLACES,
    ReferenceSampler,
    bucket_table,
    copula_settings,
    fresh_group,
    groups,
    resident_group,
)
from tower.pieces import Kind
from tower.traces import TraceSequence

#: Default piece classes: kinds that share a shape share a class. Watchmen and brigands
#: are the same pawn (Walls & Guards; the geometry presets give them one shape).
DEFAULT_CLASSES: dict[str, str] = {
    Kind.KESHI.value: "keshi",
    Kind.EXPERT.value: "expert",
    Kind.WATCHMAN.value: "pawn",
    Kind.BRIGAND.value: "pawn",
    Kind.CUBE.value: "cube",
}

_COARSE = [*range(11), 12, 14, 16, 19, 22, 26, 30, 35, 40, 46, 53, 61, 70, 80, 92, 106, 122, 140]
#: Exact throw sizes up to 40; occupancies and counts out exact up to 10, then coarser;
#: the tower's age exact for its first throws (a keshi tower fills over about four), then
#: 4-5, 6-8 and 9 on (``t``: in a section only if a level names it).
DEFAULT_BUCKETS: dict[str, list[int]] = {
    "n": [*range(41), 45, 50, 60, 80, 100],
    "I": _COARSE,
    "P": _COARSE,
    "J": [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 70, 90, 120],
    "o": _COARSE,
    "w": [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15],
    "x": [0, 1, 2, 3, 4, 5],
    "t": [0, 1, 2, 3, 4, 6, 9],
}

#: Back-off levels, finest first. Version 1 chose ``m,n,I,o; m,n,J,o; m,n,J; m,n; m`` on
#: physics scratch traces by held-out sequence statistics (calibration/models/README.md).
#: Version 2 adds the throw's make-up (pawns ``w``, experts ``x`` thrown) to the two finest
#: levels and to the middle one, ``m,w,x,J``, in place of v1's ``m,n,J``: the residents of a
#: warm tower hit by a pawn-heavy throw are rarely seen often enough for the finest levels,
#: and a middle level without the make-up answered with the law of a keshi throw of that
#: size, which dislodges fewer (the battle cross-check's situation D, docs/battle.md). For
#: keshi-only throws (w = x = 0) the make-up adds no keys.
#: What the back-off levels count (:attr:`FitSettings.backoff`).
BACKOFFS: tuple[str, ...] = ("all", "rest")

DEFAULT_LEVELS: tuple[tuple[str, ...], ...] = (
    ("m", "n", "w", "x", "I", "o"),
    ("m", "n", "w", "x", "J", "o"),
    ("m", "w", "x", "J"),
    ("m", "n"),
    ("m",),
)


@dataclass(frozen=True)
class FitSettings:
    """How a distilled tower is fitted.

    Parameters
    ----------
    levels : tuple of tuple of str
        Context fields of each back-off level, finest first; each must contain ``"m"``.
    alpha : float
        Back-off strength: a key seen ``N`` times with ``D`` distinct outcomes is used
        with probability N/(N + alpha * D).
    age_cap : int
        Residents older than this many throws share one age bucket (1..9).
    buckets : dict
        Bucket edges of the context fields n, I, P, J, w, x, t, o (ascending, from 0): a
        value is replaced by the largest edge not above it. ``t``'s are written only if
        a level names it (:attr:`section_buckets`).
    prior : float
        Pseudo-pieces pulling a per-piece destination law towards the coarser law (a
        group's towards its pool; a context's towards the group's).
    classes : dict
        Piece kind -> class; kinds of one class are one shape for the tower.
    min_count : int
        Keys seen fewer times are left out of every level but the last (smaller files;
        their draws fall to the next level).
    min_count_makeup : int, optional
        The same for the keys of a throw with pawns or experts (``w`` or ``x`` above 0 in
        a level that names them), in place of ``min_count``: their many make-ups make
        many rare keys, so a higher count for them keeps a file small while keshi-only
        throws keep their finer keys (``None``: ``min_count`` for all).
    piece_depth : int
        Leave the ``piece_depth`` finest contexts out of the per-piece counts.
    backoff : str
        What a back-off level but the last counts: ``"all"`` every group outcome, or
        ``"rest"`` only those whose keys at every finer level were left out (seen fewer
        than ``min_count`` times there), which are the draws that reach it first. A
        context rare at the finer levels (many pieces already out, an unusual fill) is
        not a typical one, and the law of all outcomes under the coarser key, made
        mostly of the common contexts, is biased for it (Kneser-Ney's argument for
        n-gram back-off). The last level counts all, as a floor.
    copula : tuple, optional
        Entries ``(throw, origin, gate)``: the loadings of the Gaussian copula that draws
        the groups of one throw jointly, and the class, or tuple of classes, whose
        presence turns them on (``None``: every throw); a throw takes the first entry
        whose gate it meets. Written as the section's ``copula`` (one object, or a list
        for several entries; a ``tower.model/3`` file;
        :meth:`~tower.model.reference.ReferenceSampler.coupled_throw`). It changes no
        table. ``None``: no copula (a ``tower.model/2`` file).
    """

    levels: tuple[tuple[str, ...], ...] = DEFAULT_LEVELS
    alpha: float = 1.0
    age_cap: int = 7
    buckets: dict[str, list[int]] = field(default_factory=lambda: dict(DEFAULT_BUCKETS))
    prior: float = 2.0
    classes: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CLASSES))
    min_count: int = 2
    min_count_makeup: int | None = None
    piece_depth: int = 2
    backoff: str = "all"
    copula: tuple[tuple[float, float, str | tuple[str, ...] | None], ...] | None = None

    def __post_init__(self) -> None:
        for level in self.levels:
            if "m" not in level or not set(level) <= set(FIELDS):
                raise ValueError(f"level {level} must contain 'm' and only fields {FIELDS}")
        if not 1 <= self.age_cap <= 9:
            raise ValueError(f"age_cap must lie in 1..9, got {self.age_cap}")
        if self.min_count < 1 or self.piece_depth < 0:
            raise ValueError("min_count must be at least 1 and piece_depth at least 0")
        if self.min_count_makeup is not None and self.min_count_makeup < 1:
            raise ValueError("min_count_makeup must be at least 1 (or None)")
        if self.alpha <= 0 or self.prior <= 0:
            raise ValueError("alpha and prior must be positive")
        if self.backoff not in BACKOFFS:
            raise ValueError(f"backoff must be one of {BACKOFFS}, got {self.backoff!r}")
        problem = buckets_problem(self.buckets, FIELDS, self.named)
        if problem:
            raise ValueError(problem)
        if self.copula is not None:
            for *_, gates in copula_settings(self.copula_section()["copula"]):
                for g in gates or ():
                    if g not in self.classes.values():
                        known = sorted(set(self.classes.values()))
                        raise ValueError(f"copula gate {g!r} is no piece class {known}")

    def copula_section(self) -> dict[str, Any]:
        """The section's ``copula`` entry, as ``{"copula": {...}}``, or ``{}`` without one."""
        if self.copula is None:
            return {}
        entries = [
            {"throw": a, "origin": b, "gate": g if g is None or isinstance(g, str) else list(g)}
            for a, b, g in self.copula
        ]
        return {"copula": entries[0] if len(entries) == 1 else entries}

    @property
    def named(self) -> set[str]:
        """The context fields some level names."""
        return {f for level in self.levels for f in level}

    @property
    def section_buckets(self) -> dict[str, list[int]]:
        """The edges a model section holds, sorted by field: every field's but those of
        :data:`OPTIONAL_BUCKETS` no level names (a fit without ``t`` is a v2 file)."""
        named = self.named
        return {
            f: list(e)
            for f, e in sorted(self.buckets.items())
            if f not in OPTIONAL_BUCKETS or f in named
        }

    @property
    def piece_levels(self) -> tuple[tuple[str, ...], ...]:
        """Contexts of the per-piece counts: each level's fields without ``m``, once each."""
        found: list[tuple[str, ...]] = []
        for level in self.levels:
            fields = tuple(f for f in level if f != "m")
            if fields and fields not in found:
                found.append(fields)
        return tuple(found[self.piece_depth :])

    def to_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"backoff": self.backoff} if self.backoff != "all" else {}
        if self.min_count_makeup is not None:  # as before when not set
            extra["min_count_makeup"] = self.min_count_makeup
        extra.update(self.copula_section())  # as before when not set
        return {
            "levels": [list(lv) for lv in self.levels],
            "alpha": self.alpha,
            "age_cap": self.age_cap,
            "buckets": self.section_buckets,
            "prior": self.prior,
            "classes": dict(sorted(self.classes.items())),
            "min_count": self.min_count,
            "piece_depth": self.piece_depth,
            **extra,
        }


@dataclass
class Observations:
    """Group outcomes counted from traces; :meth:`tables` turns them into a model section."""

    settings: FitSettings
    counts: list[dict[str, Counter[tuple[int, ...]]]] = field(default_factory=list)
    #: with ``backoff="rest"``: outcomes by the tuple of a group's keys at every level
    joint: dict[tuple[str, ...], Counter[tuple[int, ...]]] = field(
        default_factory=lambda: defaultdict(Counter)
    )
    per_piece: dict[str, list[int]] = field(default_factory=dict)
    piece_counts: list[dict[str, list[int]]] = field(default_factory=list)
    sequences: int = 0
    throws: int = 0
    sizes: Counter[int] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [defaultdict(Counter) for _ in self.settings.levels]
        if not self.piece_counts:
            self.piece_counts = [
                defaultdict(lambda: [0] * len(DESTINATIONS)) for _ in self.settings.piece_levels
            ]

    def add_sequence(self, seq: TraceSequence) -> None:
        """Count every group outcome of one traced sequence."""
        s = self.settings
        luts = {f: bucket_table(e) for f, e in s.section_buckets.items()}
        for throw, found in zip(seq.throws, group_outcomes(seq, s.classes, s.age_cap), strict=True):
            for name, ctx, outcome in found:
                values = dict(zip(FIELDS, ctx, strict=True))  # ctx has every field
                keys = tuple(
                    name
                    + "".join(
                        f"|{_bucket(values[f], luts[f]) if f != 'm' else values[f]}" for f in level
                    )
                    for level in s.levels
                )
                for key, table in zip(keys, self.counts, strict=True):
                    table[key][outcome] += 1
                if s.backoff == "rest":
                    self.joint[keys][outcome] += 1
                for level, table in zip(s.piece_levels, self.piece_counts, strict=True):
                    key = name + "".join(f"|{_bucket(values[f], luts[f])}" for f in level)
                    table[key] = [a + b for a, b in zip(table[key], outcome, strict=True)]
                tally = self.per_piece.setdefault(name, [0] * len(DESTINATIONS))
                for i, k in enumerate(outcome):
                    tally[i] += k
            self.throws += 1
            self.sizes[len(throw.thrown)] += 1
        self.sequences += 1

    def summary(self) -> dict[str, Any]:
        """What was counted: sequences, throws, and throws by size."""
        return {
            "sequences": self.sequences,
            "throws": self.throws,
            "throw_sizes": {str(n): c for n, c in sorted(self.sizes.items())},
        }

    def tables(self) -> dict[str, Any]:
        """The ``model`` section of a model file (deterministic: sorted keys and entries)."""
        s = self.settings
        tables = []
        last = len(self.counts) - 1
        for i, table in enumerate(self._level_counts()):
            flat_table = {}
            for key in sorted(table):
                if i < last and sum(table[key].values()) < self._min_count(i, key):
                    continue
                flat: list[int] = []
                for outcome, c in sorted(table[key].items()):
                    flat.extend((c, *outcome))
                flat_table[key] = flat
            tables.append(flat_table)
        return {
            "levels": [list(lv) for lv in s.levels],
            "alpha": s.alpha,
            "age_cap": s.age_cap,
            "buckets": s.section_buckets,
            "classes": dict(sorted(s.classes.items())),
            "observed_classes": sorted({name.split(".")[1] for name in self.per_piece}),
            "base": self._base(),
            "tables": tables,
            "prior": s.prior,
            "piece_levels": [list(lv) for lv in s.piece_levels],
            "piece_tables": [{k: t[k] for k in sorted(t)} for t in self.piece_counts],
            **s.copula_section(),
        }

    def _level_counts(self) -> list[dict[str, Counter[tuple[int, ...]]]]:
        """The outcomes each level's table holds (:attr:`FitSettings.backoff`)."""
        if self.settings.backoff == "all":
            return self.counts
        levels: list[dict[str, Counter[tuple[int, ...]]]] = []
        reaching = list(self.joint.items())  # the outcomes no finer level keeps
        for i in range(len(self.counts) - 1):
            table: dict[str, Counter[tuple[int, ...]]] = defaultdict(Counter)
            for keys, outcomes in reaching:
                table[keys[i]].update(outcomes)
            kept = {k for k, c in table.items() if c.total() >= self._min_count(i, k)}
            reaching = [(keys, outcomes) for keys, outcomes in reaching if keys[i] not in kept]
            levels.append(table)
        return [*levels, self.counts[-1]]

    def _min_count(self, level: int, key: str) -> int:
        """How often a key of back-off level ``level`` must be seen to be kept."""
        s = self.settings
        if s.min_count_makeup is None:
            return s.min_count
        values = key.split("|")[1:]
        for f, v in zip(s.levels[level], values, strict=True):
            if f in MAKEUP and v != "0":
                return s.min_count_makeup
        return s.min_count

    def _base(self) -> dict[str, list[float]]:
        """Per-piece destination law of every possible group, smoothed towards pools."""
        s = self.settings
        pools: dict[str, list[int]] = defaultdict(lambda: [0] * len(DESTINATIONS))
        for name, tally in self.per_piece.items():
            parts = name.split(".")
            for pool in (f"{parts[0]}.{parts[1]}", parts[0], "*"):
                pools[pool] = [a + b for a, b in zip(pools[pool], tally, strict=True)]

        def law(name: str, parent: list[float] | None) -> list[float]:
            tally = self.per_piece.get(name) or pools.get(name) or [0] * len(DESTINATIONS)
            if parent is None:  # the root: add one piece spread evenly
                parent, weight = [1 / len(DESTINATIONS)] * len(DESTINATIONS), 1.0
            else:
                weight = s.prior
            total = sum(tally) + weight
            return [(k + weight * q) / total for k, q in zip(tally, parent, strict=True)]

        root = law("*", None)
        base: dict[str, list[float]] = {}
        for cls in sorted(set(s.classes.values())):
            for origin in ("fresh", *PLACES):
                origin_law = law(origin, root)
                class_law = law(f"{origin}.{cls}", origin_law)
                if origin == "fresh":
                    base[fresh_group(cls)] = _rounded(class_law)
                    continue
                for age in range(1, s.age_cap + 1):
                    name = resident_group(origin, cls, age, s.age_cap)
                    base[name] = _rounded(law(name, class_law))
        return base


def group_outcomes(
    seq: TraceSequence, classes: dict[str, str], age_cap: int
) -> Iterator[list[tuple[str, tuple[int, ...], tuple[int, ...]]]]:
    """For every throw of ``seq``: its groups in the sampler's order with their outcomes.

    Yields one list per throw of ``(group name, (m, n, I, P, J, w, x, t, o), destination
    counts)``. A trace starts from an empty tower (warm-up throws, as the battle traces'
    warm-up rounds, are throws of the trace), so ``t`` is the throw's index in it.
    """
    piece_class = []
    for piece in seq.pieces:
        if piece.kind.value not in classes:
            raise ValueError(f"trace seq {seq.seq}: piece {piece} has a kind with no class")
        piece_class.append(classes[piece.kind.value])
    since: dict[int, int] = {}
    inside: dict[int, str] = {}
    for t, throw in enumerate(seq.throws):
        for pid in throw.thrown:
            since[pid] = t
        residents = [(piece_class[p], place, since[p], p) for p, place in sorted(inside.items())]
        fresh = [(piece_class[p], p) for p in throw.thrown]
        out = set(throw.out)
        after = {pid: place.value for pid, place in throw.inside.items()}
        gone = 0
        found = []
        for name, _, ctx, members in groups(residents, fresh, t, age_cap):
            dests = ["out" if pid in out else after[pid] for _, pid in members]
            outcome = tuple(dests.count(d) for d in DESTINATIONS)
            found.append((name, (*ctx, gone), outcome))
            gone += outcome[0]
        yield found
        inside = after


def _bucket(v: int, lut: list[int]) -> int:
    if not lut:
        return v
    return lut[v] if v < len(lut) else lut[-1]


#: Fields whose bucket edges a section gives only when one of its levels names them (so
#: a section without them is what it was before they existed).
OPTIONAL_BUCKETS: frozenset[str] = frozenset({"t"})


def buckets_problem(
    buckets: object, fields: tuple[str, ...] = FIELDS, named: Iterable[str] = ()
) -> str | None:
    """What is wrong with a ``buckets`` mapping (edges of ``fields`` but ``m``; those of
    :data:`OPTIONAL_BUCKETS` only when they are ``named`` by a level), or ``None``."""
    always = tuple(f for f in fields[1:] if f not in OPTIONAL_BUCKETS)
    optional = tuple(f for f in fields[1:] if f in OPTIONAL_BUCKETS)
    required = {*always, *(f for f in optional if f in set(named))}
    if not isinstance(buckets, dict) or not required <= set(buckets) <= set(fields[1:]):
        also = "".join(f", and {f!r} if a level names it" for f in optional)
        return f"buckets must give edges for exactly the fields {always}{also}"
    for f, edges in buckets.items():
        if (
            not isinstance(edges, list)
            or not edges
            or edges[0] != 0
            or not all(isinstance(e, int) for e in edges)
            or any(b <= a for a, b in pairwise(edges))
            or edges[-1] > 100_000
        ):
            return f"buckets[{f!r}] must be increasing integers from 0 (at most 100000)"
    return None


def _rounded(probs: list[float]) -> list[float]:
    return [round(p, 9) for p in probs]


def log_likelihood(model: dict[str, Any], sequences: Iterable[TraceSequence]) -> float:
    """Mean log-probability per throw that the model gives the traced throws.

    Each throw's probability is the product over its groups of the joint outcome's
    probability (:meth:`ReferenceSampler.outcome_probability`) and of the particular
    assignment of members to destinations (uniform). Higher is better; comparing fit
    settings on sequences not used for fitting is a proper way to tune them.
    """
    sampler = ReferenceSampler(model)
    total, throws = 0.0, 0
    for seq in sequences:
        for found in group_outcomes(seq, sampler.classes, sampler.age_cap):
            for name, ctx, outcome in found:
                p = sampler.outcome_probability(name, ctx, outcome)
                ways = factorial(ctx[0]) / prod(factorial(k) for k in outcome)
                total += log(max(p, 1e-300) / ways)
            throws += 1
    return total / max(throws, 1)


def fit_tables(sequences: Iterable[TraceSequence], settings: FitSettings) -> dict[str, Any]:
    """Count ``sequences`` and return the ``model`` section of a distilled model file."""
    obs = Observations(settings)
    for seq in sequences:
        obs.add_sequence(seq)
    if obs.throws == 0:
        raise ValueError("no throws to fit: the traces are empty")
    return obs.tables()
