"""The distilled tower: a state-based model fitted from simulator traces.

The state is the :class:`~tower.model.interface.TowerState` itself: every resident's
place and entry throw. A throw draws joint group outcomes from the fitted tables (see
:mod:`tower.model.reference`, which does the sampling) and maps pieces to classes by
kind. The shipped model of the ``marrakesh`` preset loads with :func:`load_shipped`.

Examples
--------
>>> import random
>>> from tower.model import load_shipped
>>> from tower.pieces import mixed_keshis
>>> model = load_shipped("marrakesh")
>>> out, state = model.throw(model.new_state(), mixed_keshis(12), random.Random(3))
>>> len(out) + len(state.residents)
12
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Sequence
from importlib import resources
from itertools import product
from math import comb, prod
from operator import attrgetter
from pathlib import Path
from typing import Any

from tower.errors import TowerError
from tower.model import fileformat
from tower.model.interface import Resident, TowerModel, TowerState
from tower.model.reference import (
    _NAMES,
    MAKEUP,
    PLACES,
    ReferenceSampler,
    group_name,
    groups,
)
from tower.pieces import Kind, Piece, Place

#: Where shipped models live: package data, so an installed ``tower`` has them.
SHIPPED_DIR = "shipped"

_PLACE_INDEX = {Place(p): i for i, p in enumerate(PLACES)}
_INSIDE = [Place(p) for p in PLACES]


class UnknownPieceError(TowerError, ValueError):
    """A piece of a kind that a model has no class for."""


class DistilledModel(TowerModel):
    """A tower fitted from traces; ``throw`` runs the pure-Python reference sampler.

    Parameters
    ----------
    doc : dict
        A whole model file document (see :mod:`tower.model.fileformat`).
    """

    name = "distilled"

    def __init__(self, doc: dict[str, Any]) -> None:
        fields = fileformat.SUPPORTED.get(doc.get("schema", fileformat.SCHEMA))
        if fields is None:
            raise ValueError(
                f"unsupported model version {doc.get('schema')!r}: {fileformat.REDISTIL}"
            )
        problem = fileformat.validate_model_section(doc.get("model"), fields)
        if problem:
            raise ValueError(f"model.{problem[0]}: {problem[1]}")
        self.doc = doc
        self.name = str(doc.get("name", "distilled"))
        self.sampler = ReferenceSampler(doc["model"])
        self._class = {Kind(k): c for k, c in self.sampler.classes.items() if k in set(Kind)}
        #: keys of the fresh groups the make-up fields count (see throw)
        self._makeup = [(-1, MAKEUP[f], 0) for f in ("w", "x")]

    @classmethod
    def from_tables(
        cls,
        model: dict[str, Any],
        *,
        name: str = "distilled",
        tower: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        provenance: dict[str, Any] | None = None,
    ) -> DistilledModel:
        """A model from a fitted ``model`` section and its descriptive fields."""
        doc = {
            "schema": fileformat.SCHEMA,
            "name": name,
            "tower": tower or {"preset": None, "spec": None},
            "params": params,
            "provenance": provenance or {},
            "model": model,
        }
        doc["sha256"] = fileformat.checksum(doc)
        return cls(doc)

    @classmethod
    def load(cls, path: str | Path) -> DistilledModel:
        """Read a model file; a bad file raises :class:`~tower.errors.InputFileError`."""
        return cls(fileformat.read_model_file(path))

    def save(self, path: str | Path) -> None:
        """Write the model file atomically."""
        fileformat.write_text_atomic(path, self.dumps())

    def dumps(self) -> str:
        """The model file text."""
        return fileformat.dumps(self.doc)

    def piece_class(self, piece: Piece) -> str:
        """The class this model throws ``piece`` as."""
        try:
            return self._class[piece.kind]
        except KeyError:
            raise UnknownPieceError(
                f"model {self.name!r} has no class for {piece.kind.value} pieces "
                f"(it knows {sorted(self._class)})"
            ) from None

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        """One throw: the same draws as ``self.sampler.throw`` (the reference), faster.

        Groups hold the :class:`Piece` and :class:`Resident` objects themselves (no
        per-piece tuples), a resident that stays where it was is kept as it is, and the
        draw of each group is :meth:`~ReferenceSampler.outcome` (its per-context chains
        are cached). Tested to give the reference's pieces out and state, draw for draw.
        """
        sampler, cls_of, throws = self.sampler, self._class, state.throws
        cap = sampler.age_cap
        found: dict[tuple[int, str, int], list] = {}
        occupancy = [0, 0, 0, 0]
        try:
            kinds = set(map(_KIND, pieces))
            if len(kinds) == 1:  # the usual throw: one kind
                found[(-1, cls_of[kinds.pop()], 0)] = list(pieces)
            else:
                for p in pieces:
                    key = (-1, cls_of[p.kind], 0)
                    members = found.get(key)
                    if members is None:
                        members = found[key] = []
                    members.append(p)
            for r in state.residents:
                index = _PLACE_INDEX[r.place]
                occupancy[index] += 1
                age = throws - r.since
                key = (index, cls_of[r.piece.kind], age if age < cap else cap)
                members = found.get(key)
                if members is None:
                    members = found[key] = []
                members.append(r)
        except KeyError:
            for p in [*state.pieces, *pieces]:
                self.piece_class(p)
            raise
        n, inside, gone = len(pieces), len(state.residents), 0
        w, x = len(found.get(self._makeup[0], ())), len(found.get(self._makeup[1], ()))
        out: list[Piece] = []
        stay: list[Resident] = []
        draw = rng.random
        chains, project = sampler._chains, sampler._project
        names = _NAMES
        for index, name, members in sorted(
            [
                (key[0], names.get(key) or group_name(*key), members)
                for key, members in found.items()
            ]
        ):
            m = len(members)
            p_count = occupancy[index] if index >= 0 else inside
            # sampler.outcome, inlined (the per-group call is a fifth of a throw)
            ctx = (m, n, inside, p_count, inside, w, x, gone)
            chain = chains.get((name, project(ctx))) or sampler.chain(name, ctx)
            for total, cum, outcomes, denominator in chain[0]:
                u = draw() * denominator
                if u < total:
                    counts = outcomes[bisect_right(cum, u)]
                    break
            else:
                counts = sampler.fallback(name, ctx, chain, rng)
            # the reference's uniform assignment: shuffle all but the largest share
            rest, chosen, shares = _PLANS.get(counts) or _plan(counts)
            if not chosen and index >= 0 and rest == index + 1:  # all stay where they were
                stay.extend(members)
                continue
            if chosen:
                for i in range(chosen):
                    j = i + int(draw() * (m - i))
                    members[i], members[j] = members[j], members[i]
                start = 0
                for dest, k in shares:
                    _settle(dest, index, members[start : start + k], throws, out, stay)
                    start += k
                members = members[chosen:]
            _settle(rest, index, members, throws, out, stay)
            gone += counts[0]
        out.sort(key=_piece_key)
        stay.sort(key=_resident_key)
        return out, _sorted_state(tuple(stay), throws + 1)

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece], limit: int = 100_000
    ) -> dict[tuple[Piece, ...], float]:
        """Exact law of the pieces out, by dynamic programming over the groups.

        The state of the recursion is (pieces out so far, their multiset); each group
        adds ``k`` out with its exact back-off law and picks which members uniformly
        (multivariate hypergeometric). Raises ``NotImplementedError`` when the number of
        possible multisets out exceeds ``limit`` (large, varied states): then use
        :meth:`count_distribution`, or sample.
        """
        kinds = sorted({*state.pieces, *pieces}, key=_piece_key)
        have = Counter([*state.pieces, *pieces])
        if prod(have[p] + 1 for p in kinds) > limit:
            raise NotImplementedError(
                f"more than {limit} possible multisets out; use count_distribution or sample"
            )
        index = {p: i for i, p in enumerate(kinds)}
        law: dict[tuple[int, tuple[int, ...]], float] = {(0, (0,) * len(kinds)): 1.0}
        for name, ctx, members in self._groups(state, pieces):
            picks = _hypergeometric(Counter(index[p] for p in members), len(kinds))
            new: dict[tuple[int, tuple[int, ...]], float] = defaultdict(float)
            for (gone, vec), p in law.items():
                for k, pk in enumerate(self.sampler.out_law(name, (*ctx, gone))):
                    if pk == 0.0:
                        continue
                    for sub, ps in picks[k]:
                        key = (gone + k, tuple(a + b for a, b in zip(vec, sub, strict=True)))
                        new[key] += p * pk * ps
            law = new
        result: dict[tuple[Piece, ...], float] = defaultdict(float)
        for (_, vec), p in law.items():
            result[tuple(kinds[i] for i, c in enumerate(vec) for _ in range(c))] += p
        return dict(result)

    def count_distribution(self, state: TowerState, pieces: Sequence[Piece]) -> list[float]:
        """Exact law of the number of pieces out: ``law[k]``, ``k = 0..inside + thrown``.

        >>> import random
        >>> from tower.pieces import mixed_keshis
        >>> model = load_shipped("marrakesh")
        >>> round(sum(model.count_distribution(model.new_state(), mixed_keshis(12))), 9)
        1.0
        """
        total = len(state.residents) + len(pieces)
        law = [1.0] + [0.0] * total
        for name, ctx, _ in self._groups(state, pieces):
            new = [0.0] * (total + 1)
            for gone, p in enumerate(law):
                if p == 0.0:
                    continue
                for k, pk in enumerate(self.sampler.out_law(name, (*ctx, gone))):
                    new[gone + k] += p * pk
            law = new
        return law

    def _groups(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> list[tuple[str, tuple[int, ...], list[Piece]]]:
        """(group name, context without ``o``, member pieces) in the sampler's order."""
        cls_of = self.piece_class
        residents = [(cls_of(r.piece), r.place, r.since, r.piece) for r in state.residents]
        fresh = [(cls_of(p), p) for p in pieces]
        return [
            (name, ctx, [p for _, p in members])
            for name, _, ctx, members in groups(
                residents, fresh, state.throws, self.sampler.age_cap
            )
        ]


#: counts -> (rest, chosen, shares): the reference's assignment of a joint outcome (the
#: largest share, first if tied, is the rest; the others, in destination order).
_PLANS: dict[tuple[int, ...], tuple[int, int, tuple[tuple[int, int], ...]]] = {}


def _plan(counts: tuple[int, ...]) -> tuple[int, int, tuple[tuple[int, int], ...]]:
    rest = counts.index(max(counts))
    shares = tuple((d, k) for d, k in enumerate(counts) if k and d != rest)
    if len(_PLANS) >= 100_000:  # bound the memory (huge groups have many outcomes)
        _PLANS.clear()
    plan = _PLANS[counts] = (rest, sum(counts) - counts[rest], shares)
    return plan


def _settle(dest: int, index: int, members: list, throws: int, out: list, stay: list) -> None:
    """Send ``members`` of a group (pieces if ``index < 0``, else residents) to ``dest``."""
    if dest == 0:
        out.extend(members if index < 0 else [r.piece for r in members])
    elif index < 0:
        place = _INSIDE[dest - 1]
        stay.extend([_resident(p, place, throws) for p in members])
    elif dest - 1 == index:
        stay.extend(members)
    else:
        place = _INSIDE[dest - 1]
        stay.extend([_resident(r.piece, place, r.since) for r in members])


def _hypergeometric(have: Counter[int], width: int) -> list[list[tuple[tuple[int, ...], float]]]:
    """For each ``k``: every way to draw ``k`` of the members (by piece index) and its chance."""
    m = sum(have.values())
    items = sorted(have.items())
    ways: list[list[tuple[tuple[int, ...], float]]] = [[] for _ in range(m + 1)]
    for take in product(*(range(c + 1) for _, c in items)):
        k = sum(take)
        weight = 1
        vec = [0] * width
        for (i, c), x in zip(items, take, strict=True):
            weight *= comb(c, x)
            vec[i] = x
        ways[k].append((tuple(vec), weight / comb(m, k)))
    return ways


#: Sort keys: a piece by (kind, colour), a resident by (kind, colour, place, since).
_piece_key = attrgetter("kind", "colour")
_resident_key = attrgetter("piece.kind", "piece.colour", "place", "since")


_NEW = object.__new__
_SET_PIECE, _SET_PLACE, _SET_SINCE = (
    Resident.piece.__set__,  # type: ignore[attr-defined]
    Resident.place.__set__,  # type: ignore[attr-defined]
    Resident.since.__set__,  # type: ignore[attr-defined]
)


_SET_RESIDENTS = TowerState.residents.__set__  # type: ignore[attr-defined]
_SET_THROWS = TowerState.throws.__set__  # type: ignore[attr-defined]
_KIND = attrgetter("kind")


def _resident(piece: Piece, place: Place, since: int) -> Resident:
    """``Resident(piece, place, since)`` for a place inside, through its slots.

    The frozen dataclass's ``__init__`` sets each field with ``object.__setattr__``; the
    slot descriptors do the same in C, 40 % faster (an equal, equally hashed value).
    """
    r = _NEW(Resident)
    _SET_PIECE(r, piece)
    _SET_PLACE(r, place)
    _SET_SINCE(r, since)
    return r


def _sorted_state(residents: tuple[Resident, ...], throws: int) -> TowerState:
    """A :class:`TowerState` from residents already in its order, at inside places.

    The same value ``TowerState(residents, throws)`` builds, without sorting again
    (``_resident_key`` is the dataclass order of :class:`Resident`).
    """
    state = _NEW(TowerState)
    _SET_RESIDENTS(state, residents)
    _SET_THROWS(state, throws)
    return state


def load_model(path: str | Path) -> DistilledModel:
    """Read a distilled model file."""
    return DistilledModel.load(path)


def shipped_path(name: str) -> Path:
    """Path of the shipped model ``name`` (package data ``tower/model/shipped``)."""
    path = Path(str(resources.files("tower.model") / SHIPPED_DIR / f"{name}.json"))
    if not path.is_file():
        available = sorted(p.stem for p in path.parent.glob("*.json"))
        raise TowerError(f"no shipped model {name!r}; available: {available}")
    return path


def load_shipped(name: str = "marrakesh") -> DistilledModel:
    """Load a model shipped with the package, e.g. ``load_shipped("marrakesh")``."""
    return DistilledModel.load(shipped_path(name))
