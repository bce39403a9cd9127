"""An animated GIF of one throw, from pybullet's software camera (no display needed).

The tower is seen from the -y side with every wall on that side cut away (the tube wall,
the funnel panel and the courtyard walls facing the camera), so the floors, the ramp and
the pieces inside are visible. Frames come from ``getCameraImage`` with
``ER_TINY_RENDERER`` in DIRECT mode and are written with Pillow.

Example
-------
>>> from tower.geometry import load_preset  # doctest: +SKIP
>>> render_throw(load_preset("marrakesh"), out="throw.gif", warmup=3)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pybullet as pb

from tower.physics.params import PhysicsParams
from tower.physics.sim import ThrowResult, TowerSim
from tower.physics.world import LENGTH, World
from tower.pieces import Piece, mixed_keshis


def camera_side_parts(sim: TowerSim) -> frozenset[str]:
    """Tower parts lying wholly on the camera's side (y below the tube's inner face)."""
    limit = -float(sim.spec.tube.depth) / 2 * LENGTH + 0.05
    return frozenset(p.name for p in sim.geometry.static if p.vertices[:, 1].max() <= limit)


def camera(spec: Any, width: int, height: int) -> tuple[list[float], list[float]]:
    """The view and projection matrices of the filming camera, in front of the tower (-y)."""
    lo, hi = np.asarray(spec.bounds, dtype=float) * LENGTH
    target = [(lo[0] + hi[0]) / 2, 0.0, (lo[2] + hi[2]) / 2 * 0.9]
    span = max(hi[0] - lo[0], hi[2] - lo[2])
    eye = [target[0] - 0.25 * span, -1.55 * span, target[2] + 0.4 * span]
    view = pb.computeViewMatrix(eye, target, [0, 0, 1])
    proj = pb.computeProjectionMatrixFOV(40, width / height, 0.1 * span, 5 * span)
    return view, proj


def frame(
    world: World, view: list[float], proj: list[float], size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """One picture of ``world`` (loaded with visual shapes) through the camera ``view``,
    ``proj``: its RGB pixels (height, width, 3) and pybullet's segmentation mask (height,
    width), the body id seen at each pixel (-1 for the background)."""
    width, height = size
    _, _, rgba, _, seg = pb.getCameraImage(
        width,
        height,
        view,
        proj,
        renderer=pb.ER_TINY_RENDERER,
        lightDirection=[-0.4, -1.0, 1.2],
        shadow=0,
        physicsClientId=world.client,
    )
    rgb = np.reshape(np.asarray(rgba, dtype=np.uint8), (height, width, 4))[:, :, :3]
    return rgb, np.reshape(np.asarray(seg, dtype=np.int64), (height, width))


def render_throw(
    spec: Any,
    params: PhysicsParams | None = None,
    *,
    out: str | Path,
    seed: int = 0,
    pieces: list[Piece] | None = None,
    warmup: int = 3,
    size: tuple[int, int] = (360, 400),
    fps: int = 25,
    slow_motion: float = 2.0,
    force: bool = False,
) -> ThrowResult:
    """Simulate ``warmup`` throws unseen, then film the next one into the GIF ``out``.

    Parameters
    ----------
    spec : TowerSpec
    params : PhysicsParams, optional
    out : path
        The GIF to write (atomically, :func:`tower.files.outputs.atomic_path`).
    pieces : list of Piece, optional
        What is thrown each time (default: 12 keshis of the 12 colours).
    warmup : int
        Throws before the filmed one, so the tower holds pieces from earlier throws.
    size : (int, int)
        Width and height in pixels.
    fps : int
        Frames per second of the GIF.
    slow_motion : float
        How many times slower than real time the GIF plays.
    force : bool
        Replace an existing file (refused, before any simulation, otherwise).

    Returns
    -------
    ThrowResult
        The filmed throw's result.
    """
    from PIL import Image

    from tower.files.outputs import atomic_path, check_output

    check_output(out, force=force)
    pieces = pieces or mixed_keshis(12)
    sim = TowerSim(spec, params, seed)
    for _ in range(warmup):
        sim.throw(pieces)
    view, proj = camera(spec, *size)
    every = max(1, round(1.0 / (fps * slow_motion * sim.numerics.time_step)))
    frames: list[Image.Image] = []

    def grab(step: int, world: World) -> None:
        if step % every:
            return
        rgb, _ = frame(world, view, proj, size)
        frames.append(Image.fromarray(rgb))

    try:
        result = sim.throw(pieces, observe=grab, hidden=camera_side_parts(sim))
    finally:
        sim.close()
    if not frames:
        raise RuntimeError("the throw ended before the first frame")
    frames += [frames[-1]] * fps  # hold the final state for a second
    with atomic_path(out) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                       duration=round(1000 / fps), loop=0, optimize=True)  # fmt: skip
    return result
