"""The numpy fast path: many independent distilled towers thrown in lockstep.

:class:`BatchTowers` keeps, for each of ``n`` towers, the number of residents by place,
class and age bucket, and draws every group's joint outcome for all towers at once with
the same law as :class:`tower.model.reference.ReferenceSampler` (same groups, order,
contexts, back-off and base multinomials; the random streams differ). It tracks counts,
not piece identities: use it for statistics and speed, and the reference sampler (the
:class:`~tower.model.distilled.DistilledModel`) when a game needs to know which piece.

Examples
--------
>>> import numpy as np
>>> from tower.model import load_shipped
>>> towers = BatchTowers(load_shipped("marrakesh").doc["model"], 1000, seed=1)
>>> res = towers.throw({"keshi": 12})
>>> res.out.shape
(1000,)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tower.model.reference import FIELDS, MAKEUP, PLACES, bucket_table


@dataclass(frozen=True)
class BatchThrow:
    """What one lockstep throw did.

    Attributes
    ----------
    out : (n,) int
        Pieces out of each tower.
    fresh_out : (n,) int
        Of those, pieces thrown in this throw.
    out_by_class : (n, C) int
        Pieces out by class (order of :attr:`BatchTowers.classes`).
    """

    out: np.ndarray
    fresh_out: np.ndarray
    out_by_class: np.ndarray


class _Level:
    """One back-off level compiled to sorted integer keys."""

    def __init__(
        self,
        alpha: float,
        fields: list[str],
        table: Mapping[str, list[int]],
        groups: dict[str, int],
        radix: dict[str, int],
    ) -> None:
        self.fields = fields
        keys, totals, starts, outcomes, cums, denominators = [], [], [], [], [], []
        acc = 0
        for key, flat in table.items():
            parts = key.split("|")
            code = groups[parts[0]]
            for f, v in zip(fields, parts[1:], strict=True):
                code = code * radix[f] + int(v)
            keys.append(code)
            starts.append(acc)
            for i in range(0, len(flat), 6):
                acc += flat[i]
                cums.append(acc)
                outcomes.append(flat[i + 1 : i + 6])
            totals.append(acc - starts[-1])
            denominators.append(totals[-1] + alpha * (len(flat) // 6))
        order = np.argsort(np.asarray(keys, dtype=np.int64), kind="stable")
        self.codes = np.asarray(keys, dtype=np.int64)[order]
        self.totals = np.asarray(totals, dtype=np.float64)[order]
        self.denominators = np.asarray(denominators, dtype=np.float64)[order]
        self.starts = np.asarray(starts, dtype=np.float64)[order]
        self.cum = np.asarray(cums, dtype=np.float64)
        self.outcomes = np.asarray(outcomes, dtype=np.int64).reshape(-1, 5)


class BatchTowers:
    """``n`` independent towers of one distilled model, thrown together.

    Parameters
    ----------
    model : dict
        The ``model`` section of a model file.
    n : int
        Number of towers.
    seed : int
        Seed of the numpy generator (PCG64).
    """

    def __init__(self, model: dict[str, Any], n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.alpha = float(model["alpha"])
        self.age_cap = int(model["age_cap"])
        # a v1 file has no edges for w and x (its levels never ask for them)
        self._luts = {f: np.asarray(bucket_table(model["buckets"].get(f, [0]))) for f in FIELDS[1:]}
        self.classes: list[str] = sorted(set(model["classes"].values()))
        self._class_index = {c: i for i, c in enumerate(self.classes)}
        # visiting order of the reference sampler: fresh by class, then place/class/age
        self.order: list[tuple[int, int, int]] = [(-1, c, 0) for c in range(len(self.classes))]
        self.order += [
            (p, c, a)
            for p in range(len(PLACES))
            for c in range(len(self.classes))
            for a in range(1, self.age_cap + 1)
        ]
        names = [self.group_name(g) for g in self.order]
        self._group_code = {name: i for i, name in enumerate(names)}
        self.base = np.asarray([model["base"][name] for name in names], dtype=np.float64)
        self.base /= self.base.sum(axis=1, keepdims=True)
        # radix per field: one more than the largest value in any key, plus one "unseen" value
        radix = dict.fromkeys(FIELDS, 1)
        for fields, table in [
            *zip(model["levels"], model["tables"], strict=True),
            *zip(model["piece_levels"], model["piece_tables"], strict=True),
        ]:
            for key in table:
                for f, v in zip(fields, key.split("|")[1:], strict=True):
                    radix[f] = max(radix[f], int(v) + 2)
        self._radix = radix
        self.levels = [
            _Level(self.alpha, list(fields), table, self._group_code, radix)
            for fields, table in zip(model["levels"], model["tables"], strict=True)
        ]
        self.prior = float(model["prior"])
        # per-piece counts by context, coarsest first: (fields, sorted codes, counts)
        self.piece_levels = []
        for fields, table in zip(model["piece_levels"], model["piece_tables"], strict=True):
            codes = []
            for key in table:
                group, *values = key.split("|")
                code = self._group_code[group]
                for f, v in zip(fields, values, strict=True):
                    code = code * radix[f] + int(v)
                codes.append(code)
            order = np.argsort(np.asarray(codes, dtype=np.int64), kind="stable")
            counts = np.asarray(list(table.values()), dtype=np.float64).reshape(-1, 5)
            self.piece_levels.append(
                (list(fields), np.asarray(codes, dtype=np.int64)[order], counts[order])
            )
        self.piece_levels.reverse()
        #: residents[t, place, class, age bucket - 1]
        self.residents = np.zeros((n, len(PLACES), len(self.classes), self.age_cap), np.int64)
        self.throws = 0

    def group_name(self, group: tuple[int, int, int]) -> str:
        place, cls, age = group
        if place < 0:
            return f"fresh.{self.classes[cls]}"
        return f"{PLACES[place]}.{self.classes[cls]}.{age}"

    @property
    def inside(self) -> np.ndarray:
        """(n,) int: pieces inside each tower."""
        return self.residents.sum(axis=(1, 2, 3))

    def _outcomes(self, g: int, ctx: dict[str, np.ndarray]) -> np.ndarray:
        """(k, 5) joint outcomes of group ``g`` for towers with contexts ``ctx`` (length k)."""
        k = len(ctx["m"])
        result = np.empty((k, 5), dtype=np.int64)
        todo = np.arange(k)
        for level in self.levels:
            if not len(todo):
                return result
            code = self._code(g, level.fields, ctx, todo)
            pos = np.searchsorted(level.codes, code)
            pos = np.minimum(pos, len(level.codes) - 1)
            found = level.codes[pos] == code
            total = level.totals[pos]
            u = self.rng.random(len(todo)) * level.denominators[pos]
            hit = found & (u < total)
            if hit.any():
                j = np.searchsorted(level.cum, level.starts[pos[hit]] + u[hit], side="right")
                result[todo[hit]] = level.outcomes[j]
            todo = todo[~hit]
        if len(todo):
            law = np.broadcast_to(self.base[g], (len(todo), 5))
            for fields, codes, counts in self.piece_levels:
                code = self._code(g, fields, ctx, todo)
                pos = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
                found = codes[pos] == code
                if found.any():
                    law = law.copy()
                    seen = counts[pos[found]]
                    law[found] = (seen + self.prior * law[found]) / (
                        seen.sum(axis=1, keepdims=True) + self.prior
                    )
            law = law / law.sum(axis=1, keepdims=True)
            result[todo] = self.rng.multinomial(ctx["m"][todo], law)
        return result

    def _code(
        self, g: int, fields: list[str], ctx: dict[str, np.ndarray], rows: np.ndarray
    ) -> np.ndarray:
        """Integer keys of group ``g`` in the contexts of ``rows`` (bucketed, mixed radix)."""
        code = np.full(len(rows), g, dtype=np.int64)
        for f in fields:
            v = ctx[f][rows]
            if f != "m":
                lut = self._luts[f]
                v = lut[np.minimum(v, len(lut) - 1)]
            code = code * self._radix[f] + np.minimum(v, self._radix[f] - 1)
        return code

    def throw(self, fresh: Mapping[str, int] | np.ndarray) -> BatchThrow:
        """Throw into every tower: ``{"keshi": 12}`` for all, or an (n, C) count array."""
        if isinstance(fresh, Mapping):
            counts = np.zeros((self.n, len(self.classes)), dtype=np.int64)
            for cls, k in fresh.items():
                if cls not in self._class_index:
                    raise ValueError(f"unknown class {cls!r}; the model has {self.classes}")
                counts[:, self._class_index[cls]] = k
        else:
            counts = np.asarray(fresh, dtype=np.int64)
            if counts.shape != (self.n, len(self.classes)):
                raise ValueError(f"fresh counts must have shape {(self.n, len(self.classes))}")
        before = self.residents
        after = np.zeros_like(before)
        occupancy = before.sum(axis=(2, 3))
        inside = occupancy.sum(axis=1)
        n_fresh = counts.sum(axis=1)
        zeros = np.zeros(self.n, dtype=np.int64)
        makeup = {
            f: counts[:, self._class_index[c]] if c in self._class_index else zeros
            for f, c in MAKEUP.items()
        }
        out = np.zeros(self.n, dtype=np.int64)
        out_by_class = np.zeros((self.n, len(self.classes)), dtype=np.int64)
        fresh_out = np.zeros(self.n, dtype=np.int64)
        for g, (place, cls, age) in enumerate(self.order):
            m = counts[:, cls] if place < 0 else before[:, place, cls, age - 1]
            rows = np.flatnonzero(m)
            if not len(rows):
                continue
            ctx = {
                "m": m[rows],
                "n": n_fresh[rows],
                "I": inside[rows],
                "P": inside[rows] if place < 0 else occupancy[rows, place],
                "J": inside[rows],
                "w": makeup["w"][rows],
                "x": makeup["x"][rows],
                "o": out[rows],
            }
            res = self._outcomes(g, ctx)
            out[rows] += res[:, 0]
            out_by_class[rows, cls] += res[:, 0]
            if place < 0:
                fresh_out[rows] += res[:, 0]
            new_age = 0 if place < 0 else min(age, self.age_cap - 1)
            after[rows, :, cls, new_age] += res[:, 1:]
        self.residents = after
        self.throws += 1
        return BatchThrow(out, fresh_out, out_by_class)
