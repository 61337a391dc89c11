"""`--format csv` and `--format tsv`: a header, then a row per value (run, query, measure,
value, summary), floats at full precision, NaN and the infinities an empty field."""

from __future__ import annotations

import math

from .common import ROW_FIELDS, Buffered, RunValues, each_row
from .record import Format


def _field(value: object) -> object:
    return "" if isinstance(value, float) and not math.isfinite(value) else value


def _rows(delimiter: str):
    """The run writer of the format whose fields `delimiter` separates."""

    def write_run(values: RunValues, out: Buffered) -> None:
        import csv  # not at import: the trec text needs no csv (start-up of every evaluation)

        writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
        each_row(values, lambda run, query, name, value, summary: writer.writerow(
            (run, query, name, _field(value), "true" if summary else "false")))

    return write_run


def _header(delimiter: str):
    def begin(header: dict, count: int, out: Buffered) -> None:
        out.write(delimiter.join(ROW_FIELDS) + "\n")

    return begin


CSV = Format("csv", "comma-separated rows: run, query, measure, value, summary", _rows(","), begin=_header(","))
TSV = Format("tsv", "tab-separated rows: run, query, measure, value, summary", _rows("\t"), begin=_header("\t"))
