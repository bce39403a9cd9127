"""Calibration: recordings of real throws, the terminal recorder, the fit and its report.

Modules: :mod:`~tower.calibration.recording` (formats), :mod:`~tower.calibration.recorder`
(``tower record``), :mod:`~tower.calibration.summaries` (statistics from counts),
:mod:`~tower.calibration.simulators` (what the fit simulates), :mod:`~tower.calibration.fit`
(emulator + synthetic likelihood), :mod:`~tower.calibration.execute` (cached replays),
:mod:`~tower.calibration.report` (goodness of fit), :mod:`~tower.calibration.calibrate`
(``tower calibrate``), :mod:`~tower.physics.params_file` (``--params FILE``),
:mod:`~tower.calibration.synthetic` (``tower record-synthetic``).
"""

#: Default number of design replays of ``tower calibrate`` (each replays the training
#: throws once). With physics at ~5 throws/s/core on a loaded 2-core machine, 128 replays of
#: 150 throws, most of the first wave aborting early on clogged towers, fit in an hour.
DEFAULT_BUDGET = 128

#: Default number of posterior predictive replays for the goodness-of-fit report.
DEFAULT_CHECKS = 16
