"""Pieces and places: the vocabulary that physics, models, recordings and the game share.

A :class:`Piece` is a small frozen value: a :class:`Kind` and a colour. Two red keshis are
equal; a tower model decides *which* pieces come out by their kind and colour, and keeps
whatever per-piece bookkeeping it needs (where and when a piece entered) in its own state.

Examples
--------
>>> Piece.keshi("red")
Piece(kind=<Kind.KESHI: 'keshi'>, colour='red')
>>> str(Piece.keshi("red")), str(Piece(Kind.BRIGAND, NEUTRAL))
('keshi:red', 'brigand:neutral')
>>> Piece.parse("watchman:blue")
Piece(kind=<Kind.WATCHMAN: 'watchman'>, colour='blue')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """The kinds of piece that go through a tower."""

    KESHI = "keshi"  # Marrakesh: wooden octagonal cylinder
    WATCHMAN = "watchman"  # Walls & Guards: pawn in a player colour
    BRIGAND = "brigand"  # Walls & Guards: neutral pawn
    EXPERT = "expert"  # Gems & Experts: expert keshi
    CUBE = "cube"  # the older Queen tower games (Wallenstein, Shogun, Amerigo)


#: kind name -> Kind: what :meth:`Piece.parse` reads (a dict lookup, not the enum's call).
_KINDS: dict[str, Kind] = {k.value: k for k in Kind}

#: text -> the Piece it parses to: pieces are frozen values, and a game reads the same
#: few texts (a battle's watchmen and brigands, the experts) over and over; bounded.
_PARSED: dict[str, Piece] = {}

#: The 12 keshi colours of Marrakesh, in rulebook order.
KESHI_COLOURS: tuple[str, ...] = (
    "green",  # date picker
    "gray",  # scholar
    "white",  # noble
    "black",  # cleric
    "pink",  # entertainer
    "turquoise",  # fish
    "beige",  # guard
    "brown",  # caravan
    "red",  # water vendor
    "yellow",  # carpet (goods)
    "purple",  # lamp (goods)
    "orange",  # spices (goods)
)

#: The colour of pieces that belong to nobody (brigands).
NEUTRAL = "neutral"
#: The player colours of pawns in the box (watchmen: 3 each in red, yellow, green, blue).
PLAYER_COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue")


@dataclass(frozen=True, order=True, slots=True)
class Piece:
    """One piece thrown into a tower.

    Parameters
    ----------
    kind : Kind
        What the piece is; decides its shape in physics.
    colour : str
        A keshi colour for keshis and experts, a player colour for watchmen and cubes,
        :data:`NEUTRAL` for brigands.
    """

    kind: Kind
    colour: str

    @classmethod
    def keshi(cls, colour: str) -> Piece:
        """A keshi of one of the 12 :data:`KESHI_COLOURS`."""
        if colour not in KESHI_COLOURS:
            raise ValueError(f"unknown keshi colour {colour!r}; expected one of {KESHI_COLOURS}")
        return cls(Kind.KESHI, colour)

    @classmethod
    def parse(cls, text: str) -> Piece:
        """Read the ``kind:colour`` form written by ``str(piece)``."""
        known = _PARSED.get(text)
        if known is not None:
            return known
        kind, sep, colour = text.partition(":")
        if not sep or not colour:
            raise ValueError(f"piece {text!r} is not of the form kind:colour")
        kind_ = _KINDS.get(kind)
        if kind_ is None:
            raise ValueError(
                f"piece {text!r} has unknown kind {kind!r}; expected one of "
                f"{[k.value for k in Kind]}"
            )
        piece = cls(kind_, colour)
        if len(_PARSED) < 4096:
            _PARSED[text] = piece
        return piece

    def __str__(self) -> str:
        # A Kind is a str: concatenation reads its value without the enum's lookup (the
        # game writes every piece of every throw).
        return self.kind + ":" + self.colour


class Place(StrEnum):
    """Where a piece can be after a throw. Every piece is always in exactly one place."""

    FUNNEL = "funnel"
    FLOOR1 = "floor1"  # the upper intermediate floor
    FLOOR2 = "floor2"  # the lower intermediate floor
    RAMP = "ramp"  # on the exit ramp, still inside the tube
    OUT = "out"  # in the base courtyard: came out


#: The places inside the tower, top to bottom.
INSIDE: tuple[Place, ...] = (Place.FUNNEL, Place.FLOOR1, Place.FLOOR2, Place.RAMP)


def count(pieces: Iterable[Piece]) -> Counter[Piece]:
    """Multiset of pieces, the natural way to compare throws."""
    return Counter(pieces)


def keshis(spec: dict[str, int]) -> list[Piece]:
    """Expand ``{"red": 2, "green": 1}`` into a sorted list of keshis.

    >>> [str(p) for p in keshis({"red": 2, "green": 1})]
    ['keshi:green', 'keshi:red', 'keshi:red']
    """
    out = [Piece.keshi(c) for c, n in spec.items() for _ in range(n)]
    return sorted(out)


def mixed_keshis(n: int) -> list[Piece]:
    """``n`` keshis cycling through the 12 colours (the usual test throw).

    >>> len(mixed_keshis(12)), len(set(mixed_keshis(12)))
    (12, 12)
    """
    return [Piece.keshi(KESHI_COLOURS[i % len(KESHI_COLOURS)]) for i in range(n)]
