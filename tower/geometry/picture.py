"""The tower picture: a cut-away 3-D view of the tower beside its pieces, at scale.

The tube wall, funnel panel and courtyard walls facing the viewer (-y) are left out so the
floors, their holes, the ribs and the ramp are visible. The pieces stand in a row in front
of the courtyard, in the same axes, so they are drawn at the tower's scale; an inset
repeats them enlarged with their names. Matplotlib's Agg backend draws it off-screen.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from tower.geometry import load_preset
>>> from tower.geometry.picture import render_png
>>> with tempfile.TemporaryDirectory() as tmp:
...     render_png([load_preset("marrakesh")], Path(tmp) / "marrakesh.png").stat().st_size > 0
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tower.geometry.meshes import piece_mesh, tower_parts
from tower.geometry.spec import TowerSpec
from tower.pieces import Kind

#: Parts hidden to open the view (they face the viewer, who looks from -y).
CUT_AWAY = ("tube-right", "funnel-ny", "yard-right", "yard-back-right")

#: Face colour of each part family (by the part-name prefix).
COLOURS = {
    "tube": "#c9b79c",
    "funnel": "#9aa5b1",
    "rib": "#4a5560",
    "floor1": "#e08a3c",
    "floor2": "#3c9ea0",
    "ramp": "#b8483f",
    "yard": "#d8ccb4",
}
PIECE_COLOURS = {
    "keshi": "#c0392b",
    "expert": "#8e44ad",
    "watchman": "#2e6fba",
    "brigand": "#333333",
    "cube": "#d4a017",
}
#: Width (mm) of the enlarged pieces' inset: the same scale in every panel.
INSET_WIDTH = 120.0
_LIGHT = np.array([-0.35, -0.55, 0.76])


def _shaded(mesh, colour: str, max_edge: float) -> tuple[np.ndarray, np.ndarray]:
    """Triangles (n, 3, 3) and their lit RGBA colours (n, 4) of ``mesh``.

    Faces are split to edges of at most ``max_edge`` mm so that matplotlib's depth sort
    (one depth per polygon) orders large walls and small floor pieces correctly.
    """
    import trimesh
    from matplotlib.colors import to_rgba

    vertices, faces = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, max_edge)
    tris = vertices[faces]
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    light = _LIGHT / np.linalg.norm(_LIGHT)
    shade = 0.55 + 0.45 * np.clip(normals @ light, 0.0, 1.0)
    rgba = np.tile(to_rgba(colour), (len(tris), 1))
    rgba[:, :3] *= shade[:, None]
    return tris, rgba


def _piece_row(spec: TowerSpec, y: float, x0: float, gap: float) -> list[tuple[str, object]]:
    """The spec's pieces standing on the ground in a row along +x at height 0."""
    out, x = [], x0
    for kind in sorted(spec.pieces):
        mesh = piece_mesh(spec.pieces[kind])
        lo, hi = mesh.bounds
        mesh.apply_translation([x - lo[0], y - (lo[1] + hi[1]) / 2, -lo[2]])
        out.append((kind.value, mesh))
        x += hi[0] - lo[0] + gap
    return out


def draw_tower(ax, spec: TowerSpec) -> None:
    """Draw the cut-away tower and its pieces (at scale) into a 3-D matplotlib axes."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    tris, cols = [], []
    for part in tower_parts(spec):
        if part.name in CUT_AWAY:
            continue
        t, c = _shaded(part.mesh, COLOURS[part.name.split("-")[0]], 14.0)
        tris.append(t)
        cols.append(c)
    box = spec.courtyard_box
    row_y = box[0, 1] - spec.courtyard.wall - 25.0
    for kind, mesh in _piece_row(spec, row_y, box[0, 0], 8.0):
        t, c = _shaded(mesh, PIECE_COLOURS[kind], 14.0)
        tris.append(t)
        cols.append(c)
    colours = np.concatenate(cols)
    coll = Poly3DCollection(
        np.concatenate(tris), facecolors=colours, edgecolors=colours, linewidths=0.1
    )
    ax.add_collection3d(coll)
    lo, hi = spec.bounds
    lo = np.minimum(lo, [lo[0], row_y - 20.0, lo[2]])
    hi = hi.copy()
    hi[2] = spec.funnel_top + 5.0
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(hi - lo)
    ax.view_init(elev=22, azim=-78)
    ax.set_xlabel("x (mm)", fontsize=7, labelpad=-2)
    ax.set_ylabel("y (mm)", fontsize=7, labelpad=-2)
    ax.set_zlabel("z (mm)", fontsize=7, labelpad=-2)
    ax.tick_params(labelsize=6, pad=-1)
    ax.set_title(f"{spec.name}: cut away, pieces in front at scale", fontsize=9)


def draw_pieces(ax, spec: TowerSpec) -> None:
    """Draw the spec's pieces enlarged, side by side, with names and sizes."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    row = _piece_row(spec, 0.0, 0.0, 22.0)
    tris, cols = [], []
    for i, (kind, mesh) in enumerate(row):
        t, c = _shaded(mesh, PIECE_COLOURS[kind], 100.0)
        tris.append(t)
        cols.append(c)
        piece = spec.pieces[Kind(kind)]
        label = f"{kind}, {piece.mass_g:g} g" if i % 2 else f"{kind}\n{piece.mass_g:g} g"
        z = mesh.bounds[1][2] + 3.0 if i % 2 == 0 else mesh.bounds[0][2] - 9.0
        ax.text(mesh.centroid[0], 0.0, z, label, fontsize=6, ha="center")
    coll = Poly3DCollection(np.concatenate(tris), facecolors=np.concatenate(cols))
    coll.set_edgecolor((0, 0, 0, 0.25))
    coll.set_linewidth(0.2)
    ax.add_collection3d(coll)
    lo = np.min([m.bounds[0] for _, m in row], axis=0)
    hi = np.max([m.bounds[1] for _, m in row], axis=0)
    lo[2] -= 10.0
    hi[2] += 12.0
    hi[0] = max(hi[0], lo[0] + INSET_WIDTH)  # one enlargement for every panel
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(hi - lo)
    ax.view_init(elev=22, azim=-78)
    ax.set_axis_off()


def render_png(
    specs: list[TowerSpec], path: str | Path, dpi: int = 110, *, force: bool = False
) -> Path:
    """Render one panel per spec (tower cut away, pieces at scale) into a PNG file.

    Parameters
    ----------
    specs : list of TowerSpec
        One column per spec.
    path : str or Path
        The PNG to write (parent directories are created).
    dpi : int
        Resolution; the default keeps a two-tower picture under 300 KB.
    force : bool
        Replace an existing file (see :func:`tower.files.outputs.save_figure`).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tower.files.outputs import save_figure

    fig = plt.figure(figsize=(4.4 * len(specs), 5.6))
    grid = fig.add_gridspec(2, len(specs), height_ratios=[5, 1.1], hspace=0.0, wspace=0.0)
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=0.95)
    for i, spec in enumerate(specs):
        draw_tower(fig.add_subplot(grid[0, i], projection="3d"), spec)
        draw_pieces(fig.add_subplot(grid[1, i], projection="3d"), spec)
    return save_figure(fig, path, force=force, dpi=dpi, metadata={"Software": None})
