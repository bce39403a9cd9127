"""The :class:`~tower.model.interface.TowerModel` interface over the simulator.

:class:`PhysicsTowerModel` lets code written for tower models (the expert loop of
:mod:`tower.analysis.experts`, a game's chance node) throw into simulated towers instead,
unchanged. A simulated tower is a live pybullet world, not a value, so the adapter is a
model with one tower at a time and two rules:

- a throw into an empty :class:`~tower.model.interface.TowerState` (``throws == 0``, as
  :meth:`~tower.model.interface.TowerModel.new_state` gives) starts a fresh
  :class:`~tower.physics.TowerSim`, seeded from the ``rng`` passed in, so a sequence is
  deterministic in that generator;
- any other throw must go into the state the previous throw returned (a tower goes only
  forward); another state raises ``ValueError``.

The model interface takes the pieces of a throw as a multiset, while the simulator
releases them in list order (the first at the bottom of the hand): the adapter shuffles
each hand with ``rng`` first, so no kind is always on top. Each resident of the returned
state carries the place where the simulator found it and
``since``, the 0-based throw in which it entered. A throw in which the simulation loses a
piece is thrown again up to ``retries`` times (:meth:`TowerSim.throw`); :attr:`rethrows`
counts them over the adapter's life.

Examples
--------
>>> import random
>>> from tower.geometry import load_preset
>>> from tower.pieces import mixed_keshis
>>> with PhysicsTowerModel(load_preset("marrakesh")) as model:
...     out, state = model.throw(model.new_state(), mixed_keshis(12), random.Random(1))
...     len(out) + len(state.residents)
12
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from tower.model.interface import Resident, TowerModel, TowerState
from tower.physics.params import PhysicsParams
from tower.physics.sim import TowerSim
from tower.physics.world import TowerGeometry
from tower.pieces import Piece


class PhysicsTowerModel(TowerModel):
    """Simulated towers behind the model interface, one tower at a time.

    Parameters
    ----------
    spec : TowerSpec
        The tower (see :mod:`tower.geometry`).
    params : PhysicsParams, optional
        Physical parameters; defaults if omitted.
    geometry : TowerGeometry, optional
        Pre-built geometry of ``spec`` (saves meshing when many towers share a spec).
    retries : int
        Re-throws of a throw in which the simulation loses a piece.
    """

    name = "physics"

    def __init__(
        self,
        spec: Any,
        params: PhysicsParams | None = None,
        *,
        geometry: TowerGeometry | None = None,
        retries: int = 3,
    ) -> None:
        self.spec = spec
        self.params = params or PhysicsParams()
        self.geometry = geometry or TowerGeometry.from_spec(spec)
        self.retries = retries
        #: The current simulated tower (``None`` before the first throw).
        self.sim: TowerSim | None = None
        #: Re-throws needed so far (all towers).
        self.rethrows = 0
        self._state: TowerState | None = None
        self._since: dict[int, int] = {}

    def _start(self, seed: int) -> TowerSim:
        self.close()
        self.sim = TowerSim(self.spec, self.params, seed, geometry=self.geometry)
        self._since = {}
        return self.sim

    def throw(
        self, state: TowerState, pieces: Sequence[Piece], rng: random.Random
    ) -> tuple[list[Piece], TowerState]:
        """Throw ``pieces`` into the simulated tower in ``state`` (see the module rules)."""
        if state.throws == 0 and not state.residents:
            sim = self._start(rng.getrandbits(63))
        elif self.sim is not None and state == self._state:
            sim = self.sim
        else:
            raise ValueError(
                f"a simulated tower goes only forward: throw into the state its last throw "
                f"returned, or into new_state() for a fresh tower (got a state after "
                f"{state.throws} throws)"
            )
        hand = list(pieces)
        rng.shuffle(hand)
        result = sim.throw(hand, retries=self.retries)
        self.rethrows += result.rethrows
        self._since.update(dict.fromkeys(result.thrown, result.index))
        self._state = TowerState(
            tuple(
                Resident(result.pieces[i], place, self._since[i])
                for i, place in result.inside.items()
            ),
            result.index + 1,
        )
        return result.out_pieces, self._state

    def close(self) -> None:
        """Disconnect the current simulated tower, if any."""
        if self.sim is not None:
            self.sim.close()
            self.sim = None
            self._state = None

    def __enter__(self) -> PhysicsTowerModel:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
