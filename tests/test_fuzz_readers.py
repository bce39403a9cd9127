"""Every file reader fed random bytes and structure-aware mutations of a valid file.

Whatever the bytes, a reader either returns or raises the project's own
:class:`tower.errors.TowerError` (in practice :class:`~tower.errors.InputFileError`): never
a ``KeyError``, ``AttributeError``, ``RecursionError`` or other Python error. The default
suite runs a small budget per reader; ``make slow`` runs each reader for 60 s.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bad_inputs import OBSERVATION, PRESET_TOML, RECORDING_CSV, RECORDING_JSONL, STATE, TRACE

from tower.errors import TowerError
from tower.files.outputs import run_header
from tower.physics.params import PhysicsParams

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["keshi:red", "brigand:neutral", "floor1", "out", "watchman:red", "²"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _nodes(doc: Any, depth: int = 0, limit: int = 6) -> list[tuple[Any, Any]]:
    """(container, key) of every node of ``doc`` down to ``limit`` levels."""
    out = []
    if depth >= limit:
        return out
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for key, value in list(items)[:50]:
        out.append((doc, key))
        out.extend(_nodes(value, depth + 1, limit))
    return out


@st.composite
def json_mutation(draw: st.DrawFn, valid: Any) -> bytes:
    """A valid JSON document with a few nodes replaced, deleted or duplicated."""
    doc = json.loads(json.dumps(valid))
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(doc)
        if not nodes:
            break
        parent, key = draw(st.sampled_from(nodes))
        action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace":
            parent[key] = draw(JSON_VALUES)
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, list):
            parent.append(parent[key])
        else:
            parent[key + "_"] = parent[key]
    return json.dumps(doc).encode()


@st.composite
def byte_mutation(draw: st.DrawFn, valid: bytes) -> bytes:
    """Valid bytes truncated, with bytes flipped, or with random bytes spliced in."""
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["truncate", "flip", "insert"]))
        if action == "truncate":
            del data[at:]
        elif action == "flip":
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
    return bytes(data)


def inputs(valid: bytes, lines: bool = False) -> st.SearchStrategy[bytes]:
    """Random bytes, byte-level mutations, and (for JSON/JSONL) structure-aware ones."""
    options = [st.binary(max_size=400), byte_mutation(valid)]
    with contextlib.suppress(ValueError):
        if lines:
            rows = [json.loads(x) for x in valid.decode().splitlines() if x.strip()]
            options.append(json_mutation(rows).map(_as_lines))
        else:
            options.append(json_mutation(json.loads(valid)))
    return st.one_of(*options)


def _as_lines(data: bytes) -> bytes:
    rows = json.loads(data)
    if not isinstance(rows, list):
        return data
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


# ------------------------------------------------------------------ the readers


def _readers(tmp: Path) -> dict[str, tuple[str, bytes, Callable[[Path], Any], bool]]:
    """name -> (file name, a valid file's bytes, reader, JSONL?)."""
    from tower.battle.inputs import choose_tower, read_observation
    from tower.calibration.recording import read_recording
    from tower.geometry import load_spec
    from tower.marrakesh import Game, GameConfig
    from tower.marrakesh.state_file import load_state
    from tower.model import BaselineModel, load_model
    from tower.physics.params_file import load_params
    from tower.runs import read_done, read_records
    from tower.traces import read_traces

    game = Game(GameConfig(2))
    model = BaselineModel()
    shipped = Path(__file__).resolve().parents[1] / "tower" / "model" / "shipped"
    run_file = (
        json.dumps(run_header("simulate", {"seed": 1})) + "\n" + '{"key": 0, "x": 1}\n'
    ).encode()
    return {
        "recording-csv": ("r.csv", RECORDING_CSV.encode(), read_recording, False),
        "recording-jsonl": ("r.jsonl", RECORDING_JSONL.encode(), read_recording, True),
        "traces": ("t.jsonl", json.dumps(TRACE).encode() + b"\n", lambda p: list(read_traces(p)),
                   True),
        "params": ("p.json", json.dumps(PhysicsParams().to_json()).encode(), load_params, False),
        "physics-params": ("p.json", json.dumps(PhysicsParams().to_json()).encode(),
                           PhysicsParams.load, False),
        "observation": ("o.json", json.dumps(OBSERVATION).encode(),
                        lambda p: read_observation(p, model), False),
        "tower-state": ("s.json", json.dumps(STATE).encode(),
                        lambda p: choose_tower(str(p), model, 4), False),
        "game-state": ("g.json", json.dumps(game.new_initial_state(0).to_json()).encode(),
                       lambda p: load_state(game, p), False),
        "model": ("m.json", (shipped / "marrakesh.json").read_bytes(), load_model, False),
        "spec": ("s.toml", PRESET_TOML.encode(), load_spec, False),
        "run-file": ("o.jsonl", run_file, lambda p: (read_done(p), read_records(p)), True),
    }  # fmt: skip


READER_NAMES = [
    "recording-csv", "recording-jsonl", "traces", "params", "physics-params", "observation",
    "tower-state", "game-state", "model", "spec", "run-file", "snapshot",
]  # fmt: skip


def _snapshot_reader(tmp: Path) -> tuple[str, bytes, Callable[[Path], Any], bool]:
    from tower.cli import main
    from tower.geometry import load_preset
    from tower.physics import TowerSim

    path = tmp / "valid-snapshot.json"
    if not path.exists():
        with contextlib.redirect_stdout(io.StringIO()):
            main(["throw", "--throws", "1", "--pieces", "2", "--snapshot", str(path)])
    spec = load_preset("marrakesh")

    def restore(p: Path) -> None:
        TowerSim.restore(p, spec).close()

    return ("snap.json", path.read_bytes(), restore, False)


def fuzz(name: str, tmp: Path, max_examples: int, seed: int | None = None) -> int:
    """Fuzz reader ``name``; return the number of inputs tried."""
    fname, valid, read, lines = _snapshot_reader(tmp) if name == "snapshot" else _readers(tmp)[name]
    target = tmp / fname
    tried = [0]

    @settings(
        max_examples=max_examples, deadline=None, database=None, derandomize=seed is None,
        suppress_health_check=list(HealthCheck),
    )  # fmt: skip
    @given(data=inputs(valid, lines))
    def run(data: bytes) -> None:
        tried[0] += 1
        target.write_bytes(data)
        try:
            read(target)
        except TowerError as exc:
            assert "\n" not in str(exc).strip() or name == "spec", str(exc)

    if seed is not None:
        run = hypothesis.seed(seed)(run)
    run()
    return tried[0]


@pytest.mark.parametrize("name", READER_NAMES)
def test_reader_raises_only_project_errors(name: str, tmp_path: Path) -> None:
    budget = 5 if name in ("snapshot", "model") else 25
    assert fuzz(name, tmp_path, budget) > 0


def test_inputs_the_slow_fuzzer_found_give_one_line_project_errors(tmp_path: Path) -> None:
    """A trace whose inside names a piece id with a line break; a snapshot whose numerics
    hold a list where a number belongs (it reached pybullet when the snapshot replayed)."""
    _, _, read_trace, _ = _readers(tmp_path)["traces"]
    trace = tmp_path / "t.jsonl"
    trace.write_text(
        '{"schema":"tower.trace/1","seq":0,"seed":1,"source":"s","pieces":["keshi:r",'
        '"keshi:g"],"throws":[{"in":[0,1],"out":[],"inside":{"\\n":null}}]}\n'
    )
    _, valid, restore, _ = _snapshot_reader(tmp_path)
    snapshot = json.loads(valid)
    snapshot["numerics"]["margin"] = []
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(snapshot))
    for read, path in ((read_trace, trace), (restore, snap)):
        with pytest.raises(TowerError) as exc:
            read(path)
        assert "\n" not in str(exc.value), str(exc.value)


@pytest.mark.slow
@pytest.mark.parametrize("name", READER_NAMES)
def test_reader_raises_only_project_errors_for_a_minute(name: str, tmp_path: Path) -> None:
    start, seed, tried = time.monotonic(), 0, 0
    while time.monotonic() - start < 60:
        tried += fuzz(name, tmp_path, 20 if name == "model" else 200, seed=seed)
        seed += 1
    print(f"{name}: {tried} inputs in {time.monotonic() - start:.0f} s")
    assert tried > 0 and math.isfinite(tried)
