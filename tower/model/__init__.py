"""Tower models: fast statistical stand-ins for the physical tower.

The rules engine and digital games call a :class:`TowerModel`; they never see physics.
"""

from tower.model.baseline import BaselineModel
from tower.model.interface import Resident, TowerModel, TowerState

__all__ = ["BaselineModel", "Resident", "TowerModel", "TowerState"]
