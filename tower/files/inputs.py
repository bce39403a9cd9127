"""Reading user files: one place that checks what every reader needs checked.

Every reader of a user file (tower specs, recordings, traces, model files, params,
snapshots, tower states, battle observations, game JSON) gets its text from
:func:`read_text` and its JSON from :func:`parse_json` / :func:`load_json`, and checks
counts that bound the work it will do with :func:`check_count`. Each fault becomes one
:class:`~tower.errors.InputFileError` naming the file, the line, the field and the value:

- the path must be an existing regular file (a directory, a FIFO or a device is refused);
- the file must be at most :data:`LIMITS` ``["file_bytes"]`` long; a name ending in
  ``.gz`` is read through gzip (committed trace files are kept compressed), and its
  content must be at most as long too;
- the text must be UTF-8; a leading byte-order mark (what a spreadsheet writes for
  "CSV UTF-8") is accepted and dropped;
- JSON may nest at most ``LIMITS["json_depth"]`` levels, its numbers must be finite
  (no ``NaN``, ``Infinity``, ``1e999``) and its integers at most
  ``LIMITS["int_digits"]`` digits long;
- a CSV cell may hold at most ``LIMITS["csv_cell_chars"]`` characters;
- counts that size a computation (pieces per throw, pieces inside, vertices per hole,
  residents of a tower state, warm-up rounds) are capped by the named limits below, each
  far above any real game: a Marrakesh game throws at most a few dozen pieces at once.

Examples
--------
>>> parse_json('{"a": [1, 2.5]}', "x.json")
{'a': [1, 2.5]}
>>> parse_json('{"a": NaN}', "x.json")
Traceback (most recent call last):
...
tower.errors.InputFileError: x.json:1: field a: number NaN is not finite
>>> check_count(10_000, "x.json", "pieces", "pieces_per_throw")
Traceback (most recent call last):
...
tower.errors.InputFileError: x.json: field pieces: 10000 is over the limit pieces_per_throw = 100
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import math
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from tower.errors import InputFileError

#: Named bounds on input size and on the work an input may ask for.
LIMITS: dict[str, int] = {
    "file_bytes": 1 << 30,  # 1 GiB: a million-sequence trace file is ~0.5 GiB
    "json_depth": 32,  # the deepest project format nests 6 levels
    "int_digits": 40,  # a 128-bit generator state has 39 digits
    "csv_cell_chars": 128 * 1024,
    "pieces_per_throw": 100,  # Marrakesh throws at most ~30 pieces at once
    "pieces_inside": 400,  # all the pieces of a 4-player Marrakesh box fit in this
    "hole_vertices": 2000,  # a round hole needs ~64
    "state_residents": 400,  # as pieces_inside
    "warmup_rounds": 200,  # a game has 12 rounds; the tower is steady after ~9 throws
    "throws_per_sequence": 100_000,
    "pieces_per_sequence": 1_000_000,  # every piece ever thrown into one tower
    "magnitude": 10**9,  # any number in a spec, mm or g: a tower is well under a metre
}


def _size(path: Path) -> int:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputFileError(str(path), "no such file") from None
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(str(path), "is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(str(path), "not a regular file")
    if st.st_size > LIMITS["file_bytes"]:
        raise InputFileError(
            str(path),
            f"{st.st_size} bytes is over the limit file_bytes = {LIMITS['file_bytes']}",
            field="<size>",
        )
    return st.st_size


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a user file, after the checks on its path and size."""
    path = Path(path)
    _size(path)
    try:
        if path.suffix == ".gz":
            return _gunzip(path)
        return path.read_bytes()
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror}") from None


def open_bytes(path: Path) -> BinaryIO:
    """``path`` opened for reading bytes, through gzip when its name ends in ``.gz``."""
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _gunzip(path: Path) -> bytes:
    """The content of a gzip file, read no further than the ``file_bytes`` limit."""
    limit = LIMITS["file_bytes"]
    try:
        with open_bytes(path) as f:
            data = f.read(limit + 1)
    except (gzip.BadGzipFile, EOFError) as exc:
        raise InputFileError(str(path), f"not gzip data ({exc})", field="<gzip>") from None
    if len(data) > limit:
        raise InputFileError(
            str(path),
            f"unpacks to over the limit file_bytes = {limit}",
            field="<size>",
        )
    return data


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text of ``data``, a leading byte-order mark dropped; else InputFileError.

    >>> decode(codecs.BOM_UTF8 + b"a,b", "r.csv")
    'a,b'
    >>> decode(b"ok\\n\\xff", "r.csv")
    Traceback (most recent call last):
    ...
    tower.errors.InputFileError: r.csv:2: field <encoding>: not UTF-8 text: byte 0xff at offset 3
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            str(path),
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}",
            line=line,
            field="<encoding>",
        ) from None


def read_text(path: str | Path) -> str:
    """The UTF-8 text of a user file, checked (see the module docstring)."""
    return decode(read_bytes(path), path)


class _BadNumber(ValueError):
    def __init__(self, token: str, why: str):
        super().__init__(token)
        self.token = token
        self.why = why


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _BadNumber(token, "is not finite")
    return value


def _int(token: str) -> int:
    if len(token.lstrip("+-")) > LIMITS["int_digits"]:
        raise _BadNumber(token[:20] + "...", f"has over {LIMITS['int_digits']} digits")
    return int(token)


def _constant(token: str) -> Any:
    raise _BadNumber(token, "is not finite")


def _token_line(text: str, token: str) -> int:
    at = text.find(token.rstrip("."))
    return text.count("\n", 0, max(at, 0)) + 1


def _field_at(text: str, token: str) -> str | None:
    """The JSON key just before ``token`` in ``text`` (a best guess for the message)."""
    at = text.find(token.rstrip("."))
    keys = re.findall(r'"([^"\\]{1,60})"\s*:', text[max(0, at - 400) : max(at, 0)])
    return keys[-1] if keys else None


def _depth_ok(obj: Any) -> bool:
    stack = [(obj, 1)]
    limit = LIMITS["json_depth"]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return True


def _max_depth_prefix(text: str) -> int:
    """Bracket depth of ``text`` ignoring strings (cheap scan before parsing)."""
    depth = best = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
            if best > LIMITS["json_depth"]:
                return best
        elif ch in "]}":
            depth -= 1
    return best


def parse_json(text: str, path: str | Path, *, line: int | None = None) -> Any:
    """Parse JSON text with the checks of the module docstring.

    ``line`` is the line of ``text`` in its file (for JSONL); otherwise error lines are
    those of ``text`` itself.
    """
    src = str(path)
    if text.count("[") + text.count("{") > LIMITS["json_depth"] and (
        _max_depth_prefix(text) > LIMITS["json_depth"]
    ):
        raise InputFileError(
            src,
            f"JSON nested deeper than the limit json_depth = {LIMITS['json_depth']}",
            line=line,
            field="<nesting>",
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        obj = json.loads(text, parse_float=_float, parse_int=_int, parse_constant=_constant)
    except _BadNumber as exc:
        where = line if line is not None else _token_line(text, exc.token)
        raise InputFileError(
            src,
            f"number {exc.token} {exc.why}",
            line=where,
            field=_field_at(text, exc.token) or "<number>",
        ) from None
    except json.JSONDecodeError as exc:
        raise InputFileError(
            src,
            f"not valid JSON, truncated or corrupt ({exc.msg}: column {exc.colno})",
            line=line if line is not None else exc.lineno,
            field="<json>",
        ) from None
    except RecursionError:  # pragma: no cover - the depth scan above catches it first
        raise InputFileError(src, "JSON nested too deeply", line=line, field="<nesting>") from None
    if not _depth_ok(obj):  # pragma: no cover - as above
        raise InputFileError(src, "JSON nested too deeply", line=line, field="<nesting>")
    return obj


def load_json(path: str | Path) -> Any:
    """Read and parse a JSON user file with every check of this module."""
    return parse_json(read_text(path), path)


def load_json_object(path: str | Path) -> dict[str, Any]:
    """As :func:`load_json`, and the top level must be an object."""
    data = load_json(path)
    if not isinstance(data, dict):
        raise InputFileError(
            str(path), f"expected a JSON object, got {type(data).__name__}", field="<root>"
        )
    return data


def json_lines(path: str | Path, text: str | None = None) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSONL user file."""
    if text is None:
        text = read_text(path)
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            yield lineno, parse_json(raw, path, line=lineno)


def csv_rows(text: str, path: str | Path) -> Iterator[tuple[int, list[str]]]:
    """``(line number, cells)`` of CSV text; a cell over the size limit is an error."""
    reader = csv.reader(io.StringIO(text, newline=""))
    old = csv.field_size_limit(LIMITS["csv_cell_chars"])
    try:
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InputFileError(
                    str(path),
                    f"not valid CSV ({exc}; limit csv_cell_chars = {LIMITS['csv_cell_chars']})",
                    line=reader.line_num,
                    field="<cell>",
                ) from None
            yield reader.line_num, row
    finally:
        csv.field_size_limit(old)


def check_count(
    value: Any, path: str | Path, field: str, limit: str, *, line: int | None = None
) -> int:
    """``value`` as an int in ``0..LIMITS[limit]``; else InputFileError naming the limit."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputFileError(
            str(path), f"expected a whole number, got {value!r}", line=line, field=field
        )
    if value < 0:
        raise InputFileError(str(path), f"must be >= 0, got {value}", line=line, field=field)
    if value > LIMITS[limit]:
        raise InputFileError(
            str(path),
            f"{value} is over the limit {limit} = {LIMITS[limit]}",
            line=line,
            field=field,
        )
    return value


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML user file: the checks of :func:`read_text`, finite floats only, and
    every number at most ``LIMITS["magnitude"]`` in size (see :func:`check_magnitudes`)."""
    import tomllib

    text = read_text(path)
    try:
        raw = tomllib.loads(text, parse_float=_float)
    except _BadNumber as exc:
        raise InputFileError(
            str(path), f"number {exc.token} {exc.why}", line=_token_line(text, exc.token),
            field=_toml_key_at(text, exc.token) or "<number>",
        ) from None  # fmt: skip
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"at line (\d+)", str(exc))
        raise InputFileError(
            str(path), f"not valid TOML: {exc}", line=int(at[1]) if at else None
        ) from None
    check_magnitudes(raw, path)
    return raw


def _toml_key_at(text: str, token: str) -> str | None:
    line = text.splitlines()[_token_line(text, token) - 1]
    key, eq, _ = line.partition("=")
    return key.strip() or None if eq else None


def check_magnitudes(data: Any, path: str | Path, prefix: str = "") -> None:
    """Raise if a number anywhere in ``data`` is larger than ``LIMITS["magnitude"]``
    (no length, count or parameter of a tower comes near; a larger one overflows)."""
    stack = [(prefix, data)]
    limit = LIMITS["magnitude"]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{where}.{i}", v) for i, v in enumerate(node))
        elif isinstance(node, int | float) and not isinstance(node, bool) and abs(node) > limit:
            raise InputFileError(
                str(path), f"value {node!r:.30} is over the limit magnitude = {limit:g}",
                field=where,
            )  # fmt: skip
