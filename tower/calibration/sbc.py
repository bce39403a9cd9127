"""Coverage of the bank engine on fresh physics recordings (simulation-based calibration).

``tower calibrate coverage --engine bank`` checks, rather than assumes, that the bank
engine's 90% intervals are honest. For each of K recordings:

1. a true ``theta`` is drawn from the prior (a scrambled Sobol design with its own seed,
   so no truth is a bank point), and the physics records ``throws`` throws of the
   protocol at it from an empty tower; a truth whose tower clogs or loses a piece is left
   out, as players report towers that let pieces through;
2. a second, independent physics sequence at the truth (``truth_throws`` throws) gives
   the true key statistics (the fitted recording is not used for them: that would favour
   the posterior);
3. the bank engine fits the recording (:func:`tower.calibration.bankfit.fit_bank`).

Counted separately: parameters, pinned directions (90% width under half the prior's) and
key statistics whose 90% interval holds the truth; and each parameter's rank of the truth
among the posterior draws, whose histogram is flat for a calibrated posterior (Talts et
al. 2018). Both stages are resumable result files in the output folder
(``recordings.jsonl``, ``fits.jsonl``), on local processes or a Dask cluster.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tower.calibration.bank import BankSettings, design, point_task, simulate_point
from tower.files.outputs import run_header

#: Posterior draws the truth is ranked among (rank histograms have RANK_BINS bins).
RANK_DRAWS, RANK_BINS = 99, 10


@dataclass(frozen=True)
class CoverageSettings:
    """What determines every recording of a coverage run."""

    recordings: int = 100
    throws: int = 200
    truth_throws: int = 100
    group: int = 1  # colours per throw: 1 is protocol one-colour
    seed: int = 7001
    preset: str = "marrakesh"

    def recording_settings(self) -> dict[str, Any]:
        """The recordings file's run header: what makes each recording. Not how many (more
        extend the same file, as a bank grows) nor the colours (painted on at the fit)."""
        return {k: v for k, v in asdict(self).items() if k not in ("recordings", "group")}


def _bank_settings(s: CoverageSettings, throws: int) -> BankSettings:
    return BankSettings(preset=s.preset, points=s.recordings, throws=throws, design_seed=s.seed)


def recording_point(task: dict[str, Any]) -> dict[str, Any]:
    """The recording at one truth and the independent replay there (module level: pickles)."""
    rec = simulate_point(task["recording"])
    rep = simulate_point(task["replay"]) if rec["status"] == "ok" else None
    return {
        "key": task["recording"]["key"],
        "theta": rec["theta"],
        "status": rec["status"]
        if rep is None or rep["status"] == "ok"
        else "replay-" + rep["status"],
        "rethrows": rec["rethrows"] + (rep["rethrows"] if rep else 0),
        "ages": rec["ages"],
        "replay_ages": rep["ages"] if rep else [],
    }


def recording_tasks(s: CoverageSettings) -> list[dict[str, Any]]:
    rec, rep = _bank_settings(s, s.throws), _bank_settings(s, s.truth_throws)
    u = design(rec, 0, s.recordings)
    tasks = []
    for i in range(s.recordings):
        a = point_task(rec, i, u[i])
        b = {**point_task(rep, i, u[i]), "seed": a["seed"] + 1}
        tasks.append({"recording": a, "replay": b})
    return tasks


@functools.lru_cache(maxsize=2)
def _surrogate(path: str) -> Any:
    from tower.calibration.surrogate import load_surrogate

    return load_surrogate(path)


def _sessions(ages: list[list[int]], size: int, group: int, seed: int) -> list[Any]:
    from tower.calibration.recording import Session, Throw
    from tower.calibration.surrogate import paint

    painted = paint(ages, size, group, seed)
    return [Session("s", "synthetic", "empty",
                    throws=tuple(Throw(t + 1, i, o) for t, (i, o) in enumerate(painted)))]


def fit_point(task: dict[str, Any]) -> dict[str, Any]:
    """Fit one recording by the bank engine and score its intervals (module level)."""
    import time

    from tower.calibration.bankfit import fit_bank
    from tower.calibration.simulators import physics_parameters
    from tower.calibration.surrogate import equilibrium_keys

    surrogate = _surrogate(task["surrogate"])
    params = [p for p in physics_parameters(task["preset"]) if p.name in surrogate.parameters]
    params.sort(key=lambda p: surrogate.parameters.index(p.name))
    size = int(surrogate.provenance["bank"]["size"])
    sessions = _sessions(task["ages"], size, task["group"], task["key"])
    start = time.perf_counter()
    result = fit_bank(sessions, surrogate, params, seed=task["key"])
    seconds = time.perf_counter() - start
    truth = task["theta"]
    keys = equilibrium_keys(task["replay_ages"], size)
    directions = result.directions(truth)
    pinned = [d for d in directions if d.pinned]
    samples = result.samples[np.random.default_rng(task["key"]).choice(
        len(result.samples), RANK_DRAWS, replace=False)]  # fmt: skip
    # the truth is one replay's statistic: checked against one replay's interval; the
    # narrowing is the expected statistic's
    predictive = result.predictive(keys, replay=len(task["replay_ages"]))
    inside = next(p for p in result.predictive() if p.name == "inside")
    return {
        "key": task["key"],
        "parameters": {f.parameter.name: bool(f.low <= truth[f.parameter.name] <= f.high)
                       for f in result.fits},
        "ranks": {p.name: int((samples[:, j] < truth[p.name]).sum())
                  for j, p in enumerate(params)},
        "directions": [bool(d.covers_truth) for d in pinned],
        "key_statistics": {p.name: bool(p.covers_truth) for p in predictive},
        "pinned": len(pinned),
        "narrowing_inside": round(inside.narrowing, 4),
        "widths": [round(d.width_ratio, 4) for d in directions],
        "seconds": round(seconds, 2),
    }  # fmt: skip


def summarise(fits: list[dict[str, Any]], recordings: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled coverage, information and time over the fitted recordings."""

    def pooled(hits: list[bool]) -> dict[str, Any]:
        return {"intervals": len(hits), "contain_truth": int(sum(hits)),
                "coverage": float(np.mean(hits)) if hits else float("nan")}  # fmt: skip

    by_name: dict[str, list[bool]] = {}
    for f in fits:
        for kind in ("parameters", "key_statistics"):
            for k, h in f[kind].items():
                by_name.setdefault(k, []).append(h)
    status = [r["status"] for r in recordings]
    return {
        "recordings": len(fits),
        "truths_left_out": {s: status.count(s) for s in sorted(set(status)) if s != "ok"},
        "parameters": pooled([h for f in fits for h in f["parameters"].values()]),
        "pinned_directions": pooled([h for f in fits for h in f["directions"]]),
        "key_statistics": pooled([h for f in fits for h in f["key_statistics"].values()]),
        "by_name": {k: f"{sum(v)}/{len(v)}" for k, v in by_name.items()},
        "median_pinned": float(np.median([f["pinned"] for f in fits])) if fits else 0.0,
        "median_narrowing_inside": float(np.median([f["narrowing_inside"] for f in fits]))
        if fits
        else float("nan"),
        "median_seconds_per_fit": float(np.median([f["seconds"] for f in fits]))
        if fits
        else 0.0,
        "rethrows": int(sum(r["rethrows"] for r in recordings)),
    }


def markdown(summary: dict[str, Any], settings: CoverageSettings, provenance: str) -> str:
    s = summary
    lines = [
        "# Coverage of the bank engine on fresh physics recordings",
        "",
        f"{s['recordings']} recordings of {settings.throws} throws (protocol: 12 keshis per "
        f"throw, {settings.group} colour(s) per throw, from an empty tower) at truths drawn "
        f"from the prior (Sobol design seed {settings.seed}); true key statistics from an "
        f"independent {settings.truth_throws}-throw physics sequence at each truth. Truths "
        f"left out (the tower clogged or lost a piece): {s['truths_left_out'] or 'none'}. "
        f"Surrogate: {provenance}.",
        "",
        "| intervals | contain the truth | coverage of nominal 90% |",
        "|---|---|---|",
    ]
    for kind in ("parameters", "pinned_directions", "key_statistics"):
        p = s[kind]
        lines.append(f"| {kind.replace('_', ' ')} | {p['contain_truth']}/{p['intervals']} | "
                     f"{p['coverage']:.1%} |")  # fmt: skip
    lines += ["", "| name | contain the truth |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in s["by_name"].items()]
    lines += [
        "",
        f"- median directions pinned down (90% width under half the prior's): "
        f"{s['median_pinned']:g}",
        f"- median narrowing of pieces inside at equilibrium: {s['median_narrowing_inside']:.3f}",
        f"- median fit time: {s['median_seconds_per_fit']:.1f} s",
        f"- physics re-throws (the guard) in all recordings and replays: {s['rethrows']}",
        "",
        "![rank histograms](coverage_ranks.png)",
        "",
    ]
    return "\n".join(lines)


def plot_ranks(path: Path, fits: list[dict[str, Any]]) -> None:
    """One rank histogram per parameter (flat for a calibrated posterior)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tower.files.outputs import atomic_path

    names = list(fits[0]["ranks"]) if fits else []
    cols = 4
    rows = max(1, -(-len(names) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.4 * rows), squeeze=False)
    expected = len(fits) / RANK_BINS
    for ax, name in zip(axes.flat, names, strict=False):
        ranks = [f["ranks"][name] for f in fits]
        ax.hist(ranks, bins=RANK_BINS, range=(0, RANK_DRAWS + 1), color="tab:blue", alpha=0.7)
        ax.axhline(expected, color="k", lw=1, ls="--")
        ax.set_title(name.split(".", 1)[1], fontsize=8)
        ax.set_xlabel(f"rank of the truth among {RANK_DRAWS} draws", fontsize=7)
        ax.set_ylabel("recordings", fontsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle("Rank of the truth in the posterior (dashed: a calibrated posterior)")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=90)
    plt.close(fig)


def run_bank_coverage(
    out_dir: Path,
    settings: CoverageSettings,
    surrogate_path: str | Path,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    new_recordings: bool = True,
) -> dict[str, Any]:
    """Run (or resume) a coverage check; writes coverage.json, coverage.md and the rank
    histograms into ``out_dir`` and returns the summary. ``new_recordings=False`` fits
    only the recordings already in ``out_dir`` (a committed set, a new surrogate: minutes)
    and runs no physics."""
    from tower.errors import TowerError
    from tower.files.outputs import write_text
    from tower.runs.batch import Task, read_records, run_tasks

    out_dir.mkdir(parents=True, exist_ok=True)
    rec_path = out_dir / "recordings.jsonl"
    if new_recordings:
        made_by = run_header("calibrate coverage", settings.recording_settings())
        run_tasks([Task(i, t) for i, t in enumerate(recording_tasks(settings))],
                  recording_point, rec_path, workers=workers, scheduler=scheduler,
                  progress=progress, desc="coverage recordings (physics)",
                  header=made_by)  # fmt: skip
    elif not rec_path.is_file():
        raise TowerError(f"{rec_path}: no recordings to fit (run without --fits-only first)")
    recordings = read_records(rec_path)
    digest = hashlib.sha256(Path(surrogate_path).read_bytes()).hexdigest()[:16]
    fit_tasks = [
        Task(r["key"], {**r, "surrogate": str(surrogate_path), "group": settings.group,
                        "preset": settings.preset})
        for r in recordings if r["status"] == "ok"
    ]  # fmt: skip
    fit_path = out_dir / "fits.jsonl"
    # the fits are this folder's own output: another surrogate replaces them (force), the
    # same one resumes them, also after more recordings were made; the recordings stay
    fitted_by = {**settings.recording_settings(), "group": settings.group,
                 "surrogate_sha256": digest}  # fmt: skip
    run_tasks(fit_tasks, fit_point, fit_path, workers=workers, scheduler=scheduler,
              progress=progress, desc="coverage fits (bank engine)",
              header=run_header("calibrate coverage fits", fitted_by), force=True)  # fmt: skip
    fits = read_records(fit_path)
    summary = summarise(fits, recordings)
    provenance = f"`{Path(surrogate_path).name}` (sha256 {digest})"
    write_text(out_dir / "coverage.json",
               json.dumps({"settings": asdict(settings), "surrogate_sha256": digest,
                           "summary": summary}, indent=2) + "\n", checked=True)  # fmt: skip
    write_text(out_dir / "coverage.md", markdown(summary, settings, provenance), checked=True)
    plot_ranks(out_dir / "coverage_ranks.png", fits)
    return summary
