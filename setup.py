"""Builds tower, compiling the Marrakesh engine's rule files with Cython where it can.

The compiled files are optional. Where Cython or a C compiler is missing, or a file does
not compile, that file runs as plain Python: the same code, slower. Cython compiles the
files as they are (annotations are not read as C types), so both builds play the same
games (``tests/test_compiled.py``). A ``.pxd`` file beside a source (Cython's pure-Python
mode) types a few locals of the hottest loops for the compiled build only (``rules.pxd``,
``agents.pxd``), and makes the board and its players extension types (``board.pxd``)
whose fields the hottest functions, declared with the state and a player typed, read as C
structs; ``make`` recompiles
the file a ``.pxd`` declares, and those that cimport it, when it is edited (Cython
regenerates the C files). The build records the
SHA-256 of each source it compiled in ``tower/compiled.json``; ``tower/compiled.py`` runs
the source of any file edited since (of every file, if that file's ``.pxd`` declares an
extension type). ``TOWER_COMPILE=0`` builds without them: the Makefile
installs so, then compiles in place (``setup.py build_ext --inplace``), where it
recompiles a file edited since.

With GCC (10 or later) the build is profile-guided: it compiles the files instrumented into
a scratch copy of the package, plays the random games of :data:`TRAINING` there, and
compiles them again with the counts (``-fprofile-use``), which lays out and inlines the C
code for the paths games take. The same C semantics, so the same games; the build takes
about twice as long. ``TOWER_PGO=0`` builds without a profile.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ENGINE = Path("tower", "marrakesh")
#: Files left as Python: package inits; ``tasks.py``, a declaration where nothing runs
#: (compiled, its annotations become strings and ``Task`` loses its required keys); and the
#: adapters (their libraries are optional).
PLAIN = {"__init__.py", "tasks.py"}
PLAIN_DIRS = {"adapters"}
#: What the instrumented engine plays for a profile-guided build: random games at 2-4
#: players, the base game and every largest module set, on seeds no benchmark uses.
TRAINING = """
from tower.marrakesh import Game, GameConfig, RandomAgent, play
from tower.marrakesh.hooks import maximal_sets
for players in (2, 3, 4):
    for modules in (frozenset(), *maximal_sets(players)):
        game = Game(GameConfig(players=players, modules=modules))
        for seed in range(100_000, 100_004):
            play(game, [RandomAgent(10 * seed + k) for k in range(players)], seed=seed)
"""
#: Compiler and linker flags of the two profile-guided passes.
PROFILE_GENERATE = ("-fprofile-generate",)
PROFILE_USE = ("-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile")


def engine_sources() -> list[str]:
    return sorted(
        str(p)
        for p in ENGINE.rglob("*.py")
        if p.name not in PLAIN and not PLAIN_DIRS & set(p.relative_to(ENGINE).parts)
    )


def shares_layout(ext) -> bool:
    """Whether the ``.pxd`` beside ``ext``'s source declares an extension type
    (``tower.compiled.shares_layout``, spelt out: the package is not importable mid-build)."""
    pxd = Path(*ext.name.split(".")).with_suffix(".pxd")
    return pxd.is_file() and "cdef class" in pxd.read_text(encoding="utf-8")


def extensions() -> list:
    if os.environ.get("TOWER_COMPILE", "1") == "0":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("Cython is not installed: the engine runs as plain Python")
        return []
    modules = cythonize(
        engine_sources(),
        build_dir="build/cython",
        exclude_failures=True,
        nthreads=os.cpu_count() or 1,
        quiet=True,
        compiler_directives={
            "language_level": 3,
            "annotation_typing": False,
            "autotestdict": False,
            # Functions as plain C functions rather than Python-like function objects:
            # cheaper to call (2.6% fewer instructions a game); the engine never inspects
            # its own functions (signatures, defaults, __wrapped__).
            "binding": False,
        },
    )
    for module in modules:
        module.optional = True  # a file that does not compile stays plain Python
    return modules


class BuildExt(build_ext):
    """``build_ext`` that writes ``tower/compiled.json``: module -> SHA-256 of the source
    of every file it compiled (or found compiled and up to date); profile-guided where the
    compiler is GCC 10 or later (module docstring)."""

    profile: tuple[str, ...] = ()  # the profile flags of the pass being compiled

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # pip's builds pass no -j: compile on every core
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        self.built: dict[str, str] = {}
        self.lock = threading.Lock()
        super().run()
        if self.extensions:
            self.write_manifest()

    def write_manifest(self) -> None:
        manifest = Path(self.get_ext_fullpath("tower.compiled")).with_name("compiled.json")
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(dict(sorted(self.built.items())), indent=1) + "\n")

    def build_extensions(self) -> None:
        stale = [ext for ext in self.extensions if self.force or self.out_of_date(ext)]
        if stale and self.profile_guided():
            self.train(stale)
            self.profile = PROFILE_USE
        super().build_extensions()

    def out_of_date(self, ext) -> bool:
        """Whether ``build_ext`` will compile ``ext``: its output is missing or older than
        one of its sources (the test ``build_ext`` makes)."""
        target = Path(self.get_ext_fullpath(ext.name))
        if not target.exists():
            return True
        built = target.stat().st_mtime
        return any(Path(s).stat().st_mtime > built for s in [*ext.sources, *ext.depends])

    def profile_guided(self) -> bool:
        """Whether to build with a profile: asked for, and the compiler is GCC 10 or later."""
        if os.environ.get("TOWER_PGO", "1") == "0" or self.compiler.compiler_type != "unix":
            return False
        cc = self.compiler.compiler_so[0]
        try:
            said = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
            major = subprocess.run([cc, "-dumpversion"], capture_output=True, text=True).stdout
        except OSError:
            return False
        return "Free Software Foundation" in said and int(major.split(".")[0] or 0) >= 10

    def train(self, stale: list) -> None:
        """Compile ``stale`` instrumented into a scratch copy of the package and play
        :data:`TRAINING` there: the counts land beside the object files, where the next
        pass reads them. A failure only costs the profile."""
        scratch = Path(self.build_temp, "profile")
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(
            "tower", scratch / "tower", ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
        for ext in stale:  # counts of an earlier source would not match
            for obj in self.compiler.object_filenames(ext.sources, output_dir=self.build_temp):
                Path(obj).with_suffix(".gcda").unlink(missing_ok=True)
        # The files whose .pxd declares an extension type (the board) are compiled there
        # too: a compiled file that reads the board's fields as a C struct cannot run with
        # its source (``tower.compiled.shares_layout``).
        shared = [e for e in self.extensions if e not in stale and shares_layout(e)]
        kept = self.inplace, self.build_lib, self.extensions, self.built
        self.inplace, self.build_lib, self.extensions = 0, str(scratch), [*stale, *shared]
        self.built = {}
        self.profile = PROFILE_GENERATE
        try:
            super().build_extensions()
            self.write_manifest()  # the copy's compiled.json: its engine runs compiled
            # tower.compiled.PURE_ENV, spelt out: the package is not importable mid-build
            env = {k: v for k, v in os.environ.items() if k != "TOWER_PURE_PYTHON"}
            subprocess.run([sys.executable, "-c", TRAINING], cwd=scratch, env=env, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"profile training failed ({exc}): the engine compiles without a profile")
        finally:
            self.inplace, self.build_lib, self.extensions, self.built = kept
            shutil.rmtree(scratch, ignore_errors=True)

    def build_extension(self, ext) -> None:
        flags = ext.extra_compile_args, ext.extra_link_args
        if self.compiler.compiler_type == "unix":
            # Without debug information (-g0) a pass takes about 2 minutes on 2 cores
            # instead of 3. Without a profile -O3 plays a few per cent faster than -O2;
            # with one, -O2 plays as fast (37.4x and 36.9x the tower-only time, the median
            # of 8 runs each) and compiles its two passes a minute sooner.
            level = "-O2" if self.profile else "-O3"
            ext.extra_compile_args = [*flags[0], level, "-g0", *self.profile]
            ext.extra_link_args = [*flags[1], *self.profile]
        try:
            super().build_extension(ext)  # raises if it fails: then the file is not recorded
        finally:
            ext.extra_compile_args, ext.extra_link_args = flags
        source = Path(*ext.name.split(".")).with_suffix(".py")
        with self.lock:
            self.built[ext.name] = hashlib.sha256(source.read_bytes()).hexdigest()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
