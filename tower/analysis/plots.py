"""Plots of retention statistics (matplotlib, Agg backend, PNG files).

- :func:`plot_retention`: the five retention statistics, for several throw sizes and
  optionally several sources (physics, distilled model, baseline) on the same axes.
- :func:`plot_statistics`: per-sequence statistics of two or more samples, as
  overlaid histograms, one panel per statistic (the picture of a validation).
- :func:`plot_expert_comparison`: the z of each expert statistic, model against physics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

_STYLES = ("-", "--", ":", "-.")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> Path:
    """Lay out ``fig``, write it as a PNG to ``path`` (creating folders) and close it."""
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    _pyplot().close(fig)
    return path


def plot_retention(
    summaries: Mapping[str, Mapping[int, dict[str, Any]]], path: str | Path, title: str = ""
) -> Path:
    """Write a 2x3 panel figure of retention statistics.

    Parameters
    ----------
    summaries : {source label: {throw size: summary}}
        Summaries from :func:`tower.analysis.retention.summarize`.
    path : path of the PNG to write.
    """
    plt = _pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    sizes = sorted({n for per in summaries.values() for n in per})
    colours = {n: f"C{i}" for i, n in enumerate(sizes)}
    ax_in, ax_out, ax_hist, ax_stay, ax_fresh, ax_colour = axes.ravel()
    for si, (label, per) in enumerate(summaries.items()):
        ls = _STYLES[si % len(_STYLES)]
        for n, s in sorted(per.items()):
            tag = f"{label}, {n}" if len(summaries) > 1 else f"throws of {n}"
            x = np.arange(1, len(s["inside_by_throw"]) + 1)
            ax_in.plot(x, s["inside_by_throw"], ls, color=colours[n], label=tag)
            ax_out.plot(x, s["out_by_throw"], ls, color=colours[n], label=tag)
            ks = np.array([int(k) for k in s["out_hist"]])
            vs = np.array(list(s["out_hist"].values()), dtype=float)
            ax_hist.step(ks, vs / vs.sum(), ls, where="mid", color=colours[n], label=tag)
            stay = s["stay_share"]
            keys = [k for k in stay if k != "censored" and int(k) <= 8]
            ax_stay.plot(
                [int(k) for k in keys],
                [stay[k] for k in keys],
                ls + "o",
                color=colours[n],
                ms=3,
                label=tag,
            )
        width = 0.8 / len(summaries)
        xs = np.arange(len(sizes))
        ax_fresh.bar(
            xs + si * width,
            [per[n]["fresh_share"] if n in per else 0 for n in sizes],
            width,
            label=label,
        )
        ax_colour.bar(
            xs + si * width,
            [per[n]["colour_hit"] if n in per else 0 for n in sizes],
            width,
            label=label,
        )
    ax_in.set(title="pieces inside after each throw (mean)", xlabel="throw", ylabel="pieces")
    ax_out.set(title="pieces out per throw (mean)", xlabel="throw", ylabel="pieces")
    ax_hist.set(
        title="pieces out per throw (second half)", xlabel="pieces out", ylabel="share of throws"
    )
    ax_stay.set(
        title="throws a piece stays inside (first-half pieces)",
        xlabel="throws inside",
        ylabel="share",
        yscale="log",
    )
    for ax, what in (
        (ax_fresh, "fresh share among pieces out"),
        (ax_colour, "chance a thrown colour comes out at once"),
    ):
        ax.set(
            title=what,
            xticks=xs + 0.4 - width / 2,
            xticklabels=[str(n) for n in sizes],
            xlabel="pieces per throw",
            ylim=(0, 1),
        )
    for ax in axes.ravel():
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    return _save(fig, path)


def plot_statistics(
    samples: Mapping[str, Mapping[str, Sequence[float]]],
    path: str | Path,
    notes: Mapping[str, str] | None = None,
) -> Path:
    """Overlaid histograms of per-sequence statistics.

    Parameters
    ----------
    samples : {sample label: {statistic: values}}
        The first sample is drawn filled, the others as outlines.
    notes : {statistic: text}, optional
        Shown in each panel's title (e.g. test p-values).
    """
    plt = _pyplot()
    names = list(next(iter(samples.values())))
    cols = 4
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, name in zip(axes.ravel(), names, strict=False):
        pooled = np.concatenate([np.asarray(s[name], dtype=float) for s in samples.values()])
        lo, hi = np.percentile(pooled, [0.5, 99.5])
        discrete = np.allclose(pooled, np.round(pooled)) and hi - lo <= 40
        bins = np.arange(lo - 0.5, hi + 1.5) if discrete else np.linspace(lo, hi, 30)
        for i, (label, s) in enumerate(samples.items()):
            ax.hist(
                np.clip(s[name], bins[0], bins[-1]),
                bins=bins,
                density=True,
                histtype="stepfilled" if i == 0 else "step",
                alpha=0.35 if i == 0 else 1.0,
                lw=1.5,
                label=label,
            )
        ax.set_title(name + (f"\n{notes[name]}" if notes and name in notes else ""), fontsize=9)
        ax.legend(fontsize=7)
    for ax in axes.ravel()[len(names) :]:
        ax.axis("off")
    return _save(fig, path)


def plot_expert_comparison(cmp: Any, path: str | Path, title: str = "") -> Path:
    """The z of every expert statistic, model against physics, with the ``|z| = 2`` band
    and the verdict's limit (an :class:`~tower.analysis.experts.ExpertComparison`)."""
    plt = _pyplot()
    rows = list(cmp.rows)
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.5))
    y = np.arange(len(rows))[::-1]
    z = np.array([np.clip(r.z, -9, 9) for r in rows])
    colours = [
        "lightgray" if not r.tested else ("tab:red" if abs(r.z) > cmp.z_limit else "tab:blue")
        for r in rows
    ]
    ax.barh(y, z, color=colours)
    ax.axvspan(-2, 2, color="tab:green", alpha=0.12, label="|z| <= 2")
    for side in (-1, 1):
        ax.axvline(side * cmp.z_limit, color="tab:red", ls="--", lw=1)
    ax.plot([], [], color="tab:red", ls="--", label=f"limit {cmp.z_limit:.2f} (Bonferroni)")
    ax.set_yticks(y, [r.name for r in rows], fontsize=8)
    ax.set_xlabel("z = (physics - model) / combined SE   (grey: too few to test)")
    ax.set_title(f"{title}\n{cmp.verdict}" if title else cmp.verdict, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    return _save(fig, path)
