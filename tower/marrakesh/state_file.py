"""Reading a saved Marrakesh game (the JSON of :meth:`State.to_json`) from a user file.

The one reader of game JSON: the file passes :mod:`tower.files.inputs` (encoding, size,
depth, finite numbers), and any fault of its content becomes an
:class:`~tower.errors.InputFileError` naming the file and the field.
"""

from __future__ import annotations

from pathlib import Path

from tower.errors import InputFileError
from tower.files.inputs import load_json_object
from tower.marrakesh.game import Game
from tower.marrakesh.state import State


def load_state(game: Game, path: str | Path) -> State:
    """The game state saved in ``path`` for ``game``."""
    data = load_json_object(path)
    try:
        return State.from_json(game, data)
    except InputFileError as exc:
        raise InputFileError(str(path), exc.reason, field=exc.field or "<state>") from None
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, OverflowError) as exc:
        raise InputFileError(
            str(path), f"malformed game state: {exc!r:.80}", field="<state>"
        ) from None
