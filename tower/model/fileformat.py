"""The model file: versioned, checksummed, deterministic JSON.

Layout (schema ``tower.model/2``, or ``tower.model/3`` with a ``copula`` or the field ``t``)::

    {"schema": "tower.model/2",
     "name": "marrakesh",
     "tower": {"preset": "marrakesh", "spec": "<resolved spec TOML or null>"},
     "params": {...} | null,            # physics parameters the traces were made with
     "provenance": {"traces": [{"file", "sha256", "sequences", "throws", "sources"}],
                    "fit": {...settings}, "command": "tower distill ..."},
     "model": {"levels", "alpha", "buckets", "age_cap", "classes", "observed_classes",
               "base", "tables", "prior", "piece_levels", "piece_tables",
               "copula"},               # v3 only, optional; see tower.model.reference
     "sha256": "<hex digest of the canonical JSON of everything else>"}

Files are written as canonical JSON (sorted keys, no spaces, one trailing newline) with no
dates, so loading and saving again gives the same bytes. The loader names the file and
the field of any problem: not JSON (truncated or corrupt), a foreign file, a wrong schema
version, a checksum mismatch (edited or damaged), or a malformed table.

Versions: ``tower.model/2`` adds the context fields ``w`` and ``x`` (pawns and experts
thrown; ``buckets`` gives their edges, levels may name them). A ``tower.model/1`` file
(no ``w``/``x``) still loads, keeps its version when saved again, and samples exactly as
before: its levels cannot name the new fields. ``tower.model/3`` is a v2 section with an
optional ``copula``, an object ``{"throw": a, "origin": b, "gate": g}`` (``g`` a class, a
list of classes or null) or a list of them, the first whose gate is met applying (the
groups of one throw drawn jointly:
:meth:`tower.model.reference.ReferenceSampler.coupled_throw`);
v3 also has the context field ``t`` (the throws the tower has seen; levels may name it,
``buckets`` gives its edges when some level does). A file is written as v3 only when its
section has a copula or names ``t``, so a plain fit stays v2, byte for byte. A v1 or v2
section with a ``copula`` is refused: a port of those versions would ignore it; one that
names a field of a later version (``t``; ``w`` or ``x`` in v1) raises
:class:`NewerFieldError`, naming the file, the field and the value.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

from tower.errors import InputFileError
from tower.files.inputs import LIMITS, parse_json, read_text
from tower.model.fit import buckets_problem
from tower.model.reference import (
    DESTINATIONS,
    FIELDS,
    FIELDS_V1,
    FIELDS_V2,
    PLACES,
    gate_classes,
)

SCHEMA_PREFIX = "tower.model/"
VERSION = 2
#: The version of a section without a copula (what a plain fit writes).
SCHEMA = f"{SCHEMA_PREFIX}{VERSION}"
#: The version of a section with a copula or the context field ``t``.
SCHEMA_COPULA = f"{SCHEMA_PREFIX}3"
#: The versions this code reads, oldest first, with the context fields each allows.
SUPPORTED: dict[str, tuple[str, ...]] = {
    f"{SCHEMA_PREFIX}1": FIELDS_V1,
    SCHEMA: FIELDS_V2,
    SCHEMA_COPULA: FIELDS,
}
#: The versions whose section may hold a ``copula``.
COPULA_VERSIONS: frozenset[str] = frozenset({SCHEMA_COPULA})
#: What to do with a file of a version this code does not read.
REDISTIL = "re-distil it from its traces with `tower distill` (see the file's provenance.command)"
TOP_FIELDS = ("schema", "name", "tower", "params", "provenance", "model", "sha256")


class NewerFieldError(InputFileError):
    """A model file names a context field that its version does not have (``t`` in a
    ``tower.model/1`` or ``/2`` file): a port of that version would not read it."""


def canonical(data: Any) -> str:
    """The canonical JSON text of ``data`` (sorted keys, compact)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def checksum(doc: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``doc`` without its ``sha256`` field."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def schema_of(model: Any) -> str:
    """The version a fitted ``model`` section is written as: v3 with a copula or a
    level naming ``t``, else v2."""
    if isinstance(model, dict) and ("copula" in model or newer_field(model, SCHEMA)):
        return SCHEMA_COPULA
    return SCHEMA


def newer_field(model: Any, version: str) -> tuple[str, str] | None:
    """``(field, message)`` if the ``model`` section of a ``version`` file names a context
    field of a later version in its levels, piece levels or buckets, else ``None``.

    >>> newer_field({"levels": [["m", "t"]]}, "tower.model/2")
    ('levels[0]', "a 'tower.model/2' file has no context field 't' (new in 'tower.model/3'), \
got ['m', 't']")
    """
    if not isinstance(model, dict) or version not in SUPPORTED:
        return None
    allowed, names = SUPPORTED[version], list(SUPPORTED)
    found = [
        (f"{section}[{i}]", level, _list(level))
        for section in ("levels", "piece_levels")
        for i, level in enumerate(_list(model.get(section)))
    ]
    if isinstance(model.get("buckets"), dict):
        found += [(f"buckets.{f}", edges, [f]) for f, edges in model["buckets"].items()]
    for where, value, fields in found:
        for f in fields:
            if f in FIELDS and f not in allowed:
                since = next(v for v in names if f in SUPPORTED[v])
                return where, (
                    f"a {version!r} file has no context field {f!r} (new in {since!r}), "
                    f"got {value!r}"
                )
    return None


def dumps(doc: dict[str, Any]) -> str:
    """The file text of ``doc``, with a fresh checksum (a v1 document stays v1; one of
    an unknown version is written as :func:`schema_of` its section)."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    if body.get("schema") not in SUPPORTED:
        body["schema"] = schema_of(body.get("model"))
    return canonical({**body, "sha256": checksum(body)}) + "\n"


def loads(text: str, path: str = "<model>") -> dict[str, Any]:
    """Parse and validate a model file's text; raise :class:`InputFileError` on any fault.

    A file as :func:`dumps` writes it takes the fast way (:func:`_canonical_document`);
    any other text, and any fault, the full checks of :func:`tower.files.parse_json`
    and the messages below.
    """
    doc = _canonical_document(text)
    if doc is not None:
        return doc

    def bad(fld: str | None, msg: str) -> InputFileError:
        return InputFileError(path, msg, field=fld)

    doc = parse_json(text, path)  # depth, finite numbers; errors name line and field
    if not isinstance(doc, dict) or "schema" not in doc:
        raise bad("schema", "not a tower model file (no 'schema' field)")
    schema = doc["schema"]
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        raise bad("schema", f"not a tower model file: schema {schema!r}, expected {SCHEMA!r}")
    if schema not in SUPPORTED:
        reads = ", ".join(repr(v) for v in SUPPORTED)
        raise bad(
            "schema", f"unsupported model file version {schema!r}; this reads {reads}: {REDISTIL}"
        )
    missing = [f for f in TOP_FIELDS if f not in doc]
    if missing:
        raise bad(missing[0], "missing field")
    extra = sorted(set(doc) - set(TOP_FIELDS))
    if extra:
        raise bad(extra[0], "unknown field")
    if doc["sha256"] != checksum(doc):
        raise bad("sha256", "checksum mismatch: the file is corrupt or was edited by hand")
    if not isinstance(doc["name"], str) or not doc["name"]:
        raise bad("name", "expected a non-empty string")
    for fld in ("tower", "provenance"):
        if not isinstance(doc[fld], dict):
            raise bad(fld, "expected an object")
    if doc["params"] is not None and not isinstance(doc["params"], dict):
        raise bad("params", "expected an object or null")
    newer = newer_field(doc["model"], schema)
    if newer:
        raise NewerFieldError(path, newer[1], field=f"model.{newer[0]}")
    problem = validate_model_section(doc["model"], SUPPORTED[schema], version=schema)
    if problem:
        raise bad(f"model.{problem[0]}", problem[1])
    return doc


def _canonical_document(text: str) -> dict[str, Any] | None:
    """The document of ``text`` if it is written as :func:`dumps` writes (canonical) and
    passes every check of :func:`loads`, else ``None``, checked the quick way.

    The checksum is verified over the text itself: in a canonical file, the text without
    its ``sha256`` member is the canonical body the checksum was computed over, so it
    needs no second serialisation. The plain C parser runs without number hooks;
    :func:`_plain` then bounds what :func:`tower.files.parse_json` bounds (depth, finite
    numbers, integer digits) outside the tables, and the whole-array table checks of
    :func:`validate_model_section` bound their integers. ``None`` never means a bad file:
    the caller then runs the full checks, which also accept a valid file that is not
    canonical (its canonical form carrying the checksum).
    """
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or set(doc) != set(TOP_FIELDS):
        return None
    schema, sha, tower = doc["schema"], doc["sha256"], doc["tower"]
    if schema not in SUPPORTED or not isinstance(sha, str) or not isinstance(tower, dict):
        return None
    # the last two members are sha256 and tower; without sha256 the text is the body
    try:
        last = f',"tower":{canonical(tower)}}}'
    except ValueError:
        return None
    tail = f',"sha256":{canonical(sha)}{last}\n'
    if not text.endswith(tail):
        return None
    body = text[: -len(tail)] + last
    if sha != hashlib.sha256(body.encode("utf-8")).hexdigest():
        return None
    if not (isinstance(doc["name"], str) and doc["name"] and isinstance(doc["provenance"], dict)):
        return None
    if doc["params"] is not None and not isinstance(doc["params"], dict):
        return None
    model = doc["model"]
    if not isinstance(model, dict):
        return None
    rest = {k: v for k, v in model.items() if k not in ("tables", "piece_tables")}
    if not _plain({**doc, "model": rest}, LIMITS["json_depth"]):
        return None
    if validate_model_section(model, SUPPORTED[schema], version=schema, quick=True) is not None:
        return None
    return doc


def _plain(node: Any, depth: int) -> bool:
    """Whether ``node`` nests at most ``depth`` levels, its numbers are finite and its
    integers have at most ``LIMITS["int_digits"]`` digits (as
    :func:`tower.files.parse_json` requires)."""
    if depth < 1:
        return False
    if isinstance(node, dict):
        return all(_plain(v, depth - 1) for v in node.values())
    if isinstance(node, list):
        return all(_plain(v, depth - 1) for v in node)
    if isinstance(node, float):
        return math.isfinite(node)
    return not isinstance(node, int) or abs(node) < 10 ** LIMITS["int_digits"]


def validate_model_section(
    model: Any, fields: tuple[str, ...] = FIELDS, *, version: str = SCHEMA, quick: bool = False
) -> tuple[str, str] | None:
    """``(field, message)`` of the first fault of a ``model`` section, or ``None``.

    ``fields`` are the context fields of the file's version (:data:`SUPPORTED`); its
    section may hold a ``copula`` if its ``version`` is one of :data:`COPULA_VERSIONS`. Tables
    are checked on whole arrays (:func:`_entries_right`), entry by entry only to name a
    fault; with ``quick``, a table the whole-array check does not pass is reported as
    ``(field, "")`` at once (for a fast path that then runs the full checks).
    """
    if not isinstance(model, dict):
        return "", "expected an object"
    if "copula" in model and version not in COPULA_VERSIONS:
        # the reference sampler would couple the groups, a port of this version not
        return "copula", f"a {version!r} file holds no copula: it needs {SCHEMA_COPULA!r}"
    for fld in (
        "levels",
        "alpha",
        "buckets",
        "age_cap",
        "classes",
        "base",
        "tables",
        "prior",
        "piece_levels",
        "piece_tables",
    ):
        if fld not in model:
            return fld, "missing field"
    levels = model["levels"]
    if not isinstance(levels, list) or not levels:
        return "levels", "expected a non-empty list of field lists"
    for i, lv in enumerate(levels):
        if not isinstance(lv, list) or "m" not in lv or not set(lv) <= set(fields):
            return f"levels[{i}]", f"expected a list of fields from {fields} holding 'm'"
    if not _number(model["alpha"]) or model["alpha"] <= 0:
        return "alpha", "expected a positive number"
    if not isinstance(model["age_cap"], int) or not 1 <= model["age_cap"] <= 9:
        return "age_cap", "expected an integer in 1..9"
    piece_levels = model["piece_levels"]
    problem = buckets_problem(model["buckets"], fields, _named([*levels, *_list(piece_levels)]))
    if problem:
        return "buckets", problem
    classes = model["classes"]
    if not isinstance(classes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v and "." not in v and "|" not in v
        for k, v in classes.items()
    ):
        return "classes", "expected {kind: class name}"
    groups = _groups(set(classes.values()), model["age_cap"])
    base = model["base"]
    if not isinstance(base, dict):
        return "base", "expected {group: destination law}"
    if set(base) != groups:
        odd = sorted(set(base) ^ groups)[0]
        return "base", f"expected one destination law for each group of the model, see {odd!r}"
    for g, probs in base.items():
        if (
            not isinstance(probs, list)
            or len(probs) != len(DESTINATIONS)
            or not all(_number(p) and p >= 0 for p in probs)
            or not math.isclose(sum(probs), 1.0, abs_tol=1e-6)
        ):
            return f"base[{g!r}]", "expected 5 non-negative probabilities summing to 1"
    tables = model["tables"]
    if not isinstance(tables, list) or len(tables) != len(levels):
        return "tables", "expected one table per level"
    for i, (lv, table) in enumerate(zip(levels, tables, strict=True)):
        if not isinstance(table, dict):
            return f"tables[{i}]", "expected an object"
        if _entries_right(table, lv, groups, 1 + len(DESTINATIONS)):
            continue
        if quick:
            return f"tables[{i}]", ""
        for key, flat in table.items():
            problem = _entry_problem(key, flat, lv, groups)
            if problem:
                return f"tables[{i}][{key!r}]", problem
    if not _number(model["prior"]) or model["prior"] <= 0:
        return "prior", "expected a positive number"
    piece_tables = model["piece_tables"]
    if not isinstance(piece_levels, list) or not all(
        isinstance(lv, list) and lv and set(lv) <= set(fields[1:]) for lv in piece_levels
    ):
        return "piece_levels", f"expected a list of non-empty field lists from {fields[1:]}"
    if not isinstance(piece_tables, list) or len(piece_tables) != len(piece_levels):
        return "piece_tables", "expected one table per piece level"
    for i, (lv, table) in enumerate(zip(piece_levels, piece_tables, strict=True)):
        if not isinstance(table, dict):
            return f"piece_tables[{i}]", "expected an object"
        if _entries_right(table, lv, groups, 0):
            continue
        if quick:
            return f"piece_tables[{i}]", ""
        for key, counts in table.items():
            parts = key.split("|")
            if len(parts) != 1 + len(lv) or parts[0] not in groups:
                return f"piece_tables[{i}][{key!r}]", f"key must be group|{'|'.join(lv)}"
            if not all(p.isdigit() for p in parts[1:]):
                return f"piece_tables[{i}][{key!r}]", "context values must be integers"
            if (
                not isinstance(counts, list)
                or len(counts) != len(DESTINATIONS)
                or not all(isinstance(c, int) and c >= 0 for c in counts)
                or sum(counts) == 0
            ):
                return f"piece_tables[{i}][{key!r}]", "expected 5 counts, not all zero"
    if "copula" in model:
        return _copula_problem(model["copula"], set(classes.values()))
    return None


def _copula_problem(copula: Any, classes: set[str]) -> tuple[str, str] | None:
    """``(field, message)`` of the first fault of a ``copula`` (an object, or a
    non-empty list of them), or ``None``."""
    if not isinstance(copula, list):
        return _copula_entry_problem(copula, classes, "copula")
    if not copula:
        return "copula", "expected an object {throw, origin, gate} or a non-empty list of them"
    for i, entry in enumerate(copula):
        problem = _copula_entry_problem(entry, classes, f"copula[{i}]")
        if problem:
            return problem
    return None


def _copula_entry_problem(copula: Any, classes: set[str], name: str) -> tuple[str, str] | None:
    """``(field, message)`` of the first fault of one copula object (field ``name``)."""
    if not isinstance(copula, dict):
        return name, f"expected an object {{throw, origin, gate}}, got {copula!r}"
    for fld in ("throw", "origin", "gate"):
        if fld not in copula:
            return f"{name}.{fld}", "missing field"
    extra = sorted(set(copula) - {"throw", "origin", "gate"})
    if extra:
        return f"{name}.{extra[0]}", "unknown field"
    for fld in ("throw", "origin"):
        if not _number(copula[fld]) or copula[fld] < 0:
            return f"{name}.{fld}", f"expected a number >= 0, got {copula[fld]!r}"
    a, b = copula["throw"], copula["origin"]
    if a * a + b * b >= 1:
        return name, f"expected throw^2 + origin^2 < 1, got {a!r}^2 + {b!r}^2"
    gate = copula["gate"]
    try:
        names = gate_classes(gate) or ()
    except ValueError:  # not a class name, a list of distinct ones or null
        names = None
    if names is None or not set(names) <= classes:
        return f"{name}.gate", (
            f"expected null, a class or a list of distinct classes of {sorted(classes)}, "
            f"got {gate!r}"
        )
    return None


def _entries_right(table: dict, level: list, groups: set[str], width: int) -> bool:
    """Whether every entry of ``table`` is right, checked on whole arrays: as
    :func:`_entry_problem` says of an outcome table (``width`` 6), or, with ``width`` 0, a
    piece table's 5 counts, not all zero. ``False`` says nothing (a value numpy cannot
    hold, a ``bool``): the caller checks entry by entry to name the first fault.
    """
    import numpy as np  # here: the rooms that import this module need no numpy

    keys, values = list(table), list(table.values())
    if not keys:
        return True
    if not all(isinstance(f, str) for f in level):
        return False
    found = list(map(re.compile(r"([^|]*)" + r"\|([0-9]+)" * len(level)).fullmatch, keys))
    if not all(found) or not set(map(_FIRST, found)) <= groups:
        return False
    if set(map(type, values)) != {list}:
        return False
    lengths = np.fromiter(map(len, values), np.int64, len(values))
    flat = list(chain.from_iterable(values))
    if not set(map(type, flat)) <= {int, bool}:
        return False
    try:
        numbers = np.fromiter(flat, np.int64, len(flat))
    except OverflowError:
        return False
    if (numbers < 0).any() or numbers.max() >= 1 << 40:  # the sums below cannot overflow
        return False
    if not width:
        return bool((lengths == len(DESTINATIONS)).all()) and bool(
            numbers.reshape(-1, len(DESTINATIONS)).sum(axis=1).all()
        )
    if not lengths.all() or (lengths % width).any():
        return False
    m_of = itemgetter(2 + level.index("m"))
    m = np.fromiter(map(int, map(m_of, found)), np.int64, len(found))
    rows = numbers.reshape(-1, width)
    return bool((rows[:, 0] >= 1).all()) and bool(
        (rows[:, 1:].sum(axis=1) == np.repeat(m, lengths // width)).all()
    )


#: The group name of a table key's match.
_FIRST = itemgetter(1)


def _entry_problem(key: str, flat: Any, level: list[str], groups: set[str]) -> str | None:
    parts = key.split("|")
    if len(parts) != 1 + len(level) or parts[0] not in groups:
        return f"key must be group|{'|'.join(level)}"
    if not all(p.isdigit() for p in parts[1:]):
        return "context values must be integers"
    m = int(parts[1 + level.index("m")])
    width = 1 + len(DESTINATIONS)
    if (
        not isinstance(flat, list)
        or not flat
        or len(flat) % width
        or not all(isinstance(x, int) and x >= 0 for x in flat)
    ):
        return f"expected a flat list of [count, {', '.join(DESTINATIONS)}] entries"
    for j in range(0, len(flat), width):
        if flat[j] < 1 or sum(flat[j + 1 : j + width]) != m:
            return f"entry {j // width}: count must be positive and the outcome must sum to m"
    return None


def _list(value: Any) -> list:
    """``value`` if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def _named(levels: list) -> set[str]:
    """The field names that the (maybe malformed) ``levels`` hold."""
    return {f for level in levels for f in _list(level) if isinstance(f, str)}


def _groups(classes: set[str], age_cap: int) -> set[str]:
    names = {f"fresh.{c}" for c in classes}
    names |= {f"{p}.{c}.{a}" for p in PLACES for c in classes for a in range(1, age_cap + 1)}
    return names


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def read_model_file(path: str | Path) -> dict[str, Any]:
    """Read and validate the model file at ``path``."""
    return loads(read_text(path), str(path))
