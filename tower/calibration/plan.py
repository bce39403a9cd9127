"""``tower calibrate plan``: which recording protocol teaches the most for an hour at the table.

Each protocol of ``data/protocols.toml`` (throw sizes, single keshis into a full tower,
emptying every N throws, colour grouping, pawns among the keshis) becomes a replay
:data:`~tower.calibration.simulators.Plan` with as many throws as fit into the time at the
table. For a few true parameter values drawn from the prior, the planner simulates a
recording by that protocol, fits it as ``tower calibrate`` would, and measures what the
fit learned:

- the **narrowing** of each key tower statistic (:mod:`tower.calibration.behaviour`),
  always on the same *reference use* (12 keshis per throw, the game's own), so protocols
  are compared on the same questions: posterior 90% width over prior 90% width;
- the **directions pinned down** (:mod:`tower.calibration.directions`): how many have a 90%
  interval under half the prior's, and which parameters load on them.

The recommended protocol has the smallest mean narrowing (ties: more directions pinned).

Time at the table (assumed numbers, no one has timed it): a throw of ``n`` pieces takes
:data:`THROW_SECONDS` plus :data:`PIECE_SECONDS` per piece (picking pieces, throwing,
counting what came out, typing it); emptying the tower takes :data:`EMPTY_SECONDS`; an hour
leaves :data:`RECORDING_MINUTES` minutes of recording after setting up. No protocol
records more than :data:`MAX_THROWS` throws.

Examples
--------
>>> plans = {p.name: protocol_plan(p) for p in load_protocols()}
>>> [sum(len(s.throws) for s in plans[n]) for n in ("size-1", "size-12", "size-20")]
[300, 204, 150]
>>> len(plans["empty-every-10"]), dict(plans["with-pawns"][0].throws[0])["brigand:neutral"]
(16, 1)
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tower.calibration.fit import derive_seed, fit, make_task
from tower.calibration.recording import atomic_write_text
from tower.calibration.simulators import Plan, PlanSession, Simulator, sessions_from_outs
from tower.calibration.synthetic import colour_throws, draw_from_prior, synthetic_plan
from tower.errors import TowerError

THROW_SECONDS = 6.0  # assumed: pick up, throw, wait for the pieces to settle
PIECE_SECONDS = 0.6  # assumed: per piece thrown (picking it) and counting
EMPTY_SECONDS = 45.0  # assumed: turn the tower over and shake it empty
RECORDING_MINUTES = 45.0  # assumed: of an hour, after setting up and breaks
MAX_THROWS = 300

#: The reference use on which every protocol's key statistics are compared.
REFERENCE = synthetic_plan(100, 12, session="reference")

#: The protocol calibration/README.md recommends (from `tower calibrate plan`; see there).
RECOMMENDED = "one-colour"

#: Prior draws tried per truth before giving up (each may clog).
ATTEMPTS = 20


@dataclass(frozen=True)
class Protocol:
    """One recording protocol (see ``data/protocols.toml`` for the fields)."""

    name: str
    text: str
    size: int = 12
    colours: int = 3
    empty_every: int = 0
    fill: int = 0
    singles: int = 0
    watchmen: int = 0
    brigands: int = 0


def load_protocols() -> list[Protocol]:
    """The protocols shipped in ``tower/calibration/data/protocols.toml``."""
    text = resources.files("tower.calibration").joinpath("data/protocols.toml").read_text()
    return [Protocol(**entry) for entry in tomllib.loads(text)["protocol"]]


def protocol_named(name: str) -> Protocol:
    """The shipped protocol ``name``; an unknown name is one clear error listing them."""
    known = load_protocols()
    for p in known:
        if p.name == name:
            return p
    raise TowerError(f"unknown protocol {name!r}; known: {', '.join(p.name for p in known)}")


def _seconds(pieces: int) -> float:
    return THROW_SECONDS + PIECE_SECONDS * pieces


def protocol_plan(
    protocol: Protocol, minutes: float = RECORDING_MINUTES, throws: int | None = None
) -> Plan:
    """The throws of ``protocol`` that fit into ``minutes`` of recording, or exactly
    ``throws`` throws (whatever the time) when given."""
    p = protocol
    pawns = {"watchman:blue": p.watchmen, "brigand:neutral": p.brigands}
    pawns = {k: v for k, v in pawns.items() if v}
    block = ([p.size] * p.fill + [1] * p.singles) if p.singles else [p.size]
    left = minutes * 60.0
    sessions: list[list[dict[str, int]]] = [[]]
    t = 0
    while t < (MAX_THROWS if throws is None else throws):
        size = block[t % len(block)]
        cost = _seconds(size + p.watchmen + p.brigands)
        new_session = p.empty_every and len(sessions[-1]) == p.empty_every
        cost += EMPTY_SECONDS if new_session else 0.0
        if cost > left and throws is None:
            break
        left -= cost
        if new_session:
            sessions.append([])
        sessions[-1].append({**colour_throws(1, size, p.colours, t)[0], **pawns})
        t += 1
    return tuple(
        PlanSession(f"{p.name}-{i + 1}", "empty", (), tuple(s)) for i, s in enumerate(sessions)
    )


@dataclass
class Assessment:
    """What fits of one protocol's recordings learned (over the truths)."""

    protocol: Protocol
    throws: int
    narrowing: dict[str, float]  # key statistic -> median over truths
    pinned: float  # mean number of directions pinned down
    pinned_words: list[str]  # pinned directions of the fits, in words
    covered: float  # share of (pinned direction, key statistic) intervals holding the truth
    failed_share: float

    @property
    def score(self) -> float:
        return float(np.mean(list(self.narrowing.values())))

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.protocol.text,
            "throws": self.throws,
            "narrowing": {k: round(v, 4) for k, v in self.narrowing.items()},
            "mean_narrowing": round(self.score, 4),
            "pinned_directions": self.pinned,
            "pinned_words": self.pinned_words,
            "truth_covered": round(self.covered, 3),
            "failed_share": round(self.failed_share, 3),
        }


def assess(
    simulator: Simulator,
    protocol: Protocol,
    execute: Callable[[list[dict], str], list[dict | None]],
    *,
    truths: int,
    budget: int,
    seed: int,
    minutes: float = RECORDING_MINUTES,
) -> Assessment:
    """Simulate and fit ``truths`` recordings made by ``protocol``."""
    from tower.calibration.coverage import true_key_statistics

    plan = protocol_plan(protocol, minutes)
    narrow: dict[str, list[float]] = {}
    pinned, words, hits, failed, replays = [], [], [], 0, 0
    for k in range(truths):
        for attempt in range(ATTEMPTS):
            theta = draw_from_prior(simulator.parameters, derive_seed(seed, 30, k, attempt))
            task = make_task(simulator, theta, derive_seed(seed, 31, k, attempt), plan)
            done = execute([task], f"{protocol.name}: recording {k + 1}/{truths}")[0]
            if done is not None:
                break
        else:
            raise TowerError(f"{ATTEMPTS} prior draws for {protocol.name} all failed")
        result = fit(simulator, sessions_from_outs(plan, done["outs"]), plan, execute,
                     budget=budget, seed=derive_seed(seed, 32, k), reference=REFERENCE)  # fmt: skip
        keys = true_key_statistics(simulator, theta, REFERENCE, derive_seed(seed, 33, k), 4,
                                   execute)  # fmt: skip
        for p in result.predictive(keys):
            narrow.setdefault(p.name, []).append(p.narrowing)
            if p.truth is not None:
                hits.append(bool(p.covers_truth))
        found = [d for d in result.directions(theta) if d.pinned]
        pinned.append(len(found))
        words += [d.words() for d in found]
        hits += [bool(d.covers_truth) for d in found]
        failed += result.failures
        replays += result.replays
    return Assessment(
        protocol,
        sum(len(s.throws) for s in plan),
        {k: float(np.median(v)) for k, v in narrow.items()},
        float(np.mean(pinned)),
        sorted(set(words)),
        float(np.mean(hits)) if hits else math.nan,
        failed / max(replays, 1),
    )


def recommend(assessments: Sequence[Assessment]) -> Assessment:
    """The protocol that narrows the key statistics most (ties: more directions pinned)."""
    return min(assessments, key=lambda a: (round(a.score, 3), -a.pinned))


def plan_markdown(assessments: Sequence[Assessment], settings: dict[str, Any]) -> str:
    """The comparison as a Markdown report, best protocol first."""
    best = recommend(assessments)
    names = list(assessments[0].narrowing)
    lines = [
        "# Which recording protocol teaches the most",
        "",
        *[f"- {k}: {v}" for k, v in settings.items()],
        "",
        f"**Recommended: `{best.protocol.name}`** ({best.protocol.text}): {best.throws} throws; "
        f"the key statistics' 90% intervals shrink to {best.score:.2f} of the prior's on "
        f"average; {best.pinned:.1f} parameter directions pinned down.",
        *(
            [
                "",
                f"**Warning: no protocol taught anything here.** Even the best one's "
                f"posterior intervals are {best.score:.2f} times the prior's (1 or more: no "
                "narrower than knowing nothing). The fits were too small to learn: give a "
                "larger --budget.",
            ]
            if best.score >= 1
            else []
        ),
        "",
        "Narrowing: posterior 90% width over prior 90% width of each key statistic on the "
        "reference use (12 keshis per throw), median over the truths (smaller is better).",
        "",
        "| protocol | throws | " + " | ".join(names) + " | mean | directions pinned |",
        "|---|---|" + "---|" * len(names) + "---|---|",
    ]
    for a in sorted(assessments, key=lambda a: (round(a.score, 3), -a.pinned)):
        lines.append(
            f"| `{a.protocol.name}` | {a.throws} | "
            + " | ".join(f"{a.narrowing[n]:.3f}" for n in names)
            + f" | {a.score:.3f} | {a.pinned:.1f} |"
        )
    lines += ["", "## Directions pinned down, by protocol", ""]
    for a in assessments:
        lines.append(f"- `{a.protocol.name}` ({a.protocol.text}): "
                     + ("; ".join(a.pinned_words) or "none"))  # fmt: skip
    return "\n".join(lines) + "\n"


def run_plan(
    simulator: Simulator,
    protocols: Sequence[Protocol],
    out_dir: Path,
    execute: Callable[[list[dict], str], list[dict | None]],
    *,
    truths: int = 3,
    budget: int = 40,
    seed: int = 0,
    minutes: float = RECORDING_MINUTES,
    settings: dict[str, Any] | None = None,
) -> list[Assessment]:
    """Assess every protocol; write ``plan.json`` and ``plan.md`` into ``out_dir``."""
    found = [
        assess(simulator, p, execute, truths=truths, budget=budget, seed=seed, minutes=minutes)
        for p in protocols
    ]
    shown = {"simulator": f"`{simulator!r}`", "truths per protocol": truths,
             "design budget per fit": budget, "minutes recording": minutes, "seed": seed,
             **(settings or {})}  # fmt: skip
    write_plan(out_dir, found, shown)
    return found


def write_plan(out_dir: Path, found: Sequence[Assessment], shown: dict[str, Any]) -> None:
    """Write ``plan.md`` and ``plan.json`` of the assessed protocols into ``out_dir``."""
    atomic_write_text(out_dir / "plan.md", plan_markdown(found, shown))
    atomic_write_text(
        out_dir / "plan.json",
        json.dumps({"recommended": recommend(found).protocol.name, "settings": shown,
                    "protocols": {a.protocol.name: a.to_json() for a in found}}, indent=2) + "\n",
    )  # fmt: skip
