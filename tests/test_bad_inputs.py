"""A corpus of bad inputs fed to every reader and writer, as a hostile new user would.

Each case runs the ``tower`` command in-process (the console entry point
:func:`tower.cli.main`, so a user error is rendered exactly as in a terminal) inside a fresh
folder holding the case's files, and asserts:

- exit status 2;
- exactly one line on stderr, starting ``error:``, naming the file (or option) and
  carrying the case's expected words (the field and the value);
- no traceback;
- no file created, changed or deleted: the folder is snapshotted before and after.

The corpus is generated here: generic corruptions (encoding, directory, missing, empty,
nesting, NaN, huge numbers, truncation...) crossed with every file reader, then the
specific failures of issue 14, then the output policy for every writer.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import io
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tower.cli import main
from tower.files.outputs import run_header
from tower.physics.params import PhysicsParams

ROOT = Path(__file__).resolve().parents[1]
PRESET_TOML = (ROOT / "tower" / "geometry" / "presets" / "marrakesh.toml").read_text()

# ------------------------------------------------------------------ valid files

TRACE = {
    "schema": "tower.trace/1", "seq": 0, "seed": 1, "source": "hand",
    "pieces": ["keshi:red", "keshi:green"],
    "throws": [{"in": [0, 1], "out": [1], "inside": {"0": "floor1"}}],
}  # fmt: skip
RECORDING_CSV = (
    "record,session,throw,in,out,start,tower,set,text\n"
    "schema,,,,,,,,tower.recording/1\n"
    "session,s1,,,,empty,marrakesh,,\n"
    "throw,s1,1,r3,r1,,,,\n"
)
RECORDING_JSONL = (
    '{"record": "schema", "schema": "tower.recording/1"}\n'
    '{"record": "session", "session": "s1", "start": "empty", "tower": "marrakesh"}\n'
    '{"record": "throw", "session": "s1", "throw": 1, "in": {"red": 3}, "out": {"red": 1}}\n'
)
OBSERVATION = {
    "format": "tower.battle-observation/1",
    "thrown": ["watchman:red", "brigand"],
    "out": ["brigand"],
    "tower": "empty",
}
STATE = {"residents": [["keshi:red", "floor1", 0]], "throws": 1}


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=1) + "\n").encode()


VALID: dict[str, bytes] = {
    "params.json": _json(PhysicsParams().to_json()),
    "trace.jsonl": json.dumps(TRACE).encode() + b"\n",
    "rec.csv": RECORDING_CSV.encode(),
    "rec.jsonl": RECORDING_JSONL.encode(),
    "obs.json": _json(OBSERVATION),
    "state.json": _json(STATE),
    "spec.toml": PRESET_TOML.encode(),
}

# ------------------------------------------------------------------ the cases


@dataclass
class Case:
    """One bad input: files to create, the command line, and words the error must hold."""

    name: str
    argv: list[str]
    files: dict[str, bytes | None] = field(default_factory=dict)  # None: a folder
    expect: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()  # folders made read-only (mode 555)


#: Each file reader: (file name, command line reading it, JSON-based?).
READERS: dict[str, tuple[str, Callable[[str], list[str]], bool]] = {
    "params": ("p.json", lambda f: ["throw", "--params", f, "--throws", "1"], True),
    "params-simulate": ("p.json", lambda f: ["simulate", "--params", f, "--out", "o.jsonl"], True),
    "snapshot": ("snap.json", lambda f: ["throw", "--restore", f], True),
    "model-stats": ("m.json", lambda f: ["stats", "--model", f, "--sequences", "1"], True),
    "model-selfplay": ("m.json", lambda f: ["selfplay", "1", "--model", f], True),
    "traces-stats": ("t.jsonl", lambda f: ["stats", "--physics", "--traces", f], True),
    "traces-distill": ("t.jsonl", lambda f: ["distill", "--traces", f, "--out", "m.json"], True),
    "traces-validate": (
        "t.jsonl",
        lambda f: ["validate-model", "baseline", "--traces", f, "--out", "v"],
        True,
    ),
    "recording-jsonl": (
        "r.jsonl",
        lambda f: ["calibrate", f, "--out", "c", "--simulator", "baseline"],
        True,
    ),
    "recording-csv": (
        "r.csv",
        lambda f: ["calibrate", f, "--out", "c", "--simulator", "baseline"],
        False,
    ),
    "observation": ("o.json", lambda f: ["battle", "check", f, "--model", "baseline"], True),
    "tower-state": (
        "s.json",
        lambda f: ["battle", "--tower", f, "--model", "baseline", "--plot", ""],
        True,
    ),
    "spec-meshes": ("s.toml", lambda f: ["meshes", "build", "--spec", f, "--out", "m"], False),
    "spec-throw": ("s.toml", lambda f: ["throw", "--spec", f], False),
}

#: Corruptions every reader must refuse: name -> (bytes or None for a folder, words).
COMMON: dict[str, tuple[bytes | None, tuple[str, ...]]] = {
    "not-utf8": (b'{"a": "caf\xe9"}\n', ("not UTF-8", "0xe9")),
    "binary": (b"\x00\x01\x02\xfe\xff" * 10, ()),
    "utf16": ('{"a": 1}'.encode("utf-16"), ()),
    "directory": (None, ("director",)),
    "empty": (b"", ()),
    "bom-garbage": (codecs.BOM_UTF8 + b"\x01garbage\n", ()),
}
JSON_ONLY: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "deep-nesting": (b"[" * 5000 + b"]" * 5000 + b"\n", ("json_depth",)),
    "nan": (b'{"schema": NaN}\n', ("NaN", "schema")),
    "infinity": (b'{"schema": -Infinity}\n', ("Infinity",)),
    "float-overflow": (b'{"schema": 1e999}\n', ("1e999",)),
    "huge-int": (b'{"schema": 1' + b"0" * 5000 + b"}\n", ("digits",)),
    "truncated": (b'{"schema": "tower', ("not valid JSON",)),
    "top-level-list": (b"[1, 2, 3]\n", ()),
    "top-level-string": (b'"hello"\n', ()),
}


CSV_ONLY: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "wrong-header": (b"a,b,c\n1,2,3\n", ("header",)),
    "unclosed-quote": (RECORDING_CSV.encode() + b'note,s1,,,,,,,"never closed\n', ()),
    "cell-over-limit": (b"record," + b"x" * (200 * 1024) + b"\n", ("csv_cell_chars",)),
    "schema-row-missing": (b"record,session,throw,in,out,start,tower,set,text\n"
                           b"session,s1,,,,empty,,,\n", ("schema",)),
}
TOML_ONLY: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "toml-syntax": (b"[tube\nwidth = ", ("not valid TOML",)),
    "toml-nan": (b"width = nan\n", ("width", "nan")),
    "toml-overflow": (b"[tube]\nwidth = 1e400\n", ("width", "1e400")),
    "toml-not-a-spec": (b'name = "x"\n', ()),
}


def _generic_cases() -> list[Case]:
    cases = []
    for reader, (fname, argv, is_json) in READERS.items():
        extra = CSV_ONLY if fname.endswith(".csv") else TOML_ONLY
        table = {**COMMON, **(JSON_ONLY if is_json else extra)}
        for bad, (data, words) in table.items():
            cases.append(Case(f"{reader}/{bad}", argv(fname), {fname: data}, (fname, *words)))
        cases.append(Case(f"{reader}/missing", argv(fname), {}, (fname,)))
    return cases


def _trace(**changes: object) -> bytes:
    return json.dumps({**TRACE, **changes}).encode() + b"\n"


def _throw(**changes: object) -> dict:
    return {**TRACE["throws"][0], **changes}


def _snapshot_cases(snapshot: dict) -> list[Case]:
    def snap(**changes: object) -> dict[str, bytes]:
        return {"snap.json": _json({**snapshot, **changes})}

    inside = snapshot["inside"][0]
    numerics = snapshot.get("numerics", {})
    return [
        Case("snapshot/piece-out-inside", ["throw", "--restore", "snap.json"],
             snap(inside=[{**inside, "place": "out"}]), ("inside[0].place", "'out'")),
        Case("snapshot/negative-throws", ["throw", "--restore", "snap.json"],
             snap(throws=-3), ("throws", "-3")),
        Case("snapshot/float-seed", ["throw", "--restore", "snap.json"],
             snap(seed=1.5), ("seed", "1.5")),
        Case("snapshot/piece-twice", ["throw", "--restore", "snap.json"],
             snap(inside=[inside, inside]), ("inside[1].id",)),
        Case("snapshot/pieces-not-list", ["throw", "--restore", "snap.json"],
             snap(pieces="keshi:red"), ("pieces",)),
        Case("snapshot/too-many-pieces", ["throw", "--restore", "snap.json"],
             snap(pieces=["keshi:red"] * 1_000_001), ("pieces_per_sequence", "1000001")),
        Case("snapshot/too-many-inside", ["throw", "--restore", "snap.json"],
             snap(inside=[{**inside, "id": k} for k in range(401)]),
             ("inside", "401", "pieces_inside")),
        Case("snapshot/wrong-schema", ["throw", "--restore", "snap.json"],
             snap(schema="tower.snapshot/9"), ("schema",)),
        # found by the slow fuzzer: numerics values that reached pybullet or divided by 0
        Case("snapshot/numerics-margin-list", ["throw", "--restore", "snap.json"],
             snap(numerics={**numerics, "margin": []}), ("numerics field margin",)),
        Case("snapshot/numerics-time-step-null", ["throw", "--restore", "snap.json"],
             snap(numerics={**numerics, "time_step": None}), ("time_step", "None")),
        Case("snapshot/numerics-rebuild-zero", ["throw", "--restore", "snap.json"],
             snap(numerics={**numerics, "rebuild_every": 0}),
             ("rebuild_every", "at least 1", "got 0")),
        Case("snapshot/restore-with-params",
             ["throw", "--restore", "snap.json", "--params", "params.json"],
             {**snap(), "params.json": VALID["params.json"]}, ("--restore", "--params")),
    ]  # fmt: skip


def _spec_with(**replacements: str) -> bytes:
    """The marrakesh preset with the first occurrence of each key's text replaced; the
    keyword ``holes`` replaces the first ``holes = [`` line."""
    text = PRESET_TOML
    for old, new in replacements.items():
        old = "holes = [\n" if old == "holes" else old
        assert old in text, old
        text = text.replace(old, new, 1)
    return text.encode()


def _specific_cases() -> list[Case]:
    big_cell = "x" * (129 * 1024)
    hole = [[float(i % 7), float(i % 5)] for i in range(200_000)]
    spec_200k = _spec_with(holes=f"holes = [\n  {json.dumps(hole)},\n")
    tube_width = "width = { value = 72.0, low = 71.0, high = 84.0 }"
    cal = ["calibrate", "r.csv", "--out", "c", "--simulator", "baseline"]
    calj = ["calibrate", "r.jsonl", "--out", "c", "--simulator", "baseline"]
    head = "".join(RECORDING_CSV.splitlines(keepends=True)[:2])
    state_cmd = ["battle", "--tower", "s.json", "--model", "baseline", "--plot", ""]
    obs_cmd = ["battle", "check", "o.json", "--model", "baseline"]
    check = ["battle", "check", "--model", "baseline", "--out", "brigand", "--thrown"]
    model_cmd = ["stats", "--model", "m.json", "--sequences", "1"]
    stats_t = ["stats", "--physics", "--traces", "t.jsonl"]
    return [
        # recordings
        Case("recording/csv-bom-but-bad-row", cal,
             {"r.csv": codecs.BOM_UTF8 + (RECORDING_CSV + "throw,s1,3,r1,,,,,\n").encode()},
             ("r.csv:5", "throw", "expected throw 2, got 3")),
        Case("recording/cell-over-128k", cal,
             {"r.csv": (RECORDING_CSV + f"note,s1,,,,,,,{big_cell}\n").encode()},
             ("r.csv:5", "csv_cell_chars")),
        Case("recording/1e20-keshis", cal,
             {"r.csv": (RECORDING_CSV + "throw,s1,2,red=100000000000000000000,,,,,\n").encode()},
             ("r.csv:5", "field in", "implausibly large")),
        Case("recording/million-keshis-per-throw", cal,
             {"r.csv": (RECORDING_CSV + "throw,s1,2,red=999999,,,,,\n").encode()},
             ("r.csv:5", "field in", "999999", "pieces_per_throw")),
        Case("recording/jsonl-million-keshis", calj,
             {"r.jsonl": (RECORDING_JSONL + '{"record": "throw", "session": "s1", "throw": 2,'
                          ' "in": {"red": 1000000}, "out": {}}\n').encode()},
             ("r.jsonl:4", "1000000")),
        Case("recording/meta-truth-not-object", cal,
             {"r.csv": (head + 'meta,,,,,,,,"{""truth"": 5}"\n' + "session,s1,,,,empty,,,\n")
              .encode()}, ("r.csv:3", "meta.truth", "5")),
        Case("recording/meta-truth-theta-text", cal,
             {"r.csv": (head + 'meta,,,,,,,,"{""truth"": {""theta"": {""p"": ""x""}}}"\n')
              .encode()}, ("r.csv:3", "meta.truth.theta.p", "'x'")),
        Case("recording/meta-nan", cal,
             {"r.csv": (head + 'meta,,,,,,,,"{""a"": NaN}"\n').encode()},
             ("r.csv:3", "NaN")),
        Case("recording/jsonl-meta-truth-list", calj,
             {"r.jsonl": (RECORDING_JSONL.split("\n")[0] + '\n{"record": "meta", "truth": [1]}\n')
              .encode()}, ("r.jsonl:2", "meta.truth", "[1]")),
        Case("recording/negative-count", cal,
             {"r.csv": (RECORDING_CSV + "throw,s1,2,red=-2,,,,,\n").encode()},
             ("r.csv:5", "field in", "-2")),
        Case("recording/unknown-colour", cal,
             {"r.csv": (RECORDING_CSV + "throw,s1,2,mauve=2,,,,,\n").encode()},
             ("r.csv:5", "field in", "mauve")),
        Case("recording/superscript-count", cal,
             {"r.csv": (RECORDING_CSV + "throw,s1,2,red=²,,,,,\n").encode()},
             ("r.csv:5", "field in", "²")),
        Case("recording/bad-extension", ["calibrate", "r.txt", "--out", "c"],
             {"r.txt": RECORDING_CSV.encode()}, ("r.txt", ".txt")),
        Case("recording/too-few-throws", cal, {"r.csv": RECORDING_CSV.encode()},
             ("r.csv", "fewer than 10")),
        Case("recording/unknown-preset", [*cal, "--preset", "bogus"],
             {"r.csv": RECORDING_CSV.encode()}, ("--preset", "bogus")),
        # traces
        Case("traces/empty-file", stats_t, {"t.jsonl": b""}, ("t.jsonl", "empty")),
        Case("traces/only-blank-lines", stats_t, {"t.jsonl": b"\n\n"}, ("t.jsonl", "empty")),
        Case("traces/throws-is-object", stats_t, {"t.jsonl": _trace(throws={"in": [0]})},
             ("t.jsonl:1", "field throws")),
        Case("traces/in-is-string", stats_t, {"t.jsonl": _trace(throws=[_throw(**{"in": "0,1"})])},
             ("t.jsonl:1", "throws[0].in", "0,1")),
        Case("traces/throw-is-list", stats_t, {"t.jsonl": _trace(throws=[[0, 1]])},
             ("t.jsonl:1", "throws[0]", "[0, 1]")),
        Case("traces/inside-is-list", stats_t,
             {"t.jsonl": _trace(throws=[_throw(inside=[0])])}, ("throws[0].inside", "[0]")),
        Case("traces/place-unknown", stats_t,
             {"t.jsonl": _trace(throws=[_throw(inside={"0": "attic"})])},
             ("throws[0].inside.0", "attic")),
        # found by the slow fuzzer: a key with a line break broke the one-line message
        Case("traces/id-with-line-break", stats_t,
             {"t.jsonl": _trace(throws=[_throw(inside={"\n": None})])},
             ("throws[0].inside", "not a piece id", "'\\n'")),
        Case("traces/id-with-spaces", stats_t,
             {"t.jsonl": _trace(throws=[_throw(inside={" 0": "floor1"})])},
             ("throws[0].inside", "' 0'")),
        Case("traces/float-ids", stats_t,
             {"t.jsonl": _trace(throws=[_throw(**{"in": [0.5, 1]})])}, ("throws[0].in", "0.5")),
        Case("traces/negative-sim-time", stats_t,
             {"t.jsonl": _trace(throws=[_throw(sim_time=-1)])}, ("throws[0].sim_time", "-1")),
        Case("traces/bool-rethrows", stats_t,
             {"t.jsonl": _trace(throws=[_throw(rethrows=True)])}, ("rethrows", "True")),
        Case("traces/throw-of-500-pieces", stats_t,
             {"t.jsonl": _trace(pieces=["keshi:red"] * 500,
                                throws=[_throw(**{"in": list(range(500)), "out": []})])},
             ("throws[0].in", "500", "pieces_per_throw")),
        Case("traces/seq-text", stats_t, {"t.jsonl": _trace(seq="0")}, ("field seq", "'0'")),
        Case("traces/pieces-object", stats_t, {"t.jsonl": _trace(pieces={"a": 1})},
             ("field pieces",)),
        Case("traces/piece-lost", stats_t,
             {"t.jsonl": _trace(throws=[_throw(out=[], inside={"0": "floor1"})])},
             ("t.jsonl:1", "field throws")),
        Case("traces/wrong-shape-distill", ["distill", "--traces", "t.jsonl", "--out", "m.json"],
             {"t.jsonl": _trace(throws=[[0, 1]])}, ("t.jsonl:1", "throws[0]")),
        Case("traces/wrong-shape-validate",
             ["validate-model", "baseline", "--traces", "t.jsonl", "--out", "v"],
             {"t.jsonl": _trace(throws="none")}, ("t.jsonl:1", "field throws")),
        Case("traces/run-header-only", stats_t,
             {"t.jsonl": json.dumps(run_header("simulate", {})).encode() + b"\n"},
             ("t.jsonl", "empty")),
        # tower states and observations
        Case("state/resident-from-the-future", state_cmd,
             {"s.json": _json({"residents": [["keshi:red", "floor1", 5]], "throws": 1})},
             ("s.json", "residents[0][2]", "5")),
        Case("state/keshi-mauve", state_cmd,
             {"s.json": _json({"residents": [["keshi:mauve", "floor1", 0]], "throws": 1})},
             ("s.json", "residents[0]", "mauve")),
        Case("state/coloured-brigand", state_cmd,
             {"s.json": _json({"residents": [["brigand:red", "floor1", 0]], "throws": 1})},
             ("s.json", "residents[0]", "brigand:red")),
        Case("state/resident-out", state_cmd,
             {"s.json": _json({"residents": [["keshi:red", "out", 0]], "throws": 1})},
             ("s.json", "residents[0][1]", "'out'")),
        Case("state/negative-throws", state_cmd,
             {"s.json": _json({"residents": [], "throws": -1})}, ("tower.throws", "-1")),
        Case("state/too-many-residents", state_cmd,
             {"s.json": _json({"residents": [["keshi:red", "floor1", 0]] * 5000, "throws": 1})},
             ("tower.residents", "5000", "state_residents")),
        Case("state/resident-not-triple", state_cmd,
             {"s.json": _json({"residents": [["keshi:red", "floor1"]], "throws": 1})},
             ("residents[0]",)),
        Case("observation/repaired-true", obs_cmd,
             {"o.json": _json({**OBSERVATION, "wall": {"repaired": True}})},
             ("o.json", "wall.repaired", "True")),
        Case("observation/coloured-brigand", obs_cmd,
             {"o.json": _json({**OBSERVATION, "thrown": ["brigand:red"]})},
             ("o.json", "field thrown", "brigand:red")),
        Case("observation/wrong-format", obs_cmd,
             {"o.json": _json({**OBSERVATION, "format": "x"})}, ("o.json", "field format", "'x'")),
        Case("observation/state-from-future", obs_cmd,
             {"o.json": _json({**OBSERVATION,
                               "tower": {"residents": [["keshi:red", "ramp", 9]], "throws": 0}})},
             ("o.json", "residents[0][2]", "9")),
        Case("observation/million-pawns", obs_cmd,
             {"o.json": _json({**OBSERVATION, "thrown": ["1000000*brigand"]})},
             ("o.json", "field thrown", "pieces_per_throw")),
        Case("observation/watchtower-text", obs_cmd,
             {"o.json": _json({**OBSERVATION, "wall": {"watchtower": "yes"}})},
             ("o.json", "wall.watchtower")),
        # models
        Case("model/nan-in-table", model_cmd,
             {"m.json": b'{"schema": "tower.model/1", "model": {"tables": [[NaN]]}}'},
             ("m.json", "NaN")),
        Case("model/wrong-schema", model_cmd, {"m.json": b'{"schema": "x"}'},
             ("m.json", "field schema", "'x'")),
        Case("model/deep-validate", ["validate-model", "m.json", "--traces", "t.jsonl",
                                     "--out", "v"],
             {"m.json": b"{" * 100 + b"}" * 100, "t.jsonl": VALID["trace.jsonl"]},
             ("m.json", "json_depth")),
        # specs
        Case("spec/hole-200k-vertices", ["meshes", "build", "--spec", "s.toml", "--out", "m"],
             {"s.toml": spec_200k}, ("s.toml", "floors.0.holes.0", "200000", "hole_vertices")),
        Case("spec/nan-vertex", ["meshes", "build", "--spec", "s.toml", "--out", "m"],
             {"s.toml": _spec_with(holes="holes = [\n  [[nan, 0.0], [1.0, 0.0], [1.0, 1.0]],\n")},
             ("s.toml:45", "nan")),
        Case("spec/huge-number", ["meshes", "build", "--spec", "s.toml", "--out", "m"],
             {"s.toml": _spec_with(**{tube_width: "width = { value = 1e300, low = 0.0, "
                                                  "high = 1e308 }"})},
             ("s.toml", "field tube.width", "1e+30", "magnitude")),
        Case("spec/inf", ["throw", "--spec", "s.toml"],
             {"s.toml": _spec_with(**{tube_width: "width = { value = inf, low = 0.0, "
                                                  "high = 100.0 }"})}, ("s.toml:17", "inf")),
        Case("spec/huge-int", ["meshes", "show", "--spec", "s.toml", "--out", "g.png"],
             {"s.toml": _spec_with(**{tube_width: "width = { value = " + "9" * 400 + ", "
                                                  "low = 0.0, high = 100.0 }"})},
             ("s.toml", "tube.width.value", "magnitude")),
        Case("spec/nul-byte", ["throw", "--spec", "s.toml"],
             {"s.toml": PRESET_TOML.replace("[tube]", "[tube\x00]", 1).encode()}, ("s.toml",)),
        # params
        Case("params/negative-friction", ["throw", "--params", "p.json"],
             {"p.json": _json({"schema": "tower.physics-params/1", "friction_piece": -1})},
             ("p.json", "friction_piece", "-1")),
        Case("params/text-value", ["throw", "--params", "p.json"],
             {"p.json": _json({"schema": "tower.physics-params/1", "restitution": "0.2"})},
             ("p.json", "restitution", "0.2")),
        Case("params/unknown-field", ["throw", "--params", "p.json"],
             {"p.json": _json({"schema": "tower.physics-params/1", "gravity": 3})},
             ("p.json", "gravity")),
        Case("params/geometry-nan", ["simulate", "--params", "p.json", "--out", "o.jsonl"],
             {"p.json": b'{"schema": "tower.params/1", "geometry": {"tube.width": NaN}}'},
             ("p.json", "NaN")),
        Case("params/unknown-geometry", ["throw", "--params", "p.json"],
             {"p.json": _json({"schema": "tower.params/1", "geometry": {"tube.colour": 1}})},
             ("p.json", "geometry.tube.colour")),
        # command-line values
        Case("cli/throw-10000-pieces", ["throw", "--pieces", "10000"], {},
             ("--pieces", "10000", "pieces_per_throw")),
        Case("cli/simulate-10000-pieces", ["simulate", "--pieces", "10000", "--out", "o.jsonl"],
             {}, ("--pieces", "10000", "pieces_per_throw")),
        Case("cli/render-10000-pieces", ["render", "--pieces", "10000"], {},
             ("--pieces", "10000")),
        Case("cli/record-synthetic-10000", ["record-synthetic", "--pieces", "10000",
                                            "--simulator", "baseline", "--out", "r.csv"], {},
             ("--pieces", "10000")),
        Case("cli/battle-warm-million", ["battle", "--tower", "warm:1000000", "--plot", ""], {},
             ("warm:1000000", "warmup_rounds")),
        Case("cli/battle-warm-superscript", ["battle", "--tower", "warm:²", "--plot", ""], {},
             ("warm:²",)),
        Case("cli/battle-recruited-superscript", ["battle", "--recruited", "²", "--plot", ""], {},
             ("--recruited", "²")),
        Case("cli/battle-check-million", [*check, "1000000*brigand"], {},
             ("pieces_per_throw",)),
        Case("cli/battle-check-superscript", [*check, "²*brigand"], {}, ("²*brigand",)),
        Case("cli/battle-check-coloured-brigand", [*check, "brigand:red"], {},
             ("brigand:red",)),
        Case("cli/battle-check-mauve", [*check, "keshi:mauve"], {}, ("mauve",)),
        Case("cli/battle-tower-missing", ["battle", "--tower", "nope.json", "--plot", ""], {},
             ("nope.json", "no such file")),
        Case("cli/stats-sequences-0", ["stats", "--sequences", "0"], {}, ("--sequences", "0")),
        Case("cli/stats-throws-negative", ["stats", "--throws", "-1"], {}, ("--throws", "-1")),
        Case("cli/stats-sizes-0", ["stats", "--sizes", "0"], {}, ("--sizes", "'0'")),
        Case("cli/stats-sizes-huge", ["stats", "--sizes", "5000"], {}, ("--sizes", "5000")),
        Case("cli/stats-sims-0", ["stats", "--physics", "--sims", "0"], {}, ("--sims", "0")),
        Case("cli/stats-preset", ["stats", "--physics", "--preset", "bogus"], {},
             ("--preset", "bogus")),
        Case("cli/render-size-0", ["render", "--size", "0", "0"], {}, ("--size", "0")),
        Case("cli/render-warmup-huge", ["render", "--warmup", "100000"], {},
             ("--warmup", "100000")),
        Case("cli/record-synthetic-preset", ["record-synthetic", "--preset", "bogus",
                                             "--simulator", "baseline", "--out", "r.csv"], {},
             ("--preset", "bogus")),
        Case("cli/distill-preset", ["distill", "--sims", "1", "--preset", "bogus",
                                    "--out", "m.json"], {}, ("--preset", "bogus")),
        Case("cli/validate-level", ["validate-model", "baseline", "--traces", "t.jsonl",
                                    "--out", "v", "--level", "7"],
             {"t.jsonl": VALID["trace.jsonl"]}, ("--level", "7")),
        Case("cli/selfplay-modules", ["selfplay", "1", "--modules", "bogus"], {}, ("bogus",)),
        Case("cli/play-modules", ["play", "--modules", "bogus"], {}, ("bogus",)),
        Case("cli/unknown-option", ["throw", "--bogus"], {}, ("--bogus",)),
    ]  # fmt: skip


def _output_cases() -> list[Case]:
    user = b"the user's own file, written by hand\n"
    jsondump = b'{"results": [1, 2, 3]}'  # a json.dump output: no final newline
    other_run = json.dumps(run_header("simulate", {"seed": 99})).encode() + b"\n"
    sim = ["simulate", "--sequences", "1", "--throws", "1", "--pieces", "2", "--workers", "1"]
    bat = ["battle", "--model", "baseline", "--samples", "2", "--no-hiring", "--tower", "empty"]
    rs = ["record-synthetic", "--simulator", "baseline", "--throws", "2", "--out"]
    return [
        Case("out/simulate-jsondump-file", [*sim, "--out", "o.jsonl"], {"o.jsonl": jsondump},
             ("o.jsonl", "no run header", "--force")),
        Case("out/simulate-user-file", [*sim, "--out", "o.jsonl"], {"o.jsonl": user},
             ("o.jsonl", "--force")),
        Case("out/simulate-other-settings", [*sim, "--out", "o.jsonl"], {"o.jsonl": other_run},
             ("o.jsonl", "other settings", "--force")),
        Case("out/simulate-plot-exists", [*sim, "--out", "o.jsonl", "--plot", "p.png"],
             {"p.png": user}, ("p.png", "--force")),
        Case("out/simulate-out-is-folder", [*sim, "--out", "d"], {"d": None}, ("d",)),
        Case("out/simulate-read-only-folder", [*sim, "--out", "ro/o.jsonl"], {"ro": None},
             ("ro", "read-only"), read_only=("ro",)),
        Case("out/simulate-parent-is-file", [*sim, "--out", "f/o.jsonl"], {"f": user},
             ("f", "not a folder")),
        Case("out/record-synthetic-exists", [*rs, "r.csv"], {"r.csv": VALID["rec.csv"]},
             ("r.csv", "--force")),
        Case("out/record-synthetic-read-only", [*rs, "ro/r.csv"], {"ro": None},
             ("ro", "read-only"), read_only=("ro",)),
        Case("out/record-not-a-recording", ["record", "r.csv"], {"r.csv": user}, ("r.csv",)),
        Case("out/record-jsondump", ["record", "r.jsonl"], {"r.jsonl": jsondump},
             ("r.jsonl",)),
        Case("out/record-read-only", ["record", "ro/r.csv"], {"ro": None},
             ("ro", "read-only"), read_only=("ro",)),
        Case("out/record-folder", ["record", "d"], {"d": None}, ("d",)),
        Case("out/throw-snapshot-exists", ["throw", "--snapshot", "s.json"],
             {"s.json": user}, ("s.json", "--force")),
        Case("out/throw-snapshot-read-only", ["throw", "--snapshot", "ro/s.json"], {"ro": None},
             ("ro", "read-only"), read_only=("ro",)),
        Case("out/battle-json-exists", [*bat, "--plot", "", "--json", "b.json"],
             {"b.json": user}, ("b.json", "--force")),
        Case("out/battle-plot-exists", [*bat], {"battle.png": user}, ("battle.png", "--force")),
        Case("out/battle-json-is-folder", [*bat, "--plot", "", "--json", "d"], {"d": None},
             ("d", "folder")),
        Case("out/battle-traces-user-file", ["battle", "traces", "--seasons", "1",
                                             "--out", "t.jsonl"], {"t.jsonl": user},
             ("t.jsonl", "--force")),
        Case("out/calibrate-foreign-params", ["calibrate", "r.csv", "--out", "c",
                                              "--simulator", "baseline"],
             {"r.csv": VALID["rec.csv"], "c": None, "c/params.json": user},
             ("params.json", "--force")),
        Case("out/calibrate-out-is-file", ["calibrate", "r.csv", "--out", "c",
                                           "--simulator", "baseline"],
             {"r.csv": VALID["rec.csv"], "c": user}, ("c",)),
        Case("out/calibrate-foreign-cache", ["calibrate", "r.csv", "--out", "c",
                                             "--simulator", "baseline"],
             {"r.csv": VALID["rec.csv"], "c": None, "c/cache": None,
              "c/cache/replays.jsonl": jsondump}, ("replays.jsonl", "--force")),
        Case("out/stats-out-is-file", ["stats", "--sequences", "1", "--out", "s"], {"s": user},
             ("s", "not a folder")),
        Case("out/stats-foreign-json", ["stats", "--sequences", "1", "--out", "s"],
             {"s": None, "s/stats.json": user}, ("stats.json", "--force")),
        Case("out/validate-foreign-report", ["validate-model", "baseline", "--traces",
                                             "t.jsonl", "--out", "v"],
             {"t.jsonl": VALID["trace.jsonl"], "v": None, "v/report.md": user},
             ("report.md", "--force")),
        Case("out/meshes-file-at-target", ["meshes", "build", "--preset", "marrakesh",
                                           "--out", "m"],
             {"m": None, "m/marrakesh": user}, ("marrakesh", "not a folder")),
        Case("out/meshes-user-folder", ["meshes", "build", "--preset", "marrakesh",
                                        "--out", "m"],
             {"m": None, "m/marrakesh": None, "m/marrakesh/spec.toml": user},
             ("spec.toml", "--force")),
        Case("out/meshes-show-exists", ["meshes", "show", "--preset", "marrakesh",
                                        "--out", "g.png"], {"g.png": user}, ("g.png", "--force")),
        Case("out/render-exists", ["render", "--out", "t.gif"], {"t.gif": user},
             ("t.gif", "--force")),
        Case("out/distill-model-exists", ["distill", "--traces", "t.jsonl", "--out", "m.json"],
             {"t.jsonl": VALID["trace.jsonl"], "m.json": user}, ("m.json", "--force")),
        Case("out/distill-sims-foreign-traces", ["distill", "--sims", "1", "--preset",
                                                 "marrakesh", "--out", "m.json"],
             {"m.traces.jsonl": user}, ("m.traces.jsonl", "--force")),
        Case("out/selfplay-user-file", ["selfplay", "1", "--out", "g.jsonl"],
             {"g.jsonl": user}, ("g.jsonl", "--force")),
        Case("out/selfplay-other-settings", ["selfplay", "1", "--out", "g.jsonl"],
             {"g.jsonl": json.dumps(run_header("selfplay", {"players": 2})).encode() + b"\n"},
             ("g.jsonl", "other settings")),
        Case("out/demo-foreign-file", ["demo", "--out", "d"], {"d": None, "d/battle.png": user},
             ("battle.png", "--force")),
    ]  # fmt: skip


@pytest.fixture(scope="session")
def snapshot_json(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real snapshot: one throw of two keshis."""
    path = tmp_path_factory.mktemp("snap") / "s.json"
    with contextlib.redirect_stdout(io.StringIO()):
        main(["throw", "--throws", "1", "--pieces", "2", "--snapshot", str(path)])
    return json.loads(path.read_text())


CASES = _generic_cases() + _specific_cases() + _output_cases()
SNAPSHOT_CASES = [c.name for c in _snapshot_cases({"inside": [{}]})]


def _tree(root: Path) -> dict[str, tuple[str, float, int]]:
    """Every file and folder under ``root``: content hash, mtime and mode."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (digest, st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out


def run_case(case: Case, where: Path, capsys: pytest.CaptureFixture) -> None:
    """Run one case in ``where`` and assert everything the corpus promises."""
    for name, data in sorted(case.files.items()):
        path = where / name
        if data is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for name in case.read_only:
        (where / name).chmod(0o555)
    before = _tree(where)
    cwd = os.getcwd()
    os.chdir(where)
    try:
        with pytest.raises(SystemExit) as info:
            main(case.argv)
            raise SystemExit(0)
    finally:
        os.chdir(cwd)
        for name in case.read_only:
            (where / name).chmod(0o755)
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("pybullet build time")]
    assert info.value.code == 2, (info.value.code, captured.err[-2000:])
    assert "Traceback" not in captured.err + captured.out
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for word in case.expect:
        assert word in lines[0], (word, lines[0])
    after = _tree(where)
    for name in case.read_only:  # restored above for cleanup; compare contents only
        after[name] = before[name]
    assert after == before, "files were created, changed or deleted"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_case(case, tmp_path, capsys)


@pytest.mark.parametrize("name", SNAPSHOT_CASES)
def test_bad_snapshot(
    name: str, snapshot_json: dict, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    [case] = [c for c in _snapshot_cases(snapshot_json) if c.name == name]
    run_case(case, tmp_path, capsys)


def test_the_corpus_covers_every_reader_writer_and_issue_example() -> None:
    names = [c.name for c in CASES] + SNAPSHOT_CASES
    assert len(names) == len(set(names))
    assert len(names) >= 150, len(names)
    for reader in READERS:
        assert sum(n.startswith(reader + "/") for n in names) >= 8, reader
    writers = {
        "simulate", "record-synthetic", "record", "throw", "battle", "calibrate", "stats",
        "validate", "meshes", "render", "distill", "selfplay", "demo",
    }  # fmt: skip
    for writer in writers:
        assert any(n.startswith(f"out/{writer}-") for n in names), writer


def test_valid_files_are_read(tmp_path: Path) -> None:
    """The corpus' valid files pass their readers, so each bad case is bad for its fault."""
    from tower.battle.inputs import choose_tower, read_observation
    from tower.calibration.recording import read_recording
    from tower.geometry import load_spec
    from tower.model import BaselineModel
    from tower.physics.params_file import load_params
    from tower.traces import read_traces

    for name, data in VALID.items():
        (tmp_path / name).write_bytes(data)
    load_params(tmp_path / "params.json")
    assert len(list(read_traces(tmp_path / "trace.jsonl"))) == 1
    assert read_recording(tmp_path / "rec.csv").n_throws == 1
    assert read_recording(tmp_path / "rec.jsonl").n_throws == 1
    read_observation(tmp_path / "obs.json", BaselineModel())
    choose_tower(str(tmp_path / "state.json"), BaselineModel(), 4)
    load_spec(tmp_path / "spec.toml")


def test_a_spreadsheet_bom_is_accepted(tmp_path: Path) -> None:
    from tower.calibration.recording import read_recording

    path = tmp_path / "r.csv"
    path.write_bytes(codecs.BOM_UTF8 + RECORDING_CSV.encode())
    assert read_recording(path).n_throws == 1


def test_implausible_params_warn_once_naming_the_value(tmp_path: Path, capsys) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(_json({"schema": "tower.physics-params/1", "release_speed": 90000}))
    from tower.cli.options import load_physics

    with pytest.warns(Warning, match=r"physics.release_speed = 90000 is outside"):
        load_physics("marrakesh", None, path)


def test_meshes_build_keeps_user_files_in_an_earlier_mesh_folder(tmp_path: Path) -> None:
    out = tmp_path / "m"
    main(["meshes", "build", "--preset", "queen-classic", "--out", str(out)])
    mine = out / "queen-classic" / "notes.txt"
    mine.write_text("mine")
    main(["meshes", "build", "--preset", "queen-classic", "--out", str(out)])
    assert mine.read_text() == "mine"


def test_play_takes_a_superscript_digit_as_an_unknown_action() -> None:
    from click.testing import CliRunner

    from tower.cli import cli

    result = CliRunner().invoke(cli, ["play", "--players", "2"], input="²\nq\n")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


def _spec_with(name: str, value: float) -> None:
    """Set a preset's assumed number in a worker process (module level, so a process pool
    can run it)."""
    from tower.geometry import load_preset

    load_preset("marrakesh").with_values({name: value})


def test_a_file_error_raised_in_a_worker_process_arrives_whole() -> None:
    """A spec error raised in a process pool (or a Dask worker) is unpickled as itself,
    with its file, field and message; before, unpickling it failed and broke the pool."""
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from tower.geometry.errors import OutOfBoundsError, SpecError
    from tower.physics.sim import SnapshotError

    err = OutOfBoundsError("a.toml", "must be at most 1.05, got 2", field="floors.0.hole_scale")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is OutOfBoundsError
    assert (back.path, back.field, back.reason, str(back)) == (
        err.path, err.field, err.reason, str(err))  # fmt: skip
    assert str(pickle.loads(pickle.dumps(SnapshotError("s.json", "bad", line=3)))) == (
        "s.json:3: bad"
    )
    with ProcessPoolExecutor(1) as pool, pytest.raises(SpecError) as caught:
        pool.submit(_spec_with, "floors.0.hole_scale", 2.0).result()
    assert "floors.0.hole_scale" in str(caught.value) and "2" in str(caught.value)
