"""`tower record` driven by scripted input: saving per throw, interruption, resume, undo."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tower.calibration.recorder import Recorder
from tower.calibration.recording import read_recording
from tower.cli import cli


def _scripted(answers: list[str], end: type[BaseException]) -> tuple[list[str], object]:
    """An ``ask`` that replays answers, then raises ``end``; records the prompts."""
    prompts: list[str] = []
    it: Iterator[str] = iter(answers)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise end from None

    return prompts, ask


@pytest.mark.parametrize("ext", ["csv", "jsonl"])
def test_cli_record_interrupted_by_eof_then_resumed(tmp_path: Path, ext: str) -> None:
    path = tmp_path / f"rec.{ext}"
    runner = CliRunner()
    first = "s1\nmarrakesh\ny\nkitchen table\nr2 g1\nr1\n\nr2\nk3\n"  # EOF after throw 3's "in"
    result = runner.invoke(cli, ["record", str(path)], input=first)
    assert result.exit_code == 0, result.output
    assert "interrupted" in result.output
    assert "2 throw(s)" in result.output
    rec = read_recording(path)
    (s1,) = rec.sessions
    assert (s1.name, s1.tower, s1.start, s1.description) == (
        "s1",
        "marrakesh",
        "empty",
        "kitchen table",
    )
    assert [(t.pieces_in, t.pieces_out) for t in s1.throws] == [
        ({"green": 1, "red": 2}, {"red": 1}),
        ({"green": 1, "red": 2}, {"red": 2}),  # Enter repeated the previous throw
    ]

    # resume: a bad colour and an impossible count are re-asked, a note, then quit
    second = "k3\nk1 x9\nk4\nk2 g1\nnote one keshi bounced out\nstats\nquit\n"
    result = runner.invoke(cli, ["record", str(path)], input=second)
    assert result.exit_code == 0, result.output
    assert "resuming" in result.output and "2 throw(s) saved" in result.output
    assert "unknown colour 'x'" in result.output
    assert "more pieces out than can exist" in result.output
    rec = read_recording(path)
    (s1,) = rec.sessions
    assert [t.number for t in s1.throws] == [1, 2, 3]
    assert s1.throws[2].pieces_out == {"green": 1, "black": 2}
    assert s1.notes == ("one keshi bounced out",)
    assert "s1: 3 throws, 9 in, 6 out, inside 3" in result.output


def test_keyboard_interrupt_keeps_every_entered_throw(tmp_path: Path) -> None:
    path = tmp_path / "rec.csv"
    seen: list[int] = []
    answers = iter(["", "", "", "a home-made tower", "r3", "r2", "g3", "g1 r1", "y3"])

    def ask(prompt: str) -> str:
        if prompt.startswith("throw"):
            seen.append(read_recording(path).n_throws)  # what is on disk at each prompt
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    out: list[str] = []
    assert Recorder(path, ask, out.append).run() == 2
    assert "interrupted" in out
    # a throw is on disk before the next throw is asked for
    assert seen == [0, 0, 1, 1, 2, 2]
    rec = read_recording(path)
    assert rec.sessions[0].name == "s1" and rec.sessions[0].start == "empty"
    assert [t.pieces_out for t in rec.sessions[0].throws] == [{"red": 2}, {"green": 1, "red": 1}]


def test_undo_rewrites_atomically_and_new_session(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    script = [
        "", "", "n", "", "r3", "r2", "g3", "g3", "undo",  # throw 2 removed
        "g3", "g2", "new", "", "", "", "second box", "k2", "k1", "undo", "undo", "undo",
        "stats", "help", "quit",
    ]  # fmt: skip
    _, ask = _scripted(script, EOFError)
    out: list[str] = []
    Recorder(path, ask, out.append).run()
    rec = read_recording(path)
    # three undos: s2's throw, s2 itself, then s1's second throw
    assert [s.name for s in rec.sessions] == ["s1"]
    (s1,) = rec.sessions
    assert s1.start == "unknown"
    assert [t.pieces_out for t in s1.throws] == [{"red": 2}]
    assert any(line.startswith("removed:") for line in out)
    assert not list(tmp_path.glob(".*.tmp"))
    assert any("commands:" in line for line in out)


def test_undo_down_to_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "rec.csv"
    _, ask = _scripted(["", "", "", "", "undo", "quit"], EOFError)
    out: list[str] = []
    recorder = Recorder(path, ask, out.append)
    assert recorder.run() == 0
    assert read_recording(path).sessions == ()  # the undo removed the session itself
    recorder.undo()
    assert out[-1] == "nothing to undo"
    assert read_recording(path).sessions == ()


def test_help_at_the_setup_prompts_explains_and_asks_again(tmp_path: Path) -> None:
    path = tmp_path / "rec.csv"
    script = ["help", "s1", "HELP", "", "help", "n", "help", "kitchen table", "r2", "r1", "quit"]
    prompts, ask = _scripted(script, EOFError)
    out: list[str] = []
    assert Recorder(path, ask, out.append).run() == 1
    (s1,) = read_recording(path).sessions
    assert (s1.name, s1.tower, s1.start, s1.description) == (
        "s1", "marrakesh", "unknown", "kitchen table",
    )  # fmt: skip
    # each setup question was asked again after its explanation
    assert [p.split(" ")[0] for p in prompts[:8]] == [
        "session", "session", "tower", "tower", "was", "was", "description", "description",
    ]  # fmt: skip
    explained = [line for line in out if "'quit' stops" in line]
    assert len(explained) == 4
    assert "preset name" in explained[1] and "shook every piece" in explained[2]
