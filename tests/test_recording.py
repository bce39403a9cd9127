"""Recording and summary formats: notation, round trips, validation of malformed files."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tower.calibration.recording import (
    CountsError,
    PublishedSummary,
    Recording,
    Session,
    Throw,
    format_counts,
    parse_counts,
    read_recording,
    read_summaries,
    write_recording,
    write_summaries,
)
from tower.calibration.summaries import session_series, summary_vector
from tower.errors import InputFileError

BAD = Path(__file__).parent / "data" / "bad_recordings"


def _recording() -> Recording:
    s1 = Session(
        "s1",
        "marrakesh",
        "empty",
        "kitchen table, 300 keshis",
        throws=(
            Throw(1, {"red": 2, "green": 1}, {"red": 1}),
            Throw(2, {"black": 3}, {"black": 2, "red": 1, "green": 1}, note='odd, "loud"'),
        ),
        notes=("tower shaken after throw 2",),
    )
    s2 = Session(
        "s2",
        "marrakesh",
        "unknown",
        "",
        piece_set={"red": 25, "brigand:neutral": 3},
        throws=(Throw(1, {"red": 3, "brigand:neutral": 1}, {"red": 4}),),
    )
    return Recording((s1, s2), {"synthetic": True, "truth": {"theta": {"a": 0.5}}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("r2 g1 k3", {"green": 1, "black": 3, "red": 2}),
        ("red=2,green=1", {"green": 1, "red": 2}),
        ("r r g", {"green": 1, "red": 2}),
        ("gre2 gra1 pu1 pi1", {"green": 2, "gray": 1, "pink": 1, "purple": 1}),
        ("watchman:blue=2 brigand", {"brigand:neutral": 1, "watchman:blue": 2}),
        ("keshi:r2 expert:orange", {"red": 2, "expert:orange": 1}),
        ("-", {}),
        ("", {}),
        ("R2 , Y1", {"red": 2, "yellow": 1}),
    ],
)
def test_parse_counts(text: str, expected: dict[str, int]) -> None:
    assert parse_counts(text) == expected
    assert parse_counts(format_counts(expected)) == expected


@pytest.mark.parametrize("text", ["mauve2", "b2", "gr1", "r=-1", "r2x", "dragon:red"])
def test_parse_counts_rejects(text: str) -> None:
    with pytest.raises(CountsError):
        parse_counts(text)


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_round_trip(tmp_path: Path, ext: str) -> None:
    rec = _recording()
    path = tmp_path / f"rec.{ext}"
    write_recording(rec, path)
    assert read_recording(path) == rec
    assert read_recording(path).synthetic
    assert not list(tmp_path.glob(".*tmp"))  # the atomic write left nothing behind


def test_hand_written_csv(tmp_path: Path) -> None:
    path = tmp_path / "by_hand.csv"
    path.write_text(
        "record,session,throw,in,out,start,tower,set,text\n"
        "schema,,,,,,,,tower.recording/1\n"
        "session,a,,,,empty,marrakesh,,my tower\n"
        "throw,a,1,r2 g1,r1,,,,\n"
        "\n"
        "throw,a,2,k3,k2 r1,,,,two stuck\n"
    )
    rec = read_recording(path)
    assert [t.pieces_out for t in rec.sessions[0].throws] == [{"red": 1}, {"black": 2, "red": 1}]
    assert rec.sessions[0].throws[1].note == "two stuck"
    assert not rec.synthetic


@pytest.mark.parametrize(
    ("name", "line", "field", "words"),
    [
        ("wrong_header.csv", 1, "header", "wrong header"),
        ("wrong_header.jsonl", 1, "record", "first record must be the schema"),
        ("unknown_colour.csv", 5, "in", "unknown colour 'mauve'"),
        ("unknown_colour.jsonl", 3, "in", "unknown colour 'mauve'"),
        ("negative_count.csv", 4, "out", "negative count"),
        ("negative_count.jsonl", 3, "out", "negative count"),
        ("too_many_out.csv", 5, "out", "more pieces out than can exist"),
        ("too_many_out.jsonl", 4, "out", "more pieces out than can exist"),
        ("truncated_line.csv", 5, "out", "truncated"),
        ("truncated_line.jsonl", 4, "<json>", "truncated"),
        ("wrong_schema.csv", 2, "text", "wrong schema version 'tower.recording/0'"),
        ("wrong_schema.jsonl", 1, "schema", "wrong schema version 'tower.recording/2'"),
    ],
)
def test_bad_corpus(name: str, line: int, field: str, words: str) -> None:
    with pytest.raises(InputFileError) as info:
        read_recording(BAD / name)
    err = info.value
    assert (err.path, err.line, err.field) == (str(BAD / name), line, field)
    assert words in err.reason
    assert str(err).startswith(f"{BAD / name}:{line}: field {field}: ")


def test_every_corpus_file_is_tested() -> None:
    names = {p.name for p in BAD.iterdir()}
    kinds = {"wrong_header", "unknown_colour", "negative_count", "too_many_out"}
    kinds |= {"truncated_line", "wrong_schema"}
    assert names == {f"{k}.{e}" for k in kinds for e in ("csv", "jsonl")}


def test_unknown_start_is_bounded_by_the_piece_set(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    base = (
        "record,session,throw,in,out,start,tower,set,text\n"
        "schema,,,,,,,,tower.recording/1\n"
        "session,a,,,,unknown,marrakesh,r5,\n"
        "throw,a,1,r2,r{out},,,,\n"
    )
    path.write_text(base.format(out=7))  # 5 may have been inside, plus 2 thrown
    assert read_recording(path).sessions[0].throws[0].pieces_out == {"red": 7}
    path.write_text(base.format(out=8))
    with pytest.raises(InputFileError, match="piece set holds 5"):
        read_recording(path)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("throw,a,3,r1,,,,,", "throw"),  # out of order
        ("throw,b,1,r1,,,,,", "session"),  # undeclared session
        ("throw,a,2,-,,,,,", "in"),  # nothing thrown
        ("session,a,,,,empty,marrakesh,,", "session"),  # declared twice
        ("session,c,,,,full,marrakesh,,", "start"),
        ("bogus,a,,,,,,,", "record"),
        ("throw,a,two,r1,,,,,", "throw"),
    ],
)
def test_other_errors_name_the_field(tmp_path: Path, row: str, field: str) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        "record,session,throw,in,out,start,tower,set,text\n"
        "schema,,,,,,,,tower.recording/1\n"
        "session,a,,,,empty,marrakesh,,\n"
        "throw,a,1,r1,r1,,,,\n"
        f"{row}\n"
    )
    with pytest.raises(InputFileError) as info:
        read_recording(path)
    assert (info.value.line, info.value.field) == (5, field)


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_summaries_round_trip_and_errors(tmp_path: Path, ext: str) -> None:
    items = [
        PublishedSummary("Amerigo club", "queen-classic", 9, 6.5, 20, 4, 9, "impression"),
        PublishedSummary("review", "queen-classic", 9, 2.0),
    ]
    path = tmp_path / f"s.{ext}"
    write_summaries(items, path)
    assert read_summaries(path) == items
    bad = PublishedSummary("x", "t", 9, 6.5, None, 7, 9)
    write_summaries([bad], path)
    with pytest.raises(InputFileError) as info:
        read_summaries(path)
    assert (info.value.line, info.value.field) == (3 if ext == "csv" else 2, "min_out")


def test_series_infers_inside_fresh_and_mixing() -> None:
    s = Session(
        "s",
        "marrakesh",
        "empty",
        throws=(
            Throw(1, {"red": 4}, {"red": 3}),
            Throw(2, {"green": 4}, {"green": 2, "red": 1}),
            Throw(3, {"red": 2, "green": 2}, {"red": 2, "green": 3}),
        ),
    )
    series = session_series(s)
    assert series.inside.tolist() == [1, 2, 1]
    # throw 3: red 2 out, 0 red inside before -> both fresh; green 3 out, 2 thrown, 2 inside
    assert series.fresh_lo.tolist() == [3, 2, 3]
    assert series.fresh_hi.tolist() == [3, 2, 4]
    assert series.mix[0] == 0 and series.mix[1] == pytest.approx(1 / 3)
    vec = summary_vector([s])
    assert vec[0] == pytest.approx(math.log1p((4 / 3) / 4))  # log(1 + mean inside / mean in)
    assert vec[2] == pytest.approx((3 + 2 + 3.5) / 12)  # fresh (midpoint) per piece in
    assert vec[3] == pytest.approx((11 - 8.5) / (0 + 1 + 2))  # old out per piece inside before
    # the previous throw's pieces still inside, and how many of them come out now
    assert series.young_in.tolist() == [0, 1, 2] and series.young_out.tolist() == [0, 1, 1]
    assert vec[5] == pytest.approx(2 / 3)
    assert vec[6] == pytest.approx(np.std([3, 2, 3.5]) / 4)
