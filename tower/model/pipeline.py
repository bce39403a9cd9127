"""Distilling a tower model from simulator traces: the fit with its provenance.

:func:`distill` reads trace files, or parts of them (:class:`TraceSource`), fits the
back-off tables (:mod:`tower.model.fit`) and returns a :class:`DistilledModel` whose
provenance names every trace source (file, sequences, checksum, batch seed and fitted
``seq`` ranges), the physics parameters and the fit settings. :func:`simulate_traces` runs,
or resumes, the physics sequences to distil from (local processes or Dask, through
:func:`tower.physics.sequences.run_sequences`). ``tower distill`` parses its options and
calls :func:`distill_to`, which runs the planned simulations, fits and writes the file; a
notebook or a script calls them the same way::

    model = distill(["traces.jsonl@0:1000"], preset="marrakesh")
    model.save("model.json")
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tower.errors import TowerError
from tower.model.distilled import DistilledModel
from tower.model.fit import DEFAULT_CLASSES, FitSettings, Observations

#: The fit options of ``tower distill`` and their defaults (``levels`` as on the command
#: line: fields comma-separated, levels semicolon-separated, finest first).
FIT_DEFAULTS: dict[str, Any] = {
    "alpha": 1.0,
    "age_cap": 7,
    "min_count": 2,
    "min_count_makeup": None,
    "piece_depth": 2,
    "backoff": "all",
    "copula": None,
    "levels": ";".join(",".join(level) for level in FitSettings().levels),
}


@dataclasses.dataclass(frozen=True)
class TraceSource:
    """A trace file and the sequences of it to fit (``rows``, as the user wrote ``text``)."""

    path: Path
    rows: slice = dataclasses.field(default_factory=lambda: slice(None))
    text: str = ":"

    @classmethod
    def parse(cls, arg: str) -> TraceSource:
        """``FILE[@START:STOP]``; the file must exist."""
        path, _, rows = arg.partition("@")
        if Path(path).is_dir():
            raise TowerError(f"{path}: is a directory, expected a trace file")
        if not Path(path).is_file():
            raise TowerError(f"{path}: no such trace file")
        return cls(Path(path), parse_range(rows, f"--traces {arg}"), rows or ":")


@dataclasses.dataclass(frozen=True)
class PlannedRun:
    """A simulation to run (or resume) before the fit: ``sequences`` into ``path``."""

    path: Path
    sequences: int
    pieces: int
    mix: str | None  # None: the tower's own pieces

    @property
    def source(self) -> str:
        return f"{self.path}@0:{self.sequences}"


def parse_range(text: str | None, what: str) -> slice:
    """``START:STOP`` (either may be empty) as a slice of sequences."""
    if not text:
        return slice(None)
    start, sep, stop = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return slice(int(start) if start else None, int(stop) if stop else None)
    except ValueError:
        raise TowerError(
            f"{what}: expected START:STOP (e.g. 1000: or 0:1000), got {text!r}"
        ) from None


def batch_seed(path: Path) -> int | None:
    """The batch seed in the run header of a trace file (``tower simulate --seed``), if any.

    A physics sequence's seed is derived from the batch seed and its index ``seq``, so two
    files with one batch seed share the seeds of equal indices, whatever they throw.
    """
    from tower.files.inputs import open_bytes
    from tower.files.outputs import is_header

    try:
        with open_bytes(path) as fh:
            first = json.loads(fh.readline(1 << 20) or b"null")
    except (OSError, ValueError):
        return None
    if not is_header(first):
        return None
    seed = (first["header"].get("settings") or {}).get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def seed_overlap(
    provenance: dict[str, Any], traces_path: Path, held: list[Any]
) -> tuple[str | None, str]:
    """Whether held-out sequences were fitted: ``(problem or None, one report line)``.

    A held-out sequence was fitted when a fitted trace source (the model's
    ``provenance.traces``) has its batch seed (or, without one, its file name) and one of
    its ``seq_ranges`` covers the sequence's ``seq``.
    """
    held_batch = batch_seed(traces_path)
    held_seqs = sorted({s.seq for s in held})
    fitted = [t for t in provenance.get("traces") or [] if isinstance(t, dict)]
    recorded = [t for t in fitted if isinstance(t.get("seq_ranges"), list)]
    for t in recorded:
        same = (
            held_batch is not None and t.get("batch_seed") == held_batch
            if t.get("batch_seed") is not None
            else t.get("file") == traces_path.name
        )
        runs = t["seq_ranges"] if same else []
        hits = [q for q in held_seqs if any(lo <= q <= hi for lo, hi in runs)]
        if hits:
            return (
                f"{len(hits)} held-out sequences (seq {hits[0]}..{hits[-1]}, batch seed "
                f"{held_batch}) were fitted: {t.get('file')} {t.get('sequences')}; hold out "
                "other sequences or another --seed (or pass --allow-overlap)",
                "held-out seeds: OVERLAP with the fitting seeds",
            )
    if not fitted or len(recorded) < len(fitted):
        return None, (
            "held-out seeds: not checked (the model does not record the batch seeds and "
            "sequence ranges it was fitted on; distil again to record them)"
        )
    return None, (
        f"held-out seeds: batch seed {held_batch}, seq {held_seqs[0]}..{held_seqs[-1]}; "
        f"no overlap with the {len(recorded)} fitted trace sources"
    )


def piece_classes(spec: Any) -> dict[str, str]:
    """Kind -> class for a tower spec: kinds whose piece specs are equal share a class.

    A class is named after its shape when no other class has that shape (``pawn`` for
    watchman and brigand), else after its first kind (``keshi``, ``expert``).
    """
    groups: list[list[Any]] = []
    for piece in spec.pieces.values():
        for group in groups:
            first = group[0]
            if type(first) is type(piece) and dataclasses.replace(piece, kind=first.kind) == first:
                group.append(piece)
                break
        else:
            groups.append([piece])
    shapes = [g[0].SHAPE for g in groups]
    classes = {}
    for group in groups:
        shape = group[0].SHAPE
        name = shape if len(group) > 1 and shapes.count(shape) == 1 else group[0].kind.value
        for piece in group:
            classes[piece.kind.value] = name
    return dict(sorted(classes.items()))


Gate = str | tuple[str, ...] | None


def parse_copula(text: str) -> tuple[tuple[float, float, Gate], ...]:
    """``A,B[,GATE][;A,B[,GATE]...]`` (``tower distill --copula``) as entries
    ``(throw, origin, gate)``, where GATE is a class or classes joined by ``+``; the
    values are checked by :class:`FitSettings`.

    >>> parse_copula("0.2,0.3,pawn"), parse_copula("0,0.5")
    (((0.2, 0.3, 'pawn'),), ((0.0, 0.5, None),))
    >>> parse_copula("0.2,0.3,pawn;0.1,0.3,expert+keshi")
    ((0.2, 0.3, 'pawn'), (0.1, 0.3, ('expert', 'keshi')))
    """
    return tuple(_copula_entry(part) for part in text.split(";"))


def copula_text(entries: Sequence[tuple[float, float, Gate]]) -> str:
    """The ``--copula`` text of :func:`parse_copula`'s entries.

    >>> copula_text(parse_copula("0.2,0.3,pawn;0.1,0.3,expert+keshi;0,0.5"))
    '0.2,0.3,pawn;0.1,0.3,expert+keshi;0,0.5'
    """
    words = []
    for a, b, gate in entries:
        gate = gate if gate is None or isinstance(gate, str) else "+".join(gate)
        words.append(f"{a:g},{b:g}" + (f",{gate}" if gate is not None else ""))
    return ";".join(words)


def _copula_entry(text: str) -> tuple[float, float, Gate]:
    """One ``A,B[,GATE]`` of :func:`parse_copula`."""
    parts = text.split(",")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        a, b = float(parts[0]), float(parts[1])
    except ValueError:
        raise TowerError(
            f"--copula: expected THROW,ORIGIN[,GATE][;...] (e.g. 0.2,0.3,pawn), got {text!r}"
        ) from None
    if len(parts) == 2:
        return a, b, None
    gate = parts[2].split("+")
    return a, b, gate[0] if len(gate) == 1 else tuple(gate)


def fit_settings(classes: Mapping[str, str] | None = None, **fit: Any) -> FitSettings:
    """The :class:`FitSettings` of the ``tower distill`` fit options (:data:`FIT_DEFAULTS`)."""
    fit = {**FIT_DEFAULTS, **fit}
    levels = fit.pop("levels")
    if isinstance(levels, str):
        levels = tuple(tuple(level.split(",")) for level in levels.split(";"))
    try:
        return FitSettings(levels=levels, classes=dict(classes or DEFAULT_CLASSES), **fit)
    except (TypeError, ValueError) as exc:
        raise TowerError(f"bad fit settings: {exc}") from None


def distill_command(
    sources: Sequence[str], out: Path | None = None, *, preset: str | None = None,
    params_file: Path | None = None, **fit: Any,
) -> str:  # fmt: skip
    """The ``tower distill`` command line that makes this model (its provenance)."""
    fit = {**FIT_DEFAULTS, **fit}
    words = ["tower", "distill", *(f"--traces {shlex.quote(s)}" for s in sources)]
    if preset:
        words.append(f"--preset {preset}")
    if params_file:
        words.append(f"--params {shlex.quote(str(params_file))}")
    words += [f"--alpha {fit['alpha']:g}", f"--age-cap {fit['age_cap']}"]
    words.append(f"--min-count {fit['min_count']}")
    if fit["min_count_makeup"] is not None:  # older models' commands stay as they were
        words.append(f"--min-count-makeup {fit['min_count_makeup']}")
    words.append(f"--piece-depth {fit['piece_depth']}")
    words.append(f"--levels '{fit['levels']}'")
    if fit["backoff"] != FIT_DEFAULTS["backoff"]:  # older models' commands stay as they were
        words.append(f"--backoff {fit['backoff']}")
    if fit["copula"] is not None:  # likewise
        words.append(f"--copula {shlex.quote(copula_text(fit['copula']))}")
    if out is not None:
        words.append(f"--out {shlex.quote(str(out))}")
    return " ".join(words)


def written_by(path: Path, command: str) -> bool:
    """Whether ``path`` is a model file that ``command`` wrote (its provenance), so that
    running the command again may replace it."""
    from tower.model.fileformat import read_model_file

    if not path.is_file():
        return False
    try:
        provenance = read_model_file(path).get("provenance")
    except TowerError:
        return False
    return isinstance(provenance, dict) and provenance.get("command") == command


def plan_simulations(
    out: Path, preset: str | None, *, sims: int = 0, mixed_sims: int = 0
) -> list[PlannedRun]:
    """The simulations ``tower distill --sims/--mixed-sims`` runs, next to the model file
    ``out``; a tower that cannot throw a planned mix is refused before any runs."""
    if not (sims or mixed_sims):
        return []
    if not preset:
        raise TowerError("--sims and --mixed-sims need --preset")
    from tower.geometry import load_preset
    from tower.physics.sequences import check_mix, own_mix

    stem = out.with_suffix("")
    planned = [
        PlannedRun(Path(f"{stem}.traces.jsonl"), sims, 12, None),
        PlannedRun(Path(f"{stem}.mixed-traces.jsonl"), mixed_sims, 20, "walls-guards"),
    ]
    spec = load_preset(preset)
    for run in planned:
        check_mix(spec, run.mix or own_mix(spec))
    return [run for run in planned if run.sequences]


def simulate_traces(
    sequences: int, preset: str, params_file: Path | None, traces: Path, *, pieces: int = 12,
    mix: str | None = None, scheduler: str | None = None, workers: int | None = None,
    force: bool = False, progress: bool = True,
) -> dict[str, int]:  # fmt: skip
    """Run, or resume, ``sequences`` physics sequences of the preset (with the params
    file, if any) into the trace file ``traces``; ``mix`` ``None`` throws the tower's own
    pieces. Returns the run summary (``done``, ``skipped``)."""
    from tower.geometry import load_preset
    from tower.physics.params_file import apply_params
    from tower.physics.sequences import run_sequences

    spec, params = apply_params(load_preset(preset), params_file)
    return run_sequences(
        spec, params, traces, sequences=sequences, pieces=pieces, mix=mix,
        scheduler=scheduler, workers=workers, force=force, progress=progress,
    )  # fmt: skip


def _params_field(params_file: Path | None) -> tuple[dict[str, Any], str]:
    """The physics parameters the traces were made with, and where that claim comes from."""
    from tower.physics.params import PhysicsParams
    from tower.physics.params_file import load_params

    if params_file is None:
        return PhysicsParams().to_json(), "PhysicsParams defaults (no --params given)"
    geometry, physics = load_params(params_file)
    where = f"--params {params_file.name}"
    if geometry:
        where += f" (geometry overrides: {json.dumps(geometry, sort_keys=True)})"
    return physics.to_json(), where


def _fit_source(obs: Observations, source: TraceSource, progress: bool) -> dict[str, Any]:
    """Add the sequences of ``source`` to ``obs``; its provenance record."""
    from tqdm import tqdm

    from tower.traces import read_traces

    digest = hashlib.sha256()
    sequences = list(read_traces(source.path))[source.rows]
    before = obs.summary()
    kinds = set()
    bar = tqdm(sequences, desc=f"fitting {source.path.name}", unit="seq", disable=not progress)
    for seq in bar:
        digest.update(seq.to_line().encode("utf-8"))
        kinds.add(seq.source)
        try:
            obs.add_sequence(seq)
        except ValueError as exc:
            raise TowerError(f"{source.path}: {exc}") from None
    runs: list[list[int]] = []  # the fitted seq numbers as runs [first, last]
    for q in sorted({seq.seq for seq in sequences}):
        if runs and q == runs[-1][1] + 1:
            runs[-1][1] = q
        else:
            runs.append([q, q])
    return {
        "file": source.path.name,
        "sequences": source.text,
        "count": obs.sequences - before["sequences"],
        "throws": obs.throws - before["throws"],
        "sources": sorted(kinds),
        "sha256_of_sequences": digest.hexdigest(),
        # for validate-model's check that held-out sequences were not fitted
        "batch_seed": batch_seed(source.path),
        "seq_ranges": runs,
    }


def distill(
    traces: Sequence[str | TraceSource], *, preset: str | None = None,
    params_file: Path | None = None, name: str | None = None, command: str | None = None,
    progress: bool = False, **fit: Any,
) -> DistilledModel:  # fmt: skip
    """Fit a distilled model from ``traces`` (``FILE[@START:STOP]`` or
    :class:`TraceSource`), made by the tower ``preset`` with ``params_file``.

    ``fit`` takes the options of :data:`FIT_DEFAULTS`; ``command`` is the command line
    recorded as provenance (default: the ``tower distill`` line that makes this model,
    without ``--out``: :func:`distill_command`). The piece classes come from the
    preset's piece shapes.
    """
    sources = [t if isinstance(t, TraceSource) else TraceSource.parse(t) for t in traces]
    if not sources:
        raise TowerError("no traces to fit: give trace files or simulations")
    tower: dict[str, Any] = {"preset": None, "spec": None}
    classes = None
    if preset:
        from tower.geometry import load_preset

        spec = load_preset(preset)
        tower, classes = {"preset": preset, "spec": spec.to_toml()}, piece_classes(spec)
    settings = fit_settings(classes, **fit)
    obs = Observations(settings)
    records = [_fit_source(obs, source, progress) for source in sources]
    if obs.throws == 0:
        raise TowerError("no throws to fit: the selected traces are empty")
    params, params_from = _params_field(params_file)
    if command is None:
        args = [f"{s.path}@{s.text}" for s in sources]
        command = distill_command(args, preset=preset, params_file=params_file, **fit)
    provenance = {"traces": records, "counts": obs.summary(), "params_from": params_from,
                  "fit": settings.to_json(), "command": command}  # fmt: skip
    return DistilledModel.from_tables(
        obs.tables(), name=name or preset or "distilled", tower=tower, params=params,
        provenance=provenance,
    )  # fmt: skip


def distill_to(
    out: Path, traces: Sequence[str] = (), *, sims: int = 0, mixed_sims: int = 0,
    preset: str | None = None, params_file: Path | None = None, name: str | None = None,
    scheduler: str | None = None, workers: int | None = None, force: bool = False,
    progress: bool = True, say: Callable[[str], None] = lambda _: None, **fit: Any,
) -> DistilledModel:  # fmt: skip
    """``tower distill``: run (or resume) ``sims`` sequences of the tower's own pieces and
    ``mixed_sims`` Walls & Guards sequences beside ``out`` (:func:`plan_simulations`),
    fit them with ``traces`` and write the model to ``out``.

    ``out`` is replaced only if this same command wrote it, or with ``force``; that is
    checked before any simulation. ``say`` receives a line per step.
    """
    from tower.files.outputs import check_output

    planned = plan_simulations(out, preset, sims=sims, mixed_sims=mixed_sims)
    sources = (*traces, *(run.source for run in planned))
    if not sources:
        raise TowerError("give --traces FILE or --sims N --preset P")
    command = distill_command(sources, out, preset=preset, params_file=params_file, **fit)
    if not written_by(out, command):  # a rerun may replace its own model
        check_output(out, force=force)
    for run in planned:
        say(f"simulating {run.sequences} sequences into {run.path}")
        summary = simulate_traces(
            run.sequences, preset or "", params_file, run.path, pieces=run.pieces, mix=run.mix,
            scheduler=scheduler, workers=workers, force=force, progress=progress,
        )  # fmt: skip
        say(f"{run.path}: {summary['done']} simulated, {summary['skipped']} already there")
    model = distill(
        sources, preset=preset, params_file=params_file, name=name, command=command,
        progress=progress, **fit,
    )  # fmt: skip
    model.save(out, force=True)  # checked before the simulations
    counts = model.doc["provenance"]["counts"]
    say(
        f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB): {counts['sequences']} "
        f"sequences, {counts['throws']} throws, sizes {counts['throw_sizes']}"
    )
    return model
