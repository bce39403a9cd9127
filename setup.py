"""Builds tower, compiling the Marrakesh engine's rule files with Cython where it can.

The compiled files are optional. Where Cython or a C compiler is missing, or a file does
not compile, that file runs as plain Python: the same code, slower. Cython compiles the
files as they are (annotations are not read as C types), so both builds play the same
games (``tests/test_compiled.py``). The build records the SHA-256 of each source it
compiled in ``tower/compiled.json``; ``tower/compiled.py`` runs the source of any file
edited since. ``TOWER_COMPILE=0`` builds without them: the Makefile installs so, then
compiles in place (``setup.py build_ext --inplace``), where it recompiles a file edited
since.
"""

from __future__ import annotations

import hashlib
import json
import os
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


def engine_sources() -> list[str]:
    return sorted(
        str(p)
        for p in ENGINE.rglob("*.py")
        if p.name not in PLAIN and not PLAIN_DIRS & set(p.relative_to(ENGINE).parts)
    )


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
        },
    )
    for module in modules:
        module.optional = True  # a file that does not compile stays plain Python
    return modules


class BuildExt(build_ext):
    """``build_ext`` that writes ``tower/compiled.json``: module -> SHA-256 of the source
    of every file it compiled (or found compiled and up to date)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # pip's builds pass no -j: compile on every core
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        self.built: dict[str, str] = {}
        self.lock = threading.Lock()
        super().run()
        if not self.extensions:
            return
        manifest = Path(self.get_ext_fullpath("tower.compiled")).with_name("compiled.json")
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(dict(sorted(self.built.items())), indent=1) + "\n")

    def build_extension(self, ext) -> None:
        if self.compiler.compiler_type == "unix":
            # Without debug information (-g0) the build takes about 2 minutes on 2 cores
            # instead of 3; -O3 stays, a few per cent faster per game than -O1 or -O2.
            ext.extra_compile_args = [*ext.extra_compile_args, "-O3", "-g0"]
        super().build_extension(ext)  # raises if it fails: then the file is not recorded
        source = Path(*ext.name.split(".")).with_suffix(".py")
        with self.lock:
            self.built[ext.name] = hashlib.sha256(source.read_bytes()).hexdigest()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
