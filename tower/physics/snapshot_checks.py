"""Checks of a tower snapshot's JSON before :meth:`tower.physics.TowerSim.restore` uses it.

Kept apart from the simulator so the rules a snapshot must obey read in one place: whole,
non-negative counts, at most ``LIMITS["pieces_per_sequence"]`` pieces thrown and
``LIMITS["pieces_inside"]`` inside, every piece inside at a place that is inside, each at
most once.
"""

from __future__ import annotations

from typing import Any

from tower.errors import InputFileError
from tower.files.inputs import check_count
from tower.pieces import INSIDE, Piece, Place


def check_snapshot(data: dict[str, Any], path: str) -> None:
    """Raise :class:`InputFileError` (file, field, value) for the first rule ``data`` breaks."""
    for name in ("seed", "throws"):
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputFileError(
                path, f"expected a whole number >= 0, got {value!r:.60}", field=name
            )
    pieces = data.get("pieces")
    if not isinstance(pieces, list):
        raise InputFileError(path, f"expected a list of pieces, got {pieces!r:.60}", field="pieces")
    check_count(len(pieces), path, "pieces", "pieces_per_sequence")
    for k, text in enumerate(pieces):
        try:
            Piece.parse(text)
        except (AttributeError, TypeError, ValueError):
            raise InputFileError(path, f"not a piece: {text!r:.40}", field=f"pieces[{k}]") from None
    inside = data.get("inside", [])
    if not isinstance(inside, list):
        raise InputFileError(path, f"expected a list, got {inside!r:.60}", field="inside")
    check_count(len(inside), path, "inside", "pieces_inside")
    seen: set[Any] = set()
    for k, entry in enumerate(inside):
        if not isinstance(entry, dict):
            raise InputFileError(
                path, f"expected an object, got {entry!r:.60}", field=f"inside[{k}]"
            )
        place = entry.get("place")
        try:
            ok = Place(place) in INSIDE
        except ValueError:
            ok = False
        if not ok:
            raise InputFileError(
                path,
                f"place {place!r:.40} is not a place inside the tower",
                field=f"inside[{k}].place",
            )
        pid = entry.get("id")
        if isinstance(pid, bool) or not isinstance(pid, int):
            raise InputFileError(
                path, f"expected a piece id, got {pid!r:.40}", field=f"inside[{k}].id"
            )
        if pid in seen:
            raise InputFileError(path, f"piece {pid!r} is inside twice", field=f"inside[{k}].id")
        seen.add(pid)
    for name in ("rng", "numerics"):
        if not isinstance(data.get(name), dict):
            raise InputFileError(
                path, f"expected an object, got {data.get(name)!r:.60}", field=name
            )
