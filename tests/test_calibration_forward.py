"""The key statistics played forward by the learned likelihood (tower.calibration.forward)."""

from __future__ import annotations

import numpy as np
import pytest

from tower.calibration.bank import read_bank
from tower.calibration.forward import forward_keys, play
from tower.calibration.surrogate import equilibrium_keys, key_names, load_surrogate
from tower.calibration.synthetic import colour_throws


@pytest.fixture(scope="module")
def surrogate():
    return load_surrogate()


def test_chains_keep_count_of_every_piece(surrogate):
    u = np.random.default_rng(3).random((40, len(surrogate.parameters)))
    before, out, fresh = play(surrogate, u, np.arange(40) % 4, np.random.default_rng(1),
                              throws=50)  # fmt: skip
    assert (before[:, 0] == 0).all()
    assert (before[:, 1:] == before[:, :-1] + 12 - out[:, :-1]).all()
    assert (fresh >= 0).all() and (fresh <= np.minimum(out, 12)).all()
    assert (out - fresh <= before).all()
    again = play(surrogate, u, np.arange(40) % 4, np.random.default_rng(1), throws=50)
    assert all((a == b).all() for a, b in zip((before, out, fresh), again, strict=True))


def test_the_count_inside_follows_the_one_chain_simulator(surrogate):
    """All chains at once draw the law that Surrogate.simulate draws one chain at a time."""
    u = np.full(len(surrogate.parameters), 0.45)
    many = forward_keys(surrogate, np.tile(u, (300, 1)), np.zeros(300, int),
                        np.random.default_rng(2), throws=60, chains=1)[:, 0]  # fmt: skip
    plan = colour_throws(60, 12, 1)
    one = []
    for i in range(150):
        outs = surrogate.simulate(u, 0, plan, np.random.default_rng(100 + i))
        inside = np.cumsum([12 - sum(o.values()) for o in outs])
        one.append(inside[12:].mean())
    se = np.hypot(many.std() / np.sqrt(len(many)), np.std(one) / np.sqrt(len(one)))
    assert abs(many.mean() - np.mean(one)) < 4 * se


def test_played_forward_the_likelihood_gives_the_physics_statistics(surrogate):
    """On bank points the likelihood was not trained on, the key statistics played forward
    (as long as the bank's sequences) agree with the physics sequences' on average, each
    within 3 standard errors. Pieces of a thrown colour that were inside must come out at
    the other old pieces' chance: drawn like fresh ones, the dwell time is 6 standard
    errors short."""
    bank = read_bank()
    start = surrogate.provenance["train_points"]
    points = [i for i in range(start, len(bank.u))
              if bank.status[i] == "ok" and len(bank.ages[i]) == 36][:300]  # fmt: skip
    names = key_names(12)
    physics = np.array([[equilibrium_keys(bank.ages[i], 12)[k] for k in names] for i in points])
    played = forward_keys(surrogate, bank.u[points], np.arange(len(points)) % 4,
                          np.random.default_rng(0), throws=36, chains=8)  # fmt: skip
    diff = played - physics
    se = diff.std(axis=0) / np.sqrt(len(points))
    assert len(points) == 300
    for name, d, s in zip(names, diff.mean(axis=0), se, strict=True):
        assert abs(d) < 3 * s, (name, d, s)
