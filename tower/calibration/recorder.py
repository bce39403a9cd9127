"""The interactive recorder behind ``tower record FILE``: throw by throw at the table.

Each throw is appended to the file (flushed and fsynced) the moment its "out" line is
entered, so an interruption (Ctrl-C, a closed terminal, a crash) loses at most the throw
being typed. Running ``tower record FILE`` again resumes the last session. ``undo``
removes the last entry by rewriting the file atomically (temporary file, then rename).

At the prompts, counts use the notation of :func:`tower.calibration.recording.parse_counts`
(``r2 g1 k3`` or ``red=2,green=1``), and these commands work:

======================  ===========================================================
``undo``                remove the last entry (a throw, a note or an empty session)
``note TEXT``           add a note to the session
``stats``               print the running statistics again
``new``                 start a new session (asks about tower and start state)
``help``                this list
``quit``                stop (everything entered is already saved)
======================  ===========================================================

At the "in" prompt an empty line repeats the previous throw's pieces. The questions that
start a session (name, tower, emptied, description) take ``help`` (what the question
wants, then it is asked again) and ``quit`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tower.calibration.recording import (
    CountsError,
    Recording,
    Session,
    Throw,
    append_line,
    atomic_write_text,
    check_session,
    format_counts,
    header_lines,
    parse_counts,
    read_recording,
    read_recording_text,
    record_line,
    recording_format,
    session_line,
    throw_line,
    total,
)
from tower.calibration.summaries import session_series
from tower.files.inputs import LIMITS, decode, read_bytes
from tower.files.outputs import check_output

HELP = """commands: undo | note TEXT | stats | new | help | quit
counts:   r2 g1 k3  or  red=2,green=1  (codes: g green, a gray, w white, k black, p pink,
          t turquoise, e beige, n brown, r red, y yellow, u purple, o orange; '-' = none)"""


class _Quit(Exception):
    """The user asked to stop."""


def running_stats(session: Session) -> str:
    """One line of running statistics for a session.

    >>> s = Session("s1", "marrakesh", "empty", throws=(Throw(1, {"red": 3}, {"red": 2}),))
    >>> running_stats(s)
    's1: 1 throws, 3 in, 2 out, inside 1, out/in 0.67, fresh share of out 1.00-1.00'
    """
    if not session.throws:
        return f"{session.name}: no throws yet"
    series = session_series(session)
    n_in, n_out = int(series.n_in.sum()), int(series.n_out.sum())
    inside = int(series.inside[-1])
    inside_text = f"inside {inside}" if series.exact_inside else f"inside >= {inside}"
    out_total = max(n_out, 1)
    last = series.n_out[-10:]
    recent = f", last {len(last)}: {last.mean():.1f} out/throw" if len(series.n_out) > 10 else ""
    return (
        f"{session.name}: {len(session.throws)} throws, {n_in} in, {n_out} out, {inside_text}, "
        f"out/in {n_out / n_in:.2f}, fresh share of out "
        f"{series.fresh_lo.sum() / out_total:.2f}-{series.fresh_hi.sum() / out_total:.2f}{recent}"
    )


@dataclass
class Recorder:
    """A recording session on ``path`` driven by ``ask`` (prompt -> answer) and ``say``.

    ``ask`` raises ``EOFError`` or ``KeyboardInterrupt`` to end the session; everything
    entered before is on disk.
    """

    path: Path
    ask: Callable[[str], str]
    say: Callable[[str], None]

    def __post_init__(self) -> None:
        self.fmt = recording_format(self.path)
        self.recording = Recording(())

    # -- file -----------------------------------------------------------------------------

    def _reload(self) -> None:
        self.recording = read_recording(self.path)

    def _append(self, line: str) -> None:
        append_line(self.path, line)
        self._reload()

    def undo(self) -> None:
        """Remove the last entry (atomically) and say what was removed."""
        lines = self.path.read_text(encoding="utf-8").splitlines(keepends=True)
        first_entry = 2 if self.fmt == "csv" else 1
        while len(lines) > first_entry and not lines[-1].strip():
            lines.pop()
        if len(lines) <= first_entry:
            self.say("nothing to undo")
            return
        removed = lines.pop()
        atomic_write_text(self.path, "".join(lines))
        self._reload()
        self.say(f"removed: {removed.strip()}")

    def _repair_torn_line(self) -> None:
        """Drop a last line cut short by a kill, but only in a file that is a recording."""
        data = read_bytes(self.path)
        if not data or data.endswith(b"\n"):
            return
        good = data[: data.rfind(b"\n") + 1]
        read_recording_text(decode(good, self.path), self.path)  # ours? else it raises
        atomic_write_text(self.path, good.decode("utf-8"))
        self.say(f"dropped a torn last line: {data[len(good) :][:60]!r}")

    # -- dialogue -------------------------------------------------------------------------

    def _line(self, prompt: str) -> str:
        """Ask; handle the commands that work at every prompt; return anything else."""
        while True:
            answer = self.ask(prompt).strip()
            word, _, rest = answer.partition(" ")
            word = word.lower()
            if word in ("quit", "q", "exit"):
                raise _Quit
            if word == "help":
                self.say(HELP)
            elif word == "stats":
                self.say(self._stats())
            elif word == "undo":
                self.undo()
                return "\0undo"
            elif word == "note":
                if not self.recording.sessions:
                    self.say("start a session first")
                    continue
                self._append(record_line(self.fmt, "note", session=self._session().name, text=rest))
                self.say("note saved")
            elif word == "new":
                self.new_session()
                return "\0new"
            else:
                return answer

    def _session(self) -> Session:
        return self.recording.sessions[-1]

    def _stats(self) -> str:
        if not self.recording.sessions:
            return "no session yet"
        return running_stats(self._session())

    def _plain(self, prompt: str, about: str) -> str:
        """Ask a free-text question; ``quit`` stops and ``help`` explains the question
        (``about``) and asks again: neither is ever taken as the answer."""
        while True:
            answer = self.ask(prompt).strip()
            if answer.lower() in ("quit", "q", "exit"):
                raise _Quit
            if answer.lower() != "help":
                return answer
            self.say(f"{about}\n('quit' stops; the commands work once the session has started)")

    def new_session(self) -> None:
        """Ask for a new session's details and write its record."""
        names = {s.name for s in self.recording.sessions}
        default = f"s{len(names) + 1}"
        while default in names:
            default += "'"
        about_name = "a short name for this sitting at the table; Enter takes the default"
        name = self._plain(f"session name [{default}]: ", about_name) or default
        while name in names:
            name = self._plain(f"session {name!r} exists; another name: ", about_name) or default
        tower = self._plain(
            "tower (preset or description) [marrakesh]: ",
            "which tower you throw into: a preset name (marrakesh, queen-classic) or a few "
            "words about your copy; Enter takes marrakesh",
        ) or "marrakesh"  # fmt: skip
        empty = self._plain(
            "was the tower emptied before this session? [Y/n]: ",
            "y (or Enter) if you shook every piece out of the tower before the first throw; "
            "n if pieces from earlier throws may still be inside",
        ).lower()
        start = "unknown" if empty.startswith("n") else "empty"
        text = self._plain(
            "description (tower copy, pieces, table...): ",
            "free text kept with the session: anything that may matter later (which copy "
            "of the tower, the pieces, the table); Enter leaves it empty",
        )
        s = Session(name, tower, start, text)
        self._append(session_line(self.fmt, s))
        self.say(f"session {name} started ({start} tower)")

    def _next_throw(self) -> None:
        s = self._session()
        number = len(s.throws) + 1
        last = s.throws[-1].pieces_in if s.throws else None
        hint = f" [Enter = {format_counts(last)}]" if last else ""
        while True:
            text = self._line(f"throw {number} in{hint}: ")
            if text.startswith("\0"):
                return
            try:
                pieces_in = parse_counts(text) if text else (last or {})
            except CountsError as exc:
                self.say(f"  {exc}")
                continue
            if total(pieces_in) > LIMITS["pieces_per_throw"]:
                self.say(
                    f"  {total(pieces_in)} pieces is over the limit pieces_per_throw = "
                    f"{LIMITS['pieces_per_throw']}"
                )
                continue
            if total(pieces_in):
                break
            self.say("  a throw puts at least one piece in")
        while True:
            text = self._line(f"throw {number} out: ")
            if text.startswith("\0"):
                return
            try:
                pieces_out = parse_counts(text)
            except CountsError as exc:
                self.say(f"  {exc}")
                continue
            throw = Throw(number, pieces_in, pieces_out)
            problem = check_session(s.with_throws((*s.throws, throw)))
            if problem is None:
                break
            self.say(f"  {problem[2]}; enter the out counts again")
        self._append(throw_line(self.fmt, s.name, throw))
        self.say(f"  saved. {running_stats(self._session())}")

    def run(self) -> int:
        """Record until the user quits or input ends; return the number of throws saved."""
        if self.path.exists() or self.path.is_symlink():
            self._repair_torn_line()
            self._reload()
            self.say(
                f"resuming {self.path}: {len(self.recording.sessions)} session(s), "
                f"{self.recording.n_throws} throw(s) saved"
            )
            if self.recording.sessions:
                self.say(self._stats())
        else:
            check_output(self.path)
            atomic_write_text(self.path, header_lines(self.fmt))
            self.say(f"new recording {self.path} ('help' lists the commands)")
        before = self.recording.n_throws
        try:
            if not self.recording.sessions:
                self.new_session()
            while True:
                if not self.recording.sessions:
                    self.new_session()
                self._next_throw()
        except _Quit:
            pass
        except (EOFError, KeyboardInterrupt):
            self.say("")
            self.say("interrupted")
        n = self.recording.n_throws
        self.say(
            f"{n} throw(s) in {self.path} ({n - before:+d} this time); "
            f"run `tower record {self.path}` again to continue"
        )
        return n
