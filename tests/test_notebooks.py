"""The study notebooks: stored with their outputs, and they still run and say the same.

Each committed notebook is executed afresh (nbclient, working directory ``notebooks/``, as
``pytest --nbmake notebooks`` would) and must run without error. Its last code cell prints
the numbers its written conclusions rest on; a fresh run must print the stored text, every
number equal up to one unit of its last printed digit (floating-point noise between
machines may flip a rounding), so the conclusions cannot drift from what the code computes.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
NAMES = ("retention", "calibration", "tower_luck", "battle", "digital_play", "experts")


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def _last_code(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return [c for c in nb.cells if c.cell_type == "code"][-1]


NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def same_numbers(a: str, b: str) -> bool:
    """Equal texts, except that numbers may differ by one unit of their last digit.

    >>> same_numbers("p 0.125, n 12", "p 0.126, n 12"), same_numbers("n 12", "n 14")
    (True, False)
    """
    if NUMBER.split(a) != NUMBER.split(b):
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True):
        digits = max(len(t.partition(".")[2]) for t in (x, y))
        if abs(float(x) - float(y)) > 1.01 * 10.0**-digits:
            return False
    return True


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_and_matches_its_stored_conclusions(name: str) -> None:
    path = NOTEBOOKS / f"{name}.ipynb"
    stored = nbformat.read(path, as_version=4)
    assert path.stat().st_size < 1_000_000, f"{path.name} is {path.stat().st_size} bytes"
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), f"{name}: stored unexecuted"
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    # ends with: "## Conclusions" (markdown), the numbers (code), the words (markdown)
    assert [c.cell_type for c in stored.cells[-3:]] == ["markdown", "code", "markdown"]
    assert stored.cells[-3].source.startswith("## Conclusions")
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(
        fresh, timeout=600, kernel_name="python3", resources={"metadata": {"path": NOTEBOOKS}}
    ).execute()
    numbers = _text(_last_code(fresh))
    assert numbers.strip(), f"{name}: the conclusions cell printed nothing"
    stored_numbers = _text(_last_code(stored))
    assert same_numbers(numbers, stored_numbers), (
        f"{name}: the conclusions' numbers changed:\n{numbers}\nstored:\n{stored_numbers}"
    )
