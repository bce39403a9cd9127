"""Model-file texts for the tests that feed readers a bad file."""

import json


def tampered(text: str) -> str:
    """A model file's ``text`` with its ``alpha`` changed and its checksum left as it was:
    a file every reader must refuse (field ``sha256``). In canonical JSON the section's
    ``alpha`` is the first one (the provenance's comes later)."""
    alpha = json.dumps(json.loads(text)["model"]["alpha"])
    at = text.index('"alpha":') + len('"alpha":')
    assert text[at:].startswith(alpha), text[at - 8 : at + 20]
    return text[:at] + json.dumps(json.loads(alpha) + 1) + text[at + len(alpha) :]
