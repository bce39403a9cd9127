"""Pictures of simulated sequences: how many pieces sit inside the tower, throw by throw."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tower.files.outputs import save_figure
from tower.traces import TraceSequence


def inside_counts(seq: TraceSequence) -> list[int]:
    """Pieces inside after each throw of a sequence."""
    return [len(t.inside) for t in seq.throws]


def plot_inside(
    sequences: Sequence[TraceSequence], path: str | Path, *, title: str | None = None,
    force: bool = False,
) -> Path:  # fmt: skip
    """Plot pieces inside over the throws: one thin line per tower and their mean.

    Parameters
    ----------
    sequences : sequence of TraceSequence
        Towers to draw; they may differ in length.
    path : path
        PNG to write (atomically, :func:`tower.files.outputs.save_figure`).
    title : str, optional
        Title instead of the source and the pieces a throw.
    force : bool
        Replace an existing file.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = [inside_counts(s) for s in sequences]
    if not counts or not any(counts):
        raise ValueError("no throws to plot")
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    for c in counts:
        ax.plot(range(1, len(c) + 1), c, color="tab:blue", alpha=0.25, lw=0.8)
    longest = max(len(c) for c in counts)
    mean = [np.mean([c[i] for c in counts if len(c) > i]) for i in range(longest)]
    ax.plot(range(1, longest + 1), mean, color="tab:red", lw=2, label=f"mean of {len(counts)}")
    thrown = {len(t.thrown) for s in sequences for t in s.throws}
    per = f"{thrown.pop()} pieces a throw" if len(thrown) == 1 else "pieces a throw vary"
    ax.set_xlabel("throw")
    ax.set_ylabel("pieces inside after the throw")
    ax.set_title(title or f"{sequences[0].source}: pieces inside, {per}")
    ax.set_xlim(1, longest)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return save_figure(fig, path, force=force)
