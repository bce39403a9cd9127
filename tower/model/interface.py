"""The :class:`TowerModel` interface and the model-independent :class:`TowerState`.

A tower state is a value: the pieces inside, where each sits and in which throw it
entered. It is written to JSON and read back exactly, so a game can be saved with its
tower. Models that need no places (the baseline) put every resident in ``Place.FLOOR1``.

Examples
--------
>>> import random
>>> from tower.model import BaselineModel
>>> from tower.pieces import mixed_keshis
>>> model = BaselineModel()
>>> out, state = model.throw(model.new_state(), mixed_keshis(12), random.Random(1))
>>> len(out) + len(state.residents)
12
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tower.pieces import INSIDE, Piece, Place


@dataclass(frozen=True, order=True, slots=True)
class Resident:
    """A piece inside the tower: where it sits and the throw (0-based) in which it entered."""

    piece: Piece
    place: Place
    since: int


@dataclass(frozen=True, slots=True)
class TowerState:
    """What is inside a tower between throws.

    Parameters
    ----------
    residents : tuple of Resident
        Kept sorted, so equal states compare equal.
    throws : int
        How many throws this tower has seen.
    """

    residents: tuple[Resident, ...] = ()
    throws: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "residents", tuple(sorted(self.residents)))
        for r in self.residents:
            if r.place not in INSIDE:
                raise ValueError(f"resident {r.piece} is at {r.place}, which is not inside")

    @property
    def pieces(self) -> list[Piece]:
        """The pieces inside, sorted."""
        return [r.piece for r in self.residents]

    def to_json(self) -> dict[str, Any]:
        """A plain JSON-ready dict; :meth:`from_json` reads it back exactly."""
        return {
            "throws": self.throws,
            "residents": [[str(r.piece), r.place.value, r.since] for r in self.residents],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TowerState:
        """Inverse of :meth:`to_json`. Raises ``ValueError`` naming the bad entry."""
        try:
            residents = tuple(
                Resident(Piece.parse(p), Place(place), int(since))
                for p, place, since in data["residents"]
            )
            return cls(residents, int(data["throws"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed tower state: {exc}") from exc


class TowerModel(ABC):
    """What a rules engine needs from a tower: a state, and throws that change it.

    Subclasses implement :meth:`throw`; they may implement :meth:`distribution` where
    the exact law of a throw is tractable.
    """

    #: Short name used in reports and on the command line.
    name: str = "model"

    def new_state(self) -> TowerState:
        """An empty tower."""
        return TowerState()

    @abstractmethod
    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        """Throw ``pieces`` into a tower in ``state``.

        Returns the pieces that came out (sorted) and the new state. Every piece is
        accounted for: ``out + new_state.pieces == state.pieces + pieces`` as multisets.
        ``state`` is not modified.
        """

    def distribution(
        self, state: TowerState, pieces: Sequence[Piece]
    ) -> dict[tuple[Piece, ...], float]:
        """Exact law of the multiset of pieces out, as ``{sorted tuple: probability}``.

        Raises ``NotImplementedError`` where the model has no tractable exact form.
        """
        raise NotImplementedError(f"{type(self).__name__} has no exact distribution")
