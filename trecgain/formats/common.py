"""What the output formats share (trecgain.formats): a run's values as its trec text shows them
(`RunValues`), walked row by row or query by query, the buffered writer the formats write to,
and JSON's and trec_eval's spellings of a value.  Nothing here prints.

NaN (Rndcg's 0/0) and the infinities have no JSON spelling: they are null in JSON and JSON
lines and an empty field in CSV and TSV; the markdown table prints them as trec_eval does."""

from __future__ import annotations

import math

from ..record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable, Iterator

#: A row's fields; `summary` tells the `all` lines from those of a query named `all`.
ROW_FIELDS = ("run", "query", "measure", "value", "summary")


class RunValues(Record):
    """One run's values as its trec text shows them: the run file (or None), the runid, the
    `all` lines ({line name: value}; None with -n) and the per-query lines in the order printed
    (None without -q): a list [(qid, {line name: value})], or a function `each(visit)` calling
    `visit(qid, {line name: value})` for each query in turn (`Result.each_query_values`).
    Without that function it is plain data: it crosses from a -j worker to the command.
    `write_trec(write)`: the run's trec_eval text handed to `write(bytes)` (None: not at hand;
    a -j worker sends its text instead).  convention: the tool whose rules made the values
    (--as), None for trec_eval's."""

    __slots__ = ("file", "runid", "aggregate", "per_query", "write_trec", "convention")
    DEFAULTS = {"convention": None}

    def __reduce__(self) -> tuple:  # the text's writer stays behind: a worker sends its text
        return (RunValues, (self.file, self.runid, self.aggregate,
                            None if callable(self.per_query) else self.per_query, None, self.convention))


def run_values(result: object, file: str | None, per_query: bool, summary: bool) -> RunValues:
    """A Result's values as `to_trec(per_query, summary)` shows them, the per-query ones
    streamed from the core as they are visited."""
    return RunValues(file, result.runid, dict(result.aggregate) if summary else None,  # type: ignore[attr-defined]
                     result.each_query_values if per_query else None,  # type: ignore[attr-defined]
                     lambda write: result.write_trec(write, per_query, summary),  # type: ignore[attr-defined]
                     result.convention_name)  # type: ignore[attr-defined]


def queries(values: RunValues) -> list:
    """The per-query lines as a list [(qid, {line name: value})] (empty without -q)."""
    collected: list = []
    visit_queries(values, lambda qid, line_values: collected.append((qid, line_values)))
    return collected


def run_name(values: RunValues) -> str:
    """What names a run in rows and tables: its file, else its runid."""
    return values.file if values.file is not None else values.runid


def rows(values: RunValues) -> Iterator[tuple[str, str, str, object, bool]]:
    """(run, query, measure, value, summary) in the trec text's order: per-query lines
    (summary False), then the `all` lines (query `all`, summary True)."""
    run = run_name(values)
    for qid, line_values in queries(values):
        for name, value in line_values.items():
            yield run, qid, name, value, False
    for name, value in (values.aggregate or {}).items():
        yield run, "all", name, value, True


def finite(value: object) -> object:
    """A value JSON can spell: NaN and the infinities become None."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def dumps(document: object, indent: int | None = 2) -> str:
    """Strict JSON, ASCII only (identifiers that are not UTF-8 come out as escapes): NaN and
    the infinities, which JSON cannot spell, are null wherever they are (the one JSON rule of
    --format json and jsonl, Result.to_json and explain)."""
    import json  # not at import: only this path needs it

    try:
        return json.dumps(document, allow_nan=False, indent=indent)
    except ValueError:  # a NaN or an infinity somewhere (rare: looked for only then)
        return json.dumps(spellable(document), allow_nan=False, indent=indent)


def spellable(document: object) -> object:
    """The document with every float JSON cannot spell made None."""
    if isinstance(document, float):
        return finite(document)
    if isinstance(document, dict):
        return {key: spellable(value) for key, value in document.items()}
    if isinstance(document, (list, tuple)):
        return [spellable(value) for value in document]
    return document




def printf(value: object) -> str:
    """A value as trec_eval prints it (%6.4f without the padding, -nan for NaN)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "-nan"
        return f"{value:.4f}" if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    return str(value)


class Buffered:
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


def each_row(values: RunValues, visit: Callable[..., object]) -> None:
    """`visit(run, query, measure, value, summary)` for each of `rows(values)`, streamed."""
    run = run_name(values)

    def query(qid: str, line_values: dict) -> None:
        for name, value in line_values.items():
            visit(run, qid, name, finite(value), False)

    visit_queries(values, query)
    for name, value in (values.aggregate or {}).items():
        visit(run, "all", name, finite(value), True)


def visit_queries(values: RunValues, visit: Callable[[str, dict], object]) -> None:
    if callable(values.per_query):
        values.per_query(visit)
    else:
        for qid, line_values in values.per_query or ():
            visit(qid, line_values)


def json_value(value: object) -> str:
    """One value as json.dumps spells it (float's repr; NaN and the infinities null), without
    json.dumps' cost per call: a per-query object is written once per query."""
    if type(value) is float:
        return repr(value) if math.isfinite(value) else "null"
    if type(value) is int:
        return str(value)
    return dumps(value, None)


def at(text: str, depth: int) -> str:
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
