"""tower: a physical cube-tower simulator, calibration toolkit and Marrakesh rules engine.

The package is split into rooms with one-way dependencies::

    pieces, errors                      shared vocabulary (no heavy imports)
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

__version__ = "0.1.0"
