"""The one way to turn a model name given by a user into a :class:`TowerModel`.

Every entry point that takes a model as text (``tower validate-model``, ``tower stats``,
``tower model``, ``tower selfplay``, ``tower battle``, the OpenSpiel game's ``tower``
parameter, a notebook) calls :func:`open_model`, so all accept the same spellings
(:data:`SPELLINGS`):

- ``baseline``: :class:`BaselineModel` (2/3 fresh, 1/3 resident out);
- ``no-retention``: :class:`NoRetentionModel`;
- ``shipped`` or ``shipped:NAME``: a model shipped with the package (``shipped`` is
  ``shipped:marrakesh``);
- a path to a distilled model file (``tower distill`` output, schema ``tower.model/…``);
- a path to a calibrated params file (``tower calibrate`` output, schema
  ``tower.params/1``) with a fitted two-chance ``model`` section: a
  :class:`BaselineModel` with its ``p_fresh`` and ``p_old``.

Examples
--------
>>> open_model("baseline").name
'baseline'
>>> open_model("shipped:marrakesh").name
'marrakesh'
>>> open_model("nonsense")
Traceback (most recent call last):
...
tower.model.opener.ModelSpecError: model 'nonsense': expected 'baseline', 'no-retention', \
'shipped', 'shipped:NAME' or a model file; no such file
"""

from __future__ import annotations

import os
from pathlib import Path

from tower.errors import InputFileError, TowerError
from tower.model import distilled
from tower.model.baseline import BaselineModel, NoRetentionModel
from tower.model.interface import TowerModel

#: What :func:`open_model` accepts, as error messages name it.
SPELLINGS = "'baseline', 'no-retention', 'shipped', 'shipped:NAME' or a model file"
#: The shipped model that ``shipped`` names.
DEFAULT_SHIPPED = "marrakesh"
#: Schema of the calibrated params file (see :mod:`tower.physics.params_file`).
PARAMS_SCHEMA = "tower.params/1"


class ModelSpecError(TowerError, ValueError):
    """A model name that is none of the :data:`SPELLINGS`."""


def open_model(spec: str | os.PathLike[str]) -> TowerModel:
    """The model that ``spec`` names (see the module docstring for the spellings).

    Raises
    ------
    ModelSpecError
        ``spec`` is no spelling and no existing file.
    TowerError
        ``shipped:NAME`` names no shipped model.
    InputFileError
        A model or params file is bad; the message names the file and the field.
    """
    text = os.fspath(spec)
    if text == "baseline":
        return BaselineModel()
    if text == "no-retention":
        return NoRetentionModel()
    if text == "shipped" or text.startswith("shipped:"):
        return distilled.load_shipped(text.partition(":")[2] or DEFAULT_SHIPPED)
    path = Path(text)
    if path.is_dir():
        raise ModelSpecError(f"model {text!r}: is a directory, expected a model file")
    if not path.is_file():
        raise ModelSpecError(f"model {text!r}: expected {SPELLINGS}; no such file")
    try:
        return distilled.load_model(path)
    except InputFileError as exc:
        if exc.field != "schema" or not _is_params_file(path):
            raise
    return _calibrated_model(path)


def _is_params_file(path: Path) -> bool:
    from tower.files.inputs import load_json_object

    try:
        return load_json_object(path).get("schema") == PARAMS_SCHEMA
    except TowerError:
        return False


def _calibrated_model(path: Path) -> BaselineModel:
    """The fitted two-chance model of a params file."""
    from tower.physics.params_file import read_params_json

    fitted = read_params_json(path).get("model")
    if not fitted or set(fitted) != {"p_fresh", "p_old"}:
        raise InputFileError(
            str(path), "a params file names a model only with a fitted p_fresh and p_old "
            f"(from `tower calibrate --simulator baseline`), got {sorted(fitted or {})}",
            field="model",
        )  # fmt: skip
    try:
        return BaselineModel(fitted["p_fresh"], fitted["p_old"])
    except ValueError as exc:
        raise InputFileError(str(path), str(exc), field="model") from None
