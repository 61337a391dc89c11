"""The output formats, as a registry: `FORMATS` maps `--format NAME` to its `Format` record
(trecgain.formats.record), trec_eval's text an entry like the others.  A format is one module
here and one record; `register` adds one (a test's, an experiment's).

`write_document` streams: a run's per-query values come a block of queries at a time from the
core (`Result.each_query_values`) and are written as they come, so memory stays that of a
block, as with the trec text.  Nothing here prints."""

from __future__ import annotations

from .common import ROW_FIELDS, Buffered, RunValues, aligned, dumps, rows, run_values
from .delimited import CSV, TSV
from .json_formats import JSON, JSONL, write_run
from .markdown import MARKDOWN, to_markdown
from .record import Format
from .trec import TREC

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable

__all__ = ["FORMATS", "ROW_FIELDS", "Format", "RunValues", "aligned", "dumps", "register", "render_run", "rows",
           "run_json", "run_values", "to_markdown", "unregister", "write_document"]

#: The formats by name, in the order help lists them.
FORMATS: dict[str, Format] = {f.name: f for f in (TREC, JSON, JSONL, CSV, TSV, MARKDOWN)}


def register(format: Format) -> None:
    """Add an output format (a name not taken); `--format NAME` and completion offer it."""
    if format.name in FORMATS:
        raise ValueError(f"a format named {format.name!r} exists")
    FORMATS[format.name] = format


def unregister(name: str) -> None:
    """Remove a format `register` added (trecgain's own stay)."""
    if FORMATS.get(name) in (TREC, JSON, JSONL, CSV, TSV, MARKDOWN):
        raise ValueError(f"{name!r} is one of trecgain's own formats")
    FORMATS.pop(name, None)


def write_document(form: str, runs: list, header: dict, write: Callable[[bytes], object]) -> None:
    """The runs in format `form`, handed to `write(bytes)` as they are made.  A run is its
    RunValues, or the bytes `render_run` made of it (in a -j worker)."""
    format = FORMATS[form]
    out = Buffered(write)
    if format.table is not None:
        format.table(runs, out)
    else:
        if format.begin is not None:
            format.begin(header, len(runs), out)
        for i, run in enumerate(runs):
            out.write(format.separator if i else "")
            if isinstance(run, bytes):
                out.write_bytes(run)
            else:
                format.write_run(run, out)
        if format.end is not None:
            format.end(len(runs), out)
    out.flush()


def render_run(form: str, values: RunValues) -> bytes:
    """One run's part of `write_document`'s text, made whole (what a -j worker sends back)."""
    parts: list[bytes] = []
    out = Buffered(parts.append)
    FORMATS[form].write_run(values, out)
    out.flush()
    return b"".join(parts)


def run_json(values: RunValues) -> str:
    """One run's JSON object, as json.dumps(indent=2) lays it out (Result.to_json)."""
    parts: list[bytes] = []
    out = Buffered(parts.append)
    write_run(values, out, 0)
    out.flush()
    return b"".join(parts).decode("utf-8", "surrogateescape")
