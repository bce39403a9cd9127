"""The walk-through of ``tower/marrakesh/modules/README.md`` is true: its plug-in
registers and plays, and its tests pass."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import tower.marrakesh  # noqa: F401 (registers the modules)
from tower.marrakesh.hooks import REGISTRY

README = Path(__file__).parent.parent / "tower" / "marrakesh" / "modules" / "README.md"


def test_the_readme_example_module_and_its_tests_run():
    plugin, tests = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    module = types.ModuleType("tolls_example")
    sys.modules[module.__name__] = module
    try:
        exec(compile(plugin, "README.md: tolls.py", "exec"), module.__dict__)
        assert REGISTRY["tolls"].adds.options.keys() == {"tolls_pay"}
        namespace: dict[str, object] = {}
        exec(compile(tests, "README.md: test_tolls.py", "exec"), namespace)
        ran = [fn() for name, fn in namespace.items() if name.startswith("test_")]
        assert len(ran) == 2
    finally:
        REGISTRY.pop("tolls", None)
        del sys.modules[module.__name__]
