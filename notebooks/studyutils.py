"""Small helpers shared by the study notebooks: the model they study, tables, figure style.

The notebooks run with ``notebooks/`` as working directory, so ``import studyutils``
finds this file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The cached physics traces (see make_data.py).
DATA = Path(__file__).resolve().parent / "data"


def distilled_model(model_file: str | None = None) -> Any:
    """The distilled model a study uses: ``model_file``, else the shipped ``marrakesh``."""
    from tower.model import load_model, load_shipped

    return load_model(model_file) if model_file else load_shipped("marrakesh")


def style() -> None:
    """Small PNG figures (inline, 80 dpi) so that stored notebooks stay small."""
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "figure.dpi": 80,
            "savefig.dpi": 80,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "font.size": 9,
            "legend.fontsize": 8,
        }
    )


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], digits: int = 2) -> str:
    """A plain-text table; floats rounded to ``digits``.

    >>> print(table([["a", 1.234]], ["name", "x"]))
    name  x
    ----  ----
    a     1.23
    """

    def cell(v: Any) -> str:
        return f"{v:.{digits}f}" if isinstance(v, float) else str(v)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)
