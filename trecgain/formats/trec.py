"""`--format trec` (the default): trec_eval's own text, as the core writes it."""

from __future__ import annotations

from .common import Buffered, RunValues
from .record import Format


def write_run(values: RunValues, out: Buffered) -> None:
    values.write_trec(out.write_bytes)


TREC = Format("trec", "trec_eval's text, the default", write_run, names_runs=False)
