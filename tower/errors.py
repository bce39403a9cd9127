"""Exception hierarchy shared by every room of the package.

Every error that a user can cause derives from :class:`TowerError`, so the CLI can
turn it into a one-line message and exit status 2. Messages carry their context:
the file, the line or field, and the offending value.
"""

from __future__ import annotations


class TowerError(Exception):
    """Base class of every error raised on bad user input or an impossible request."""


class InputFileError(TowerError, ValueError):
    """A user file (spec, recording, model, snapshot) is malformed.

    Parameters
    ----------
    path : str
        The file that is wrong.
    message : str
        What is wrong with it.
    line : int, optional
        1-based line number, when the format is line-based.
    field : str, optional
        The field (key, column, dotted path) that is wrong.

    Examples
    --------
    >>> str(InputFileError("a.toml", "must be positive, got -1", field="tube.width"))
    'a.toml: field tube.width: must be positive, got -1'
    """

    def __init__(
        self, path: str, message: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.reason = message
        where = self.path
        if line is not None:
            where += f":{line}"
        if field is not None:
            where += f": field {field}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple:
        """Pickle by the constructor's arguments (the default would call ``cls(message)``
        and fail), so the error crosses process and Dask boundaries intact."""
        return _rebuild, (type(self), self.path, self.reason, self.line, self.field)


def _rebuild(
    cls: type[InputFileError], path: str, message: str, line: int | None, field: str | None
) -> InputFileError:
    return cls(path, message, line=line, field=field)


class FitError(TowerError, ValueError):
    """A calibration fit that cannot run on what it was given: a replay budget too small
    for its waves, or too few replays that succeeded to fit anything."""


class ImplausibleValueWarning(UserWarning):
    """A value is valid but outside its plausible range; the CLI prints one line for it."""
