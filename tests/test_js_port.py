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

from tower.cli import main
from tower.model.distilled import shipped_path
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


@needs_node
def test_node_tests_catch_a_wrong_model(vectors_dir, tmp_path):
    """The same node tests fail against vectors of another model (they can fail)."""
    vec = json.loads((vectors_dir / "vectors.json").read_text())
    for c in vec["cases"][:50]:
        c["out_law"][0] += 1e-9
    bad = tmp_path / "vectors.json"
    bad.write_text(json.dumps(vec))
    env = {**os.environ, "TOWER_MODEL": str(shipped_path("marrakesh")), "TOWER_VECTORS": str(bad)}
    result = run_node("--test", "test/conformance.test.js", env=env)
    assert result.returncode != 0
    assert "differs by" in result.stdout + result.stderr


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


def test_vectors_refuse_a_non_empty_folder(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(SystemExit) as exc:
        main(["model", "vectors", "--out", str(tmp_path), "--games", "1"])
    assert exc.value.code == 2
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
