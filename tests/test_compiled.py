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
    """``board.pxd`` makes the compiled board an extension type whose fields the declared
    functions read as a C struct: they refuse any other object with the same fields, which
    the plain engine reads as well."""
    import tower.marrakesh.rules as rules
    from tower.marrakesh import Game, GameConfig

    state = Game(GameConfig(players=2)).new_initial_state(seed=1)
    like = SimpleNamespace(players=state.players, game=state.game)
    if "tower.marrakesh.board" not in running("tower.marrakesh"):
        assert rules.has_mod(like, 0, "dinars_substitute") is False
        pytest.skip("the engine is not compiled here (no Cython or C compiler at build)")
    assert rules.has_mod(state, 0, "dinars_substitute") is False
    with pytest.raises(TypeError):
        rules.has_mod(like, 0, "dinars_substitute")
