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
from tower.files.inputs import LIMITS, check_count, json_lines
from tower.files.outputs import is_header
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
        raw_pieces = data.get("pieces")
        if not isinstance(raw_pieces, list):
            raise bad("pieces", f"expected a list of pieces, got {raw_pieces!r:.60}")
        check_count(len(raw_pieces), path, "pieces", "pieces_per_sequence", line=line)
        try:
            pieces = tuple(Piece.parse(p) for p in raw_pieces)
        except (TypeError, ValueError, AttributeError) as exc:
            raise bad("pieces", str(exc)) from None
        raw_throws = data.get("throws", [])
        if not isinstance(raw_throws, list):
            raise bad("throws", f"expected a list of throws, got {raw_throws!r:.60}")
        check_count(len(raw_throws), path, "throws", "throws_per_sequence", line=line)
        throws = [_throw(t, bad, f"throws[{i}]") for i, t in enumerate(raw_throws)]
        for name in ("seq", "seed"):
            if not _is_int(data.get(name)):
                raise bad(name, f"expected a whole number, got {data.get(name)!r:.60}")
        if not isinstance(data.get("source"), str):
            raise bad("source", f"expected a string, got {data.get('source')!r:.60}")
        seq = cls(data["seq"], data["seed"], data["source"], pieces, tuple(throws))
        problem = validate_sequence(seq)
        if problem:
            raise bad("throws", problem)
        return seq


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _throw(t: Any, bad: Any, fld: str) -> TraceThrow:
    """One throw object of a trace line, every field's type checked."""
    if not isinstance(t, dict):
        raise bad(fld, f"expected a throw object, got {t!r:.60}")
    for name in ("in", "out"):
        ids = t.get(name)
        if not isinstance(ids, list) or not all(_is_int(x) for x in ids):
            raise bad(f"{fld}.{name}", f"expected a list of piece ids, got {ids!r:.60}")
    if len(t["in"]) > LIMITS["pieces_per_throw"]:
        raise bad(f"{fld}.in", f"{len(t['in'])} pieces is over the limit pieces_per_throw = "
                  f"{LIMITS['pieces_per_throw']}")  # fmt: skip
    inside = t.get("inside")
    if not isinstance(inside, dict):
        raise bad(f"{fld}.inside", f"expected an object id -> place, got {inside!r:.60}")
    places = {}
    for k, v in inside.items():
        if not (k.isascii() and k.isdigit()):  # int() would take " 3\n" and "1_0"
            raise bad(f"{fld}.inside", f"not a piece id: {k!r:.40}")
        try:
            places[int(k)] = Place(v)
        except (TypeError, ValueError):
            raise bad(f"{fld}.inside.{k}", f"not a place: {v!r:.40}") from None
    sim_time = t.get("sim_time")
    if sim_time is not None and (
        not isinstance(sim_time, int | float) or isinstance(sim_time, bool) or sim_time < 0
    ):
        raise bad(f"{fld}.sim_time", f"expected seconds >= 0, got {sim_time!r:.60}")
    rethrows = t.get("rethrows", 0)
    if not _is_int(rethrows) or rethrows < 0:
        raise bad(f"{fld}.rethrows", f"expected a count >= 0, got {rethrows!r:.60}")
    return TraceThrow(tuple(t["in"]), tuple(t["out"]), places, sim_time, rethrows)


def validate_sequence(seq: TraceSequence) -> str | None:
    """Return a description of the first accounting error, or ``None`` if all is well."""
    n = len(seq.pieces)
    inside: set[int] = set()
    gone: set[int] = set()
    for i, t in enumerate(seq.throws):
        for pid in (*t.thrown, *t.out, *t.inside):
            if not 0 <= pid < n:
                return f"throw {i + 1}: piece id {pid} out of range 0..{n - 1}"
        thrown = set(t.thrown)
        if thrown & (inside | gone) or len(thrown) != len(t.thrown):
            return f"throw {i + 1}: a piece is thrown twice"
        present = inside | thrown
        out = set(t.out)
        if not out <= present or len(out) != len(t.out):
            return f"throw {i + 1}: 'out' holds a piece that was not in the tower"
        if set(t.inside) != present - out:
            return f"throw {i + 1}: 'inside' does not account for every piece in the tower"
        if any(p not in INSIDE for p in t.inside.values()):
            return f"throw {i + 1}: 'inside' names a place that is not inside"
        inside = present - out
        gone |= out
    return None


def read_traces(path: str | Path) -> Iterator[TraceSequence]:
    """Yield every sequence of a JSONL trace file, validated.

    The run header that ``tower simulate`` writes first is skipped; a file with no
    sequence at all is an error (an empty trace file is never what was meant).
    """
    path = Path(path)
    found = False
    for lineno, data in json_lines(path):
        if lineno == 1 and is_header(data):
            continue
        found = True
        yield TraceSequence.from_json(data, path=str(path), line=lineno)
    if not found:
        raise InputFileError(str(path), "no sequences: the trace file is empty", field="<file>")
