"""Build the study notebooks from their plain-Python sources, execute them, store outputs.

Each notebook's source is ``notebooks/src/<name>.py`` in the "percent" cell format: a line
``# %%`` starts a code cell, ``# %% [markdown]`` a Markdown cell (its lines written as
``# text``). This script turns a source into ``notebooks/<name>.ipynb``, executes it in a
fresh kernel with ``notebooks/`` as working directory (as ``pytest --nbmake`` and
``tests/test_notebooks.py`` do), and saves it with its outputs. A code cell whose first
line is ``# export: NAME`` has its first PNG figure also written to
``docs/img/NAME.png`` (the README's pictures).

Run from the repository root::

    .venv/bin/python notebooks/build.py              # every notebook
    .venv/bin/python notebooks/build.py retention    # some of them
    .venv/bin/python notebooks/build.py --model FILE --out /tmp/nb   # try another model file

``--model`` sets the notebooks' ``MODEL_FILE`` parameter (default ``None``: the shipped
``marrakesh`` model); use it with ``--out`` only, so that the committed notebooks always
use the shipped model.
"""

from __future__ import annotations

import argparse
import base64
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
IMG = HERE.parent / "docs" / "img"
NOTEBOOKS = ("retention", "calibration", "tower_luck", "battle", "digital_play", "experts")
PARAMETER = "MODEL_FILE = None"


def cells_of(text: str) -> list[nbformat.NotebookNode]:
    """Notebook cells from a percent-format source."""
    cells: list[nbformat.NotebookNode] = []
    kind, lines = None, []

    def flush() -> None:
        body = "\n".join(lines).strip("\n")
        if kind == "markdown":
            body = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#") for line in body.split("\n")
            )
            cells.append(nbformat.v4.new_markdown_cell(body))
        elif kind == "code" and body:
            cells.append(nbformat.v4.new_code_cell(body))

    for line in text.split("\n"):
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        elif kind is not None:
            lines.append(line)
    flush()
    return cells


def build(name: str, out_dir: Path, model: str | None) -> Path:
    """Build, execute and save one notebook; returns its path."""
    source = (SRC / f"{name}.py").read_text(encoding="utf-8")
    if model is not None:
        if PARAMETER not in source:
            raise SystemExit(f"{name}: has no line {PARAMETER!r} to set --model")
        source = source.replace(PARAMETER, f"MODEL_FILE = {str(Path(model).resolve())!r}")
    nb = nbformat.v4.new_notebook()
    nb.cells = cells_of(source)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": HERE}}
    )
    client.execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code" and cell.source.startswith("# export: ") and model is None:
            first = cell.source.split("\n", 1)[0]
            target = IMG / f"{first.removeprefix('# export: ')}.png"
            pngs = [o.data["image/png"] for o in cell.outputs if "image/png" in o.get("data", {})]
            png = pngs[0]
            target.write_bytes(base64.b64decode(png))
            print(f"  wrote {target.relative_to(HERE.parent)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.ipynb"
    nbformat.write(nb, path)
    print(f"{path}: {seconds:.1f} s, {path.stat().st_size / 1024:.0f} KiB")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"some of {NOTEBOOKS}")
    parser.add_argument("--model", default=None, help="model file for MODEL_FILE")
    parser.add_argument("--out", type=Path, default=HERE, help="where to write the notebooks")
    opts = parser.parse_args()
    unknown = sorted(set(opts.names) - set(NOTEBOOKS))
    if unknown:
        parser.error(f"unknown notebooks {unknown}; expected some of {NOTEBOOKS}")
    if opts.model is not None and opts.out.resolve() == HERE:
        raise SystemExit("--model needs --out elsewhere: committed notebooks use the shipped model")
    for name in opts.names or NOTEBOOKS:
        build(name, opts.out, opts.model)


if __name__ == "__main__":
    main()
