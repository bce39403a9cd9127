"""Goodness of fit on held-out throws: tests, distances, plots, and the Markdown report.

The calibrated simulator replays every session in full at parameter values drawn from the
posterior (posterior predictive replicates); only the held-out tail of each session is
compared with the data, on four aspects:

- **pieces out per throw, by the number put in**: Wasserstein-1 distance between the data's
  distribution and the pooled replicates'; its p-value compares it with each replicate's
  own distance to the pool of the others;
- **pieces inside over time** (when the session started empty, so it is known): data
  against the replicates' 5-95% band; statistic: mean inside over the held-out throws;
- **share of pieces out that were just thrown** (vs old), as bounded from the colours;
- **colour mixing**: mean total-variation distance between the colours out and in.

For the last three a two-sided posterior predictive p-value: ``2 min(P(T_rep <= T_obs),
P(T_rep >= T_obs))`` with the usual ``(count + 1) / (K + 1)`` correction. Small p (say
below 0.05) flags an aspect the calibrated simulator does not reproduce.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import wasserstein_distance

from tower.calibration.fit import FitResult
from tower.calibration.recording import Recording, Session, atomic_write_text
from tower.calibration.summaries import SessionSeries, session_series

if TYPE_CHECKING:
    from tower.calibration.bankfit import BankFit


@dataclass(frozen=True)
class Check:
    """One goodness-of-fit comparison."""

    name: str
    observed: float
    predicted: tuple[float, float, float]  # 5%, 50%, 95% of the replicates
    p_value: float
    distance: float | None = None
    note: str = ""

    def row(self) -> str:
        lo, mid, hi = self.predicted
        dist = "" if self.distance is None else f"{self.distance:.3f}"
        flag = " **poor**" if self.p_value < 0.05 else ""
        return (
            f"| {self.name} | {self.observed:.3f} | {mid:.3f} [{lo:.3f}, {hi:.3f}] | {dist} "
            f"| {self.p_value:.3f}{flag} |"
        )


def holdout_series(sessions: Sequence[Session], n_train: Sequence[int]) -> list[SessionSeries]:
    """Per-session series of the held-out tails (inferred from the whole session)."""
    return [
        session_series(s).tail(n)
        for s, n in zip(sessions, n_train, strict=True)
        if len(s.throws) > n
    ]


def _two_sided(observed: float, reps: np.ndarray) -> float:
    k = len(reps)
    below = (np.sum(reps <= observed) + 1) / (k + 1)
    above = (np.sum(reps >= observed) + 1) / (k + 1)
    return float(min(1.0, 2 * min(below, above)))


def _quantiles(reps: np.ndarray) -> tuple[float, float, float]:
    q = np.quantile(reps, [0.05, 0.5, 0.95])
    return float(q[0]), float(q[1]), float(q[2])


def _pooled(series: list[SessionSeries], attr: str) -> np.ndarray:
    return np.concatenate([getattr(s, attr) for s in series]) if series else np.zeros(0)


def _fresh(series: list[SessionSeries]) -> float:
    out = max(float(_pooled(series, "n_out").sum()), 1.0)
    return float(
        (_pooled(series, "fresh_lo").sum() + _pooled(series, "fresh_hi").sum()) / (2 * out)
    )


def _mix(series: list[SessionSeries]) -> float:
    m = _pooled(series, "mix")
    return float(np.nanmean(m)) if np.isfinite(m).any() else 0.0


def checks(data: list[SessionSeries], reps: list[list[SessionSeries]]) -> list[Check]:
    """The goodness-of-fit checks of held-out data against predictive replicates."""
    out: list[Check] = []
    n_in = _pooled(data, "n_in")
    for n in sorted(set(n_in.astype(int).tolist())):
        obs = _pooled(data, "n_out")[n_in == n]
        rep_outs = [_pooled(r, "n_out")[_pooled(r, "n_in") == n] for r in reps]
        pool = np.concatenate(rep_outs)
        d_obs = wasserstein_distance(obs, pool)
        d_reps = np.array(
            [
                wasserstein_distance(x, np.concatenate(rep_outs[:i] + rep_outs[i + 1 :]))
                for i, x in enumerate(rep_outs)
            ]
        )
        p = float((np.sum(d_reps >= d_obs) + 1) / (len(d_reps) + 1))
        means = np.array([x.mean() for x in rep_outs])
        out.append(
            Check(f"mean out per throw, {n} in", float(obs.mean()), _quantiles(means), p, d_obs,
                  "distance: Wasserstein-1 between out-count distributions; p from the distance")
        )  # fmt: skip
    if data and all(s.exact_inside for s in data):
        t_obs = float(_pooled(data, "inside").mean())
        t_reps = np.array([_pooled(r, "inside").mean() for r in reps])
        med = np.median(np.stack([_pooled(r, "inside") for r in reps]), axis=0)
        dist = float(np.mean(np.abs(_pooled(data, "inside") - med)))
        out.append(
            Check("mean pieces inside", t_obs, _quantiles(t_reps), _two_sided(t_obs, t_reps), dist,
                  "distance: mean |inside - predictive median| per throw")
        )  # fmt: skip
    t_obs = _fresh(data)
    t_reps = np.array([_fresh(r) for r in reps])
    out.append(
        Check("share of out just thrown", t_obs, _quantiles(t_reps), _two_sided(t_obs, t_reps))
    )
    t_obs = _mix(data)
    t_reps = np.array([_mix(r) for r in reps])
    out.append(
        Check("colour mixing (TV out vs in)", t_obs, _quantiles(t_reps), _two_sided(t_obs, t_reps))
    )
    return out


# ---------------------------------------------------------------- plots


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_out_by_n(path: Path, data: list[SessionSeries], reps: list[list[SessionSeries]]) -> None:
    plt = _plt()
    n_in = _pooled(data, "n_in")
    sizes = sorted(set(n_in.astype(int).tolist()))
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 3.4), squeeze=False)
    for ax, n in zip(axes[0], sizes, strict=True):
        obs = _pooled(data, "n_out")[n_in == n]
        pool = np.concatenate([_pooled(r, "n_out")[_pooled(r, "n_in") == n] for r in reps])
        top = int(max(obs.max(initial=0), pool.max(initial=0)))
        bins = np.arange(top + 2) - 0.5
        ax.hist(pool, bins=bins, density=True, alpha=0.5, label="calibrated simulator")
        ax.hist(
            obs, bins=bins, density=True, histtype="step", lw=2, color="k", label="held-out data"
        )
        ax.set_title(f"{n} pieces in")
        ax.set_xlabel("pieces out per throw")
    axes[0][0].set_ylabel("share of throws")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_inside(
    path: Path,
    sessions: Sequence[Session],
    n_train: Sequence[int],
    reps_full: list[list[Session]],
) -> None:
    plt = _plt()
    shown = [i for i, s in enumerate(sessions) if s.start == "empty"][:4]
    fig, axes = plt.subplots(len(shown), 1, figsize=(8, 2.8 * len(shown)), squeeze=False)
    for ax, i in zip(axes[:, 0], shown, strict=True):
        data = session_series(sessions[i]).inside
        band = np.stack([session_series(r[i]).inside for r in reps_full])
        x = np.arange(1, len(data) + 1)
        lo, med, hi = np.quantile(band, [0.05, 0.5, 0.95], axis=0)
        ax.fill_between(x, lo, hi, alpha=0.3, label="simulator 5-95%")
        ax.plot(x, med, lw=1, label="simulator median")
        ax.plot(x, data, color="k", lw=1.5, label="data")
        ax.axvspan(n_train[i] + 0.5, len(data) + 0.5, color="orange", alpha=0.12, label="held out")
        ax.set_title(f"session {sessions[i].name}")
        ax.set_ylabel("pieces inside")
    axes[-1][0].set_xlabel("throw")
    axes[0][0].legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_statistic(
    path: Path, title: str, obs: float, reps: np.ndarray, bounds: tuple | None
) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.hist(reps, bins=15, alpha=0.6, label="calibrated simulator (replicates)")
    ax.axvline(obs, color="k", lw=2, label="held-out data")
    if bounds is not None:
        ax.axvspan(*bounds, color="k", alpha=0.12, label="data: bounds from colours")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_posterior(path: Path, result: FitResult | BankFit, truth: dict[str, float]) -> None:
    plt = _plt()
    d = len(result.parameters)
    cols = min(4, d)
    rows = -(-d // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 2.4 * rows), squeeze=False)
    for j, (p, f) in enumerate(zip(result.parameters, result.fits, strict=True)):
        ax = axes[j // cols][j % cols]
        ax.hist(result.samples[:, j], bins=30, range=(p.low, p.high), density=True, alpha=0.6)
        ax.axhline(1 / (p.high - p.low), color="gray", ls=":", label="prior")
        ax.axvspan(f.low, f.high, color="C0", alpha=0.1)
        if p.name in truth:
            ax.axvline(truth[p.name], color="r", lw=1.5, label="truth")
        ax.set_title(p.name + ("" if f.identifiable else " (n.i.)"), fontsize=8)
        ax.tick_params(labelsize=7)
    for j in range(d, rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


# ---------------------------------------------------------------- the report


def _digits(values: Sequence[float]) -> str:
    """A format with enough significant digits (3 to 6) that values which differ print
    differently: an interval that misses its truth must not read "12 [12, 12] ... 12 NO".

    >>> _digits([12.0, 11.98, 12.004, 12.01])
    '.5g'
    """
    for n in range(3, 7):
        shown = {f"{v:.{n}g}" for v in values}
        if len(shown) == len(set(values)):
            return f".{n}g"
    return ".6g"


def headline(
    result: FitResult | BankFit,
    truth_keys: dict[str, float] | None = None,
    truth: dict[str, float] | None = None,
) -> list[str]:
    """Markdown: the tower's behaviour before and after the recording, and what it pins down.

    The headline of ``report.md`` and of what ``tower calibrate`` prints.
    """
    from tower.calibration.behaviour import meaning
    from tower.calibration.directions import PINNED_RATIO

    lines = [
        "## What your tower does: before and after the recording",
        "",
        f"Expected values of the key tower statistics {result.key_scope}: 90% "
        "interval under the prior (any plausible tower that does not clog) and under the "
        "posterior. *Narrowing* is the posterior interval's width over the prior's.",
        "",
        "| statistic | prior 90% | calibrated: median [90%] | narrowing |"
        + (" truth | inside? |" if truth_keys else ""),
        "|---|---|---|---|" + ("---|---|" if truth_keys else ""),
    ]
    for p in result.predictive(truth_keys):
        f = _digits([*p.posterior, *([] if p.truth is None else [p.truth])])
        row = (
            f"| {meaning(p.name)} | [{p.prior[0]:.3g}, {p.prior[2]:.3g}] | "
            f"{p.posterior[1]:{f}} [{p.posterior[0]:{f}}, {p.posterior[2]:{f}}] | "
            f"{p.narrowing:.2f} |"
        )
        if truth_keys:
            row += f" {p.truth:{f}} | {'yes' if p.covers_truth else 'NO'} |"
        lines.append(row)
    directions = result.directions(truth)
    shown = [d for d in directions if d.width_ratio < 0.8][:6] or directions[:3]
    lines += [
        "",
        "## What the recording pins down",
        "",
        "The posterior's best-constrained directions in parameter space (principal directions "
        "in prior-scaled units: each parameter centred and divided by its prior standard "
        f"deviation). A direction whose 90% interval is under {PINNED_RATIO:g} of the prior's "
        "is pinned down.",
        "",
        "| # | direction | 90% interval | prior 90% | width / prior |"
        + (" truth | inside? |" if truth else ""),
        "|---|---|---|---|---|" + ("---|---|" if truth else ""),
    ]
    for i, d in enumerate(shown, start=1):
        row = (
            f"| {i} | {d.words()} | [{d.posterior[0]:.2f}, {d.posterior[2]:.2f}] | "
            f"[{d.prior[0]:.2f}, {d.prior[1]:.2f}] | {d.width_ratio:.2f}"
            + (" **pinned**" if d.pinned else "")
            + " |"
        )
        if truth and d.truth is not None:
            row += f" {d.truth:.2f} | {'yes' if d.covers_truth else 'NO'} |"
        lines.append(row)
    pinned = sum(d.pinned for d in directions)
    lines += ["", f"{pinned} of {len(directions)} directions pinned down.", ""]
    return lines


def write_report(
    out_dir: Path,
    *,
    recording_path: Path,
    recording: Recording,
    result: FitResult | BankFit,
    n_train: Sequence[int],
    reps_full: list[list[Session]],
    truth: dict[str, float],
    settings: dict[str, Any],
    truth_keys: dict[str, float] | None = None,
    model_sims: int = 0,
) -> list[Check]:
    """Write ``report.md`` and its PNGs into ``out_dir``; return the checks."""
    sessions = recording.sessions
    data = holdout_series(sessions, n_train)
    reps = [holdout_series(r, n_train) for r in reps_full]
    found = checks(data, reps) if data and reps else []
    if data and reps:
        plot_out_by_n(out_dir / "out_by_n.png", data, reps)
        if any(s.start == "empty" for s in sessions):
            plot_inside(out_dir / "inside_over_time.png", sessions, n_train, reps_full)
        lo = float(_pooled(data, "fresh_lo").sum() / max(_pooled(data, "n_out").sum(), 1))
        hi = float(_pooled(data, "fresh_hi").sum() / max(_pooled(data, "n_out").sum(), 1))
        plot_statistic(out_dir / "fresh_old.png", "share of pieces out just thrown",
                       _fresh(data), np.array([_fresh(r) for r in reps]), (lo, hi))  # fmt: skip
        plot_statistic(out_dir / "colour_mixing.png", "colour mixing (TV distance out vs in)",
                       _mix(data), np.array([_mix(r) for r in reps]), None)  # fmt: skip
    plot_posterior(out_dir / "posterior.png", result, truth)

    stages = result.info.get("seconds_by_stage") or {}
    spent = ", ".join(f"{k} {v:.0f} s" for k, v in stages.items())
    timing = [f"- time by stage: {spent}"] if stages else []
    lines = [
        f"# Calibration report: `{recording_path.name}`",
        "",
        f"- recording: {len(sessions)} session(s), {recording.n_throws} throws"
        + (" — **synthetic** (true parameters known)" if recording.synthetic else ""),
        f"- fitted on the first {sum(n_train)} throws; held out: "
        f"{recording.n_throws - sum(n_train)} throws (the tail of each session)",
        *[f"- {k}: {v}" for k, v in settings.items()],
        *timing,
        *result.method_lines(),
        "",
        *headline(result, truth_keys, truth),
        "## Parameters: posterior medians and 90% credible intervals",
        "",
        "| parameter | prior range | median | 90% interval | width / prior width | identifiable |"
        + (" truth | inside? |" if truth else ""),
        "|---|---|---|---|---|---|" + ("---|---|" if truth else ""),
    ]
    for f in result.fits:
        p = f.parameter
        row = (
            f"| `{p.name}` | [{p.low:g}, {p.high:g}] {p.unit} | {f.median:.4g} | "
            f"[{f.low:.4g}, {f.high:.4g}] | {f.width_ratio:.2f} | "
            f"{'yes' if f.identifiable else 'no'} |"
        )
        if truth:
            t = truth.get(p.name)
            row += (
                " — | — |"
                if t is None
                else f" {t:.4g} | {'yes' if f.low <= t <= f.high else 'NO'} |"
            )
        lines.append(row)
    bad = [f for f in result.fits if not f.identifiable]
    lines += ["", "![posterior](posterior.png)", "", "## Not identifiable", ""]
    if bad:
        lines.append(
            "A parameter is flagged when its 90% interval is wider than 0.8 of its prior's: the "
            "recording does not pin it down, and its fitted value is essentially the prior's."
        )
        lines.append("")
        lines += [f"- `{f.parameter.name}`: {f.reason()}." for f in bad]
    else:
        lines.append("Every fitted parameter is identifiable from this recording.")
    lines += ["", *result.diagnostic_lines()]
    lines += ["", "## Goodness of fit on the held-out throws", ""]
    if found:
        lines += [
            f"{len(reps_full)} posterior predictive replicates (each a full replay of every "
            "session at parameters drawn from the posterior), compared on the held-out throws.",
            "",
            "| check | data | simulator median [5%, 95%] | distance | p-value |",
            "|---|---|---|---|---|",
            *[c.row() for c in found],
            "",
            "Distances: Wasserstein-1 between out-count distributions; mean absolute difference "
            "from the predictive median for pieces inside. p-values below 0.05 are marked poor.",
            "",
            "![pieces out by number in](out_by_n.png)",
            "",
        ]
        if (out_dir / "inside_over_time.png").exists():
            lines += ["![pieces inside over time](inside_over_time.png)", ""]
        else:
            lines += ["Pieces inside cannot be inferred: no session started empty.", ""]
        lines += ["![fresh vs old](fresh_old.png)", "", "![colour mixing](colour_mixing.png)", ""]
    else:
        lines.append("No held-out throws (holdout 0): goodness of fit not assessed.")
    if not isinstance(result, FitResult):
        lines += ["", *_model_file_lines(result, model_sims)]
    atomic_write_text(out_dir / "report.md", "\n".join(lines) + "\n")
    return found


def _model_file_lines(result: BankFit, model_sims: int) -> list[str]:
    """How this calibration becomes a tower model file for the game, and how to check it."""
    preset = result.surrogate.provenance.get("bank", {}).get("preset", "marrakesh")
    check = [
        f"tower simulate --preset {preset} --params params.json --sequences 300 --throws 12 "
        "--seed 9001 --out held-out.jsonl",
        "tower validate-model model.json --traces held-out.jsonl --out validation",
    ]
    if model_sims:
        return [
            "## Your tower as a model file",
            "",
            f"`model.json` is your tower at the posterior medians (`params.json`), distilled "
            f"from {model_sims} physics sequences of 12 keshis and {model_sims} of Walls & "
            "Guards mixes. The engine, `tower battle`, the web page and the JavaScript port "
            "load it as they load the shipped model. Check it against fresh physics:",
            "",
            "```", *check, "```",
        ]  # fmt: skip
    return [
        "## Your tower as a model file",
        "",
        "`params.json` holds the posterior medians. `--model-sims N` distils `model.json` from "
        "N physics sequences of keshis and N of Walls & Guards mixes at those values "
        "(minutes per hundred sequences); by hand, with a check against fresh throws:",
        "",
        "```",
        f"tower distill --preset {preset} --params params.json --sims 2000 --mixed-sims 2000 "
        "--out model.json",
        *check,
        "```",
        "",
        "The learned likelihood cannot write the file itself: it knows the pieces out of each "
        "throw, not where the others lie inside, which a model file needs.",
    ]
