"""The fitted-parameters file that every ``tower`` command accepts through ``--params FILE``.

A JSON object, schema ``tower.params/1``::

    {"schema": "tower.params/1",
     "preset": "marrakesh",                       # the preset the geometry overrides apply to
     "geometry": {"floors.0.hole_scale": 1.07},   # spec.with_values() overrides (may be empty)
     "physics": {"schema": "tower.physics-params/1", "restitution": 0.21, ...},
     "model": {"p_fresh": 0.66, "p_old": 0.31},   # optional: fitted two-chance model
     "calibration": {...}}                        # optional: how it was fitted (intervals...)

The point values are posterior medians; ``calibration.parameters`` keeps every parameter's
90% credible interval next to it, so a fitted value never travels without its uncertainty.
A bare physics file (``tower.physics-params/1``, as written by ``PhysicsParams.dump``) is
accepted too and means "no geometry overrides".

Examples
--------
>>> import tempfile, pathlib
>>> from tower.physics.params import PhysicsParams
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = pathlib.Path(tmp) / "p.json"
...     save_params(
...         path,
...         preset="marrakesh",
...         geometry={"floors.0.tilt": 8.0},
...         physics=PhysicsParams().with_values({"restitution": 0.2}),
...     )
...     overrides, physics = load_params(path)
>>> overrides, physics.restitution
({'floors.0.tilt': 8.0}, 0.2)
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tower.errors import ImplausibleValueWarning, InputFileError
from tower.files.inputs import load_json_object
from tower.files.outputs import write_text
from tower.physics.params import SCHEMA as PHYSICS_SCHEMA
from tower.physics.params import PhysicsParams

SCHEMA = "tower.params/1"


def save_params(
    path: str | Path,
    *,
    preset: str,
    geometry: Mapping[str, float] | None = None,
    physics: PhysicsParams | None = None,
    model: Mapping[str, float] | None = None,
    calibration: Mapping[str, Any] | None = None,
) -> None:
    """Write a params file atomically (:func:`tower.files.outputs.write_text`; the caller
    has checked that ``path`` may be written)."""
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "preset": preset,
        "geometry": {k: float(v) for k, v in sorted((geometry or {}).items())},
        "physics": (physics or PhysicsParams()).to_json(),
    }
    if model:
        data["model"] = {k: float(v) for k, v in model.items()}
    if calibration:
        data["calibration"] = dict(calibration)
    write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n", checked=True)


def read_params_json(path: str | Path) -> dict[str, Any]:
    """The validated JSON object of a params file (either schema)."""
    path = Path(path)
    data = load_json_object(path)
    schema = data.get("schema")
    if schema == PHYSICS_SCHEMA:
        return {"schema": SCHEMA, "geometry": {}, "physics": data}
    if schema != SCHEMA:
        raise InputFileError(
            str(path),
            f"wrong schema {schema!r}; expected {SCHEMA!r} or {PHYSICS_SCHEMA!r}",
            field="schema",
        )
    for block in ("geometry", "model"):
        values = data.get(block, {})
        if not isinstance(values, dict):
            raise InputFileError(str(path), "expected an object of numbers", field=block)
        for key, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputFileError(
                    str(path), f"expected a number, got {value!r}", field=f"{block}.{key}"
                )
            if not math.isfinite(value):
                raise InputFileError(str(path), "must be finite", field=f"{block}.{key}")
    return data


def warn_implausible(path: str | Path, physics: PhysicsParams) -> None:
    """Warn (:class:`~tower.errors.ImplausibleValueWarning`) for each physics value outside
    its plausible range (:meth:`PhysicsParams.ranges`); such a value is legal, but
    usually a typo or a unit mistake."""
    for name, (lo, hi) in PhysicsParams.ranges().items():
        value = getattr(physics, name)
        if not lo <= value <= hi:
            warnings.warn(
                f"{path}: field physics.{name} = {value:g} is outside its plausible range "
                f"[{lo:g}, {hi:g}]",
                ImplausibleValueWarning,
                stacklevel=2,
            )


def load_params(path: str | Path) -> tuple[dict[str, float], PhysicsParams]:
    """``(spec_overrides, PhysicsParams)`` of a params file.

    Apply the overrides with ``spec.with_values(spec_overrides)``; a name the spec does not
    know raises there (a :class:`tower.geometry.SpecError`).

    Raises
    ------
    InputFileError
        Naming the file and the offending field.
    """
    data = read_params_json(path)
    physics = PhysicsParams.from_json(data.get("physics", {}), path=str(path))
    warn_implausible(path, physics)
    return {k: float(v) for k, v in data.get("geometry", {}).items()}, physics


def apply_params(spec: Any, path: str | Path | None) -> tuple[Any, PhysicsParams]:
    """``(spec with the file's geometry overrides, PhysicsParams)``; defaults if no file.

    The one call a command with ``--params FILE`` needs::

        spec, params = apply_params(load_preset(preset), params_file)

    Raises
    ------
    InputFileError
        Naming the file and the field, also when an override breaks the spec's rules.
    """
    if path is None:
        return spec, PhysicsParams()
    overrides, physics = load_params(path)
    try:
        return spec.with_values(overrides), physics
    except InputFileError as exc:
        raise InputFileError(str(path), exc.reason, field=f"geometry.{exc.field or ''}") from None
