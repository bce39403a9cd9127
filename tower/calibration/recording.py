"""Recordings of real (or synthetic) tower throws, and published summary statistics.

Two versioned formats, each in CSV and in JSONL, chosen by the file's extension
(``.csv`` or ``.jsonl``).

**Recording** (``tower.recording/1``): sessions, and the throws of each session in order.

CSV, with exactly this header row, and a ``schema`` row first::

    record,session,throw,in,out,start,tower,set,text
    schema,,,,,,,,tower.recording/1
    meta,,,,,,,,"{""synthetic"": false}"
    session,s1,,,,empty,marrakesh,,"my copy of Marrakesh, 300 keshis"
    throw,s1,1,red=2 green=1,red=1,,,,
    throw,s1,2,r3,r1 g1,,,,"a keshi stuck on the rib"
    note,s1,,,,,,,"shook the tower"

JSONL, one object per line with the same fields (counts as objects)::

    {"record": "schema", "schema": "tower.recording/1"}
    {"record": "meta", "synthetic": true, "truth": {...}}
    {
        "record": "session",
        "session": "s1",
        "start": "empty",
        "tower": "marrakesh",
        "set": null,
        "text": "...",
    }
    {"record": "throw", "session": "s1", "throw": 1, "in": {"red": 2}, "out": {}, "text": ""}
    {"record": "note", "session": "s1", "text": "..."}

Rules: the ``schema`` record comes first; at most one ``meta`` record (a JSON object; a
synthetic recording says ``"synthetic": true`` and carries its true parameters in
``"truth"``); a session is declared before its throws; throws are numbered 1, 2, ... within
their session; ``start`` is ``empty`` (the tower was emptied before the session) or
``unknown``; ``set`` optionally gives the session's whole piece set (an upper bound on
what can be inside). Counts use the short notation of :func:`parse_counts`. Nothing may
come out that cannot exist: with an empty start, never more pieces of a colour out than went
in so far; with an unknown start, never more than the piece set holds.

**Summary** (``tower.summary/1``), for reports that come as numbers: "with ``pieces_in``
pieces thrown each time, over ``throws`` throws, the mean (and range) of pieces out"::

    record,source,tower,pieces_in,throws,mean_out,min_out,max_out,text
    schema,,,,,,,,tower.summary/1
    summary,Amerigo club,queen-classic,9,20,6.5,4,9,"impression, not a count"

Every validation error is a :class:`tower.errors.InputFileError` naming the file, the line
and the field.

Examples
--------
>>> parse_counts("r2 g1 k3")
{'green': 1, 'black': 3, 'red': 2}
>>> format_counts({"red": 2, "brigand:neutral": 1})
'red=2 brigand:neutral=1'
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tower.errors import InputFileError, TowerError
from tower.files.inputs import check_count, csv_rows, json_lines, parse_json, read_text
from tower.files.outputs import write_text
from tower.pieces import KESHI_COLOURS, NEUTRAL, Kind, Piece

SCHEMA = "tower.recording/1"
SUMMARY_SCHEMA = "tower.summary/1"
CSV_COLUMNS: tuple[str, ...] = (
    "record",
    "session",
    "throw",
    "in",
    "out",
    "start",
    "tower",
    "set",
    "text",
)
SUMMARY_COLUMNS: tuple[str, ...] = (
    "record", "source", "tower", "pieces_in", "throws", "mean_out", "min_out", "max_out", "text",
)  # fmt: skip
STARTS: tuple[str, ...] = ("empty", "unknown")

#: A multiset of pieces by key: a keshi colour (``"red"``) or ``"kind:colour"``.
Counts = dict[str, int]

#: One-letter codes of the keshi colours (k = black as in CMYK, a = grAy, e = bEige,
#: n = browN, u = pUrple); any unambiguous prefix of a colour name works too.
COLOUR_CODES: dict[str, str] = {
    "g": "green", "a": "gray", "w": "white", "k": "black", "p": "pink", "t": "turquoise",
    "e": "beige", "n": "brown", "r": "red", "y": "yellow", "u": "purple", "o": "orange",
}  # fmt: skip

_TOKEN = re.compile(r"^(?P<name>[a-z][a-z:_-]*?)(?:=?(?P<count>-?\d+))?$")


class CountsError(TowerError, ValueError):
    """A count notation that cannot be read; ``token`` is the offending piece of text."""

    def __init__(self, token: str, message: str) -> None:
        self.token = token
        super().__init__(message)


def piece_key(piece: Piece) -> str:
    """The counting key of a piece: the colour for keshis, ``kind:colour`` otherwise."""
    return piece.colour if piece.kind is Kind.KESHI else str(piece)


def key_piece(key: str) -> Piece:
    """The piece of a counting key (inverse of :func:`piece_key`)."""
    return Piece.parse(key) if ":" in key else Piece.keshi(key)


def _resolve(name: str) -> str:
    """The canonical key of a colour or piece name written by a person."""
    if ":" in name:
        kind, _, colour = name.partition(":")
        try:
            piece = Piece(
                Kind(kind), colour if kind not in ("keshi", "expert") else _resolve(colour)
            )
        except ValueError:
            raise CountsError(
                name, f"unknown piece kind {kind!r}; expected one of {[k.value for k in Kind]}"
            ) from None
        return piece_key(piece)
    if name == Kind.BRIGAND.value:
        return f"brigand:{NEUTRAL}"
    if name in COLOUR_CODES:
        return COLOUR_CODES[name]
    matches = [c for c in KESHI_COLOURS if c.startswith(name)]
    if len(matches) == 1 and len(name) >= 2:
        return matches[0]
    hint = f"ambiguous: {matches}" if len(matches) > 1 else "unknown colour"
    raise CountsError(
        name,
        f"{hint} {name!r}; use a keshi colour {', '.join(KESHI_COLOURS)}, a one-letter code "
        f"({' '.join(COLOUR_CODES)}) or kind:colour",
    )


def _order(key: str) -> tuple[int, str]:
    return (KESHI_COLOURS.index(key), "") if key in KESHI_COLOURS else (len(KESHI_COLOURS), key)


def canonical(counts: dict[str, int]) -> Counts:
    """Drop zeros and sort keys in rulebook colour order, then other pieces by name."""
    return {k: counts[k] for k in sorted(counts, key=_order) if counts[k]}


def parse_counts(text: str) -> Counts:
    """Read counts in the short notation.

    Tokens are separated by spaces or commas; each is ``NAME``, ``NAMEcount`` or
    ``NAME=count``, where NAME is a one-letter code of :data:`COLOUR_CODES`, an
    unambiguous prefix of a keshi colour, ``brigand``, or ``kind:colour``. A name
    without a count means one piece; repeated names add up. ``-`` or an empty text
    means nothing.

    >>> parse_counts("red=2, green=1 g")
    {'green': 2, 'red': 2}
    >>> parse_counts("watchman:blue=1 brigand")
    {'brigand:neutral': 1, 'watchman:blue': 1}
    >>> parse_counts("-")
    {}
    """
    total: dict[str, int] = {}
    for token in re.split(r"[\s,;]+", text.strip().lower()):
        if token in ("", "-", "0", "none"):
            continue
        m = _TOKEN.match(token)
        if m is None:
            raise CountsError(token, f"cannot read {token!r}; write e.g. r2, red=2 or brigand=1")
        if m["count"] is not None and len(m["count"].lstrip("+-")) > 6:
            raise CountsError(token, f"count in {token!r} is implausibly large")
        count = int(m["count"]) if m["count"] is not None else 1
        if count < 0:
            raise CountsError(token, f"negative count in {token!r}")
        key = _resolve(m["name"])
        total[key] = total.get(key, 0) + count
    return canonical(total)


def format_counts(counts: dict[str, int]) -> str:
    """Write counts in the canonical long form that :func:`parse_counts` reads back."""
    return " ".join(f"{k}={n}" for k, n in canonical(counts).items())


def total(counts: dict[str, int]) -> int:
    """Number of pieces in a multiset."""
    return sum(counts.values())


@dataclass(frozen=True)
class Throw:
    """One throw: what went in and what came out (``number`` is 1-based in its session)."""

    number: int
    pieces_in: Counts
    pieces_out: Counts
    note: str = ""


@dataclass(frozen=True)
class Session:
    """One physical tower and piece set, and its throws in order."""

    name: str
    tower: str
    start: str = "empty"
    description: str = ""
    piece_set: Counts | None = None
    throws: tuple[Throw, ...] = ()
    notes: tuple[str, ...] = ()

    def with_throws(self, throws: Iterable[Throw]) -> Session:
        return replace(self, throws=tuple(throws))


@dataclass(frozen=True)
class Recording:
    """A whole recording file: metadata and sessions.

    ``meta`` is free JSON; a synthetic recording has ``meta["synthetic"] is True`` and its
    true parameters in ``meta["truth"]``.
    """

    sessions: tuple[Session, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def synthetic(self) -> bool:
        return bool(self.meta.get("synthetic", False))

    @property
    def n_throws(self) -> int:
        return sum(len(s.throws) for s in self.sessions)


# ---------------------------------------------------------------- validation


def check_session(session: Session) -> tuple[int, str, str] | None:
    """First impossibility in a session as ``(throw index, field, message)``, or None.

    Balance per key: inside = (what was inside at the start) + in - out so far. With an
    empty start nothing can come out that was not thrown; with an unknown start at most
    the piece set can have been inside.
    """
    balance: dict[str, int] = {}
    lowest: dict[str, int] = {}
    for i, t in enumerate(session.throws):
        for key, n in t.pieces_in.items():
            balance[key] = balance.get(key, 0) + n
        for key, n in t.pieces_out.items():
            balance[key] = balance.get(key, 0) - n
            lowest[key] = min(lowest.get(key, 0), balance[key])
            cap = 0 if session.start == "empty" else (session.piece_set or {}).get(key)
            if cap is not None and -lowest[key] > cap:
                thrown = sum(x.pieces_in.get(key, 0) for x in session.throws[: i + 1])
                out = sum(x.pieces_out.get(key, 0) for x in session.throws[: i + 1])
                where = "the tower was empty" if cap == 0 else f"the piece set holds {cap}"
                return (
                    i,
                    "out",
                    f"more pieces out than can exist: {out} {key} out in total but only "
                    f"{thrown} thrown and {where}",
                )
        if session.piece_set is not None:
            for key, n in t.pieces_in.items():
                if n > session.piece_set.get(key, 0):
                    return (i, "in", f"{n} {key} thrown but the piece set holds "
                            f"{session.piece_set.get(key, 0)}")  # fmt: skip
    return None


# ---------------------------------------------------------------- reading


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise InputFileError(str(path), f"unknown extension {suffix!r}; use .csv or .jsonl")
    return suffix[1:]


def _rows(
    path: Path, columns: tuple[str, ...], text: str | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) pairs of a CSV or JSONL file (or of its ``text``); CSV cells are
    strings."""
    fmt = _format_of(path)
    if text is None:
        text = read_text(path)  # checks path, size and encoding; a spreadsheet's BOM is fine
    if fmt == "jsonl":
        for lineno, data in json_lines(path, text):
            if not isinstance(data, dict):
                raise InputFileError(
                    str(path), f"expected a JSON object, got {data!r:.40}", line=lineno,
                    field="<record>",
                )  # fmt: skip
            yield lineno, data
        return
    rows = csv_rows(text, path)
    header = next(rows, (1, None))[1]
    if header is None:
        raise InputFileError(str(path), "empty file", line=1, field="header")
    if tuple(h.strip() for h in header) != columns:
        raise InputFileError(
            str(path), f"wrong header {header}; expected {list(columns)}", line=1, field="header"
        )
    for lineno, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            missing = columns[len(row)] if len(row) < len(columns) else "<extra>"
            raise InputFileError(
                str(path),
                f"truncated or overlong row: {len(row)} fields, expected {len(columns)}",
                line=lineno,
                field=missing,
            )
        yield lineno, dict(zip(columns, row, strict=True))


class _Fields:
    """Typed access to one record's fields, raising errors that name file, line and field."""

    def __init__(self, path: Path, line: int, data: dict[str, Any]) -> None:
        self.path, self.line, self.data = str(path), line, data

    def error(self, name: str, message: str) -> InputFileError:
        return InputFileError(self.path, message, line=self.line, field=name)

    def _get(self, name: str, required: bool) -> Any:
        """The raw value, or ``None`` when it is missing or empty (an error if required)."""
        value = self.data.get(name)
        if value is None or value == "":
            if required:
                raise self.error(name, "missing value")
            return None
        return value

    def text(self, name: str, *, required: bool = False) -> str:
        value = self._get(name, required)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.error(name, f"expected text, got {value!r}")
        return value

    def integer(self, name: str, *, low: int = 0, required: bool = True) -> int | None:
        value = self._get(name, required)
        if value is None:
            return None
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise self.error(name, f"expected a whole number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(name, f"expected a whole number, got {value!r}")
        if value < low:
            raise self.error(name, f"must be >= {low}, got {value}")
        return value

    def number(self, name: str, *, required: bool = True) -> float | None:
        value = self._get(name, required)
        if value is None:
            return None
        try:
            number = float(value) if not isinstance(value, bool) else None
        except (TypeError, ValueError):
            number = None
        if number is None or number != number or number < 0:
            raise self.error(name, f"expected a number >= 0, got {value!r}")
        return number

    def counts(self, name: str, *, required: bool = False) -> Counts | None:
        value = self._get(name, required)
        if value is None:
            return None
        try:
            if isinstance(value, str):
                return parse_counts(value)
            if not isinstance(value, dict):
                raise CountsError(str(value), f"expected counts, got {value!r}")
            out: dict[str, int] = {}
            for key, n in value.items():
                if isinstance(n, bool) or not isinstance(n, int):
                    raise CountsError(key, f"count of {key!r} must be a whole number, got {n!r}")
                if n < 0:
                    raise CountsError(key, f"negative count {n} of {key!r}")
                if n > 999_999:
                    raise CountsError(key, f"count {n} of {key!r} is implausibly large")
                resolved = _resolve(str(key).lower())
                out[resolved] = out.get(resolved, 0) + n
            return canonical(out)
        except CountsError as exc:
            raise self.error(name, str(exc)) from None

    def meta(self) -> dict[str, Any]:
        """The meta record's JSON object (a JSON text cell in CSV, the line itself in JSONL)."""
        if self.path.lower().endswith(".csv"):
            try:
                data = parse_json(self.text("text") or "{}", self.path, line=self.line)
            except InputFileError as exc:
                raise self.error("text", f"meta must be a JSON object ({exc.reason})") from None
        else:
            data = {k: v for k, v in self.data.items() if k != "record"}
        if not isinstance(data, dict):
            raise self.error("text", "meta must be a JSON object")
        truth = data.get("truth", {})
        if not isinstance(truth, dict):
            raise self.error("meta.truth", f"expected an object, got {truth!r:.40}")
        theta = truth.get("theta", {})
        if not isinstance(theta, dict):
            raise self.error("meta.truth.theta", f"expected an object, got {theta!r:.40}")
        for key, value in theta.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise self.error(f"meta.truth.theta.{key}", f"expected a number, got {value!r:.40}")
        return data


def _check_schema(fields: _Fields, expected: str, csv_field: str) -> None:
    if fields.data.get("record") != "schema":
        raise fields.error("record", f"the first record must be the schema ({expected!r})")
    got = fields.data.get("schema", fields.data.get(csv_field))
    if got != expected:
        name = "schema" if "schema" in fields.data else csv_field
        raise fields.error(name, f"wrong schema version {got!r}; this toolkit reads {expected!r}")


def read_recording(path: str | Path) -> Recording:
    """Read and validate a recording (``.csv`` or ``.jsonl``).

    Raises
    ------
    InputFileError
        On the first problem, naming the file, the line and the field.
    """
    return read_recording_text(None, path)


def read_recording_text(text: str | None, path: str | Path) -> Recording:
    """As :func:`read_recording`, from ``text`` if given (``path`` names it)."""
    path = Path(path)
    meta: dict[str, Any] | None = None
    sessions: dict[str, Session] = {}
    lines: dict[str, list[int]] = {}
    first = True
    for lineno, data in _rows(path, CSV_COLUMNS, text):
        f = _Fields(path, lineno, data)
        if first:
            _check_schema(f, SCHEMA, "text")
            first = False
            continue
        kind = f.text("record", required=True)
        if kind == "meta":
            if meta is not None:
                raise f.error("record", "a second meta record")
            meta = f.meta()
        elif kind == "session":
            name = f.text("session", required=True)
            if name in sessions:
                raise f.error("session", f"session {name!r} declared twice")
            start = f.text("start") or "unknown"
            if start not in STARTS:
                raise f.error("start", f"expected one of {STARTS}, got {start!r}")
            sessions[name] = Session(
                name=name,
                tower=f.text("tower") or "unknown",
                start=start,
                description=f.text("text"),
                piece_set=f.counts("set"),
            )
            lines[name] = []
        elif kind in ("throw", "note"):
            name = f.text("session", required=True)
            if name not in sessions:
                raise f.error("session", f"session {name!r} is not declared before its {kind}")
            s = sessions[name]
            if kind == "note":
                sessions[name] = replace(s, notes=(*s.notes, f.text("text")))
                continue
            number = f.integer("throw", low=1)
            if number != len(s.throws) + 1:
                raise f.error("throw", f"expected throw {len(s.throws) + 1}, got {number}")
            pieces_in = f.counts("in", required=True) or {}
            if not pieces_in:
                raise f.error("in", "a throw must put at least one piece in")
            check_count(total(pieces_in), path, "in", "pieces_per_throw", line=lineno)
            throw = Throw(number, pieces_in, f.counts("out") or {}, f.text("text"))
            sessions[name] = s = s.with_throws((*s.throws, throw))
            lines[name].append(lineno)
            problem = check_session(s)
            if problem is not None:
                raise InputFileError(str(path), problem[2], line=lineno, field=problem[1])
        else:
            raise f.error(
                "record", f"unknown record {kind!r}; expected schema, meta, session, throw, note"
            )
    if first:
        raise InputFileError(str(path), "no schema record: the file is empty", line=1)
    return Recording(tuple(sessions.values()), meta or {})


# ---------------------------------------------------------------- writing


def recording_lines(rec: Recording, fmt: str) -> list[str]:
    """The file's lines (with newlines) in ``fmt`` (``"csv"`` or ``"jsonl"``), in order."""
    out = [header_lines(fmt)]
    if rec.meta:
        out.append(record_line(fmt, "meta", meta=rec.meta))
    for s in rec.sessions:
        out.append(session_line(fmt, s))
        out.extend(throw_line(fmt, s.name, t) for t in s.throws)
        out.extend(record_line(fmt, "note", session=s.name, text=n) for n in s.notes)
    return out


def header_lines(fmt: str) -> str:
    """Header (CSV) and schema record: what a new file starts with."""
    if fmt == "csv":
        return _csv_line(CSV_COLUMNS) + record_line(fmt, "schema")
    return record_line(fmt, "schema")


def record_line(fmt: str, record: str, **values: Any) -> str:
    """One record as a line; ``values`` use the JSONL field names."""
    if fmt == "jsonl":
        data: dict[str, Any] = {"record": record}
        if record == "schema":
            data["schema"] = SCHEMA
        elif record == "meta":
            data.update(values["meta"])
        else:
            data.update(values)
        return json.dumps(data, sort_keys=False, separators=(", ", ": ")) + "\n"
    row = dict.fromkeys(CSV_COLUMNS, "")
    row["record"] = record
    if record == "schema":
        row["text"] = SCHEMA
    elif record == "meta":
        row["text"] = json.dumps(values["meta"], sort_keys=True)
    else:
        for key, value in values.items():
            if isinstance(value, dict):
                value = format_counts(value)
            row[key] = "" if value is None else str(value)
    return _csv_line(row[c] for c in CSV_COLUMNS)


def session_line(fmt: str, s: Session) -> str:
    return record_line(
        fmt, "session", session=s.name, start=s.start, tower=s.tower, set=s.piece_set,
        text=s.description,
    )  # fmt: skip


def throw_line(fmt: str, session: str, t: Throw) -> str:
    return record_line(
        fmt, "throw", session=session, throw=t.number, **{"in": t.pieces_in, "out": t.pieces_out},
        text=t.note,
    )  # fmt: skip


def _csv_line(cells: Iterable[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(list(cells))
    return buf.getvalue()


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write a whole file atomically: a temporary sibling, fsync, then rename."""
    write_text(path, text, checked=True)


def write_recording(rec: Recording, path: str | Path) -> None:
    """Write a recording atomically, in the format given by the extension."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, "".join(recording_lines(rec, _format_of(path))))


def append_line(path: str | Path, line: str) -> None:
    """Append one line and make it durable before returning (append, flush, fsync)."""
    with Path(path).open("a", encoding="utf-8", newline="") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def recording_format(path: str | Path) -> str:
    """``"csv"`` or ``"jsonl"`` from the file name; anything else is an InputFileError."""
    return _format_of(Path(path))


# ---------------------------------------------------------------- summaries


@dataclass(frozen=True)
class PublishedSummary:
    """A published statement: with ``pieces_in`` thrown, mean (and range) of pieces out."""

    source: str
    tower: str
    pieces_in: int
    mean_out: float
    throws: int | None = None
    min_out: float | None = None
    max_out: float | None = None
    text: str = ""


def read_summaries(path: str | Path) -> list[PublishedSummary]:
    """Read and validate a ``tower.summary/1`` file (``.csv`` or ``.jsonl``)."""
    path = Path(path)
    out: list[PublishedSummary] = []
    first = True
    for lineno, data in _rows(path, SUMMARY_COLUMNS):
        f = _Fields(path, lineno, data)
        if first:
            _check_schema(f, SUMMARY_SCHEMA, "text")
            first = False
            continue
        if f.text("record", required=True) != "summary":
            raise f.error("record", f"expected record 'summary', got {data.get('record')!r}")
        s = PublishedSummary(
            source=f.text("source", required=True),
            tower=f.text("tower") or "unknown",
            pieces_in=f.integer("pieces_in", low=1) or 0,
            mean_out=f.number("mean_out") or 0.0,
            throws=f.integer("throws", low=1, required=False),
            min_out=f.number("min_out", required=False),
            max_out=f.number("max_out", required=False),
            text=f.text("text"),
        )
        if s.min_out is not None and s.min_out > s.mean_out:
            raise f.error("min_out", f"min_out {s.min_out} is above mean_out {s.mean_out}")
        if s.max_out is not None and s.max_out < s.mean_out:
            raise f.error("max_out", f"max_out {s.max_out} is below mean_out {s.mean_out}")
        out.append(s)
    if first:
        raise InputFileError(str(path), "no schema record: the file is empty", line=1)
    return out


def write_summaries(items: Iterable[PublishedSummary], path: str | Path) -> None:
    """Write published summaries atomically (``.csv`` or ``.jsonl``)."""
    path = Path(path)
    fmt = _format_of(path)
    rows = [
        {"record": "summary", "source": s.source, "tower": s.tower, "pieces_in": s.pieces_in,
         "throws": s.throws, "mean_out": s.mean_out, "min_out": s.min_out, "max_out": s.max_out,
         "text": s.text}
        for s in items
    ]  # fmt: skip
    if fmt == "jsonl":
        lines = [json.dumps({"record": "schema", "schema": SUMMARY_SCHEMA}) + "\n"]
        lines += [json.dumps(r) + "\n" for r in rows]
    else:
        lines = [_csv_line(SUMMARY_COLUMNS), _csv_line(["schema", *[""] * 7, SUMMARY_SCHEMA])]
        lines += [
            _csv_line("" if r[c] is None else str(r[c]) for c in SUMMARY_COLUMNS) for r in rows
        ]
    atomic_write_text(path, "".join(lines))
