"""``docs/rulebooks.md`` indexes every rulebook section the code cites.

A citation names the rulebook by its title in asterisks and the section by its printed
name in quotes: ``(*Walls & Guards*, "Battle at the Wall")``, ``*Gems & Experts*
("Alms")``, ``*Walls & Guards*, section "Chess"``; the base game's expansion modules are
cited as ``*Marrakesh* (expansion 3)``. Comment markers and line breaks inside a citation
are read through.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "docs" / "rulebooks.md"
TITLES = ("Marrakesh", "Walls & Guards", "Gems & Experts")
_TITLE = "|".join(re.escape(t) for t in TITLES)
CITATION = re.compile(
    rf'\*({_TITLE})\*(?:,\s*(?:section\s+)?|\s*\(\s*)((?:"[^"]+"(?:,\s*|\s+and\s+)?)+)'
)
EXPANSION = re.compile(r"\*Marrakesh\*,?\s*\(?expansion (\d)\)?")
#: Where citations are looked for (the index itself aside).
SOURCES = ("tower", "web", "docs")
SUFFIXES = (".py", ".toml", ".md", ".js")


def citations(text: str) -> set[tuple[str, str]]:
    """(title, section) of every citation in ``text``; an expansion module of the base
    game is ``("Marrakesh", "Expansion N")``."""
    flat = re.sub(r"\n\s*(?:#+\s*|//\s*)?", " ", text)
    found = {
        (m.group(1), section)
        for m in CITATION.finditer(flat)
        for section in re.findall(r'"([^"]+)"', m.group(2))
    }
    return found | {("Marrakesh", f"Expansion {m.group(1)}") for m in EXPANSION.finditer(flat)}


def index() -> dict[str, dict[str, str]]:
    """Title -> section -> the cell of files citing it, as ``docs/rulebooks.md`` has them."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    title = ""
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        if heading := re.fullmatch(r"## \*(.+)\*", line):
            title = heading.group(1)
        elif (row := re.fullmatch(r"\| (.+?) \| (.+) \|", line)) and title:
            out[title][row.group(1)] = row.group(2)
    return out


def listed(entries: dict[str, str], section: str) -> str | None:
    """The files cell of ``section`` (an expansion matches its row ``Expansion N: ...``)."""
    for name, files in entries.items():
        if name == section or name.startswith(section + ":"):
            return files
    return None


def test_every_section_a_module_docstring_cites_is_indexed():
    cited = set()
    for path in sorted((ROOT / "tower" / "marrakesh" / "modules").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if "Rulebook:" in doc:
            cited |= {(t, s, path.name) for t, s in citations(doc[doc.index("Rulebook:") :])}
    assert len(cited) >= 10  # the modules were read
    entries = index()
    assert [c for c in sorted(cited) if listed(entries[c[0]], c[1]) is None] == []


def test_every_citation_in_the_code_and_docs_is_indexed_with_its_file():
    entries = index()
    assert set(entries) == set(TITLES)
    missing = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in SUFFIXES or path == INDEX:
                continue
            rel = path.relative_to(ROOT).as_posix()
            for title, section in citations(path.read_text(encoding="utf-8")):
                files = listed(entries[title], section)
                if files is None or f"`{rel}`" not in files:
                    missing.append(f"{rel}: *{title}*, {section!r}")
    assert missing == []


def test_the_reader_finds_each_form_of_citation():
    text = (
        '# the battle (*Walls & Guards*, "Battle at the\n# Wall"), then\n'
        'Rulebook: *Gems & Experts* ("Alms"). *Walls & Guards*, section "Chess";\n'
        '*Marrakesh*, "Phase 2: Claim" and "Phase 3: Use"; *Marrakesh* (expansion 4).\n'
        "*Walls & Guards* alone, or Walls & Guards without asterisks, cite no section.\n"
    )
    assert citations(text) == {
        ("Walls & Guards", "Battle at the Wall"),
        ("Gems & Experts", "Alms"),
        ("Walls & Guards", "Chess"),
        ("Marrakesh", "Phase 2: Claim"),
        ("Marrakesh", "Phase 3: Use"),
        ("Marrakesh", "Expansion 4"),
    }
    entries = {"Expansion 4: Spectators": "`a.py`", "Chess": "`b.py`"}
    assert listed(entries, "Expansion 4") == "`a.py`" and listed(entries, "Expansion 1") is None
