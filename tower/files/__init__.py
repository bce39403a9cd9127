"""The one layer between the package and the user's files.

:mod:`tower.files.inputs` reads: every user file passes its checks of encoding, size,
nesting depth, finite numbers and plausible counts, and any fault becomes one
:class:`tower.errors.InputFileError` naming file, line, field and value.
:mod:`tower.files.outputs` writes: atomically, never over a file the command did not
write (unless ``--force``), and resumable outputs only into a file with their own header.
"""

from tower.files.inputs import (
    LIMITS,
    check_count,
    load_json,
    parse_json,
    read_text,
)
from tower.files.outputs import (
    OutputError,
    atomic_path,
    check_output,
    write_bytes,
    write_text,
)

__all__ = [
    "LIMITS",
    "OutputError",
    "atomic_path",
    "check_count",
    "check_output",
    "load_json",
    "parse_json",
    "read_text",
    "write_bytes",
    "write_text",
]
