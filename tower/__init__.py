"""tower: a physical cube-tower simulator, calibration toolkit and Marrakesh rules engine.

The package is split into rooms with one-way dependencies::

    pieces, errors                      shared vocabulary (no heavy imports)
    compiled                            a compiled file's source, when it is out of date
    geometry  -> trimesh                parametric tower and piece specs, meshes, validation
    physics   -> geometry, pybullet     throws through the tower, snapshots
    runs      -> physics                batch execution (local pool or Dask), resumable files
    calibration -> runs                 recordings, the terminal recorder, the fit, the report
    model                               TowerModel interface, baseline and distilled models
    analysis  -> model                  retention and dislodge statistics, plots
    marrakesh -> model (interface only) the rules engine
    battle    -> marrakesh, model       the Walls & Guards battle checker
    cli                                 the one place that wires them together
"""

from pathlib import Path as _Path

from tower.compiled import prefer_fresh_sources as _prefer_fresh_sources

__version__ = "0.1.0"

# Before any other file of the package is imported: a compiled file whose source changed
# since it was built is bypassed (tower/compiled.py).
_prefer_fresh_sources(__name__, _Path(__file__).parent)
