"""The component data as loaded: :class:`Components`, plain data keyed by printed number.

It lives apart from the loader (:mod:`tower.marrakesh.components`, which re-exports it)
so that the hook interface (:mod:`tower.marrakesh.hooks`) can name it while the loader
asks the registered modules for their own tables: ``component_data`` <- ``hooks`` <-
``components``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Components:
    """All component data, keyed by the entry's printed reference number."""

    path: str
    raw: dict[str, Any]
    scrolls: dict[int, dict[str, Any]]
    oases: dict[int, dict[str, Any]]
    desert_towns: dict[int, dict[str, Any]]
    river_tiles: dict[int, dict[str, Any]]
    exchange_offices: dict[int, dict[str, Any]]
    luxuries: dict[int, dict[str, Any]]
    provisions: dict[int, dict[str, Any]]
    #: The modules' own tables (table name -> id -> entry), read and checked by each
    #: registered module's ``read_tables`` hook when the file is loaded; a module's
    #: ``components`` hook merges them into a game's components when it is switched on.
    tables: dict[str, dict[int, dict[str, Any]]]

    def __getitem__(self, section: str) -> Any:
        return self.raw[section]

    @cached_property
    def scrolls_by_colour(self) -> dict[str, tuple[int, ...]]:
        """colour -> the ids of its scrolls in ascending order (made once: every game of
        these components deals them)."""
        out: dict[str, list[int]] = {}
        for sid in sorted(self.scrolls):
            out.setdefault(self.scrolls[sid]["colour"], []).append(sid)
        return {c: tuple(ids) for c, ids in out.items()}
