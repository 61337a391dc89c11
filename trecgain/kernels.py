"""The core's measure records (core/src/measures/mod.rs, `KERNELS`), read once: one dict per
measure, in trec_eval's output order, with everything the code needs to know about it.  Every
list of measures the Python side uses (the registry, help, completion, compare's, explain's,
the tie rule's, the ir_measures names) is derived from these; see measures.py."""

from __future__ import annotations

from . import _core

#: One dict per measure: name, help, params (how `name.TEXT` is read), naming, value, summary,
#: per_query, in_trec_eval_9, in_trec_eval, tie_average, gains, discounted, rank_order,
#: lower_is_better, explain (a shape or None), ir_measures, ir_params, default_cutoffs,
#: default_numbers.
RECORDS: tuple[dict, ...] = tuple(_core.kernels())
