"""The exceptions of tower specs: one narrow class per validation rule.

They live apart from :mod:`tower.geometry.spec` so that the mesh builders
(:mod:`tower.geometry.meshes`), which the spec's solid check calls, can raise them
without importing the spec module back. :mod:`tower.geometry.spec` re-exports them.
"""

from tower.errors import InputFileError


class SpecError(InputFileError):
    """A tower spec is invalid; the message names the file, the field and the value."""


class SpecFormatError(SpecError):
    """Malformed TOML, an unknown or missing field, or a value of the wrong type."""


class DimensionError(SpecError):
    """A dimension is not acceptable on its own."""


class NonPositiveError(DimensionError):
    """A length, mass or scale is zero or negative."""


class OutOfBoundsError(DimensionError):
    """A value lies outside its stated plausible range (or the range is empty)."""


class PlacementError(SpecError):
    """A floor, the ramp or the courtyard does not fit inside the tower's frame."""


class HoleError(SpecError):
    """A hole polygon is not a simple polygon, or holes of one floor overlap."""


class HoleInWallError(HoleError):
    """A hole reaches into the tube wall (it is not inside its floor with a rim)."""


class HoleTooSmallError(HoleError):
    """A hole does not let the largest piece through."""


class ExitUnreachableError(SpecError):
    """No path leads from the funnel down to the courtyard for the largest piece."""


class SolidError(SpecError):
    """A part built from the spec is not a watertight solid of positive volume."""
