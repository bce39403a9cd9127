"""pybullet, imported once with its build-time banner silenced.

pybullet's C module prints ``pybullet build time: ...`` on the process's standard error
(file descriptor 2, below Python's ``sys.stderr``) when it is first imported, so every
command that simulates would start with that line. :mod:`tower.physics` imports this
module before anything else, which imports pybullet with descriptor 2 pointed at
``/dev/null`` for the import only; later ``import pybullet`` statements find it loaded.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def _muted_stderr() -> Iterator[None]:
    """Point file descriptor 2 at ``/dev/null`` inside the block (if there is one)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2: nothing to mute
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


with _muted_stderr():
    import pybullet  # noqa: F401
