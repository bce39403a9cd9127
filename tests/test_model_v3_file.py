"""``tower.model/3``: the copula in the file, ``tower distill --copula``, and its play paths."""

import hashlib
import json
import random
from functools import cache

import pytest
from test_model_v3_copula import pawn_plan

from tower.cli import main
from tower.errors import InputFileError
from tower.model import DistilledModel, load_model
from tower.model.fileformat import dumps, loads
from tower.model.fit import FitSettings, fit_tables
from tower.model.interface import Resident, TowerState
from tower.model.pipeline import distill
from tower.model.synthetic import SyntheticTower
from tower.pieces import NEUTRAL, Kind, Piece, Place, mixed_keshis

COPULA = {"throw": 0.2, "origin": 0.3, "gate": "pawn"}
BRIGAND = Piece(Kind.BRIGAND, NEUTRAL)


@cache
def synthetic_section() -> dict:
    """A fit of synthetic keshi and pawn throws (shared by the copula tests)."""
    tower = SyntheticTower()
    return fit_tables(
        tower.traces(150, seed=41) + tower.traces(150, seed=42, throws=pawn_plan), FitSettings()
    )


@pytest.fixture(scope="module")
def section():
    return synthetic_section()


@pytest.fixture(scope="module")
def coupled(section):
    return DistilledModel.from_tables({**section, "copula": COPULA}, name="coupled")


def test_a_section_with_a_copula_is_a_version_3_file(section, coupled, tmp_path):
    assert coupled.doc["schema"] == "tower.model/3"
    path = tmp_path / "m.json"
    coupled.save(path)
    loaded = load_model(path)
    assert loaded.doc == coupled.doc and loaded.dumps() == path.read_text()
    assert loaded.sampler.copula == ((0.2, 0.3, ("pawn",)),)
    pretty = json.dumps(coupled.doc, indent=1)  # not canonical: the full checks
    assert loads(pretty, "p.json") == coupled.doc
    plain = DistilledModel.from_tables(section)
    assert plain.doc["schema"] == "tower.model/2" and "copula" not in plain.dumps()
    no_gate = {**section, "copula": {**COPULA, "gate": None}}
    loaded = load_model(_saved(DistilledModel.from_tables(no_gate), tmp_path))
    assert loaded.sampler.copula == ((0.2, 0.3, None),)
    entries = [COPULA, {"throw": 0.1, "origin": 0.2, "gate": ["keshi", "expert"]}]
    listed = DistilledModel.from_tables({**section, "copula": entries})
    loaded = load_model(_saved(listed, tmp_path))
    assert loaded.doc["model"]["copula"] == entries
    assert loaded.sampler.copula == ((0.2, 0.3, ("pawn",)), (0.1, 0.2, ("keshi", "expert")))


def _saved(model: DistilledModel, folder) -> str:
    path = folder / "saved.json"
    model.save(path, force=True)
    return path


@pytest.mark.parametrize("version", ["tower.model/1", "tower.model/2"])
def test_older_versions_refuse_a_copula_pointing_to_version_3(section, version):
    doc = {**DistilledModel.from_tables(section).doc, "schema": version}
    if version == "tower.model/1":  # a v1 section, which cannot name w or x
        levels = [[f for f in lv if f not in "wx"] for lv in section["levels"]]
        buckets = {f: e for f, e in section["buckets"].items() if f not in "wx"}
        doc["model"] = {**section, "levels": levels, "buckets": buckets, "piece_levels": [],
                        "piece_tables": [], "tables": [{} for _ in levels]}  # fmt: skip
        assert loads(dumps(doc), "x.json")["schema"] == version
    doc["model"] = {**doc["model"], "copula": COPULA}
    with pytest.raises(
        InputFileError,
        match=rf"x\.json: field model\.copula: a '{version}' file holds no copula: "
        r"it needs 'tower.model/3'",
    ):
        loads(dumps(doc), "x.json")
    with pytest.raises(ValueError, match=r"needs 'tower\.model/3'"):
        DistilledModel(doc)


@pytest.mark.parametrize(
    "copula, field, message",
    [
        (0.2, "model.copula", r"expected an object \{throw, origin, gate\}, got 0.2"),
        ([0.2, 0.3], r"model.copula\[0\]", r"expected an object \{throw, origin, gate\}, got 0.2"),
        ({"throw": 0.8, "origin": 0.7, "gate": None}, "model.copula", r"0.8\^2 \+ 0.7\^2"),
        ({"throw": -0.1, "origin": 0.2, "gate": None}, "model.copula.throw", "got -0.1"),
        ({"throw": 0.1, "origin": "0.2", "gate": None}, "model.copula.origin", "got '0.2'"),
        ({"throw": True, "origin": 0.2, "gate": None}, "model.copula.throw", "got True"),
        ({"throw": 0.1, "origin": 0.2}, "model.copula.gate", "missing field"),
        ({**COPULA, "rho": 0.5}, "model.copula.rho", "unknown field"),
        ({**COPULA, "gate": "wizard"}, "model.copula.gate", r"classes of \[.*\], got 'wizard'"),
        ({**COPULA, "gate": 1}, "model.copula.gate", "got 1"),
        ({**COPULA, "gate": []}, "model.copula.gate", r"got \[\]"),
        ({**COPULA, "gate": ["pawn", "wizard"]}, "model.copula.gate", "got .'pawn', 'wizard'"),
        ({**COPULA, "gate": ["pawn", "pawn"]}, "model.copula.gate", "got .'pawn', 'pawn'"),
        ([], "model.copula", "a non-empty list"),
        ([COPULA, {**COPULA, "gate": "wizard"}], r"model.copula\[1\].gate", "got 'wizard'"),
        ([COPULA, {**COPULA, "throw": -1}], r"model.copula\[1\].throw", "got -1"),
    ],
)
def test_bad_copulas_are_named(section, copula, field, message):
    doc = DistilledModel.from_tables(section).doc
    doc = {**doc, "schema": "tower.model/3", "model": {**section, "copula": copula}}
    with pytest.raises(InputFileError, match=rf"m\.json: field {field}: .*{message}"):
        loads(dumps(doc), "m.json")


def _reference(model: DistilledModel, state: TowerState, pieces: list[Piece], rng):
    """A throw through ReferenceSampler.throw (coupled_throw for a model with a copula), as
    a DistilledModel returns it."""
    cls = model.piece_class
    residents = [(cls(r.piece), r.place.value, r.since, r.piece) for r in state.residents]
    fresh = [(cls(p), p) for p in pieces]
    out, after = model.sampler.throw(residents, fresh, state.throws, rng)
    stay = [Resident(p, Place(place), since) for _, place, since, p in after]
    return sorted(out), TowerState(tuple(stay), state.throws + 1)


def test_distilled_throws_of_a_copula_model_draw_as_the_coupled_reference(coupled):
    plan, fast, ref = random.Random(4), random.Random(9), random.Random(9)
    state = coupled.new_state()
    for t in range(400):
        if t % 12 == 0:
            state = coupled.new_state()
        pieces = mixed_keshis(plan.randint(0, 10)) + [BRIGAND] * plan.randint(0, 2)
        pieces += [Piece(Kind.WATCHMAN, "blue")] * plan.randint(0, 2)
        plan.shuffle(pieces)
        out, new = coupled.throw(state, pieces, fast)
        assert (out, new) == _reference(coupled, state, pieces, ref), t
        assert out == sorted(out)
        assert fast.random() == ref.random()
        state = new


def test_exact_laws_of_throws_the_copula_leaves_alone_are_the_plain_ones(section, coupled):
    plain = DistilledModel.from_tables(section)
    state = plain.throw(plain.new_state(), mixed_keshis(9), random.Random(1))[1]
    keshis = mixed_keshis(6)
    assert coupled.count_distribution(state, keshis) == plain.count_distribution(state, keshis)
    assert coupled.distribution(state, keshis) == plain.distribution(state, keshis)


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    path = tmp_path_factory.mktemp("traces") / "synthetic.jsonl"
    with path.open("w") as fh:
        for seq in SyntheticTower().traces(80, seed=5, throws=pawn_plan):
            fh.write(seq.to_line())
    return path


def test_distill_copula_writes_version_3_with_its_provenance(traces, tmp_path, capsys):
    plain, coupled = tmp_path / "plain.json", tmp_path / "coupled.json"
    main(["distill", "--traces", str(traces), "--out", str(plain)])
    main(["distill", "--traces", str(traces), "--copula", "0.2,0.3,pawn", "--out", str(coupled)])
    a, b = load_model(plain).doc, load_model(coupled).doc
    assert (a["schema"], b["schema"]) == ("tower.model/2", "tower.model/3")
    assert b["model"] == {**a["model"], "copula": COPULA}
    assert "copula" not in a["provenance"]["fit"] and "--copula" not in a["provenance"]["command"]
    assert b["provenance"]["fit"]["copula"] == COPULA
    assert "--levels" in b["provenance"]["command"]
    assert b["provenance"]["command"].endswith(f"--copula 0.2,0.3,pawn --out {coupled}")
    main(["distill", "--traces", str(traces), "--copula", "0,0.5", "--out", str(plain), "--force"])
    assert load_model(plain).doc["model"]["copula"] == {"throw": 0.0, "origin": 0.5, "gate": None}
    for bad, message in [
        ("0.2", "expected THROW,ORIGIN[,GATE]"),
        ("0.2,x", "expected THROW,ORIGIN[,GATE]"),
        ("0.8,0.7", "throw^2 + origin^2 < 1"),
        ("0.2,0.3,wizard", "copula gate 'wizard' is no piece class"),
    ]:
        argv = ["distill", "--traces", str(traces), "--copula", bad, "--out", str(tmp_path / "x")]
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err, bad
        assert not (tmp_path / "x").exists()


#: sha256 of the file below as `tower distill` wrote it before tower.model/3 (commit 9d79688)
BEFORE_V3 = "ddc000a923f5da2ea1d8aad033bdad4a79a794cc2bf6007e73ba98418f50cf40"


def test_distill_without_copula_writes_the_same_bytes_as_before(tmp_path):
    path = tmp_path / "synthetic.jsonl"
    with path.open("w") as fh:
        for seq in SyntheticTower().traces(120, seed=4):
            fh.write(seq.to_line())
    model = distill([str(path)], name="synth", command="tower distill (test)", min_count=3)
    assert hashlib.sha256(model.dumps().encode()).hexdigest() == BEFORE_V3


def test_a_copula_model_refuses_a_resident_from_the_future(coupled):
    """The coupled path checks the state as the fast path does: a ValueError naming the
    resident, for a throw it couples (a pawn thrown) and for its exact law."""
    future = TowerState((Resident(Piece.keshi("red"), Place.FLOOR2, 5),), 4)
    pawn = [Piece(Kind.BRIGAND, NEUTRAL)]
    assert coupled.couples(TowerState((), 4), pawn)
    with pytest.raises(ValueError, match="entered after throw 4"):
        coupled.throw(future, pawn, random.Random(1))
    with pytest.raises(ValueError, match="entered after throw 4"):
        coupled.count_distribution(future, pawn)
