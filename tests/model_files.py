"""Model files for the tests: the kept ``tower.model/2`` file, and bad texts for readers."""

import json
from pathlib import Path

#: The ``tower.model/2`` file shipped before the v3 one: checks measured on it stay fixed.
V2_MODEL = Path(__file__).resolve().parents[1] / "calibration" / "models" / "marrakesh-v2.json"


def tampered(text: str) -> str:
    """A model file's ``text`` with its ``alpha`` changed and its checksum left as it was:
    a file every reader must refuse (field ``sha256``). In canonical JSON the section's
    ``alpha`` is the first one (the provenance's comes later)."""
    alpha = json.dumps(json.loads(text)["model"]["alpha"])
    at = text.index('"alpha":') + len('"alpha":')
    assert text[at:].startswith(alpha), text[at - 8 : at + 20]
    return text[:at] + json.dumps(json.loads(alpha) + 1) + text[at + len(alpha) :]
