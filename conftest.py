"""pytest settings for the whole checkout.

The engine's files may run compiled (``setup.py``). pytest then imports a file's doctests
from the compiled module, not from the ``.py`` file it collected, and its check that the
two are one file would refuse them: the docstrings are the same, so the check is off.
"""

import os

os.environ.setdefault("PY_IGNORE_IMPORTMISMATCH", "1")
