"""docs/engine.md's module table and action-space table are the generated ones: every module
of the three rulebooks, whether it is playable (registered), its switch-on name, and the
id range of every action kind."""

from __future__ import annotations

from pathlib import Path

import tower.marrakesh  # noqa: F401 (registers the modules)
from tower.marrakesh.catalogue import (
    ACTIONS_BEGIN,
    ACTIONS_END,
    BEGIN,
    CATALOGUE,
    END,
    action_table,
    table,
)
from tower.marrakesh.hooks import REGISTRY

DOC = Path(__file__).resolve().parent.parent / "docs" / "engine.md"


def _between(text: str, begin: str, end: str) -> str:
    start = text.index(begin)
    return text[start : text.index(end, start) + len(end)]


def test_module_table_is_current():
    # Regenerate with: python -m tower.marrakesh.catalogue
    assert _between(DOC.read_text(encoding="utf-8"), BEGIN, END) == table()


def test_action_table_is_current():
    text = DOC.read_text(encoding="utf-8")
    assert _between(text, ACTIONS_BEGIN, ACTIONS_END) == action_table()


def test_catalogue_lists_every_registered_module_and_all_rulebook_modules():
    names = [e.name for e in CATALOGUE]
    assert len(names) == len(set(names)) == 17  # 5 base box, 5 Walls & Guards, 7 G&E
    assert set(REGISTRY) <= set(names)
    playable = {e.name for e in CATALOGUE if e.playable}
    assert playable == {n for n, m in REGISTRY.items() if m.playable}
    for e in CATALOGUE:
        assert e.rulebook in {"Marrakesh", "Walls & Guards", "Gems & Experts"}
        assert e.name.isidentifier()
    # Every module of the three rulebooks is playable (Gems, issue 15, was the last).
    assert playable == set(names) and "not yet" not in table()
    assert "| yes | `gems` |" in table() and "| yes | `walls_guards` |" in table()
