"""Tower models: fast statistical stand-ins for the physical tower.

The rules engine and digital games call a :class:`TowerModel`; they never see physics.
:class:`BaselineModel` and :class:`NoRetentionModel` are comparison points;
:class:`DistilledModel` is fitted from simulator traces, and the shipped model of the
``marrakesh`` preset loads with ``load_shipped("marrakesh")``. :func:`open_model` turns
any model name a user gives (``baseline``, ``shipped:NAME``, a file) into a model;
:func:`distill` fits one from trace files (:mod:`tower.model.pipeline`).
"""

from tower.model.baseline import BaselineModel, NoRetentionModel
from tower.model.distilled import DistilledModel, load_model, load_shipped
from tower.model.interface import Resident, TowerModel, TowerState
from tower.model.opener import ModelSpecError, open_model
from tower.model.pipeline import distill

__all__ = [
    "BaselineModel",
    "DistilledModel",
    "ModelSpecError",
    "NoRetentionModel",
    "Resident",
    "TowerModel",
    "TowerState",
    "distill",
    "load_model",
    "load_shipped",
    "open_model",
]
