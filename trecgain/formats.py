"""Output formats beside trec_eval's text: one JSON document, JSON lines, CSV, TSV and a
markdown table.  Each renderer takes RunValues (a run's values as its trec text shows them)
and returns a str; nothing here prints.

NaN (Rndcg's 0/0) and the infinities have no JSON spelling: they are null in JSON and JSON
lines and an empty field in CSV and TSV; the markdown table prints them as trec_eval does."""

from __future__ import annotations

import math

from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Iterator

FORMATS = ("trec", "json", "jsonl", "csv", "tsv", "markdown")
#: A row's fields; `summary` tells the `all` lines from those of a query named `all`.
ROW_FIELDS = ("run", "query", "measure", "value", "summary")


class RunValues(Record):
    """One run's values as its trec text shows them: the run file (or None), the runid, the
    `all` lines ({line name: value}; None with -n) and the per-query lines ([(qid, {line
    name: value})] in the order printed; None without -q).  Plain data: it crosses from a
    -j worker to the command."""

    __slots__ = ("file", "runid", "aggregate", "per_query")

    def __reduce__(self) -> tuple:
        return (RunValues, self._values())


def run_values(result: object, file: str | None, per_query: bool, summary: bool) -> RunValues:
    """A Result's values as `to_trec(per_query, summary)` shows them (per-query values need
    a result that kept them)."""
    return RunValues(file, result.runid, dict(result.aggregate) if summary else None,  # type: ignore[attr-defined]
                     result.query_values() if per_query else None)  # type: ignore[attr-defined]


def run_name(values: RunValues) -> str:
    """What names a run in rows and tables: its file, else its runid."""
    return values.file if values.file is not None else values.runid


def rows(values: RunValues) -> Iterator[tuple[str, str, str, object, bool]]:
    """(run, query, measure, value, summary) in the trec text's order: per-query lines
    (summary False), then the `all` lines (query `all`, summary True)."""
    run = run_name(values)
    for qid, line_values in values.per_query or ():
        for name, value in line_values.items():
            yield run, qid, name, value, False
    for name, value in (values.aggregate or {}).items():
        yield run, "all", name, value, True


def _finite(value: object) -> object:
    """A value JSON can spell: NaN and the infinities become None."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def run_object(values: RunValues) -> dict:
    """One run's JSON object: file, runid, aggregate (unless -n) and per_query (with -q)."""
    out: dict = {"file": values.file, "runid": values.runid}
    if values.aggregate is not None:
        out["aggregate"] = {name: _finite(v) for name, v in values.aggregate.items()}
    if values.per_query is not None:
        out["per_query"] = {qid: {name: _finite(v) for name, v in line_values.items()}
                            for qid, line_values in values.per_query}
    return out


def dumps(document: object, indent: int | None = 2) -> str:
    """Strict JSON, ASCII only (identifiers that are not UTF-8 come out as escapes): NaN and
    the infinities, which JSON cannot spell, are null wherever they are (the one JSON rule of
    --format json and jsonl, Result.to_json and explain)."""
    import json

    try:
        return json.dumps(document, allow_nan=False, indent=indent)
    except ValueError:  # a NaN or an infinity somewhere (rare: looked for only then)
        return json.dumps(_spellable(document), allow_nan=False, indent=indent)


def _spellable(document: object) -> object:
    """The document with every float JSON cannot spell made None."""
    if isinstance(document, float):
        return _finite(document)
    if isinstance(document, dict):
        return {key: _spellable(value) for key, value in document.items()}
    if isinstance(document, (list, tuple)):
        return [_spellable(value) for value in document]
    return document


def to_json(runs: list[RunValues], header: dict) -> str:
    """The JSON document: `header` (trecgain, compat, qrels, options) and the runs."""
    return dumps({**header, "runs": [run_object(r) for r in runs]}) + "\n"


def to_jsonl(runs: list[RunValues]) -> str:
    """One JSON object per (run, query, measure, value, summary)."""
    return "".join(dumps(dict(zip(ROW_FIELDS, (run, query, name, _finite(value), summary))), None) + "\n"
                   for r in runs for run, query, name, value, summary in rows(r))


def _field(value: object) -> object:
    """A CSV field: floats at full precision, NaN and infinities empty."""
    return "" if isinstance(value, float) and not math.isfinite(value) else value


def to_delimited(runs: list[RunValues], delimiter: str = ",") -> str:
    """CSV (or TSV with a tab): a header line, then one row per (run, query, measure, value,
    summary), summary spelled true or false as in JSON."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(ROW_FIELDS)
    for r in runs:
        writer.writerows((run, query, name, _field(value), "true" if summary else "false")
                         for run, query, name, value, summary in rows(r))
    return out.getvalue()


def _printf(value: object) -> str:
    """A value as trec_eval prints it (%6.4f without the padding, -nan for NaN)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "-nan"
        return f"{value:.4f}" if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


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
        cells = [_cell(run_name(r))] + [_cell(_printf((r.aggregate or {}).get(n, ""))) for n in names]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render(form: str, runs: list[RunValues], header: dict) -> str:
    """The runs in format `form` (not trec: the trec text is Result.write_trec's)."""
    if form == "json":
        return to_json(runs, header)
    if form == "jsonl":
        return to_jsonl(runs)
    if form in ("csv", "tsv"):
        return to_delimited(runs, "," if form == "csv" else "\t")
    if form == "markdown":
        return to_markdown(runs)
    raise ValueError(f"no renderer for format {form!r}")


def aligned(header: list[str], rows: list[list[str]], left: set[int] = frozenset(),
            groups: list[int] | None = None, titles: list[str] | None = None) -> list[str]:
    """A text table's lines (explain's and compare's): columns aligned, to the right but those
    in `left`; with `groups` (columns per group), a bar between the groups and, with `titles`,
    a line naming them."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    groups = groups or [len(header)]
    bounds = [sum(groups[:k]) for k in range(len(groups) + 1)]

    def pad(i: int, c: str) -> str:
        return c.ljust(widths[i]) if i in left else c.rjust(widths[i])

    def line(cells: list[str]) -> list[str]:
        return ["  ".join(pad(i, cells[i]) for i in range(bounds[k], bounds[k + 1])) for k in range(len(groups))]

    out = [" | ".join(line(cells)).rstrip() for cells in [header] + rows]
    if titles:
        blocks = line(header)
        out.insert(0, " | ".join(t.ljust(len(b)) for t, b in zip(titles, blocks)).rstrip())
    return out
