"""Tests of the shipped marrakesh model: it loads, round-trips, and is the documented file."""

import random
from collections import Counter
from pathlib import Path

from tower.model import DistilledModel, load_shipped
from tower.model.batch import BatchTowers
from tower.model.distilled import shipped_path
from tower.pieces import NEUTRAL, Kind, Piece, mixed_keshis

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_model_is_canonical_small_and_documented():
    path = shipped_path("marrakesh")
    text = path.read_text()
    model = load_shipped("marrakesh")
    assert model.dumps() == text  # loading and saving gives the same bytes
    # 1.86 MB at --min-count 25 (calibration/models/README.md): under the 2 MB of issue 17
    assert path.stat().st_size < 2_000_000
    assert (ROOT / "calibration/models/marrakesh.json").read_text() == text
    command = model.doc["provenance"]["command"]
    assert command in (ROOT / "calibration/models/README.md").read_text()
    assert model.doc["tower"]["preset"] == "marrakesh" and model.doc["tower"]["spec"]
    assert model.doc["model"]["classes"]["watchman"] == model.doc["model"]["classes"]["brigand"]


def test_shipped_model_throws_keshis_and_pawns():
    model = load_shipped("marrakesh")
    assert isinstance(model, DistilledModel)
    rng = random.Random(0)
    state = model.new_state()
    for size in range(1, 21):
        pieces = [*mixed_keshis(size), Piece(Kind.WATCHMAN, "blue"), Piece(Kind.BRIGAND, NEUTRAL)]
        out, new = model.throw(state, pieces, rng)
        assert Counter(out) + Counter(new.pieces) == Counter(state.pieces) + Counter(pieces)
        state = new
    towers = BatchTowers(model.doc["model"], 100, seed=1)
    for _ in range(12):
        towers.throw({"keshi": 12})
    assert 0 < towers.inside.mean() < 144
