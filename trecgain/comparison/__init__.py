"""`trecgain.compare`: is run B better than run A, by how much, and where.

Every number comes from `Evaluator`: a run's mean is exactly the `all` value the main command
prints, and the paired statistics read the same evaluation's per-query values.  The package:
`engine` (`compare`: the runs evaluated and compared), `model` (the results as data:
`Comparison`, `MeasureResult`, `Pair`, ...), `significance` (the registry of statistical
tests), `stats` (the numbers: tests, intervals, corrections, resampling), `render` (text,
JSON, CSV, markdown, LaTeX) and `plot`.  The library never prints: notes are in
`Comparison.notes`.

(This package is `comparison`, not `compare`: `trecgain.compare` is the function, which a
submodule of that name would replace once imported.)"""

from __future__ import annotations

from .engine import DEFAULT_MEASURES, DEFAULT_SEED, compare
from .model import Comparison, MeasureResult, Pair, Reversal, RunInfo, lower_is_better
from .significance import TESTS, Significance, Trial, register, unregister

__all__ = ["DEFAULT_MEASURES", "DEFAULT_SEED", "TESTS", "Comparison", "MeasureResult", "Pair", "Reversal", "RunInfo",
           "Significance", "Trial", "compare", "lower_is_better", "register", "unregister"]
