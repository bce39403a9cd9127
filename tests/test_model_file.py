"""Tests of the model file: exact round trip, and clear errors on bad files."""

import json
from pathlib import Path

import pytest

from tower.errors import InputFileError
from tower.model import DistilledModel, load_model
from tower.model.fileformat import NewerFieldError, checksum, dumps
from tower.model.fit import FitSettings, fit_tables
from tower.model.synthetic import SyntheticTower


@pytest.fixture(scope="module")
def model():
    tables = fit_tables(SyntheticTower().traces(150, seed=2), FitSettings())
    return DistilledModel.from_tables(
        tables,
        name="synthetic",
        tower={"preset": "synthetic", "spec": "[tube]\nwidth = 70.0\n"},
        params={"friction": 0.4},
        provenance={"traces": [{"file": "x.jsonl", "sequences": 150}]},
    )


def test_round_trip_is_byte_exact(model, tmp_path):
    path = tmp_path / "m.json"
    model.save(path)
    first = path.read_bytes()
    again = load_model(path)
    again.save(tmp_path / "n.json")
    assert (tmp_path / "n.json").read_bytes() == first
    assert again.doc == json.loads(first)
    assert again.doc["tower"]["spec"] == "[tube]\nwidth = 70.0\n"


def write_doc(tmp_path, doc, *, fix_checksum=True):
    if fix_checksum:
        doc = {**doc, "sha256": checksum(doc)}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n")
    return path


def test_truncated_file(model, tmp_path):
    path = tmp_path / "t.json"
    path.write_text(model.dumps()[: len(model.dumps()) // 2])
    with pytest.raises(InputFileError, match=r"t\.json.*: not valid JSON, .*truncated"):
        load_model(path)


def test_corrupt_file_fails_its_checksum(model, tmp_path):
    text = model.dumps()
    i = text.index('"tables":[{"') + 40
    digit = next(j for j in range(i, len(text)) if text[j].isdigit() and text[j] != "9")
    path = tmp_path / "c.json"
    path.write_text(text[:digit] + str(int(text[digit]) + 1) + text[digit + 1 :])
    with pytest.raises(InputFileError, match=r"c\.json: field sha256: checksum mismatch"):
        load_model(path)


def test_wrong_version(model, tmp_path):
    doc = {**model.doc, "schema": "tower.model/4"}
    with pytest.raises(
        InputFileError,
        match=r"field schema: unsupported model file version 'tower.model/4'; this reads "
        r"'tower.model/1', 'tower.model/2', 'tower.model/3': re-distil it .*`tower distill`",
    ):
        load_model(write_doc(tmp_path, doc))


def test_distilled_files_are_version_2(model):
    assert model.doc["schema"] == "tower.model/2"
    assert model.dumps().startswith('{"model":')
    assert '"schema":"tower.model/2"' in model.dumps()
    assert {"w", "x"} <= set(model.doc["model"]["buckets"])
    assert any("w" in level for level in model.doc["model"]["levels"])


V1_FILE = Path(__file__).parent / "data" / "models" / "v1_synthetic.json"


def test_version_1_file_loads_samples_as_before_and_stays_v1(tmp_path):
    """A v1 file (made by the v1 code at commit 9e75ce3 from a synthetic tower: see its
    provenance) gives the same draws as the v1 sampler gave (digest taken with it), and is
    saved again as v1."""
    import hashlib
    import random

    from tower.model.reference import ReferenceSampler

    v1 = load_model(V1_FILE)
    assert v1.doc["schema"] == "tower.model/1"
    v1.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text() == V1_FILE.read_text() == v1.dumps()
    sampler = ReferenceSampler(v1.doc["model"])
    rng = random.Random(17)
    digest = hashlib.sha256()
    residents: list = []
    for t in range(3000):
        if t % 15 == 0:
            residents = []
        fresh = [("keshi", f"k{t}.{i}") for i in range(rng.randint(6, 12))]
        fresh += [("pawn", f"p{t}.{i}") for i in range(rng.randint(0, 4))]
        fresh += [("expert", f"e{t}.{i}") for i in range(rng.randint(0, 3))]
        out, residents = sampler.throw(residents, fresh, t, rng)
        digest.update(repr((out, residents)).encode())
    # taken with the v1 reference sampler (commit 9e75ce3) on the same file and loop
    assert digest.hexdigest() == "1c447888c56ca93772c87df889f0917238966283ae5842d1d8955621e619f816"


def test_version_1_file_cannot_name_the_new_fields(model, tmp_path):
    v1_model = {**model.doc["model"], "levels": [["m", "n", "w"]], "tables": [{}]}
    v1_model["buckets"] = {f: e for f, e in v1_model["buckets"].items() if f not in "wx"}
    doc = {**model.doc, "schema": "tower.model/1", "model": v1_model}
    with pytest.raises(
        NewerFieldError, match=r"field model.levels\[0\]: .* no context field 'w' \(new in 'tower"
    ):
        load_model(write_doc(tmp_path, doc))
    v1_model["levels"] = [["m", "n"]]
    v1_model["piece_levels"], v1_model["piece_tables"] = [], []
    assert load_model(write_doc(tmp_path, doc)).doc["schema"] == "tower.model/1"


def test_version_2_file_needs_make_up_buckets(model, tmp_path):
    buckets = {f: e for f, e in model.doc["model"]["buckets"].items() if f != "x"}
    doc = {**model.doc, "model": {**model.doc["model"], "buckets": buckets}}
    with pytest.raises(InputFileError, match=r"field model.buckets: buckets must give edges"):
        load_model(write_doc(tmp_path, doc))


@pytest.mark.parametrize(
    "doc",
    [
        {"schema": "tower.trace/1", "seq": 0},
        {"hello": "world"},
        [1, 2, 3],
    ],
)
def test_foreign_files(tmp_path, doc):
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputFileError, match=r"f\.json: field schema: not a tower model file"):
        load_model(path)


def test_binary_and_missing_files(tmp_path):
    path = tmp_path / "b.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputFileError, match=r"b\.json:1: field <encoding>: not UTF-8 text"):
        load_model(path)
    with pytest.raises(InputFileError, match="no such file"):
        load_model(tmp_path / "nothing.json")


def test_malformed_table_names_its_field(model, tmp_path):
    section = json.loads(json.dumps(model.doc["model"]))
    key = next(iter(section["tables"][0]))
    section["tables"][0][key][1] += 1  # outcome no longer sums to m
    doc = {k: v for k, v in model.doc.items() if k != "sha256"}
    with pytest.raises(InputFileError, match=r"field model\.tables\[0\]\[.*must sum to m"):
        load_model(write_doc(tmp_path, {**doc, "model": section}))


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda m: m.pop("alpha"), "model.alpha"),
        (lambda m: m.__setitem__("levels", [["n"]]), r"model.levels\[0\]"),
        (lambda m: m["base"].__setitem__("fresh.keshi", [1.0, 0.5, 0, 0, 0]), "model.base"),
        (lambda m: m.__setitem__("age_cap", 12), "model.age_cap"),
    ],
)
def test_malformed_model_sections(model, tmp_path, edit, field):
    section = json.loads(json.dumps(model.doc["model"]))
    edit(section)
    doc = {k: v for k, v in model.doc.items() if k != "sha256"}
    with pytest.raises(InputFileError, match=f"field {field}"):
        load_model(write_doc(tmp_path, {**doc, "model": section}))


def test_unknown_top_level_field(model, tmp_path):
    doc = {k: v for k, v in model.doc.items() if k != "sha256"}
    with pytest.raises(InputFileError, match="field comment: unknown field"):
        load_model(write_doc(tmp_path, {**doc, "comment": "hi"}))


def test_dumps_ends_with_one_newline(model):
    text = dumps(model.doc)
    assert text.endswith("}\n") and text.count("\n") == 1


def test_canonical_files_take_the_quick_way_to_the_same_document(model, tmp_path):
    """A file as `dumps` writes it is read by the quick path (checksum over its bytes,
    whole-array table checks), to the document the full checks give."""
    from tower.files.inputs import parse_json
    from tower.model.distilled import shipped_path
    from tower.model.fileformat import _canonical_document

    for text in (model.dumps(), shipped_path("marrakesh").read_text()):
        quick = _canonical_document(text)
        assert quick is not None
        assert quick == parse_json(text, "m.json")
    # a valid file that is not canonical (indented) takes the full checks, and loads
    path = tmp_path / "indented.json"
    path.write_text(json.dumps(model.doc, indent=1))
    assert _canonical_document(path.read_text()) is None
    assert load_model(path).doc == model.doc


def _hashed(doc):
    """``doc`` as canonical text with the checksum of that text, whatever it holds."""
    import hashlib

    body = {k: v for k, v in doc.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()
    return json.dumps({**body, "sha256": digest}, sort_keys=True, separators=(",", ":")) + "\n"


@pytest.mark.parametrize(
    ("provenance", "message"),
    [
        ({"x": float("nan")}, "number NaN is not finite"),
        ({"x": 10**45}, "has over 40 digits"),
        ({"x": json.loads("[" * 40 + "]" * 40)}, "nested deeper"),
    ],
)
def test_canonical_text_keeps_the_input_limits(model, tmp_path, provenance, message):
    """What the full JSON checks refuse, the quick path does not let through."""
    path = tmp_path / "p.json"
    path.write_text(_hashed({**model.doc, "provenance": provenance}))
    with pytest.raises(InputFileError, match=message):
        load_model(path)


def _first_key(section, name):
    return next(iter(section[name][0]))


TABLE_FAULTS = [
    ("tables", lambda t, k: t[k].__setitem__(0, 0), "count must be positive"),
    ("tables", lambda t, k: t[k].__setitem__(2, -1), "flat list of"),
    ("tables", lambda t, k: t[k].__setitem__(2, 0.5), "flat list of"),
    ("tables", lambda t, k: t[k].__setitem__(2, "1"), "flat list of"),
    ("tables", lambda t, k: t[k].append(1), "flat list of"),
    ("tables", lambda t, k: t.__setitem__(k, []), "flat list of"),
    ("tables", lambda t, k: t.__setitem__(k, {}), "flat list of"),
    ("tables", lambda t, k: t.__setitem__("nowhere.keshi|1", t.pop(k)), "key must be"),
    ("tables", lambda t, k: t.__setitem__(k + "|1", t.pop(k)), "key must be"),
    ("tables", lambda t, k: t.__setitem__(k + "x", t.pop(k)), "context values must be"),
    ("piece_tables", lambda t, k: t.__setitem__(k, [0, 0, 0, 0, 0]), "not all zero"),
    ("piece_tables", lambda t, k: t[k].append(1), "expected 5 counts"),
    ("piece_tables", lambda t, k: t[k].__setitem__(0, -2), "expected 5 counts"),
    ("piece_tables", lambda t, k: t.__setitem__("fresh.keshi", t.pop(k)), "key must be"),
]


@pytest.mark.parametrize(("name", "edit", "message"), TABLE_FAULTS)
def test_every_table_fault_is_named(model, tmp_path, name, edit, message):
    """The whole-array table checks let no fault through: each is named as the entry by
    entry check names it."""
    section = json.loads(json.dumps(model.doc["model"]))
    key = _first_key(section, name)
    edit(section[name][0], key)
    with pytest.raises(InputFileError, match=rf"field model\.{name}\[0\]\[.*{message}"):
        load_model(write_doc(tmp_path, {**model.doc, "model": section}))


def test_tables_the_arrays_cannot_hold_still_load(model, tmp_path):
    """Integers past what the whole-array check holds (and booleans, which JSON readers
    take for integers) are checked entry by entry, as before, and load."""
    section = json.loads(json.dumps(model.doc["model"]))
    key = _first_key(section, "tables")
    section["tables"][0][key][0] = 2**70
    section["piece_tables"][0][_first_key(section, "piece_tables")][0] = True
    loaded = load_model(write_doc(tmp_path, {**model.doc, "model": section}))
    assert loaded.doc["model"]["tables"][0][key][0] == 2**70


def test_keys_with_leading_zeros_sample_as_written_plainly(model, tmp_path):
    """Table entries are compiled when first looked up, by their key's text; a table
    whose keys write a value as ``07`` is compiled whole and draws the same."""
    import random

    section = json.loads(json.dumps(model.doc["model"]))
    section["tables"] = [
        {k.replace("|", "|0"): v for k, v in table.items()} for table in section["tables"]
    ]
    padded = load_model(write_doc(tmp_path, {**model.doc, "model": section}))
    draws = []
    for m in (model, padded):
        rng, residents, seen = random.Random(4), [], []
        for t in range(200):
            fresh = [("keshi", f"{t}.{i}") for i in range(1 + t % 9)]
            out, residents = m.sampler.throw(residents, fresh, t, rng)
            seen.append(out)
        draws.append(seen)
    assert draws[0] == draws[1]
