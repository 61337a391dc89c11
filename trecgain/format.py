"""trec_eval's text output (stage 6): `%-22s\t%s\t%6.4f` lines, bytes in and bytes out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from .evaluate import Result


def number(value: float) -> bytes:
    """C's %6.4f, with glibc's spelling of NaN (always -nan here, as x86 makes it) and inf."""
    if math.isnan(value):
        return b"  -nan"
    if math.isinf(value):
        return b"%6s" % (b"inf" if value > 0 else b"-inf")
    return b"%6.4f" % value


def _value(kind: str, value: float | int | bytes) -> bytes:
    if kind == "tag":
        return value  # type: ignore[return-value]
    if kind == "count":
        return b"%d" % int(value)  # type: ignore[arg-type]
    return number(float(value))  # type: ignore[arg-type]


def _line(name: str, qid: bytes, text: bytes) -> bytes:
    return b"%-22s\t%s\t%s\n" % (name.encode(), qid, text)


def trec_lines(result: "Result", per_query: bool = False, summary: bool = True) -> Iterator[bytes]:
    """Per-query lines (query by query, measures in registry order), then the `all` lines."""
    if per_query:
        for q, qid in enumerate(result.qid_bytes):
            if not result.printed[q]:
                continue
            for line in result.lines:
                if line.per_query:
                    yield _line(line.name, qid, _value(line.kind, line.values[q]))
    if summary:
        for line in result.lines:
            yield _line(line.name, b"all", _value(line.kind, line.summary))


def to_trec_bytes(result: "Result", per_query: bool = False, summary: bool = True) -> bytes:
    return b"".join(trec_lines(result, per_query, summary))
