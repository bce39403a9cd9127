"""Parametric tower and piece geometry: specs, validation, convex meshes, pictures.

Units are millimetres and grams; z is up; the origin lies on the tube's vertical axis at
the courtyard floor. See :mod:`tower.geometry.data` for the spec data types,
:mod:`tower.geometry.spec` for the spec format and its rules,
:mod:`tower.geometry.meshes` for the builders and :mod:`tower.geometry.picture` for the
picture.

>>> from tower.geometry import PRESETS, load_preset
>>> PRESETS
('marrakesh', 'queen-classic')
>>> sorted(k.value for k in load_preset("marrakesh").pieces)
['brigand', 'expert', 'keshi', 'watchman']
"""

from tower.geometry.meshes import Part, piece_mesh, piece_parts, tower_parts
from tower.geometry.spec import (
    PRESETS,
    Assumption,
    ExitUnreachableError,
    HoleError,
    HoleInWallError,
    HoleTooSmallError,
    NonPositiveError,
    OutOfBoundsError,
    PieceSpec,
    PlacementError,
    SolidError,
    SpecError,
    SpecFormatError,
    TowerSpec,
    load_preset,
    load_spec,
)

__all__ = [
    "PRESETS",
    "Assumption",
    "ExitUnreachableError",
    "HoleError",
    "HoleInWallError",
    "HoleTooSmallError",
    "NonPositiveError",
    "OutOfBoundsError",
    "Part",
    "PieceSpec",
    "PlacementError",
    "SolidError",
    "SpecError",
    "SpecFormatError",
    "TowerSpec",
    "load_preset",
    "load_spec",
    "piece_mesh",
    "piece_parts",
    "tower_parts",
]
