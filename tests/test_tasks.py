"""Every field a task is built with, or that a handler reads, is a documented field of
:class:`tower.marrakesh.tasks.Task` (an AST scan of the engine and its modules)."""

from __future__ import annotations

import ast
from pathlib import Path

from tower.marrakesh.tasks import Task

ENGINE = Path(__file__).parent.parent / "tower" / "marrakesh"


def task_fields(source: str) -> set[str]:
    """Keywords of ``T(...)``/``ask(...)`` calls, the keys of tasks written as dict
    literals (``{"t": "deploy", "p": p, ...}``, the first key ``"t"``), and the string keys
    read from a parameter annotated ``Task`` (``t["src"]``, ``t.get("then")``)."""
    out: set[str] = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        first = node.keys[0] if isinstance(node, ast.Dict) and node.keys else None
        if isinstance(first, ast.Constant) and first.value == "t":
            out |= {
                k.value
                for k in node.keys[1:]
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else getattr(fn, "attr", "")
            if name in ("T", "ask"):
                out |= {kw.arg for kw in node.keywords if kw.arg}
        if isinstance(node, ast.FunctionDef | ast.Lambda):
            args = node.args.args
            tasks = {
                a.arg
                for a in args
                if a.annotation is not None and "Task" in ast.unparse(a.annotation)
            }
            for sub in ast.walk(node):
                if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                    key = sub.slice
                    if (
                        sub.value.id in tasks
                        and isinstance(key, ast.Constant)
                        and isinstance(key.value, str)
                    ):
                        out.add(key.value)
                if (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "get"
                    and isinstance(sub.func.value, ast.Name)
                    and sub.func.value.id in tasks
                    and sub.args
                    and isinstance(sub.args[0], ast.Constant)
                ):
                    out.add(sub.args[0].value)
    return out


def test_every_task_field_is_documented():
    used: dict[str, set[str]] = {}
    for path in sorted(ENGINE.rglob("*.py")):
        for key in task_fields(path.read_text()):
            used.setdefault(key, set()).add(path.name)
    assert len(used) > 40
    unknown = {k: sorted(v) for k, v in used.items() if k not in Task.__annotations__}
    assert unknown == {}
    # The machine's own fields are read from the top of the stack, not from a parameter.
    assert set(Task.__annotations__) - set(used) == {"t", "o"}


def test_the_scan_sees_fields():
    source = 'def f(state, t: Task):\n    push(state, T("x", p=1, zz=2))\n    return t["yy"]'
    assert task_fields(source) == {"p", "zz", "yy"}
    literal = 'def g(state):\n    state.stack.append({"t": "x", "ww": 1})\n    return {"a": 2}'
    assert task_fields(literal) == {"ww"}
