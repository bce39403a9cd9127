"""Fitting with a higher min-count for the keys of throws with pawns or experts."""

import pytest
from test_model_v3_copula import pawn_plan

from tower.model.fit import FitSettings, fit_tables
from tower.model.synthetic import SyntheticTower


@pytest.fixture(scope="module")
def traces():
    tower = SyntheticTower()
    return tower.traces(150, seed=31) + tower.traces(150, seed=32, throws=pawn_plan)


def _kept(model, makeup: bool) -> list[int]:
    """Counts of the kept keys, of throws with (``makeup``) or without pawns or experts,
    at every level but the last that names ``w``."""
    found = []
    for level, table in zip(model["levels"][:-1], model["tables"][:-1], strict=True):
        if "w" not in level:
            continue
        iw, ix = 1 + level.index("w"), 1 + level.index("x")
        for key, flat in table.items():
            parts = key.split("|")
            if (parts[iw] != "0" or parts[ix] != "0") == makeup:
                found.append(sum(flat[0::6]))
    return found


@pytest.mark.parametrize("backoff", ["all", "rest"])
def test_keys_with_pawns_need_their_own_count(traces, backoff):
    plain = fit_tables(traces, FitSettings(min_count=3, backoff=backoff))
    split = fit_tables(traces, FitSettings(min_count=3, min_count_makeup=30, backoff=backoff))
    assert min(_kept(split, makeup=True)) >= 30
    assert any(c < 30 for c in _kept(plain, makeup=True))  # the plain fit kept rarer ones
    assert sorted(_kept(split, makeup=False)) == sorted(_kept(plain, makeup=False))
    assert min(_kept(split, makeup=False)) < 30


def test_unset_changes_nothing(traces):
    settings = FitSettings(min_count=3)
    assert "min_count_makeup" not in settings.to_json()
    assert FitSettings(min_count=3, min_count_makeup=7).to_json()["min_count_makeup"] == 7
    with pytest.raises(ValueError, match="min_count_makeup"):
        FitSettings(min_count_makeup=0)
