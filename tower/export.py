"""What a digital game needs in one folder: model file, format document, glTF meshes, README.

:func:`export_folder` gathers everything in memory first (a bad preset or model file
writes nothing), then writes each file atomically. A folder that already holds files is
refused unless ``force``; even then only the export's own files are replaced.

The glTF files follow the glTF convention, not the tower frame: metres, y up. A tower
point ``(x, y, z)`` in mm is ``(x, z, -y) / 1000`` in the ``.glb`` (exit towards +x).

Examples
--------
>>> files = export_files("marrakesh")
>>> sorted(files)[:3]
['README.md', 'marrakesh.json', 'model-format.md']
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import trimesh

from tower.errors import TowerError

#: The format specification in a checkout of the repository.
FORMAT_DOC = Path(__file__).resolve().parents[1] / "docs" / "model-format.md"
#: Tower frame (mm, z up) to glTF (m, y up): scale, then x -> x, z -> y, y -> -z.
GLTF_FROM_TOWER = np.array(
    [[1e-3, 0, 0, 0], [0, 0, 1e-3, 0], [0, -1e-3, 0, 0], [0, 0, 0, 1]], dtype=float
)
#: Volume factor from the tower frame (mm^3) to glTF (m^3).
GLTF_VOLUME_SCALE = 1e-9


def glb_bytes(named_meshes: list[tuple[str, trimesh.Trimesh]]) -> bytes:
    """A glTF binary scene with one node per mesh, converted to metres and y up."""
    scene = trimesh.Scene()
    for name, mesh in named_meshes:
        m = mesh.copy()
        m.apply_transform(GLTF_FROM_TOWER)
        scene.add_geometry(m, node_name=name, geom_name=name)
    return scene.export(file_type="glb")


def export_meshes(preset: str) -> dict[str, list[tuple[str, trimesh.Trimesh]]]:
    """The meshes of the export, by file: ``tower.glb`` and ``pieces/<kind>.glb``."""
    from tower.geometry import load_preset, piece_parts, tower_parts

    spec = load_preset(preset)
    files = {"tower.glb": [(p.name, p.mesh) for p in tower_parts(spec)]}
    for kind, piece in sorted(spec.pieces.items()):
        parts = piece_parts(piece)
        files[f"pieces/{kind.value}.glb"] = [(f"{kind.value}-{j}", m) for j, m in enumerate(parts)]
    return files


def export_files(preset: str, model_path: Path | None = None) -> dict[str, bytes]:
    """Every file of the export by relative path, in memory."""
    from tower.geometry import load_preset
    from tower.model.distilled import shipped_path
    from tower.model.fileformat import read_model_file

    spec = load_preset(preset)
    path = Path(model_path) if model_path is not None else shipped_path(preset)
    doc = read_model_file(path)  # verified: schema, checksum, tables
    if not FORMAT_DOC.is_file():
        raise TowerError(f"{FORMAT_DOC}: the format document is missing (run from a checkout)")
    files: dict[str, bytes] = {
        f"{doc['name']}.json": path.read_bytes(),
        "model-format.md": FORMAT_DOC.read_bytes(),
        "spec.toml": spec.to_toml().encode("utf-8"),
    }
    for name, meshes in export_meshes(preset).items():
        files[name] = glb_bytes(meshes)
    files["README.md"] = _readme(preset, doc, files).encode("utf-8")
    return files


def export_folder(out: Path, preset: str, model_path: Path | None, force: bool) -> list[Path]:
    """Write the export into ``out``; returns the paths written.

    Everything is built and checked before anything is written. A file already in ``out``
    is replaced only if an earlier ``tower export`` wrote it (or with ``force``); other
    files are left alone."""
    from tower.files.outputs import OutputFolder

    files = export_files(preset, model_path)
    folder = OutputFolder(out, "export", force=force)
    folder.check(sorted(files))
    written = []
    for rel, data in sorted(files.items()):
        target = folder.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with folder.path_for(rel) as tmp:
            tmp.write_bytes(data)
        written.append(target)
    return written


def _readme(preset: str, doc: dict, files: dict[str, bytes]) -> str:
    def sha(name: str) -> str:
        return hashlib.sha256(files[name]).hexdigest()

    model_file = f"{doc['name']}.json"
    command = doc.get("provenance", {}).get("command", "not recorded")
    lines = [
        f"# Tower export: preset `{preset}`",
        "",
        "Written by `tower export` of the tower toolkit. Everything a digital game needs to",
        "throw pieces through this tower: a model to sample throws from, the specification",
        "to read it, and meshes to draw it.",
        "",
        "License: MIT (the tower toolkit's license) for every file here. The tower's",
        "dimensions and the pieces' shapes are assumptions, not measurements of a real",
        "tower: no real tower's dimensions are published (see `spec.toml`, where each",
        "number names its plausible range).",
        "",
        "| File | What it is | Provenance | SHA-256 |",
        "|---|---|---|---|",
        f"| `{model_file}` | distilled tower model, schema `{doc['schema']}` | fitted by "
        f"`{command.split(' --')[0]}` from pybullet simulator traces of the `{preset}` "
        f"preset; the file's `provenance` lists each trace file and its checksum | "
        f"`{sha(model_file)}` |",
        "| `model-format.md` | specification of the model file: enough to write a port | "
        f"`docs/model-format.md` of the toolkit | `{sha('model-format.md')}` |",
        f"| `spec.toml` | the resolved tower spec the meshes are built from | preset "
        f"`{preset}` (`tower/geometry/presets/`), assumed numbers marked | "
        f"`{sha('spec.toml')}` |",
        "| `tower.glb` | the static tower, one node per convex part (tube walls, funnel, "
        "floors, ramp, courtyard) | `tower.geometry.tower_parts` of the spec, exported by "
        f"trimesh {trimesh.__version__} | `{sha('tower.glb')}` |",
    ]
    for name in sorted(n for n in files if n.startswith("pieces/")):
        kind = Path(name).stem
        lines.append(
            f"| `{name}` | one {kind}, origin at its centre of mass, one node per convex "
            f"part | `tower.geometry.piece_parts` of the spec | `{sha(name)}` |"
        )
    lines += [
        "",
        "Units and axes of the `.glb` files: metres, y up (the glTF convention). The tower",
        "frame of the toolkit is millimetres, z up; a tower point (x, y, z) in mm is",
        "(x, z, -y) / 1000 here. The exit ramp points towards +x.",
        "",
        "To play: load the model file with the JavaScript port (`js/` of the toolkit) or the",
        "Python reference sampler (`tower.model.reference`), check its `sha256`, and throw.",
        "",
    ]
    return "\n".join(lines)
