"""The README is a front door that stays true.

Every link in README.md names a file or folder of the repository, and every ``#anchor`` a
heading of its page: nothing points outside the repository, where a clone has nothing. The
pages of ``docs/`` it leads to may cite web addresses, but their links into the repository
resolve too. The README's figures about what the tower does agree
with the numbers the notebooks print in their stored outputs (``notebooks/*.ipynb``, which
``tests/test_notebooks.py`` keeps current), up to the rounding of either side. The README
stays short.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
NOTEBOOKS = ROOT / "notebooks"

#: ``[text](target)`` and ``![alt](target)``; the text may span lines.
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def links(text: str) -> list[str]:
    """The targets of the Markdown links in ``text``, outside code blocks.

    >>> links("see [a](b.md) and ![c\\nd](img/e.png)\\n```\\n[x](y)\\n```")
    ['b.md', 'img/e.png']
    """
    return LINK.findall(FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'.

    >>> slug("Agents, terminal play and adapters"), slug("The `queen-classic` tower")
    ('agents-terminal-play-and-adapters', 'the-queen-classic-tower')
    """
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m) for m in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}


def broken(page: Path, target: str) -> str | None:
    """Why ``target``, linked from ``page``, does not resolve in the repository (or None)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return "leaves the repository"
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.is_relative_to(ROOT):
        return "leaves the repository"
    if file.is_relative_to(ROOT / "out") or file.is_relative_to(ROOT / ".venv"):
        return "points into generated output"
    if not file.exists():
        return "no such file"
    if anchor and (file.suffix != ".md" or anchor not in anchors(file)):
        return f"no heading #{anchor} in {file.relative_to(ROOT)}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(page: Path) -> None:
    targets = links(page.read_text(encoding="utf-8"))
    if page != README:  # a reference page may cite the web; the front door does not
        targets = [t for t in targets if not re.match(r"https?://", t)]
    bad = [f"{t}: {why}" for t in targets if (why := broken(page, t))]
    assert not bad, f"{page.relative_to(ROOT)}: " + "; ".join(bad)
    if page == README:
        assert len(targets) >= 20  # the contents, the quick start's and the documentation's


def test_the_link_check_catches_what_a_clone_lacks(tmp_path: Path) -> None:
    assert broken(README, "../shared/TOWER_FACTS.md") == "leaves the repository"
    assert broken(README, "https://example.org/") == "leaves the repository"
    assert broken(README, "docs/no-such-page.md") == "no such file"
    assert broken(README, "#no-such-heading") == "no heading #no-such-heading in README.md"
    assert broken(README, "docs/validation.md#the-javascript-port") is None


def test_readme_is_short_and_has_its_front_door() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    heads = anchors(README)
    assert {"contents", "install", "quick-start", "the-page"} <= heads
    contents = text[text.index("## Contents") : text.index("## Install")]
    for anchor in links(contents):  # the table of contents lists every section
        assert anchor.startswith("#")
    assert {a[1:] for a in links(contents)} == {
        slug(h) for h in re.findall(r"^## (.+)$", text, re.MULTILINE)
    } - {"contents"}
    assert "make demo" in text and "make test" in text
    for command in ("tower throw", "tower stats", "tower battle", "tower play", "tower calibrate"):
        assert f"{command}" in text[text.index("## Quick start") : text.index("## The page")]
    assert not re.search(r"\bstops? \d", text, re.IGNORECASE)  # no work history


# --- the figures against the notebooks -----------------------------------------------


def notebook(name: str) -> str:
    """A notebook's stored text: every printed output and every markdown cell."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            parts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append("".join(out["text"]))
    return " ".join(" ".join(parts).split())


def readme() -> str:
    return " ".join(README.read_text(encoding="utf-8").split())


def found(pattern: str, text: str, where: str) -> tuple[str, ...]:
    m = re.search(pattern, text)
    assert m, f"{where}: no match for {pattern!r}"
    return m.groups()


def unit(number: str) -> float:
    """Half a unit of the last printed digit: how far rounding may have moved it."""
    return 0.5 * 10.0 ** -len(number.partition(".")[2])


def agree(written: str, printed: str, scale: float = 1.0) -> bool:
    """The README's ``written`` and the notebook's ``printed`` (times ``scale``) are one number
    rounded twice.

    >>> agree("53", "0.53", 100), agree("52", "0.53", 100), agree("6.6", "6.65")
    (True, False, True)
    >>> agree("0.6", "0.62"), agree("0.5", "0.62"), agree("80", "0.805", 100)
    (True, False, True)
    """
    # some true value rounds to both: strictly within the sum of the two half-units
    tolerance = unit(written) + unit(printed) * scale - 1e-9
    return abs(float(written) - float(printed) * scale) < tolerance


#: (README pattern, notebook, notebook pattern, scale): one number each side.
FIGURES: list[tuple[str, str, str, float]] = [
    (r"\(physics ([\d.]+), distilled model", "retention",
     r"marrakesh physics: equilibrium ([\d.]+) inside", 1),
    (r"distilled model ([\d.]+); the two-chance", "retention",
     r"marrakesh distilled: equilibrium ([\d.]+) inside", 1),
    (r"baseline rule, ([\d.]+)\)", "retention",
     r"marrakesh baseline: equilibrium ([\d.]+) inside", 1),
    (r"90 % by the (\d+)th throw", "retention",
     r"marrakesh physics: equilibrium [\d.]+ inside, 90% by throw (\d+)", 1),
    (r"(\d+) % of keshis come out in the throw they are thrown", "retention",
     r"marrakesh physics: .*? out at once ([\d.]+)", 100),
    (r"(\d+) % later, and a", "retention", r"marrakesh physics: .*? later ([\d.]+)", 100),
    (r"thrown colour comes out at once (\d+) %", "retention",
     r"marrakesh physics: .*? colour out same throw ([\d.]+)", 100),
    (r"holds about 15 to 16 \(physics ([\d.]+)\)", "retention",
     r"queen-classic physics: equilibrium ([\d.]+) inside", 1),
    (r"distilled tower offers ([\d.]+) keshis a round", "tower_luck",
     r"distilled: available per round ([\d.]+)", 1),
    (r"keshis a round \(sd ([\d.]+);", "tower_luck",
     r"distilled: available per round [\d.]+ \(sd ([\d.]+)\)", 1),
    (r"fewer than the 12 thrown in (\d+) % of rounds", "tower_luck",
     r"distilled: available per round .*? P\(fewer than 12\) ([\d.]+)", 100),
    (r"no red one in (\d+) % of rounds", "tower_luck",
     r"distilled: available per round .*? P\(no red\) ([\d.]+)", 100),
    (r"in \d+ of the (\d+) greedy-agent setups", "tower_luck", r"few games: (\d+) setups", 1),
    (r"in \d+ of (\d+) random-agent setups", "tower_luck", r"in \d+ of the (\d+) setups", 1),
    (r"Valuing a breach at ([\d.]+) points", "battle", r"a breach costs about ([\d.]+) points", 1),
    (r"and a resource at ([\d.]+),", "battle", r"a resource ([\d.]+) points", 1),
]  # fmt: skip


@pytest.mark.parametrize("figure", FIGURES, ids=[f[0][:40] for f in FIGURES])
def test_readme_figure_agrees_with_its_notebook(figure: tuple[str, str, str, float]) -> None:
    ours, name, theirs, scale = figure
    (written,) = found(ours, readme(), "README.md")
    (printed,) = found(theirs, notebook(name), f"{name}.ipynb")
    assert agree(written, printed, scale), (
        f"README.md says {written} where {name}.ipynb prints {printed} (x{scale})"
    )


@pytest.mark.parametrize("agents", ["greedy", "random"])
def test_readme_winner_changes_agree_with_tower_luck(agents: str) -> None:
    part, whole = found(rf"in (\d+) of (?:the )?(\d+) {agents}-agent setups", readme(), "")
    (printed,) = found(
        rf"{agents}\s+distilled: .*? winner changes in (\d+)% of setups",
        notebook("tower_luck"),
        "tower_luck.ipynb",
    )
    share = 100 * int(part) / int(whole)
    assert abs(share - float(printed)) <= 0.5 + 1e-9, (
        f"README.md: {part} of {whole} {agents} setups; tower_luck.ipynb prints {printed}%"
    )


def test_readme_battle_advice_agrees_with_the_notebook() -> None:
    text = notebook("battle")
    advised = found(r"advises (\d), (\d), (\d) and (\d) watchmen by battle position", readme(), "")
    table = found(
        r"position season 1 season 2 season 3 -+ -+ -+ -+ "
        r"1st \(tracker\) (\d) (\d) (\d) 2nd (\d) (\d) (\d) 3rd (\d) (\d) (\d) 4th (\d) (\d) (\d)",
        text,
        "battle.ipynb",
    )
    by_position = [table[i : i + 3] for i in range(0, 12, 3)]
    assert all(len(set(seasons)) == 1 for seasons in by_position)  # "in every season"
    assert list(advised) == [seasons[0] for seasons in by_position]
    # "the third and fourth players gain LOW to HIGH points with each watchman they hire"
    low, high = found(r"third and fourth players gain ([\d.]+) to ([\d.]+) points", readme(), "")
    gains = [
        m.group(1)
        for m in re.finditer(r"\d (?:3rd|4th) \d ([-\d.]+) [\d.]+ \d [-\d.]+ (?:hire|no)", text)
    ]
    assert len(gains) == 18  # 3 seasons x 2 positions x 3 watchmen
    assert agree(low, min(gains, key=float)) and agree(high, max(gains, key=float)), (
        f"README.md: {low} to {high}; battle.ipynb: {min(gains, key=float)} to "
        f"{max(gains, key=float)}"
    )


def test_readme_counts_the_notebooks() -> None:
    (count,) = found(r"(\w+) notebooks in `notebooks/`", readme(), "README.md")
    words = {"Five": 5, "Six": 6, "Seven": 7, "Eight": 8}
    assert words[count] == len(list(NOTEBOOKS.glob("*.ipynb")))
