"""Output formats beside trec_eval's text: one JSON document, JSON lines, CSV, TSV and a
markdown table.  The command's writer (`write_document`) streams: a run's per-query values
come a block of queries at a time from the core (`Result.each_query_values`) and are written
as they come, so memory stays that of a block, as with the trec text; the `to_*` renderers
return a str for the library's in-memory calls.  Nothing here prints.

NaN (Rndcg's 0/0) and the infinities have no JSON spelling: they are null in JSON and JSON
lines and an empty field in CSV and TSV; the markdown table prints them as trec_eval does."""

from __future__ import annotations

import math

from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable, Iterator

FORMATS = ("trec", "json", "jsonl", "csv", "tsv", "markdown")
#: A row's fields; `summary` tells the `all` lines from those of a query named `all`.
ROW_FIELDS = ("run", "query", "measure", "value", "summary")


class RunValues(Record):
    """One run's values as its trec text shows them: the run file (or None), the runid, the
    `all` lines ({line name: value}; None with -n) and the per-query lines in the order printed
    (None without -q): a list [(qid, {line name: value})], or a function `each(visit)` calling
    `visit(qid, {line name: value})` for each query in turn (`Result.each_query_values`).
    Without that function it is plain data: it crosses from a -j worker to the command."""

    __slots__ = ("file", "runid", "aggregate", "per_query")

    def __reduce__(self) -> tuple:
        return (RunValues, self._values())


def run_values(result: object, file: str | None, per_query: bool, summary: bool) -> RunValues:
    """A Result's values as `to_trec(per_query, summary)` shows them, the per-query ones
    streamed from the core as they are visited."""
    return RunValues(file, result.runid, dict(result.aggregate) if summary else None,  # type: ignore[attr-defined]
                     result.each_query_values if per_query else None)  # type: ignore[attr-defined]


def _queries(values: RunValues) -> list:
    """The per-query lines as a list [(qid, {line name: value})] (empty without -q)."""
    collected: list = []
    _visit_queries(values, lambda qid, line_values: collected.append((qid, line_values)))
    return collected


def run_name(values: RunValues) -> str:
    """What names a run in rows and tables: its file, else its runid."""
    return values.file if values.file is not None else values.runid


def rows(values: RunValues) -> Iterator[tuple[str, str, str, object, bool]]:
    """(run, query, measure, value, summary) in the trec text's order: per-query lines
    (summary False), then the `all` lines (query `all`, summary True)."""
    run = run_name(values)
    for qid, line_values in _queries(values):
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
                            for qid, line_values in _queries(values)}
    return out


def dumps(document: object, indent: int | None = 2) -> str:
    """Strict JSON, ASCII only (identifiers that are not UTF-8 come out as escapes): NaN and
    the infinities, which JSON cannot spell, are null wherever they are (the one JSON rule of
    --format json and jsonl, Result.to_json and explain)."""
    import json  # not at import: only this path needs it

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




def _field(value: object) -> object:
    """A CSV field: floats at full precision, NaN and infinities empty."""
    return "" if isinstance(value, float) and not math.isfinite(value) else value



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



class _Buffered:
    """Text handed to `write(bytes)` a megabyte at a time (a file-like `write(str)` too, for
    csv.writer)."""

    LIMIT = 1 << 20

    def __init__(self, write: Callable[[bytes], object]):
        self.out, self.parts, self.size = write, [], 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size >= self.LIMIT:
            self.flush()

    def write_bytes(self, data: bytes) -> None:
        self.flush()
        self.out(data)

    def flush(self) -> None:
        if self.parts:
            self.out("".join(self.parts).encode("utf-8", "surrogateescape"))
            self.parts, self.size = [], 0


def write_document(form: str, runs: list, header: dict, write: Callable[[bytes], object]) -> None:
    """The runs in format `form` (not trec: the trec text is Result.write_trec's), handed to
    `write(bytes)` as they are made: the same text `render` returns.  A run is its RunValues,
    or the bytes `render_run` made of it (in a -j worker)."""
    out = _Buffered(write)
    if form == "markdown":
        out.write(to_markdown(runs))
    elif form == "json":
        head = dumps({**header, "runs": []})  # ends '"runs": []\n}'
        out.write(head[:-len("[]\n}")] + ("[\n" if runs else "[]\n}\n"))
        for i, run in enumerate(runs):
            out.write(",\n" if i else "")
            _write_run(form, run, out)
        out.write("\n  ]\n}\n" if runs else "")
    elif form in ("jsonl", "csv", "tsv"):
        if form != "jsonl":
            out.write(_delimiter(form).join(ROW_FIELDS) + "\n")
        for run in runs:
            _write_run(form, run, out)
    else:
        raise ValueError(f"no renderer for format {form!r}")
    out.flush()


def render_run(form: str, values: RunValues) -> bytes:
    """One run's part of `write_document`'s text (json, jsonl, csv, tsv), made whole."""
    parts: list[bytes] = []
    out = _Buffered(parts.append)
    _write_run(form, values, out)
    out.flush()
    return b"".join(parts)


def _write_run(form: str, run: RunValues | bytes, out: _Buffered) -> None:
    if isinstance(run, bytes):
        out.write_bytes(run)
    elif form == "json":
        _write_json_run(run, out)
    elif form == "jsonl":
        _write_jsonl_run(run, out)
    else:
        import csv  # not at import: only this path needs it

        writer = csv.writer(out, delimiter=_delimiter(form), lineterminator="\n")
        _each_row(run, lambda run_, query, name, value, summary: writer.writerow(
            (run_, query, name, _field(value), "true" if summary else "false")))


def _write_jsonl_run(values: RunValues, out: _Buffered) -> None:
    """One JSON object per row, as json.dumps spells {field: value} (its ', ' and ': ')."""
    import json  # not at import: only this path needs it

    names: dict[str, str] = {}

    def row(run: str, query: str, name: str, value: object, summary: bool) -> None:
        if name not in names:
            names[name] = json.dumps(name)
        out.write(f'{{"run": {json.dumps(run)}, "query": {json.dumps(query)}, "measure": {names[name]}, '
                  f'"value": {_json_value(value)}, "summary": {"true" if summary else "false"}}}\n')

    _each_row(values, row)


def _delimiter(form: str) -> str:
    return "\t" if form == "tsv" else ","


def _each_row(values: RunValues, visit: Callable[..., object]) -> None:
    """`visit(run, query, measure, value, summary)` for each of `rows(values)`, streamed."""
    run = run_name(values)

    def query(qid: str, line_values: dict) -> None:
        for name, value in line_values.items():
            visit(run, qid, name, _finite(value), False)

    _visit_queries(values, query)
    for name, value in (values.aggregate or {}).items():
        visit(run, "all", name, _finite(value), True)


def _visit_queries(values: RunValues, visit: Callable[[str, dict], object]) -> None:
    if callable(values.per_query):
        values.per_query(visit)
    else:
        for qid, line_values in values.per_query or ():
            visit(qid, line_values)


def _write_json_run(values: RunValues, out: _Buffered) -> None:
    """A run's object in the JSON document, at the depth `to_json` puts it (a list item in the
    document's "runs"), its per-query objects written one at a time."""
    head = {"file": values.file, "runid": values.runid}
    if values.aggregate is not None:
        head["aggregate"] = {name: _finite(v) for name, v in values.aggregate.items()}
    text = _at(dumps(head), 2)
    if values.per_query is None:
        out.write("    " + text)
        return
    import json  # not at import: only this path needs it

    out.write("    " + text[:-len("\n    }")] + ',\n      "per_query": {')
    written = [0]
    keys: dict[str, str] = {}  # a line name's JSON spelling, indented as json.dumps(indent=2) puts it

    def query(qid: str, line_values: dict) -> None:
        for name in line_values.keys() - keys.keys():
            keys[name] = "\n          " + json.dumps(name) + ": "
        body = ",".join(keys[name] + _json_value(v) for name, v in line_values.items())
        out.write(("," if written[0] else "") + "\n        " + json.dumps(qid) + ": "
                  + ("{" + body + "\n        }" if body else "{}"))
        written[0] += 1

    _visit_queries(values, query)
    out.write("\n      }\n    }" if written[0] else "}\n    }")


def _json_value(value: object) -> str:
    """One value as json.dumps spells it (float's repr; NaN and the infinities null), without
    json.dumps' cost per call: a per-query object is written once per query."""
    if type(value) is float:
        return repr(value) if math.isfinite(value) else "null"
    if type(value) is int:
        return str(value)
    return dumps(value, None)


def _at(text: str, depth: int) -> str:
    """Indented JSON text placed `depth` levels deeper (two spaces a level)."""
    return text.replace("\n", "\n" + "  " * depth)


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
