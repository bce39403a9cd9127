"""The JavaScript port (js/) against the Python reference: node's test runner on vectors.

``tower model vectors`` writes the conformance vectors of the shipped model into a
temporary folder, and ``node --test`` runs js/test/ on them: exact laws to 1e-12, whole
games draw for draw, chi-square tests of the sampling. Skipped, saying so, without node
(an error if ``TOWER_REQUIRE_NODE`` is set, as in CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from model_files import V2_MODEL

from tower.cli import main
from tower.model.distilled import shipped_path
from tower.model.fileformat import dumps, loads
from tower.webbundle import bundle_text, model_script

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
if NODE is None and os.environ.get("TOWER_REQUIRE_NODE"):
    raise RuntimeError("TOWER_REQUIRE_NODE is set but node is not installed")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the JavaScript port is not tested"
)


@pytest.fixture(scope="module")
def vectors_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("vectors")
    main(["model", "vectors", "--out", str(out), "--force"])
    return out


def run_node(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, *args], cwd=ROOT / "js", env=env, capture_output=True, text=True, timeout=600
    )


def test_vectors_hold_enough_cases(vectors_dir):
    vec = json.loads((vectors_dir / "vectors.json").read_text())
    assert len(vec["cases"]) >= 1000
    assert len(vec["chi_square"]["cases"]) >= 20
    assert {c["group"].split(".")[1] for c in vec["cases"]} == {"keshi", "pawn", "expert"}
    # every back-off level and the per-piece fallback are exercised
    hit = {lv for c in vec["cases"] for lv in c["levels_hit"]}
    assert hit == set(range(5))
    assert any(not c["levels_hit"] for c in vec["cases"])
    for c in vec["cases"]:
        assert sum(c["out_law"]) == pytest.approx(1.0, abs=1e-12)


@needs_node
def test_node_tests_pass_on_the_shipped_model(vectors_dir):
    env = {
        **os.environ,
        "TOWER_MODEL": str(shipped_path("marrakesh")),
        "TOWER_VECTORS": str(vectors_dir / "vectors.json"),
        "TOWER_BUNDLE": str(ROOT / "web" / "tower-model.js"),
    }
    result = run_node("--test", "test/", env=env)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-4000:]
    assert re.search(r"# fail 0", report) and not re.search(r"# skipped [1-9]", report), report
    print("\n".join(line for line in report.splitlines() if "# #" in line or "# \\#" in line))


JS_DATA = ROOT / "js" / "test" / "data"


@needs_node
def test_plain_node_test_runs_everything_on_the_committed_data():
    """`cd js && node --test` with no TOWER_* variables: nothing skipped, nothing failed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOWER_")}
    result = run_node("--test", env=env)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-4000:]
    assert re.search(r"# pass [1-9]", report) and re.search(r"# skipped 0", report), report
    assert "# fail 0" in report, report


def test_committed_js_vectors_are_current(tmp_path):
    """js/test/data/vectors.json is what `tower model vectors` writes for the committed model."""
    main(["model", "vectors", "--model", str(JS_DATA / "model.json"), "--games", "6",
          "--out", str(tmp_path)])  # fmt: skip
    fresh = json.loads((tmp_path / "vectors.json").read_text())
    assert json.loads((JS_DATA / "vectors.json").read_text()) == fresh
    assert len(fresh["cases"]) >= 1000  # the node test asks for this many


@pytest.fixture(scope="module")
def synthetic_section():
    """A model section fitted on synthetic rounds with pawns and experts thrown."""
    from tower.model.fit import FitSettings, fit_tables
    from tower.model.synthetic import SyntheticTower, heavy_rounds
    from tower.pieces import Kind

    plan = heavy_rounds([Kind.WATCHMAN, Kind.BRIGAND, Kind.EXPERT], 5)

    traces = SyntheticTower(push=0.05).traces(120, seed=3, throws=plan)
    return fit_tables(traces, FitSettings())


def _with_vectors(section, name, folder):
    """The model file of ``section`` and its conformance vectors, in ``folder``."""
    from tower.model import DistilledModel

    DistilledModel.from_tables(section, name=name).save(folder / "model.json")
    main(["model", "vectors", "--model", str(folder / "model.json"), "--out", str(folder / "vec")])
    return folder / "model.json", folder / "vec" / "vectors.json"


@pytest.fixture(scope="module")
def v2_model(synthetic_section, tmp_path_factory):
    """A tower.model/2 file fitted on synthetic rounds with pawns and experts thrown."""
    return _with_vectors(synthetic_section, "synthetic-v2", tmp_path_factory.mktemp("v2"))


@pytest.fixture(scope="module")
def v3_model(synthetic_section, tmp_path_factory):
    """The same tables with a copula gated on pawns: a tower.model/3 file."""
    section = {**synthetic_section, "copula": {"throw": 0.3, "origin": 0.4, "gate": "pawn"}}
    return _with_vectors(section, "synthetic-v3", tmp_path_factory.mktemp("v3"))


@pytest.fixture(scope="module")
def v3_gates_model(synthetic_section, tmp_path_factory):
    """The same tables with a copula of two entries: pawns, then experts or cubes (a gate
    of two classes, met by throws with experts and no pawns)."""
    copula = [
        {"throw": 0.3, "origin": 0.4, "gate": "pawn"},
        {"throw": 0.1, "origin": 0.2, "gate": ["cube", "expert"]},
    ]
    section = {**synthetic_section, "copula": copula}
    return _with_vectors(section, "synthetic-v3-gates", tmp_path_factory.mktemp("v3g"))


@pytest.fixture(scope="module")
def t_model(tmp_path_factory):
    """A tower.model/3 file with the tower's age t in its finest level, fitted on a
    synthetic tower whose thrown pieces come out less as it ages, with pawns and experts."""
    from test_model_v3_t import T_LEVELS, WORN

    from tower.model.fit import FitSettings, fit_tables
    from tower.model.synthetic import heavy_rounds
    from tower.pieces import Kind

    plan = heavy_rounds([Kind.WATCHMAN, Kind.EXPERT], 2, throws=12)

    section = fit_tables(WORN.traces(150, seed=8, throws=plan), FitSettings(levels=T_LEVELS))
    return _with_vectors(section, "synthetic-t", tmp_path_factory.mktemp("t"))


@needs_node
def test_node_tests_pass_on_a_model_with_t(t_model):
    """The port reads t: the same exact laws at every throw index and the same games."""
    path, vectors = t_model
    vec = json.loads(vectors.read_text())
    assert vec["model"]["schema"] == "tower.model/3"
    assert {c["capped"][7] for c in vec["cases"]} == {0, 1, 2, 3, 4, 6, 9}
    _conformance(path, vectors)


@needs_node
def test_node_tests_catch_a_port_that_ignores_t(t_model, tmp_path):
    """The same tests fail when every case's t is 0 (what a port blind to it computes):
    other table entries are hit."""
    path, vectors = t_model
    vec = json.loads(vectors.read_text())
    for c in vec["cases"]:
        c["ctx"][7] = c["capped"][7] = 0
    report = _conformance_fails(path, vec, tmp_path)
    assert re.search(r"case \d+ \(\S+ [\d,]+\): levels hit", report)


@needs_node
def test_node_tests_pass_on_a_version_2_model(v2_model):
    path, vectors = v2_model
    vec = json.loads(vectors.read_text())
    assert vec["model"]["schema"] == "tower.model/2"
    assert vec["fields"] == ["m", "n", "I", "P", "J", "w", "x", "t", "o"]
    assert any(c["ctx"][5] > 0 for c in vec["cases"]) and any(c["ctx"][6] > 0 for c in vec["cases"])
    _conformance(path, vectors)


def _conformance(path, vectors) -> str:
    """The node conformance tests on a model file and its vectors: their report."""
    env = {**os.environ, "TOWER_MODEL": str(path), "TOWER_VECTORS": str(vectors)}
    result = run_node("--test", "test/conformance.test.js", env=env)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-4000:]
    assert re.search(r"# fail 0", report) and not re.search(r"# skipped [1-9]", report), report
    return report


def _conformance_fails(path, vec, folder) -> str:
    """The node conformance tests on a model file and edited vectors ``vec`` (written to
    ``folder``), which must fail: their report."""
    bad = folder / "vectors.json"
    bad.write_text(json.dumps(vec))
    env = {**os.environ, "TOWER_MODEL": str(path), "TOWER_VECTORS": str(bad)}
    result = run_node("--test", "test/conformance.test.js", env=env)
    assert result.returncode != 0
    return result.stdout + result.stderr


@needs_node
def test_node_tests_pass_on_a_version_3_model_with_a_copula(v3_model):
    """The port draws coupled throws as the Python reference, draw for draw."""
    path, vectors = v3_model
    vec = json.loads(vectors.read_text())
    assert vec["model"]["schema"] == "tower.model/3"
    steps = [step for game in vec["games"] for step in game["steps"]]
    coupled = sum(step["count_law"] is None for step in steps)
    assert 50 <= coupled <= len(steps) - 50  # coupled throws (pawns) and others
    report = _conformance(path, vectors)
    assert f"{len(steps)} throws identical ({coupled} coupled)" in report, report


@needs_node
def test_node_tests_pass_on_a_copula_of_two_entries(v3_model, v3_gates_model):
    """A second entry, gated on two classes, couples the throws the first leaves alone,
    and the port draws them as the Python reference."""
    shares = []
    for path, vectors in (v3_model, v3_gates_model):
        steps = [s for game in json.loads(vectors.read_text())["games"] for s in game["steps"]]
        coupled = sum(step["count_law"] is None for step in steps)
        report = _conformance(path, vectors)
        assert f"{len(steps)} throws identical ({coupled} coupled)" in report, report
        shares.append(coupled / len(steps))
    assert shares[0] < shares[1] < 1


@needs_node
def test_node_tests_catch_coupled_draws_with_other_loadings(v3_model, tmp_path):
    """The same tests fail when the port plays the v3 games with the loadings swapped."""
    path, vectors = v3_model
    doc = json.loads(path.read_text())
    copula = {"throw": 0.4, "origin": 0.3, "gate": "pawn"}
    swapped = {**doc, "model": {**doc["model"], "copula": copula}}
    other = tmp_path / "swapped.json"
    other.write_text(dumps(swapped))
    vec = json.loads(vectors.read_text())
    vec["model"]["sha256"] = loads(other.read_text())["sha256"]
    report = _conformance_fails(other, vec, tmp_path)
    assert re.search(r"game \d+ throw \d+: pieces out", report)


@needs_node
def test_node_tests_catch_a_wrong_model(vectors_dir, tmp_path):
    """The same node tests fail against vectors of another model (they can fail)."""
    vec = json.loads((vectors_dir / "vectors.json").read_text())
    for c in vec["cases"][:50]:
        c["out_law"][0] += 1e-9
    assert "differs by" in _conformance_fails(shipped_path("marrakesh"), vec, tmp_path)


def test_web_scripts_are_current():
    """web/tower-model.js and web/models/marrakesh.js are what `tower model bundle` writes."""
    assert (ROOT / "web" / "tower-model.js").read_text() == bundle_text()
    text = shipped_path("marrakesh").read_text()
    assert (ROOT / "web" / "models" / "marrakesh.js").read_text() == model_script("marrakesh", text)


def test_bundle_never_overwrites_a_foreign_file(tmp_path, capsys):
    (tmp_path / "tower-model.js").write_text("// my own script\n")
    with pytest.raises(SystemExit) as exc:
        main(["model", "bundle", "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "not written by `tower model bundle`" in capsys.readouterr().err
    assert (tmp_path / "tower-model.js").read_text() == "// my own script\n"
    assert not (tmp_path / "models").exists()


def test_vectors_keep_other_files_and_never_replace_one_they_did_not_write(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("keep me")
    (tmp_path / "vectors.json").write_text("mine")
    with pytest.raises(SystemExit) as exc:
        main(["model", "vectors", "--out", str(tmp_path), "--games", "1"])
    assert exc.value.code == 2
    assert "vectors.json: already exists" in capsys.readouterr().err
    assert (tmp_path / "vectors.json").read_text() == "mine"
    (tmp_path / "vectors.json").unlink()
    main(["model", "vectors", "--out", str(tmp_path), "--games", "1"])
    main(["model", "vectors", "--out", str(tmp_path), "--games", "1"])  # its own: replaced
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    assert json.loads((tmp_path / "vectors.json").read_text())["cases"]


CHECK_FILES = """
import { readFileSync } from "node:fs";
import { loadModel } from "./src/index.js";
const result = {};
for (const path of process.argv.slice(1)) {
  try {
    result[path] = "ok " + loadModel(readFileSync(path, "utf8"), "m.json").sha256;
  } catch (exc) {
    result[path] = exc.field ? `field ${exc.field}` : exc.reason.split(" (")[0];
    if (path.endsWith("version_4.json")) result.version_4_message = exc.message;
  }
}
console.log(JSON.stringify(result));
"""


def model_variants(text: str) -> dict[str, str]:
    """Edited copies of a model file's text, some still valid (same canonical JSON)."""
    from tower.model.fileformat import checksum, dumps

    doc = json.loads(text)
    renamed = {**doc, "name": 'marrakésh \u2603 \U0001f600 \x7f"\\'}
    renamed_text = json.dumps(
        {**renamed, "sha256": checksum(renamed)}, ensure_ascii=False, indent=1
    )
    body = text[: text.index('"sha256"')]
    v3 = {**doc, "schema": "tower.model/3"}

    def timed(doc: dict, edges: bool = True, level: bool = True) -> str:
        model = {**doc["model"]}
        if level:  # a level that names t (its table empty)
            model["levels"] = [*model["levels"], ["m", "t"]]
            model["tables"] = [*model["tables"], {}]
        if edges:
            model["buckets"] = {**model["buckets"], "t": [0, 1, 2, 3, 4, 6, 9]}
        return dumps({**doc, "model": model})

    def coupled(doc: dict, **copula) -> str:
        gate = {"throw": 0.2, "origin": 0.3, "gate": "pawn", **copula}
        return dumps({**doc, "model": {**doc["model"], "copula": gate}})

    def two_entries(doc: dict, **second) -> str:
        entries = [{"throw": 0.2, "origin": 0.3, "gate": "pawn"}]
        entries.append({"throw": 0.1, "origin": 0.2, "gate": None, **second})
        return dumps({**doc, "model": {**doc["model"], "copula": entries}})

    return {
        "original": text,
        "spaces": text.replace('{"model":{', '{ "model" :\n\t{ ', 1).replace("]}}", "] } }\r\n"),
        "float_written_longer": text.replace('"alpha":1.0', '"alpha":1.000', 1),
        "float_in_exponent": text.replace('"alpha":1.0', '"alpha":10e-1', 1),
        "float_positional": text.replace("5.711e-06", "0.000005711", 1),
        "float_as_int": text.replace('"alpha":1.0', '"alpha":1', 1),
        "int_as_float": text.replace('"age_cap":7', '"age_cap":7.0', 1),
        "duplicate_key_last_wins": text.replace('"age_cap":7', '"age_cap":6,"age_cap":7', 1),
        "unicode_name_pretty_printed": renamed_text,
        "count_changed": text.replace("[2,0,0,0,1,0,", "[3,0,0,0,1,0,", 1),
        "version_4": dumps(doc).replace(f'"schema":"{doc["schema"]}"', '"schema":"tower.model/4"'),
        "copula_v3": coupled(v3),
        "copula_in_v2": coupled({**doc, "schema": "tower.model/2"}),
        "copula_no_gate": coupled(v3, gate=None),
        "copula_unknown_gate": coupled(v3, gate="wizard"),
        "copula_two_gates": coupled(v3, gate=["expert", "pawn"]),
        "copula_unknown_of_two_gates": coupled(v3, gate=["pawn", "wizard"]),
        "copula_two_entries": two_entries(v3, gate="keshi"),
        "copula_bad_second_entry": two_entries(v3, origin=-0.1),
        "copula_too_strong": coupled(v3, throw=0.8, origin=0.7),
        "copula_negative": coupled(v3, origin=-0.1),
        "copula_text": coupled(v3, throw="0.2"),
        "t_v3": timed(v3),
        "t_edges_alone_v3": timed(v3, level=False),
        "t_without_edges_v3": timed(v3, edges=False),
        "t_level_in_v2": timed({**doc, "schema": "tower.model/2"}),
        "t_edges_in_v2": timed({**doc, "schema": "tower.model/2"}, level=False),
        "foreign": '{"schema":"other/1"}',
        "truncated": text[: len(text) // 2],
        "no_checksum": body.rstrip(",") + "}",
    }


@needs_node
def test_js_and_python_accept_and_refuse_the_same_files(tmp_path):
    """Checksum and version checks agree with Python's loader on edited model files."""
    from tower.errors import InputFileError
    from tower.model.fileformat import loads

    paths = {}
    # the variants edit the tower.model/2 file shipped before (its text is fixed); the
    # shipped file is checked as it is
    variants = model_variants(V2_MODEL.read_text())
    variants["shipped"] = shipped_path("marrakesh").read_text()
    for name, text in variants.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(text, encoding="utf-8")
    script = tmp_path / "check.mjs"
    script.write_text(CHECK_FILES.replace("./src/", (ROOT / "js" / "src").as_uri() + "/"))
    result = run_node(str(script), *map(str, paths.values()))
    assert result.returncode == 0, result.stderr
    js = json.loads(result.stdout)
    verdicts = {}
    for name, path in paths.items():
        try:
            py = "ok " + loads(path.read_text(encoding="utf-8"), "m.json")["sha256"]
        except InputFileError as exc:
            py = f"field {exc.field}" if exc.field else exc.reason.split(" (")[0]
        verdicts[name] = (py, js[str(path)])
    for name, (py, js_verdict) in verdicts.items():
        assert py == js_verdict, f"{name}: Python {py!r}, JavaScript {js_verdict!r}"
    ok = {name for name, (py, _) in verdicts.items() if py.startswith("ok")}
    assert ok == {
        "shipped",
        "original",
        "spaces",
        "float_written_longer",
        "float_in_exponent",
        "float_positional",
        "duplicate_key_last_wins",
        "unicode_name_pretty_printed",
        "copula_v3",
        "copula_no_gate",
        "copula_two_gates",
        "copula_two_entries",
        "t_v3",
        "t_edges_alone_v3",
    }
    assert verdicts["t_level_in_v2"][0] == "field model.levels[5]"
    assert verdicts["t_edges_in_v2"][0] == "field model.buckets.t"
    assert verdicts["t_without_edges_v3"][0] == "field model.buckets"
    assert verdicts["copula_in_v2"][0] == verdicts["copula_too_strong"][0] == "field model.copula"
    assert verdicts["copula_unknown_gate"][0] == "field model.copula.gate"
    assert verdicts["copula_unknown_of_two_gates"][0] == "field model.copula.gate"
    assert verdicts["copula_bad_second_entry"][0] == "field model.copula[1].origin"
    assert verdicts["copula_negative"][0] == "field model.copula.origin"
    assert verdicts["copula_text"][0] == "field model.copula.throw"
    assert verdicts["version_4"][0] == "field schema"
    assert js["version_4_message"] == (
        "m.json: field schema: unsupported model file version 'tower.model/4'; this port "
        "reads 'tower.model/1', 'tower.model/2', 'tower.model/3': re-distil it from its traces "
        "with `tower distill` (see the file's provenance.command)"
    )
    assert verdicts["count_changed"][0] == verdicts["float_as_int"][0] == "field sha256"
