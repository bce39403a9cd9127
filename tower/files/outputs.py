"""Writing outputs: one policy for every command.

1. A command never deletes or overwrites a file it did not write.
2. A resumable output (``simulate``, ``record``, ``calibrate``'s replay cache,
   ``distill --sims``, ``battle traces``, ``selfplay --out``) starts with a run header: one
   JSON line holding the command, the settings that determine every record, and their
   hash. A rerun resumes the file only when the header is its own with the same settings;
   otherwise it stops, names the differing setting, and names ``--force`` (start over)
   as the override. A torn last line (a kill mid-write) is repaired only in such a file.
   A JSON output that a later run may replace (``throw --snapshot``) carries such a
   header under its ``"header"`` key (:func:`check_replaceable`).
3. Every other existing output is refused unless ``--force`` is given.
4. Everything is written atomically: a temporary sibling, flushed and fsynced, then
   renamed over the target, so a reader never sees half a file.

Output folders that do not exist are created (with their parents) when the first file is
written, never before, so a refused command leaves no trace. A folder without any write
permission bit is read-only for this policy even to root.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_text(d / "a.txt", "one\\n")
>>> write_text(d / "a.txt", "two\\n")
Traceback (most recent call last):
...
tower.files.outputs.OutputError: ...a.txt: already exists (not written by this run); give ...
>>> write_text(d / "a.txt", "two\\n", force=True)
>>> (d / "a.txt").read_text()
'two\\n'
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tower.errors import TowerError

#: Schema of the run header, the first line of every resumable JSONL output.
HEADER_SCHEMA = "tower.run/1"


class OutputError(TowerError):
    """An output path the policy refuses (exists, is a folder, folder not writable...)."""

    def __init__(self, path: str | Path, message: str):
        self.path = str(path)
        super().__init__(f"{path}: {message}")


def _writable_folder(path: Path) -> None:
    """Raise unless the nearest existing ancestor of ``path``'s folder accepts new files."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        if folder.is_symlink():
            raise OutputError(path, f"folder {folder} is a dangling link")
        folder = folder.parent
    if not folder.is_dir():
        raise OutputError(path, f"{folder} is not a folder")
    mode = folder.stat().st_mode
    if not os.access(folder, os.W_OK | os.X_OK) or not mode & (
        stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    ):
        raise OutputError(path, f"folder {folder} is read-only")


def check_output(
    path: str | Path, *, force: bool = False, option: str = "--force", folder: bool = False
) -> Path:
    """Check, before any work, that ``path`` may be written under the policy.

    Parameters
    ----------
    path : path
        The file (or, with ``folder=True``, the folder) the command will write.
    force : bool
        The user gave the override: an existing file may be replaced.
    option : str
        The override's name, for the message.
    folder : bool
        ``path`` is an output folder: it may exist, but must be a folder.
    """
    path = Path(path)
    if folder:
        if path.exists() and not path.is_dir():
            raise OutputError(path, "exists and is not a folder")
        _writable_folder(path / "x")
        return path
    if path.is_dir():
        raise OutputError(path, "is a folder; expected a file path")
    _writable_folder(path)
    if (path.exists() or path.is_symlink()) and not force:
        raise OutputError(
            path, f"already exists (not written by this run); give {option} to replace it"
        )
    return path


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary sibling of ``path`` (same suffix) renamed over ``path`` on success.

    For libraries that write by file name (matplotlib, Pillow, trimesh). On an exception
    the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    except OSError as exc:
        raise OutputError(path, f"cannot write: {exc.strerror}") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o644)  # mkstemp makes 0600; outputs are ordinary files
        with tmp_path.open("rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, path)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise OutputError(path, f"cannot write: {exc.strerror}") from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def write_bytes(
    path: str | Path, data: bytes, *, force: bool = False, checked: bool = False
) -> None:
    """Write ``data`` atomically; refuse an existing file unless ``force`` (or ``checked``:
    the caller already ran :func:`check_output` or owns the file)."""
    if not checked:
        check_output(path, force=force)
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: str | Path, text: str, *, force: bool = False, checked: bool = False) -> None:
    """Write UTF-8 ``text`` atomically (see :func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"), force=force, checked=checked)


def save_figure(fig: Any, path: str | Path, *, force: bool = False, **savefig: Any) -> Path:
    """Save a matplotlib figure atomically (:func:`atomic_path`) and close it; refuse an
    existing file unless ``force``. ``savefig`` goes to ``Figure.savefig``."""
    import matplotlib.pyplot as plt

    try:
        path = check_output(path, force=force)
        with atomic_path(path) as tmp:
            fig.savefig(tmp, **savefig)
    finally:
        plt.close(fig)
    return path


# ------------------------------------------------------------------ resumable outputs


def run_header(command: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The header record of a resumable output written by ``command`` with ``settings``.

    >>> run_header("simulate", {"seed": 1})["header"]["sha256"]
    'abd52393fdf0e3a5'
    """
    canon = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(f"{command}\n{canon}".encode()).hexdigest()[:16]
    return {
        "header": {
            "schema": HEADER_SCHEMA,
            "command": command,
            "settings": json.loads(canon),  # as read back from the file (tuples as lists)
            "sha256": digest,
        }
    }


def is_header(record: Any) -> bool:
    """Whether a parsed JSON line is a run header."""
    return isinstance(record, dict) and set(record) == {"header"}


def check_replaceable(path: str | Path, header: dict[str, Any], *, force: bool = False) -> Path:
    """As :func:`check_output`, but an existing JSON file whose ``"header"`` is ``header``'s
    (this command wrote it with the same settings, e.g. the snapshot of the tower it
    continues) may be replaced without ``force``."""
    from tower.files.inputs import load_json

    path = Path(path)
    if not force and path.is_file():
        try:
            found = load_json(path)
        except TowerError:
            found = None
        force = isinstance(found, dict) and found.get("header") == header["header"]
    return check_output(path, force=force)


def _first_line(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.readline(1 << 20)


def claim_resumable(path: str | Path, header: dict[str, Any], *, force: bool = False) -> bool:
    """Check that an existing ``path`` is this run's own output; True if it will resume.

    A missing file: False (a fresh start). An existing file whose first line is
    ``header``: True. Anything else raises :class:`OutputError` naming what differs and
    the ``--force`` override; with ``force`` the file will be replaced (False).
    """
    path = Path(path)
    check_output(path, force=True)
    if not path.exists():
        return False
    mine = header["header"]
    try:
        found = json.loads(_first_line(path))
    except (ValueError, OSError):
        found = None
    advice = "write to another path, or give --force to replace it"
    if not is_header(found) or not isinstance(found["header"], dict):
        problem = "has no run header: it was not written by `tower " + mine["command"] + "`"
    elif found["header"].get("command") != mine["command"]:
        problem = f"was written by `tower {found['header'].get('command')}`"
    elif found["header"].get("sha256") != mine["sha256"] or found["header"] != mine:
        theirs = found["header"].get("settings")
        theirs = theirs if isinstance(theirs, dict) else {}
        diff = sorted(
            k for k in set(theirs) | set(mine["settings"])
            if theirs.get(k) != mine["settings"].get(k)
        )  # fmt: skip
        name = diff[0] if diff else "header"
        problem = (
            f"was written with other settings ({name}: {_short(theirs.get(name))} in the "
            f"file, {_short(mine['settings'].get(name))} now)"
        )
        advice = "resume with the same settings, write to another path, or give --force to "
        advice += "start it over"
    else:
        return True
    if force:
        return False
    raise OutputError(path, f"{problem}; {advice}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------ output folders

#: The manifest a command leaves in an output folder: which files in it the command wrote.
MANIFEST = ".tower-outputs.json"


class OutputFolder:
    """A folder a command writes several files into, with a manifest of what it wrote.

    A file in the folder may be replaced only if the manifest says this command wrote it
    (or with ``force``); files the command did not write are never deleted. Call
    :meth:`check` with every name before the long work, then write with :meth:`write_text`
    or :meth:`path_for` (for libraries that write by name).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> OutputFolder(d, "stats").write_text("stats.json", "{}")
    >>> OutputFolder(d, "stats").check(["stats.json"])  # ours: may be replaced
    >>> (d / "notes.md").write_text("mine")
    4
    >>> OutputFolder(d, "stats").check(["notes.md"])
    Traceback (most recent call last):
    ...
    tower.files.outputs.OutputError: ...notes.md: already exists (not written by ...
    """

    def __init__(self, path: str | Path, command: str, *, force: bool = False):
        self.path = Path(path)
        self.command = command
        self.force = force
        check_output(self.path, folder=True)
        self.owned: set[str] = set()
        manifest = self.path / MANIFEST
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and data.get("command") == command:
            files = data.get("files")
            if isinstance(files, list):
                self.owned = {f for f in files if isinstance(f, str)}

    def check(self, names: list[str] | tuple[str, ...]) -> None:
        """Raise :class:`OutputError` for the first name this command may not write.

        A name ending in ``/`` is a subfolder that another command fills under its own
        manifest: it need only be a folder (or not exist yet)."""
        for name in names:
            target = self.path / name
            if name.endswith("/"):
                if target.exists() and not target.is_dir():
                    raise OutputError(target, "exists and is not a folder")
                continue
            if target.is_dir():
                raise OutputError(target, "is a folder; expected a file path")
            if target.exists() and name not in self.owned and not self.force:
                raise OutputError(
                    target,
                    f"already exists (not written by `tower {self.command}`); give --force "
                    "to replace it",
                )

    def _record(self, name: str) -> None:
        if name in self.owned:
            return
        self.owned.add(name)
        text = json.dumps({"command": self.command, "files": sorted(self.owned)}, indent=1)
        with atomic_path(self.path / MANIFEST) as tmp:
            tmp.write_text(text + "\n", encoding="utf-8")

    @contextlib.contextmanager
    def path_for(self, name: str) -> Iterator[Path]:
        """A temporary path to write ``name`` to; moved into place on success."""
        self.check([name])
        with atomic_path(self.path / name) as tmp:
            yield tmp
        self._record(name)

    def write_text(self, name: str, text: str) -> None:
        """Write ``name`` atomically (UTF-8)."""
        with self.path_for(name) as tmp:
            tmp.write_bytes(text.encode("utf-8"))

    def record(self, names: list[str] | tuple[str, ...]) -> None:
        """Note files written by other means (each already written atomically)."""
        for name in names:
            if (self.path / name).exists():
                self._record(name)

    def claim(self, names: list[str] | tuple[str, ...]) -> None:
        """Note, before a long run, every file it will write (after :meth:`check`): a run
        killed half-way may then be run again over its own partial outputs."""
        self.check(names)
        for name in names:
            self._record(name)

    @contextlib.contextmanager
    def claiming(self, names: list[str] | tuple[str, ...]) -> Iterator[None]:
        """:meth:`claim` for the duration of a run; if the run stops on a user error before
        writing any of ``names``, the claim is withdrawn (the manifest, and the folder if
        the claim created it), so a refused run leaves no trace."""
        manifest = self.path / MANIFEST
        created = not self.path.exists()
        old = manifest.read_bytes() if manifest.is_file() else None
        before = {n for n in names if (self.path / n).exists()}
        owned = set(self.owned)
        self.claim(names)
        try:
            yield
        except TowerError:
            if not any((self.path / n).exists() for n in names if n not in before):
                self.owned = owned
                if old is None:
                    manifest.unlink(missing_ok=True)
                else:
                    with atomic_path(manifest) as tmp:
                        tmp.write_bytes(old)
                if created:
                    with contextlib.suppress(OSError):
                        self.path.rmdir()
            raise

    def copy_in(self, src: Path) -> list[str]:
        """Copy every file under ``src`` (a staging folder some library filled) into this
        folder at the same relative path: all checked first, then each written atomically.
        Returns the relative names."""
        files = sorted(p for p in Path(src).rglob("*") if p.is_file())
        names = [p.relative_to(src).as_posix() for p in files]
        self.check(names)
        for name, path in zip(names, files, strict=True):
            with self.path_for(name) as dst:
                dst.write_bytes(path.read_bytes())
        return names
