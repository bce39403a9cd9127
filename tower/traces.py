"""Simulator traces: the plain, versioned record of throw sequences through a tower.

Physics writes traces, the model room fits from them, analysis summarises them. One
JSON object per line (JSONL), one line per independent tower sequence::

    {
        "schema": "tower.trace/1",
        "seq": 17,  # index of the sequence within its batch
        "seed": 123456,  # seed of that tower
        "source": "physics:marrakesh",  # what produced it
        "pieces": ["keshi:red", ...],  # piece id -> piece; ids are list indices
        "throws": [
            {
                "in": [0, 1, 2],  # ids thrown this throw
                "out": [1, 2],  # ids that came out this throw (fresh or old)
                "inside": {"0": "floor1"},  # id -> place, for every piece inside after the throw
                "sim_time": 2.4,  # simulated seconds (optional)
                "rethrows": 1,
            }  # attempts re-thrown because the simulation lost
            # a piece (optional, only when > 0)
        ],
    }

Every piece thrown is, after each throw, either in ``out`` of some throw so far or in
``inside``: :func:`validate_sequence` checks that nothing is lost or duplicated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tower.errors import InputFileError
from tower.pieces import INSIDE, Piece, Place

SCHEMA = "tower.trace/1"


@dataclass(frozen=True)
class TraceThrow:
    """One throw of a sequence, by piece id."""

    thrown: tuple[int, ...]
    out: tuple[int, ...]
    inside: dict[int, Place]
    sim_time: float | None = None
    rethrows: int = 0

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "in": list(self.thrown),
            "out": list(self.out),
            "inside": {str(k): v.value for k, v in sorted(self.inside.items())},
        }
        if self.sim_time is not None:
            d["sim_time"] = round(self.sim_time, 6)
        if self.rethrows:
            d["rethrows"] = self.rethrows
        return d


@dataclass(frozen=True)
class TraceSequence:
    """One tower's sequence of throws, starting from an empty tower."""

    seq: int
    seed: int
    source: str
    pieces: tuple[Piece, ...]
    throws: tuple[TraceThrow, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "seq": self.seq,
            "seed": self.seed,
            "source": self.source,
            "pieces": [str(p) for p in self.pieces],
            "throws": [t.to_json() for t in self.throws],
        }

    def to_line(self) -> str:
        """The sequence as one JSONL line (with its newline)."""
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True) + "\n"

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, path: str = "<trace>", line: int | None = None
    ) -> TraceSequence:
        """Read one sequence; errors name the file, line and field."""

        def bad(fld: str, msg: str) -> InputFileError:
            return InputFileError(path, msg, line=line, field=fld)

        if not isinstance(data, dict):
            raise bad("<root>", "expected a JSON object")
        if data.get("schema") != SCHEMA:
            raise bad("schema", f"expected {SCHEMA!r}, got {data.get('schema')!r}")
        try:
            pieces = tuple(Piece.parse(p) for p in data["pieces"])
        except (KeyError, TypeError, ValueError) as exc:
            raise bad("pieces", str(exc)) from None
        throws = []
        for i, t in enumerate(data.get("throws", [])):
            try:
                throws.append(
                    TraceThrow(
                        tuple(int(x) for x in t["in"]),
                        tuple(int(x) for x in t["out"]),
                        {int(k): Place(v) for k, v in t["inside"].items()},
                        t.get("sim_time"),
                        int(t.get("rethrows", 0)),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise bad(f"throws[{i}]", f"malformed throw: {exc}") from None
        try:
            seq = cls(
                int(data["seq"]), int(data["seed"]), str(data["source"]), pieces, tuple(throws)
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise bad("seq/seed/source", str(exc)) from None
        problem = validate_sequence(seq)
        if problem:
            raise bad("throws", problem)
        return seq


def validate_sequence(seq: TraceSequence) -> str | None:
    """Return a description of the first accounting error, or ``None`` if all is well."""
    n = len(seq.pieces)
    inside: set[int] = set()
    gone: set[int] = set()
    for i, t in enumerate(seq.throws):
        for pid in (*t.thrown, *t.out, *t.inside):
            if not 0 <= pid < n:
                return f"throw {i}: piece id {pid} out of range 0..{n - 1}"
        thrown = set(t.thrown)
        if thrown & (inside | gone) or len(thrown) != len(t.thrown):
            return f"throw {i}: a piece is thrown twice"
        present = inside | thrown
        out = set(t.out)
        if not out <= present or len(out) != len(t.out):
            return f"throw {i}: 'out' holds a piece that was not in the tower"
        if set(t.inside) != present - out:
            return f"throw {i}: 'inside' does not account for every piece in the tower"
        if any(p not in INSIDE for p in t.inside.values()):
            return f"throw {i}: 'inside' names a place that is not inside"
        inside = present - out
        gone |= out
    return None


def read_traces(path: str | Path) -> Iterator[TraceSequence]:
    """Yield every sequence of a JSONL trace file, validated."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        for lineno, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputFileError(
                    str(path), f"not valid JSON ({exc.msg})", line=lineno
                ) from None
            yield TraceSequence.from_json(data, path=str(path), line=lineno)
