"""Compiled files of the package, and their sources whenever a compiled file is out of date.

``setup.py`` compiles the Marrakesh engine's rule files with Cython where it can: the same
Python, run without the interpreter's dispatch (``tower bench game`` says which engine it
timed). A compiled file sits beside its source, and Python imports it first, so an edited
source would be shadowed by its old compiled file. The build therefore records the
SHA-256 of every source it compiled in ``tower/compiled.json``, and
:func:`prefer_fresh_sources` (called by ``tower/__init__.py``, before any other file of
the package is imported) puts a finder first on ``sys.meta_path`` that imports the source
of every compiled file whose source has changed since, with one warning naming the files
and the fix (``make``, or a reinstall).

``TOWER_PURE_PYTHON=1`` in the environment imports every file from its source, to debug
or to compare the two builds (``tests/test_compiled.py``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path

#: The build's record of the sources it compiled: module name -> SHA-256 of the source.
MANIFEST = "compiled.json"
#: Set (to anything but "" or "0") to import every file of the engine from its source.
PURE_ENV = "TOWER_PURE_PYTHON"


def pure() -> bool:
    """Whether :data:`PURE_ENV` asks for every file's source."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, as the build records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_files(package: str, root: Path) -> dict[str, Path]:
    """Module name -> source file, for every compiled file under ``root`` (the directory of
    ``package``) whose source is beside it."""
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)
    found: dict[str, Path] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            suffix = next((s for s in suffixes if name.endswith(s)), None)
            source = Path(folder, name[: -len(suffix)] + ".py") if suffix else None
            if source is not None and source.is_file():
                parts = source.relative_to(root).with_suffix("").parts
                found[".".join((package, *parts))] = source
    return dict(sorted(found.items()))


def running(package: str) -> list[str]:
    """The modules of ``package`` imported so far that run compiled."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith(package + ".")
        and (getattr(module, "__file__", None) or "").endswith(suffixes)
    )


def stale(package: str, root: Path) -> dict[str, Path]:
    """The compiled files under ``root`` to bypass: module name -> source. Every one when
    :data:`PURE_ENV` is set, else those whose source differs from the one compiled (or
    that the build's :data:`MANIFEST` does not list); every one if such a file, or a file
    not compiled, declares an extension type (:func:`shares_layout`)."""
    files = compiled_files(package, root)
    if pure():
        return files
    try:
        built = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        built = {}
    out = {name: src for name, src in files.items() if built.get(name) != digest(src)}
    # A file whose .pxd declares an extension type (``cdef class``) shares its layout with
    # every compiled file that reads its fields as a C struct: its source would lay them
    # out otherwise, so when it runs as its source (stale, or not compiled) every file does.
    sources = set(files.values())
    layouts = [p.with_suffix(".py") for p in root.rglob("*.pxd")]
    shared = [src for src in layouts if shares_layout(src)]
    return files if any(src not in sources or src in out.values() for src in shared) else out


def shares_layout(source: Path) -> bool:
    """Whether the ``.pxd`` beside ``source`` declares an extension type."""
    pxd = source.with_suffix(".pxd")
    return pxd.is_file() and "cdef class" in pxd.read_text(encoding="utf-8")


class SourceFinder:
    """A finder for ``sys.meta_path`` (the protocol of :class:`importlib.abc.MetaPathFinder`)
    that imports the named modules from their source files (``name -> path``)."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        import importlib.util  # only when a source is imported instead

        return importlib.util.spec_from_file_location(fullname, source)


def prefer_fresh_sources(package: str, root: Path) -> list[str]:
    """Import the source of every compiled file of ``package`` that :func:`stale` names;
    returns their module names, sorted (warned about unless :data:`PURE_ENV` asked for
    them)."""
    sources = stale(package, root)
    if sources:
        sys.meta_path.insert(0, SourceFinder(sources))
        if not pure():
            import warnings

            warnings.warn(
                f"{len(sources)} compiled file(s) of {package} do not match their source "
                f"({', '.join(list(sources)[:3])}{', ...' if len(sources) > 3 else ''}): "
                "running the source instead; `make` recompiles them",
                RuntimeWarning,
                stacklevel=2,
            )
    return list(sources)
