"""``tower battle`` and ``tower battle check`` on the command line."""

from __future__ import annotations

import json
import re

import pytest

from tower.cli import main


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_battle_without_arguments_prints_the_table_and_writes_a_plot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["battle"], capsys)
    assert code == 0, err
    assert out.startswith("model: ")  # says which model, and why if it fell back
    assert "season 2: 4 players in battle order red, yellow, green, blue" in out
    rows = [
        line.split() for line in out.splitlines() if re.match(r"^(red|yellow|green|blue) ", line)
    ]
    # 4 player rows, then 4 x 4 hiring rows; every player hired 2 with 2 repaired sections
    assert [r[0] for r in rows[:4]] == ["red", "yellow", "green", "blue"]
    assert all(r[1] == "2" and r[2] == "2" for r in rows[:4])
    assert len(rows) == 4 + 16
    # with 2 bricks and 2 brigands the first player can never be breached
    assert rows[0][6] == "0.00" and rows[0][9] == "1.00"
    png = tmp_path / "battle.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_battle_writes_json_and_rejects_bad_options(tmp_path, capsys):
    path = tmp_path / "a.json"
    argv = [
        "battle",
        "--players",
        "2",
        "--season",
        "3",
        "--recruited",
        "red=3",
        "--walls",
        "red=1,yellow=4",
        "--samples",
        "200",
        "--plot",
        "",
        "--json",
        str(path),
        "--model",
        "baseline",
        "--no-hiring",
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "json: " in out
    data = json.loads(path.read_text())
    assert data["situation"]["recruited"] == {"red": 3, "yellow": 0}
    assert data["situation"]["walls"]["yellow"]["repaired"] == 4
    assert data["hiring"] == [] and len(data["players"]) == 2
    code, _, err = run(["battle", "--recruited", "purple=2", "--plot", ""], capsys)
    assert code == 2 and "--recruited" in err
    code, _, err = run(["battle", "--recruited", "4", "--plot", ""], capsys)
    assert code == 2 and "recruited 4" in err
    code, _, err = run(["battle", "--physics", "3", "--plot", ""], capsys)
    assert code == 2 and "--tower empty or warm:R" in err


def test_check_gives_a_tail_probability(capsys):
    argv = [
        "battle",
        "check",
        "--thrown",
        "2*watchman:red,2*brigand",
        "--out",
        "watchman:red,2*brigand",
        "--player",
        "red",
        "--wall",
        "1",
        "--tower",
        "empty",
        "--json",
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    data = json.loads(out)
    assert 0.0 <= data["tail"] <= 1.0 and 0.0 < data["probability"] <= 1.0
    assert data["outcome"] == {
        "player": "red",
        "repelled": 2,
        "points": 2,
        "breaches": [],
        "penalties": [],
    }


def test_check_reads_an_observation_file(tmp_path, capsys):
    obs = {
        "format": "tower.battle-observation/1",
        "thrown": ["watchman:blue", "3*brigand"],
        "out": ["3*brigand"],
        "player": "blue",
        "wall": {"repaired": 0},
        "tower": "empty",
    }
    path = tmp_path / "obs.json"
    path.write_text(json.dumps(obs))
    code, out, err = run(["battle", "check", str(path)], capsys)
    assert code == 0, err
    tail = float(re.search(r"tail probability .*?: ([0-9.]+)", out).group(1))
    assert 0.0 <= tail <= 1.0
    assert "3 breach(es) at section(s) 1, 2, 3" in out


@pytest.mark.parametrize(
    ("obs", "message"),
    [
        ({"thrown": ["brigand"], "out": ["2*brigand"]}, "impossible observation: 2 × brigand"),
        ({"thrown": ["4*watchman:red"], "out": []}, "impossible observation: 4 × watchman:red"),
        ({"thrown": ["brigand"], "out": ["dragon:red"]}, "field out"),
        ({"thrown": "brigand", "out": []}, "field thrown"),
        ({"thrown": [], "out": [], "wall": {"repaired": 9}}, "field wall.repaired"),
    ],
)
def test_check_flags_impossible_or_malformed_observations(tmp_path, capsys, obs, message):
    path = tmp_path / "obs.json"
    path.write_text(json.dumps({"format": "tower.battle-observation/1", "tower": "empty", **obs}))
    code, out, err = run(["battle", "check", str(path), "--model", "baseline"], capsys)
    assert code == 2
    assert message in err and out == ""


def test_model_choice_falls_back_clearly_and_never_hides_a_corrupt_file(monkeypatch):
    import tower.model.distilled
    from tower.battle.inputs import choose_model
    from tower.errors import InputFileError, TowerError
    from tower.model import BaselineModel

    model, note = choose_model("baseline")
    assert isinstance(model, BaselineModel) and "as requested" in note

    def missing(name):
        raise TowerError(f"no shipped model {name!r}")

    monkeypatch.setattr(tower.model.distilled, "load_shipped", missing)
    model, note = choose_model("shipped")
    assert isinstance(model, BaselineModel) and "no shipped model" in note

    def corrupt(name):
        raise InputFileError("marrakesh.json", "checksum mismatch", field="sha256")

    monkeypatch.setattr(tower.model.distilled, "load_shipped", corrupt)
    with pytest.raises(InputFileError, match="checksum"):
        choose_model("shipped")

    class KeshisOnly(BaselineModel):
        name = "keshis-only"

        def throw(self, state, pieces, rng):
            if any(p.kind.value != "keshi" for p in pieces):
                raise TowerError("no class for watchman pieces")
            return super().throw(state, pieces, rng)

    monkeypatch.setattr(tower.model.distilled, "load_shipped", lambda name: KeshisOnly())
    model, note = choose_model("shipped")
    assert type(model) is BaselineModel and "cannot throw pawns" in note


def test_a_model_file_can_be_chosen_and_a_bad_one_is_refused(tmp_path):
    from random import Random

    from tower.battle.inputs import choose_model
    from tower.errors import InputFileError
    from tower.model import ModelSpecError
    from tower.model.distilled import shipped_path
    from tower.pieces import NEUTRAL, Kind, Piece

    model, note = choose_model(str(shipped_path("marrakesh")))
    assert note.startswith("model: ") and "marrakesh.json" in note
    assert len(model.throw(model.new_state(), [Piece(Kind.BRIGAND, NEUTRAL)], Random(1))) == 2
    with pytest.raises(ModelSpecError, match="'shipped', 'shipped:NAME' or a model file"):
        choose_model(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "tower.model/2"}')
    with pytest.raises(InputFileError, match=r"bad\.json"):  # never a silent fallback
        choose_model(str(bad))


def test_battle_traces_writes_valid_seasons_and_resumes(tmp_path, capsys, monkeypatch):
    pytest.importorskip("pybullet")
    import tower.physics.world as world
    from tower.traces import read_traces

    out = tmp_path / "seasons.jsonl"
    argv = ["battle", "traces", "--seasons", "2", "--warmups", "0", "--seed", "7"]
    code, text, err = run([*argv, "--out", str(out), "--workers", "1", "--quiet"], capsys)
    assert code == 0, err
    assert "2 seasons simulated, 0 already there" in text
    seqs = list(read_traces(out))  # validated on reading
    assert [s.seq for s in seqs] == [0, 1]
    # an empty tower: the first throw holds the pawns of the first battle only
    assert all(
        {s.pieces[i].kind.value for i in s.throws[0].thrown} <= {"watchman", "brigand"}
        for s in seqs
    )
    before = out.read_bytes()
    code, text, err = run([*argv, "--out", str(out), "--workers", "1", "--quiet"], capsys)
    assert code == 0 and "0 seasons simulated, 2 already there" in text
    assert out.read_bytes() == before
    # other physics numerics never append to these seasons
    monkeypatch.setattr(world, "NUMERICS_VERSION", world.NUMERICS_VERSION - 1)
    code, text, err = run([*argv, "--out", str(out), "--workers", "1", "--quiet"], capsys)
    assert code != 0 and out.read_bytes() == before


def test_battle_traces_rejects_bad_warmups_without_writing(tmp_path, capsys):
    out = tmp_path / "seasons.jsonl"
    for bad in ("0,x", "-1"):
        code, _, err = run(["battle", "traces", "--warmups", bad, "--out", str(out)], capsys)
        assert code == 2 and "--warmups" in err
    assert not out.exists()


def test_breach_law_has_a_column_for_every_breach_that_happens(tmp_path, capsys):
    """With one repaired section up to 5 attackers break through: the table prints
    P(breaches) up to 5, and every player's row sums to 1."""
    argv = ["battle", "--season", "3", "--recruited", "red=3,blue=1", "--walls", "1"]
    argv += ["--first", "blue", "--samples", "300", "--no-hiring", "--plot", ""]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "P(breaches=0 1 2 3 4 5)" in out
    rows = [
        line.split() for line in out.splitlines() if re.match(r"^(red|yellow|green|blue) ", line)
    ]
    assert [r[0] for r in rows] == ["blue", "red", "yellow", "green"]
    for r in rows:
        law = [float(x) for x in r[9:15]]
        assert r[15] == "monte" and abs(sum(law) - 1) < 0.03, r
    assert any(float(r[14]) > 0.05 for r in rows)  # 5 breaches do happen


def test_battle_replaces_its_own_plot_but_no_other_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["battle", "--samples", "50", "--no-hiring", "--tower", "empty"]
    assert run(argv, capsys)[0] == 0
    first = (tmp_path / "battle.png").read_bytes()
    code, out, err = run([*argv, "--seed", "1"], capsys)  # a rerun replaces its own plot
    assert code == 0, err
    assert "plot: battle.png" in out and (tmp_path / "battle.png").read_bytes() != first
    (tmp_path / "mine.png").write_bytes(first[:8] + b"a picture of my own")
    code, _, err = run([*argv, "--plot", "mine.png"], capsys)
    assert code == 2 and "already exists" in err
    assert (tmp_path / "mine.png").read_bytes() == first[:8] + b"a picture of my own"
