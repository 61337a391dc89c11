"""`--format markdown`: one table of the runs' `all` values, a row per run (named by its file),
a column per line, values as trec_eval prints them."""

from __future__ import annotations

from .common import Buffered, RunValues, printf, run_name
from .record import Format


def _cell(text: str) -> str:
    """A markdown table cell: pipes escaped, control characters shown as escapes."""
    escaped = "".join(repr(c)[1:-1] if not c.isprintable() else c for c in text)
    return escaped.replace("|", "\\|")


def to_markdown(runs: list[RunValues]) -> str:
    """One table: a row per run (named by its file), a column per `all` line."""
    names = list(dict.fromkeys(n for r in runs for n in r.aggregate or {}))
    text = {n for r in runs for n, v in (r.aggregate or {}).items() if isinstance(v, str)}  # runid: left
    lines = ["| " + " | ".join(_cell(n) for n in ["run", *names]) + " |",
             "|" + "|".join(["---"] + ["---" if n in text else "---:" for n in names]) + "|"]
    for r in runs:
        cells = [_cell(run_name(r))] + [_cell(printf((r.aggregate or {}).get(n, ""))) for n in names]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_table(runs: list[RunValues], out: Buffered) -> None:
    out.write(to_markdown(runs))


MARKDOWN = Format("markdown", "one table of the runs' 'all' values (neither -q nor -n)", None, table=write_table)
