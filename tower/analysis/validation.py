"""Validation of tower models against held-out simulator sequences.

Each model replays the throw plans of the held-out traced sequences (same pieces in the
same order, fresh towers). Then, per model:

- one chi-square homogeneity test per sequence statistic
  (:data:`tower.analysis.retention.STATISTICS`), rejected at ``level``; when the
  held-out sequences throw pieces of several kinds (rounds with experts, battle
  seasons), also one per kind: ``out_total.<kind>``, that kind's pieces out over the
  sequence (:func:`kind_stats`);
- a classifier two-sample test (logistic regression on per-throw counts and the
  statistics, 5-fold cross-validated accuracy; about 0.5 when the model is faithful).

Where a model differs, throw by throw and by the throw's make-up, is
:mod:`tower.analysis.makeup`; the report lists its largest differences.

:func:`write_report` writes ``report.md``, ``validation.json`` and the PNGs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tower.analysis.makeup import Difference, difference_lines
from tower.analysis.plots import plot_retention, plot_statistics
from tower.analysis.retention import (
    STATISTICS,
    SequenceRecord,
    feature_matrix,
    model_records,
    sequence_stats,
    summarize,
    trace_plan,
    trace_record,
)
from tower.analysis.twosample import binned_chi2, classifier_test
from tower.model.interface import TowerModel
from tower.traces import TraceSequence


@dataclass(frozen=True)
class StatisticTest:
    """One statistic of one model against the held-out sequences."""

    name: str
    reference_mean: float
    model_mean: float
    statistic: float
    dof: int
    pvalue: float
    rejected: bool


@dataclass(frozen=True)
class ModelVerdict:
    """All tests of one model."""

    model: str
    tests: list[StatisticTest]
    accuracy: float
    accuracy_pvalue: float
    sequences: int
    passed: bool


def kind_stats(rec: SequenceRecord, kinds: Sequence[str]) -> dict[str, float]:
    """``out_total.<kind>``: pieces of each of ``kinds`` out over the whole sequence."""
    out = Counter(k for throw in rec.out_kinds for k in throw)
    return {f"out_total.{k}": float(out[k]) for k in kinds}


def thrown_kinds(held_out: Sequence[TraceSequence]) -> list[str]:
    """The kinds of piece thrown in ``held_out``, sorted."""
    return sorted({p.kind.value for seq in held_out for p in seq.pieces})


def validate(
    models: Mapping[str, TowerModel],
    held_out: Sequence[TraceSequence],
    *,
    seed: int = 0,
    level: float = 0.01,
    max_accuracy: float = 0.55,
    replicates: int = 4,
) -> tuple[list[ModelVerdict], dict[str, list[SequenceRecord]]]:
    """Test every model against ``held_out``; also return every sample's records.

    Each model replays every held-out plan ``replicates`` times (less sampling noise on
    the model side of the per-statistic tests); the classifier uses a balanced subsample.
    """
    reference = [trace_record(s) for s in held_out]
    plans = [trace_plan(s) for s in held_out]
    samples = {"physics": reference}
    verdicts = []
    kinds = thrown_kinds(held_out)
    kinds = kinds if len(kinds) > 1 else []

    def stats(rec: SequenceRecord) -> dict[str, float]:
        return {**sequence_stats(rec), **kind_stats(rec, kinds)}

    ref_stats = [stats(r) for r in reference]
    same_length = len({len(r.thrown) for r in reference}) == 1
    for i, (label, model) in enumerate(models.items()):
        recs = model_records(model, plans * replicates, seed=seed + 1000 * i)
        samples[label] = recs
        mod_stats = [stats(r) for r in recs]
        tests = []
        for name in ref_stats[0]:
            a = np.array([x[name] for x in ref_stats])
            b = np.array([x[name] for x in mod_stats])
            res = binned_chi2(a, b)
            tests.append(
                StatisticTest(
                    name,
                    float(a.mean()),
                    float(b.mean()),
                    res.statistic,
                    res.dof,
                    res.pvalue,
                    res.pvalue < level,
                )
            )
        clf = classifier_test(
            feature_matrix(reference, per_throw=same_length),
            feature_matrix(recs, per_throw=same_length),
            seed=seed,
        )
        passed = not any(t.rejected for t in tests) and clf.accuracy <= max_accuracy
        verdicts.append(
            ModelVerdict(label, tests, clf.accuracy, clf.pvalue, len(reference), passed)
        )
    return verdicts, samples


def write_report(
    verdicts: Sequence[ModelVerdict],
    samples: Mapping[str, Sequence[SequenceRecord]],
    out_dir: str | Path,
    *,
    header: Mapping[str, Any],
    level: float = 0.01,
    max_accuracy: float = 0.55,
    differences: Sequence[Difference] = (),
    one_step: Sequence[Difference] = (),
) -> Path:
    """Write ``report.md``, ``validation.json``, ``statistics.png`` and ``retention.png``.

    ``differences``: the first model's (:func:`tower.analysis.makeup.makeup_differences`),
    the largest listed in the report, all in ``validation.json``; ``one_step``: the same
    for its law at the simulator's state (:func:`tower.analysis.onestep.one_step_differences`).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stat_samples = {
        label: {name: [sequence_stats(r)[name] for r in recs] for name in STATISTICS}
        for label, recs in samples.items()
    }
    plot_statistics(stat_samples, out_dir / "statistics.png")
    sizes = {label: {recs[0].thrown[0]: summarize(recs)} for label, recs in samples.items()}
    plot_retention(sizes, out_dir / "retention.png", title="held-out sequences")
    lines = ["# Tower model validation", ""]
    lines += [f"- {k}: {v}" for k, v in header.items()]
    lines += [
        f"- held-out sequences: {verdicts[0].sequences if verdicts else 0}",
        f"- criterion: no per-statistic chi-square test rejects at {level:.0%}, and the "
        f"classifier two-sample accuracy is at most {max_accuracy}",
        "",
        "| model | statistics rejected | classifier accuracy (p vs 0.5) | verdict |",
        "|---|---|---|---|",
    ]
    for v in verdicts:
        rejected = [t.name for t in v.tests if t.rejected]
        lines.append(
            f"| {v.model} | {len(rejected)} of {len(v.tests)}"
            f"{' (' + ', '.join(rejected) + ')' if rejected else ''} | {v.accuracy:.3f} "
            f"(p = {v.accuracy_pvalue:.2g}) | {'PASS' if v.passed else 'FAIL'} |"
        )
    for v in verdicts:
        lines += [
            "",
            f"## {v.model}",
            "",
            "| statistic | physics mean | model mean | chi2 (dof) | p | rejected |",
            "|---|---|---|---|---|---|",
        ]
        for t in v.tests:
            lines.append(
                f"| {t.name} | {t.reference_mean:.3f} | {t.model_mean:.3f} | "
                f"{t.statistic:.1f} ({t.dof}) | {t.pvalue:.3g} | {'yes' if t.rejected else 'no'} |"
            )
    if differences:
        lines += [
            "",
            f"## Where {verdicts[0].model} differs, throw by throw",
            "",
            "Share of the fresh (thrown) or old (inside before) pieces of a kind that came out,",
            "pooled by one context field: `n` pieces thrown, `w` pawns thrown, `x` experts",
            "thrown, `I` pieces inside before. z treats pieces as independent: it ranks, it",
            "does not test.",
            "",
            *difference_lines(differences),
        ]
    if one_step:
        lines += [
            "",
            f"## Where {verdicts[0].model}'s law differs at the simulator's state",
            "",
            "The same cells, one throw at a time: the model's expected share out, given the",
            "tower as the simulator left it and the pieces already out in the throw. A cell",
            "here is a miss of the law itself, not of a state that drifted.",
            "",
            *difference_lines(one_step),
        ]
    lines += ["", "Statistics:", ""]
    lines += [f"- `{k}`: {v}" for k, v in STATISTICS.items()]
    if verdicts and len(verdicts[0].tests) > len(STATISTICS):
        lines.append("- `out_total.<kind>`: pieces of that kind out over the whole sequence")
    lines += ["", "![statistics](statistics.png)", "", "![retention](retention.png)", ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    (out_dir / "validation.json").write_text(
        json.dumps(
            {
                "header": dict(header),
                "verdicts": [asdict(v) for v in verdicts],
                "differences": [asdict(d) for d in differences],
                "one_step": [asdict(d) for d in one_step],
            },
            indent=2,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )
    return report
