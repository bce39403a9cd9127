"""Throws through a tower in pybullet, with the tower's inside state kept between throws.

- :mod:`tower.physics.params`: :class:`PhysicsParams` (friction, restitution, densities,
  the throw), with defaults and plausible ranges.
- :mod:`tower.physics.world`: units, numerical settings (:class:`Numerics`) and the pybullet
  world built from :mod:`tower.geometry` meshes.
- :mod:`tower.physics.sim`: :class:`TowerSim`, :class:`ThrowResult`, snapshots.
- :mod:`tower.physics.render`: an animated GIF of one throw.
- :mod:`tower.physics.bullet`: imports pybullet without its build-time banner, before any
  other physics module does.
- :mod:`tower.physics.escapes`: the long checks' towers, every lost piece counted, and one
  lost throw replayed step by step (docs/physics.md).
"""

import tower.physics.bullet  # noqa: F401  (first: pybullet loads without its banner)
from tower.physics.params import PhysicsParams
from tower.physics.sim import (
    EscapeError,
    NonFiniteStateError,
    SimulationError,
    SnapshotError,
    ThrowResult,
    TowerSim,
)
from tower.physics.world import Numerics, TowerGeometry

__all__ = [
    "EscapeError",
    "NonFiniteStateError",
    "Numerics",
    "PhysicsParams",
    "SimulationError",
    "SnapshotError",
    "ThrowResult",
    "TowerGeometry",
    "TowerSim",
]
