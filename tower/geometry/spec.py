"""Parametric tower and piece specs: TOML loading and validation.

The data types live in :mod:`tower.geometry.data` (re-exported here); this module reads
spec files into them and validates them, building the solids with
:mod:`tower.geometry.meshes` for the last rule.

A spec file (``tower.spec/1``) describes one tower and the pieces thrown into it. No real
tower's dimensions are published, so **every number is an assumption** and is written with
its plausible range as an inline table::

    width = { value = 72.0, low = 60.0, high = 90.0 }  # inner width of the tube

The ranges are machine-readable (:meth:`TowerSpec.assumptions`); validation checks that
each value lies within them. Hole polygons are the one exception: they are an assumed
*layout* (2-D points in floor coordinates, mm), scaled about each hole's centroid by the
floor's ``hole_scale`` assumption, and bounded by the floor they are cut into.

Frame: millimetres and grams; z up; the origin lies on the tube's vertical axis at the
courtyard floor (z = 0). The exit ramp runs down towards +x, through an opening in the
+x tube wall, into the courtyard.

Validation runs in this order, each rule raising its own :class:`SpecError` subclass:
format (:class:`SpecFormatError`), dimensions (:class:`NonPositiveError`,
:class:`OutOfBoundsError`), placement (:class:`PlacementError`), holes
(:class:`HoleError`, :class:`HoleInWallError`, :class:`HoleTooSmallError`), the exit
(:class:`ExitUnreachableError`) and finally the solids built from the spec
(:class:`SolidError`).

Examples
--------
>>> from tower.geometry import load_preset
>>> spec = load_preset("marrakesh")
>>> spec.assumptions()["tube.width"].unit
'mm'
>>> spec.with_values({"tube.height": 210.0}).tube.height
210.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from tower.errors import InputFileError
from tower.geometry.data import (
    HOLE_CLEARANCE,
    MIN_RIM,
    N_FLOORS,
    PIECE_SHAPES,
    SCHEMA,
    SECTIONS,
    TOL,
    Assumption,
    Courtyard,
    CubePiece,
    Floor,
    Funnel,
    OctagonalPrism,
    Pawn,
    PieceSpec,
    Polygon,
    Ramp,
    Release,
    TowerData,
    Tube,
)
from tower.geometry.errors import (
    ExitUnreachableError,
    HoleError,
    HoleInWallError,
    HoleTooSmallError,
    NonPositiveError,
    OutOfBoundsError,
    PlacementError,
    SolidError,
    SpecError,
    SpecFormatError,
)
from tower.geometry.meshes import check_solids
from tower.pieces import Kind

# ------------------------------------------------------------------ the validated spec


class TowerSpec(TowerData):
    """A validated tower with its pieces. Build with :func:`load_spec` or :func:`load_preset`.

    The fields, derived geometry and TOML text are those of :class:`TowerData`
    (see there); a ``TowerSpec`` has passed every validation rule of this module,
    solids included, and re-validates when its numbers change.
    """

    def with_values(self, values: Mapping[str, float]) -> TowerSpec:
        """A re-validated copy with some assumed numbers changed.

        Parameters
        ----------
        values : mapping of str to float
            Dotted field names (as in :meth:`assumptions`) to new values.

        Raises
        ------
        SpecError
            An unknown name, or a value that breaks a validation rule.
        """
        raw = self.to_raw()
        src = f"{self.source} (with_values)"
        known = self.assumptions()
        for name, value in values.items():
            if name not in known:
                msg = f"no assumed number of that name; got {value!r}"
                raise SpecFormatError(src, msg, field=name)
            node: Any = raw
            *parents, leaf = name.split(".")
            for key in parents:
                node = node[int(key)] if isinstance(node, list) else node[key]
            node[leaf] = dict(node[leaf], value=value)
        return _validated(parse_raw(raw, src))


# ------------------------------------------------------------------ parsing


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _parse_fields(cls: type, raw: object, prefix: str, src: str, ranges: dict, **given: Any):
    """Build dataclass ``cls`` from table ``raw`` (strict: no unknown or missing keys)."""
    if not isinstance(raw, dict):
        raise SpecFormatError(src, f"expected a table, got {raw!r}", field=prefix)
    wanted = [f for f in fields(cls) if f.name not in given]
    names = {f.name for f in wanted}
    extra = sorted(set(raw) - names - {"shape"})
    if extra:
        raise SpecFormatError(
            src,
            f"unknown field (value {raw[extra[0]]!r}); expected one of {sorted(names)}",
            field=f"{prefix}.{extra[0]}",
        )
    values: dict[str, Any] = dict(given)
    for f in wanted:
        where = f"{prefix}.{f.name}"
        if f.name not in raw:
            raise SpecFormatError(src, "missing field", field=where)
        if "polygons" in f.metadata:
            values[f.name] = _parse_polygons(raw[f.name], where, src)
        else:
            values[f.name] = _parse_number(raw[f.name], where, src, ranges)
    return cls(**values)


def _parse_number(raw: object, where: str, src: str, ranges: dict) -> float:
    """Read ``{ value = v, low = a, high = b }`` and record the range."""
    if not isinstance(raw, dict) or set(raw) != {"value", "low", "high"}:
        raise SpecFormatError(
            src, f"expected {{ value = ..., low = ..., high = ... }}, got {raw!r}", field=where
        )
    for key in ("value", "low", "high"):
        if not _is_number(raw[key]):
            raise SpecFormatError(
                src, f"{key} must be a number, got {raw[key]!r}", field=f"{where}.{key}"
            )
    if not all(math.isfinite(raw[k]) for k in ("value", "low", "high")):
        raise SpecFormatError(src, f"numbers must be finite, got {raw!r}", field=where)
    ranges[where] = (float(raw["low"]), float(raw["high"]))
    return float(raw["value"])


def _parse_polygons(raw: object, where: str, src: str) -> tuple[Polygon, ...]:
    if not isinstance(raw, list):
        raise SpecFormatError(src, f"expected a list of polygons, got {raw!r}", field=where)
    out = []
    for i, poly in enumerate(raw):
        here = f"{where}.{i}"
        ok = isinstance(poly, list) and len(poly) >= 3
        ok = ok and all(
            isinstance(p, list) and len(p) == 2 and all(map(_is_number, p)) for p in poly
        )
        if not ok:
            raise SpecFormatError(
                src, f"expected a list of at least 3 [x, y] points, got {poly!r}", field=here
            )
        out.append(tuple((float(x), float(y)) for x, y in poly))
    return tuple(out)


#: A spec's name names its output folder.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


#: Accepted range of the optional top-level ``steps_per_second``: simulation steps per
#: second for a tower that needs a finer time step than the physics' default.
STEPS_RANGE = (60, 2000)


def parse_raw(raw: dict[str, Any], src: str) -> TowerSpec:
    """Build a TowerSpec from a parsed TOML dict, checking format only (no rules)."""
    top = {"schema", "name", "description", "floors", "pieces", *SECTIONS}
    extra = sorted(set(raw) - top - {"steps_per_second"})
    if extra:
        raise SpecFormatError(
            src,
            f"unknown field (value {raw[extra[0]]!r}); expected one of "
            f"{sorted(top | {'steps_per_second'})}",
            field=extra[0],
        )
    steps = raw.get("steps_per_second")
    low, high = STEPS_RANGE
    if steps is not None and (type(steps) is not int or not low <= steps <= high):
        msg = f"expected a whole number from {low} to {high}, got {steps!r}"
        raise SpecFormatError(src, msg, field="steps_per_second")
    for key in sorted(top):
        if key not in raw:
            raise SpecFormatError(src, "missing field", field=key)
    if raw["schema"] != SCHEMA:
        raise SpecFormatError(src, f"expected {SCHEMA!r}, got {raw['schema']!r}", field="schema")
    if not isinstance(raw["description"], str):
        msg = f"expected a string, got {raw['description']!r}"
        raise SpecFormatError(src, msg, field="description")
    if not isinstance(raw["name"], str) or not _NAME.fullmatch(raw["name"]):
        msg = f"expected a file-friendly name (letters, digits, . _ -), got {raw['name']!r}"
        raise SpecFormatError(src, msg, field="name")
    ranges: dict[str, tuple[float, float]] = {}
    sections = {k: _parse_fields(cls, raw[k], k, src, ranges) for k, cls in SECTIONS.items()}
    floors_raw = raw["floors"]
    if not isinstance(floors_raw, list) or len(floors_raw) != N_FLOORS:
        raise SpecFormatError(
            src, f"expected {N_FLOORS} [[floors]] tables, got {floors_raw!r}", field="floors"
        )
    floors = tuple(
        _parse_fields(Floor, f, f"floors.{i}", src, ranges) for i, f in enumerate(floors_raw)
    )
    pieces_raw = raw["pieces"]
    if not isinstance(pieces_raw, dict) or not pieces_raw:
        raise SpecFormatError(
            src, f"expected [pieces.<kind>] tables, got {pieces_raw!r}", field="pieces"
        )
    pieces: dict[Kind, PieceSpec] = {}
    for name in sorted(pieces_raw):
        body, where = pieces_raw[name], f"pieces.{name}"
        try:
            kind = Kind(name)
        except ValueError:
            raise SpecFormatError(
                src,
                f"unknown piece kind {name!r}; expected one of {[k.value for k in Kind]}",
                field=where,
            ) from None
        shape = body.get("shape") if isinstance(body, dict) else None
        if shape not in PIECE_SHAPES:
            raise SpecFormatError(
                src,
                f"unknown shape {shape!r}; expected one of {sorted(PIECE_SHAPES)}",
                field=f"{where}.shape",
            )
        pieces[kind] = _parse_fields(PIECE_SHAPES[shape], body, where, src, ranges, kind=kind)
    return TowerSpec(
        name=raw["name"],
        description=raw["description"],
        floors=floors,
        pieces=pieces,
        ranges=ranges,
        source=src,
        steps_per_second=steps,
        **sections,
    )


# ------------------------------------------------------------------ validation rules


def check_dimensions(spec: TowerSpec) -> None:
    """Every number is positive where it must be, and lies within its stated range."""
    src = spec.source
    for name, value, meta in spec._numbers():
        low, high = spec.ranges[name]
        if meta["positive"] and value <= 0:
            raise NonPositiveError(src, f"must be positive, got {value!r}", field=name)
        if low > high:
            raise OutOfBoundsError(src, f"empty range: low {low!r} > high {high!r}", field=name)
        if not low <= value <= high:
            raise OutOfBoundsError(
                src, f"value {value!r} outside its stated range [{low!r}, {high!r}]", field=name
            )


def check_placement(spec: TowerSpec) -> None:
    """Floors and ramp lie inside the tube, in order, with room for the largest piece."""
    src, t, gap = spec.source, spec.tube, spec.clearance
    if spec.funnel.top_width < t.width or spec.funnel.top_depth < t.depth:
        raise PlacementError(
            src,
            f"the funnel's opening {spec.funnel.top_width!r} x {spec.funnel.top_depth!r} is "
            f"narrower than the tube {t.width!r} x {t.depth!r}",
            field="funnel.top_width",
        )
    ceiling, above = t.height, "the tube top"
    for i, f in enumerate(spec.floors):
        lo, hi = spec.floor_z_range(i)
        if hi > ceiling - gap:
            raise PlacementError(
                src,
                f"value {f.z!r}: floor reaches z = {hi:.1f}, less than {gap:.1f} mm below "
                f"{above} (z = {ceiling:.1f})",
                field=f"floors.{i}.z",
            )
        ceiling, above = lo, f"floor {i + 1}"
    if spec.ramp_top > ceiling - gap:
        raise PlacementError(
            src,
            f"value {spec.ramp.angle!r}: the ramp rises to z = {spec.ramp_top:.1f}, less than "
            f"{gap:.1f} mm below {above} (z = {ceiling:.1f})",
            field="ramp.angle",
        )
    if spec.ramp.exit_height >= t.height:
        raise PlacementError(
            src,
            f"value {spec.ramp.exit_height!r}: the exit is taller than the tube",
            field="ramp.exit_height",
        )
    c = spec.courtyard
    if c.width < t.depth + 2 * t.wall:
        raise PlacementError(
            src,
            f"value {c.width!r}: the courtyard is narrower than the tube",
            field="courtyard.width",
        )


def check_holes(spec: TowerSpec) -> None:
    """Holes are simple, disjoint, inside their floor with a rim, and admit the largest piece."""
    import shapely
    from shapely.geometry import Polygon as ShapelyPolygon

    src = spec.source
    piece = spec.largest_piece
    need = piece.passage * HOLE_CLEARANCE
    for i in range(len(spec.floors)):
        inner = ShapelyPolygon(spec.floor_outline(i)).buffer(-MIN_RIM, join_style="mitre")
        shapes = []
        for j, hole in enumerate(spec.floor_holes(i)):
            where = f"floors.{i}.holes.{j}"
            shown = [list(p) for p in spec.floors[i].holes[j]]
            poly = ShapelyPolygon(hole)
            if not poly.is_valid or poly.area <= 0:
                raise HoleError(src, f"not a simple polygon: {shown}", field=where)
            if not inner.contains(poly):
                raise HoleInWallError(
                    src,
                    f"value {shown}: the hole (scale {spec.floors[i].hole_scale!r}) reaches "
                    f"into the tube wall (needs a {MIN_RIM} mm rim inside "
                    f"|x| <= {spec.floor_half_length(i):.2f}, |y| <= {spec.tube.depth / 2:.2f})",
                    field=where,
                )
            radius = shapely.maximum_inscribed_circle(poly, tolerance=0.01).length
            if 2 * radius < need:
                raise HoleTooSmallError(
                    src,
                    f"value {shown}: the widest circle in the hole is {2 * radius:.2f} mm, "
                    f"the largest piece ({piece.kind.value}) needs {need:.2f} mm",
                    field=where,
                )
            for k, other in enumerate(shapes):
                if poly.intersects(other):
                    raise HoleError(src, f"value {shown}: overlaps hole {k}", field=where)
            shapes.append(poly)


def check_exit(spec: TowerSpec) -> None:
    """Every floor has a hole, and the largest piece can leave down the ramp into the yard."""
    src = spec.source
    for i, f in enumerate(spec.floors):
        if not f.holes:
            raise ExitUnreachableError(
                src,
                "value []: the floor has no hole, nothing can pass it",
                field=f"floors.{i}.holes",
            )
    gap = spec.ramp.exit_height - spec.ramp.low
    if gap < spec.clearance:
        raise ExitUnreachableError(
            src,
            f"value {spec.ramp.exit_height!r}: the exit leaves {gap:.1f} mm above the ramp, "
            f"the largest piece needs {spec.clearance:.1f} mm",
            field="ramp.exit_height",
        )
    if spec.courtyard.length < spec.clearance:
        raise ExitUnreachableError(
            src,
            f"value {spec.courtyard.length!r}: no room in front of the exit",
            field="courtyard.length",
        )


def _validated(spec: TowerSpec) -> TowerSpec:
    """Run every validation rule (the solids last); return the spec."""
    check_dimensions(spec)
    check_placement(spec)
    check_holes(spec)
    check_exit(spec)
    check_solids(spec)
    return spec


def load_spec(path: str | Path) -> TowerSpec:
    """Read and validate a spec file.

    Raises
    ------
    SpecError
        The narrow subclass of the first rule that fails; the message names the file,
        the field and the value.
    """
    from tower.files.inputs import load_toml

    src = str(path)
    try:
        raw = load_toml(path)
    except InputFileError as exc:
        raise SpecFormatError(src, exc.reason, line=exc.line, field=exc.field) from None
    _check_hole_sizes(raw, src)
    return _validated(parse_raw(raw, src))


def _check_hole_sizes(raw: dict[str, Any], src: str) -> None:
    """Refuse a hole with more vertices than ``LIMITS["hole_vertices"]`` before any
    geometry runs on it (the convex decomposition grows fast with the vertex count)."""
    from tower.files.inputs import check_count

    floors = raw.get("floors")
    for i, floor in enumerate(floors if isinstance(floors, list) else []):
        holes = floor.get("holes") if isinstance(floor, dict) else None
        for j, hole in enumerate(holes if isinstance(holes, list) else []):
            if isinstance(hole, list):
                check_count(len(hole), src, f"floors.{i}.holes.{j}", "hole_vertices")


#: Names of the shipped presets.
PRESETS: tuple[str, ...] = ("marrakesh", "queen-classic")

_PRESET_DIR = Path(__file__).with_name("presets")


def preset_path(name: str) -> Path:
    """Path of a shipped preset file."""
    if name not in PRESETS:
        raise SpecFormatError(
            name, f"unknown preset; expected one of {list(PRESETS)}", field="preset"
        )
    return _PRESET_DIR / f"{name}.toml"


def load_preset(name: str) -> TowerSpec:
    """Read and validate one of :data:`PRESETS`."""
    return load_spec(preset_path(name))


__all__ = [
    "HOLE_CLEARANCE",
    "MIN_RIM",
    "N_FLOORS",
    "PIECE_SHAPES",
    "PRESETS",
    "SCHEMA",
    "SECTIONS",
    "TOL",
    "Assumption",
    "Courtyard",
    "CubePiece",
    "ExitUnreachableError",
    "Floor",
    "Funnel",
    "HoleError",
    "HoleInWallError",
    "HoleTooSmallError",
    "NonPositiveError",
    "OctagonalPrism",
    "OutOfBoundsError",
    "Pawn",
    "PieceSpec",
    "PlacementError",
    "Polygon",
    "Ramp",
    "Release",
    "SolidError",
    "SpecError",
    "SpecFormatError",
    "TowerData",
    "TowerSpec",
    "Tube",
    "load_preset",
    "load_spec",
]
