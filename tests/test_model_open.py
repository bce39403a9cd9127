"""``tower.model.open_model`` is the one way from a model name to a model: it reads every
spelling, and every entry point that takes a model name (battle, self-play, the OpenSpiel
game, the commands) goes through it, so all accept the same spellings."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tower.cli import cli, main
from tower.errors import InputFileError
from tower.model import BaselineModel, DistilledModel, ModelSpecError, open_model
from tower.model.baseline import NoRetentionModel
from tower.model.distilled import shipped_path

ROOT = Path(__file__).resolve().parent.parent / "tower"
#: The only modules that call the loaders themselves: the opener, the model package
#: (which defines them) and the benchmark that times the loader.
LOADERS_ALLOWED = ("model/", "bench/load.py", "bench/model.py")


def params_file(tmp_path: Path, model: dict | None) -> Path:
    path = tmp_path / "params.json"
    doc = {"schema": "tower.params/1", "preset": "marrakesh", "geometry": {}, "physics": {}}
    path.write_text(json.dumps({**doc, "model": model} if model is not None else doc))
    return path


def describe(model) -> tuple:
    """What tells two opened models apart: class, name, and the file or the chances."""
    if isinstance(model, DistilledModel):
        return type(model).__name__, model.name, model.doc["sha256"]
    return type(model).__name__, model.name, getattr(model, "p_fresh", None), getattr(
        model, "p_old", None
    )


@pytest.fixture
def spellings(tmp_path) -> list[str]:
    return [
        "baseline",
        "no-retention",
        "shipped",
        "shipped:marrakesh",
        str(shipped_path("marrakesh")),
        str(params_file(tmp_path, {"p_fresh": 0.6, "p_old": 0.25})),
    ]


def test_open_model_reads_every_spelling(spellings):
    models = [open_model(s) for s in spellings]
    assert [type(m) for m in models] == [
        BaselineModel, NoRetentionModel, DistilledModel, DistilledModel, DistilledModel,
        BaselineModel,
    ]  # fmt: skip
    assert describe(models[2]) == describe(models[3]) == describe(models[4])
    assert (models[5].p_fresh, models[5].p_old) == (0.6, 0.25)
    assert open_model(Path(spellings[4])).name == "marrakesh"


def test_open_model_refuses_with_one_line_naming_what_is_wrong(tmp_path):
    with pytest.raises(ModelSpecError, match=r"model 'nonsense': expected .*; no such file"):
        open_model("nonsense")
    with pytest.raises(Exception, match="no shipped model 'nothing'"):
        open_model("shipped:nothing")
    with pytest.raises(InputFileError, match=r"params\.json: field model: .*p_fresh"):
        open_model(params_file(tmp_path, None))
    with pytest.raises(InputFileError, match=r"field model: p_fresh must lie in \[0, 1\]"):
        open_model(params_file(tmp_path, {"p_fresh": 1.5, "p_old": 0.1}))
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/1"}')
    with pytest.raises(InputFileError, match=r"other\.json: field schema: not a tower model"):
        open_model(other)
    for bad in (str(other), "nonsense"):
        with pytest.raises(Exception) as info:
            open_model(bad)
        assert "\n" not in str(info.value)


def test_every_entry_point_opens_the_same_models(spellings):
    from tower.battle.inputs import choose_model
    from tower.marrakesh.selfplay import _load_tower, load_tower

    _load_tower.cache_clear()
    expected = [describe(open_model(s)) for s in spellings]
    assert [describe(choose_model(s)[0]) for s in spellings] == expected
    assert [describe(load_tower(s)) for s in spellings] == expected
    pytest.importorskip("pyspiel")
    from tower.marrakesh.adapters.openspiel import MarrakeshGame

    games = [MarrakeshGame({"players": 2, "tower": s}) for s in spellings]
    assert [describe(g.engine.config.tower) for g in games] == expected
    for entry in (choose_model, load_tower, lambda s: MarrakeshGame({"tower": s})):
        with pytest.raises(ModelSpecError, match="'nonsense'"):
            entry("nonsense")


def test_the_commands_accept_the_same_spellings(spellings, capsys):
    runner = CliRunner()
    for spec in spellings:
        result = runner.invoke(cli, ["selfplay", "1", "--players", "2", "--model", spec])
        assert result.exit_code == 0, (spec, result.output)
        assert f"tower model: {open_model(spec).name}" in result.output
    for args in (["selfplay", "1"], ["stats", "--sequences", "2"], ["battle", "check"]):
        with pytest.raises(SystemExit) as exit_:
            main([*args, "--model", "nonsense"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.startswith("error: model 'nonsense': expected"), err
        assert err.count("\n") == 1


def loader_calls(source: str) -> list[str]:
    """Calls of the model loaders (``load_model``, ``load_shipped``) in ``source``."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("load_model", "load_shipped"):
                hits.append(f"line {node.lineno}: {name}")
    return hits


def test_no_module_outside_the_model_package_loads_a_model_itself():
    assert loader_calls("m = load_shipped('x')\nn = distilled.load_model(p)") != []
    found = {
        str(p.relative_to(ROOT)): hits
        for p in sorted(ROOT.rglob("*.py"))
        if not str(p.relative_to(ROOT)).startswith(LOADERS_ALLOWED)
        and (hits := loader_calls(p.read_text(encoding="utf-8")))
    }
    assert found == {}
