"""`Format`: one output format as data (`--format NAME`, trecgain.formats.FORMATS)."""

from __future__ import annotations

from ..record import Record


class Format(Record):
    """An output format: its `name` (`--format NAME`), one line of `help`, and its writers, each
    writing text to a trecgain.formats.common.Buffered: `write_run(values, out)` one run's part
    (a RunValues: also what a -j worker makes of its run), `begin(header, count, out)` before the
    runs and `end(count, out)` after (None: nothing), `separator` between two runs; or, for a
    format that shows only the runs' `all` values in one table (markdown), `table(runs, out)`
    instead of them (`write_run` None: it takes neither -q nor -n).  `names_runs`: whether the
    text names each run (trec's does not: the command notes that when several runs print)."""

    __slots__ = ("name", "help", "write_run", "begin", "end", "separator", "table", "names_runs")
    DEFAULTS = {"begin": None, "end": None, "separator": "", "table": None, "names_runs": True}
