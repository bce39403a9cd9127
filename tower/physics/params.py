"""Physical parameters of a tower throw: friction, restitution, densities and the throw itself.

:class:`PhysicsParams` is a frozen value with a default and a plausible range for every
numeric field, so calibration can search inside :meth:`PhysicsParams.ranges`. Lengths are in
millimetres, masses in grams, times in seconds (the units of :mod:`tower.geometry`); the
conversion to the simulator's internal units lives in :mod:`tower.physics.world`.

No parameter has been measured on a real tower (see ``TOWER_FACTS.md``): the defaults are
assumptions chosen for wood on cardboard and tuned so that a tower keeps a few pieces
inside, and the ranges are what we consider physically plausible.

Examples
--------
>>> p = PhysicsParams()
>>> p.with_values({"restitution": 0.2}).restitution
0.2
>>> PhysicsParams.from_json(p.to_json()) == p
True
>>> PhysicsParams.ranges()["friction_cardboard"]
(0.2, 0.8)
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from tower.errors import InputFileError

SCHEMA = "tower.physics-params/1"

#: The ways pieces leave the hand.
RELEASE_MODES: tuple[str, ...] = ("all", "stream")

#: field -> (low, high, unit, note): the plausible range of every numeric parameter.
_RANGES: dict[str, tuple[float, float, str, str]] = {
    "friction_cardboard": (0.2, 0.8, "1", "Coulomb friction, wooden piece on cardboard"),
    "friction_piece": (0.2, 0.7, "1", "Coulomb friction, wood on wood"),
    "restitution": (0.05, 0.6, "1", "coefficient of restitution of every contact"),
    "rolling_friction": (0.0, 0.05, "mm", "rolling resistance length of a piece"),
    "spinning_friction": (0.0, 0.05, "mm", "torsional friction length of a piece"),
    "density_keshi": (0.45, 0.95, "g/cm^3", "keshis, experts and cubes (beech to pine)"),
    "density_pawn": (0.45, 0.95, "g/cm^3", "watchmen and brigands"),
    "release_height": (-20.0, 40.0, "mm", "hand above the spec's release centre (signed)"),
    "release_spread": (0.0, 40.0, "mm", "radius of the disc the centres of the pieces leave from"),
    "release_speed": (0.0, 1500.0, "mm/s", "mean downward speed at release"),
    "release_speed_jitter": (0.0, 200.0, "mm/s", "largest random sideways velocity"),
    "release_spin": (0.0, 40.0, "rad/s", "angular speed at release, random axis"),
    "stream_interval": (0.0, 0.3, "s", "time between pieces when release_mode is 'stream'"),
}

#: Parameters that may be negative.
_SIGNED = frozenset({"release_height"})


@dataclass(frozen=True)
class PhysicsParams:
    """Everything physical about a throw that the tower's geometry does not fix.

    Parameters
    ----------
    friction_cardboard, friction_piece : float
        Friction coefficients piece–tower and piece–piece.
    restitution : float
        Restitution of every contact (piece–tower and piece–piece).
    rolling_friction, spinning_friction : float
        Rolling and torsional friction lengths (mm) of a piece.
    density_keshi, density_pawn : float
        Densities (g/cm³); a piece's mass is its density times its mesh volume.
    release_height, release_spread : float
        Where the hand is: signed height above ``spec.release_centre`` (the spec's own
        assumed release height stays the reference) and the radius of the disc (clipped to
        ``spec.release_radius``) the pieces' centres start from (mm). Pieces that do not
        fit in one layer start in layers above.
    release_speed, release_speed_jitter, release_spin : float
        Mean downward speed; the largest random sideways velocity, drawn uniformly in a
        disc, with up to half of it added vertically (mm/s); angular speed (rad/s). The
        jitter is bounded so that no piece, however many are thrown, misses the funnel.
    release_mode : {"all", "stream"}
        All pieces leave the hand at once (a loose cluster) or one after another.
    stream_interval : float
        Seconds between two pieces in ``"stream"`` mode.
    """

    friction_cardboard: float = 0.35
    friction_piece: float = 0.4
    restitution: float = 0.35
    rolling_friction: float = 0.01
    spinning_friction: float = 0.01
    density_keshi: float = 0.7
    density_pawn: float = 0.7
    release_height: float = 0.0
    release_spread: float = 25.0
    release_speed: float = 300.0
    release_speed_jitter: float = 120.0
    release_spin: float = 6.0
    release_mode: str = "all"
    stream_interval: float = 0.05

    def __post_init__(self) -> None:
        for name in _RANGES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"parameter {name} must be a number, got {value!r}")
            if not math.isfinite(value) or (value < 0 and name not in _SIGNED):
                raise ValueError(f"parameter {name} must be finite and >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.restitution > 1:
            raise ValueError(f"parameter restitution must be <= 1, got {self.restitution!r}")
        for name in ("density_keshi", "density_pawn"):
            if getattr(self, name) == 0:
                raise ValueError(f"parameter {name} must be > 0")
        if self.release_mode not in RELEASE_MODES:
            raise ValueError(
                f"parameter release_mode must be one of {RELEASE_MODES}, got {self.release_mode!r}"
            )

    @staticmethod
    def ranges() -> dict[str, tuple[float, float]]:
        """Plausible ``(low, high)`` of every numeric parameter (``release_mode`` is a choice)."""
        return {name: (lo, hi) for name, (lo, hi, _, _) in _RANGES.items()}

    @staticmethod
    def describe() -> dict[str, dict[str, Any]]:
        """Range, unit and note of every numeric parameter, for reports and ``--help`` texts."""
        return {
            name: {"low": lo, "high": hi, "unit": unit, "note": note}
            for name, (lo, hi, unit, note) in _RANGES.items()
        }

    def with_values(self, values: dict[str, Any]) -> PhysicsParams:
        """A validated copy with some fields replaced; unknown names raise ``KeyError``.

        >>> PhysicsParams().with_values({"release_mode": "stream"}).release_mode
        'stream'
        """
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise KeyError(f"unknown physics parameter(s) {unknown}; known: {sorted(known)}")
        return replace(self, **values)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with the schema version; :meth:`from_json` reads it back exactly."""
        return {"schema": SCHEMA, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any, *, path: str = "<params>") -> PhysicsParams:
        """Read :meth:`to_json` output. Missing fields take their defaults.

        Raises
        ------
        InputFileError
            Naming ``path`` and the offending field.
        """
        if not isinstance(data, dict):
            raise InputFileError(path, "expected a JSON object", field="<root>")
        if data.get("schema", SCHEMA) != SCHEMA:
            raise InputFileError(
                path, f"expected schema {SCHEMA!r}, got {data.get('schema')!r}", field="schema"
            )
        values = {k: v for k, v in data.items() if k != "schema"}
        known = {f.name for f in fields(cls)}
        for key in values:
            if key not in known:
                raise InputFileError(path, f"unknown parameter; known: {sorted(known)}", field=key)
        params = cls()
        for key, value in values.items():
            try:
                params = params.with_values({key: value})
            except (TypeError, ValueError) as exc:
                raise InputFileError(path, str(exc), field=key) from None
        return params

    def dump(self, path: str | Path, *, force: bool = False) -> None:
        """Write the parameters as a JSON file atomically
        (:func:`tower.files.outputs.write_text`); an existing file is replaced only with
        ``force``."""
        from tower.files.outputs import write_text

        write_text(path, json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n", force=force)

    @classmethod
    def load(cls, path: str | Path) -> PhysicsParams:
        """Read a parameter file written by :meth:`dump` (or by hand)."""
        from tower.files.inputs import load_json

        return cls.from_json(load_json(path), path=str(path))
