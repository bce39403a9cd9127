"""The compiled engine (``setup.py``) plays exactly the games of its source, and a compiled
file whose source changed since its build is bypassed for the source
(``tower/compiled.py``)."""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from tower.compiled import MANIFEST, PURE_ENV, compiled_files, digest, running, stale

#: Plays random games (2-4 players, every compatible module) and prints one digest of every
#: saved position and history, and which engine files ran compiled.
GAMES = """
import hashlib, json, sys
from tower.compiled import running
from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.marrakesh.hooks import everything
h = hashlib.sha256()
for players in (2, 3, 4):
    game = Game(GameConfig(players=players, modules=everything(players)))
    for seed in range(4):
        agents = [RandomAgent(100 * seed + k) for k in range(players)]
        state = play(game, agents, seed=seed, on_action=lambda s: h.update(
            json.dumps(s.to_json(), sort_keys=True).encode()))
        h.update("\\n".join(state.history).encode())
print(json.dumps({"digest": h.hexdigest(), "compiled": running("tower.marrakesh")}))
"""


def _env(pure: bool) -> dict[str, str]:
    """This process's environment, with :data:`PURE_ENV` set only if ``pure``."""
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    return {**env, PURE_ENV: "1"} if pure else env


def _play(pure: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", GAMES], env=_env(pure), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_the_compiled_engine_plays_the_games_of_its_source():
    compiled, source = _play(pure=False), _play(pure=True)
    assert source["compiled"] == []
    if not compiled["compiled"]:
        pytest.skip("the engine is not compiled here (no Cython or C compiler at build)")
    assert "tower.marrakesh.rules" in compiled["compiled"]
    assert compiled["digest"] == source["digest"]


SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _package(tmp_path: Path, name: str = "pkg") -> Path:
    """A package with one source file ``mod.py`` (``x = 1``) beside a "compiled" file that
    cannot load: importing it would fail."""
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "mod.py").write_text("x = 1\n")
    (root / f"mod{SUFFIX}").write_bytes(b"not a compiled file")
    return root


def test_compiled_files_are_matched_to_their_sources(tmp_path):
    root = _package(tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / f"alone{SUFFIX}").write_bytes(b"")  # no source beside it
    assert compiled_files("pkg", root) == {"pkg.mod": root / "mod.py"}


def test_a_compiled_file_is_bypassed_when_its_source_changed(tmp_path, monkeypatch):
    monkeypatch.delenv(PURE_ENV, raising=False)
    root = _package(tmp_path)
    assert stale("pkg", root) == {"pkg.mod": root / "mod.py"}  # no record of the build
    (root / MANIFEST).write_text(json.dumps({"pkg.mod": digest(root / "mod.py")}))
    assert stale("pkg", root) == {}
    monkeypatch.setenv(PURE_ENV, "1")
    assert stale("pkg", root) == {"pkg.mod": root / "mod.py"}
    monkeypatch.delenv(PURE_ENV)
    (root / "mod.py").write_text("x = 2\n")  # edited after the build
    assert stale("pkg", root) == {"pkg.mod": root / "mod.py"}
    assert hashlib.sha256(b"x = 2\n").hexdigest() == digest(root / "mod.py")


def test_every_compiled_file_is_bypassed_when_a_shared_layout_changed(tmp_path, monkeypatch):
    """A file whose .pxd declares an extension type (the board) lays out fields other
    compiled files read as a C struct: when its source runs (edited since the build, or not
    compiled), every file runs as its source."""
    monkeypatch.delenv(PURE_ENV, raising=False)
    root = _package(tmp_path)
    (root / "user.py").write_text("y = 1\n")
    (root / f"user{SUFFIX}").write_bytes(b"not a compiled file")
    built = {"pkg.mod": digest(root / "mod.py"), "pkg.user": digest(root / "user.py")}
    (root / MANIFEST).write_text(json.dumps(built))
    (root / "mod.py").write_text("x = 2\n")
    assert stale("pkg", root) == {"pkg.mod": root / "mod.py"}  # no extension type
    (root / "mod.pxd").write_text("cdef class Board:\n    cdef public object game\n")
    assert stale("pkg", root) == {"pkg.mod": root / "mod.py", "pkg.user": root / "user.py"}
    (root / "mod.py").write_text("x = 1\n")  # as built: nothing to bypass
    assert stale("pkg", root) == {}
    (root / f"mod{SUFFIX}").unlink()  # the extension type did not compile: its source runs
    assert stale("pkg", root) == {"pkg.user": root / "user.py"}


def test_the_source_of_a_stale_compiled_file_is_imported_with_a_warning(tmp_path):
    _package(tmp_path, "stalepkg")
    script = textwrap.dedent(
        """
        import sys, warnings
        from pathlib import Path
        from tower.compiled import prefer_fresh_sources
        root = Path(sys.argv[1]) / "stalepkg"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert prefer_fresh_sources("stalepkg", root) == ["stalepkg.mod"]
        assert "stalepkg.mod" in str(caught[0].message), caught
        sys.path.insert(0, sys.argv[1])
        import stalepkg.mod
        print(stalepkg.mod.x, stalepkg.mod.__file__.endswith("mod.py"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        env=_env(False),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "True"]


def test_running_names_only_compiled_modules():
    names = running("tower")
    assert all(not sys.modules[n].__file__.endswith(".py") for n in names)
    assert "tower.compiled" not in names  # the guard itself is never compiled


def test_the_profile_training_plays_its_games():
    """The games a profile-guided build plays (``setup.py``'s ``TRAINING``) run: if they
    fail, every build silently loses its profile."""
    tree = ast.parse(Path(__file__).parents[1].joinpath("setup.py").read_text())
    (training,) = (
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["TRAINING"]
    )
    out = subprocess.run(
        [sys.executable, "-c", training + "print(players, seed)"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "100003"]  # it reached the last game


def test_the_declared_loops_run_typed_in_the_compiled_build():
    """The ``.pxd`` files type the stack and its top task in the compiled build: a file
    Cython rejected would run as its source instead (``setup.py`` builds every file it
    can), and this test sees the difference (a task that is not exactly a dict runs in
    Python, and is refused compiled)."""
    import tower.marrakesh.rules as rules
    from tower.marrakesh import Game, GameConfig

    declared = {"tower.marrakesh." + p.stem for p in Path(rules.__file__).parent.glob("*.pxd")}
    assert {"tower.marrakesh.agents", "tower.marrakesh.rules"} <= declared
    state = Game(GameConfig(players=2)).new_initial_state(seed=1)

    class Task(dict):
        """A task that is not exactly a dict."""

    state.stack.append(Task(t="throw"))
    if not running("tower.marrakesh"):
        rules.advance(state)  # plain Python: any dict will do
        pytest.skip("the engine is not compiled here (no Cython or C compiler at build)")
    assert declared <= set(running("tower.marrakesh"))
    with pytest.raises(TypeError):
        rules.advance(state)


def test_the_typed_functions_take_only_a_board_in_the_compiled_build():
    """``board.pxd`` makes the compiled board and player extension types whose fields the
    declared functions read as C structs: they refuse any other object with the same
    fields, which the plain engine reads as well."""
    import tower.marrakesh.rules as rules
    from tower.marrakesh import Game, GameConfig

    state = Game(GameConfig(players=2)).new_initial_state(seed=1)
    like = SimpleNamespace(players=state.players, game=state.game)
    other = state.clone()
    other.players = [SimpleNamespace(scrolls=[]) for _ in state.players]
    if "tower.marrakesh.board" not in running("tower.marrakesh"):
        assert rules.has_mod(like, 0, "dinars_substitute") is False
        assert rules.has_mod(other, 0, "dinars_substitute") is False
        pytest.skip("the engine is not compiled here (no Cython or C compiler at build)")
    assert rules.has_mod(state, 0, "dinars_substitute") is False
    with pytest.raises(TypeError):
        rules.has_mod(like, 0, "dinars_substitute")
    with pytest.raises(TypeError):
        rules.has_mod(other, 0, "dinars_substitute")


def _source_module(name: str):
    """``tower/marrakesh/<name>.py`` imported from its source under another name, beside
    the module the package imported (compiled where it is built)."""
    import importlib.util

    import tower.marrakesh

    path = Path(tower.marrakesh.__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_source_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # while it runs (a dataclass looks its module up)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _source_board():
    """``tower/marrakesh/board.py`` from its source (:func:`_source_module`)."""
    return _source_module("board")


@pytest.fixture(params=["imported", "source"])
def board_module(request, monkeypatch):
    """``tower.marrakesh.board`` as the package runs it, and as its source (importable by
    its name, as pickling needs)."""
    if request.param == "source":
        module = _source_board()
        monkeypatch.setitem(sys.modules, module.__name__, module)
        return module
    import tower.marrakesh.board

    return tower.marrakesh.board


def test_a_player_behaves_as_a_dataclass(board_module):
    """``Player`` is a plain class (compiled, an extension type, which a dataclass cannot
    be) that keeps the dataclass it was: keyword construction with defaults, ``repr`` and
    ``==`` over its fields in their JSON order, unhashable, and copies, pickles and JSON
    that come back equal."""
    import copy
    import pickle

    Player, fields = board_module.Player, board_module.PLAYER_FIELDS
    p = Player(water=3, scrolls=[7])
    assert list(p.to_json()) == list(fields) and len(fields) == 44
    assert repr(Player()).startswith("Player(score=0, water=1, dates=1, dinars=1, screen=[],")
    assert repr(p).endswith(", wall_town=0, ext={})") and "scrolls=[7]," in repr(p)
    assert p == Player(water=3, scrolls=[7]) and p != Player() and p != p.to_json()
    with pytest.raises(TypeError):
        hash(p)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        Player(nope=1)
    for again in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p)), p.copy()):
        assert type(again) is Player and again == p
    assert Player.from_json(p.to_json()) == p
    other = p.copy()
    other.scrolls.append(8)  # a copy's lists are its own
    assert p.scrolls == [7] and other.watchtower == 0 and other.resource("water") == 3


def _declared(module) -> dict[str, list[str]]:
    """Class -> the fields the ``.pxd`` beside ``module``'s source declares, in order."""
    pxd = Path(module.__file__).with_suffix(".pxd").read_text(encoding="utf-8")
    declared: dict[str, list[str]] = {}
    for line in pxd.splitlines():
        if line.startswith("cdef class "):
            fields = declared.setdefault(line.split()[2].split("(")[0].rstrip(":"), [])
        elif line.startswith("    cdef public "):
            fields += line.removeprefix("    cdef public ").split(" ", 1)[1].split(", ")
    return declared


def test_board_pxd_declares_the_fields_of_the_source():
    """``board.pxd`` lays out the compiled board, player and game base, and ``hooks.pxd``
    the rule set and hooks: the same fields as the source (a field missing there would
    fail on assignment, compiled only)."""
    board, hooks = _source_board(), _source_module("hooks")
    declared = _declared(board)
    assert declared["Player"] == list(board.PLAYER_FIELDS)
    assert declared["Board"] == list(board.Board.__slots__)
    assert declared["GameLike"] == list(board.GAME_FIELDS)
    declared = _declared(hooks)
    assert declared["RuleSet"] == list(hooks.RULE_TABLES)
    assert declared["Hooks"] == list(vars(hooks.Hooks(())))
