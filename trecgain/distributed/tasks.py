"""What trecgain.distributed's workers run: a part of a run read and measured with the qrels
shipped once per worker, a batch of small runs, the shuffle by qid of a run whose queries are not
grouped, and the scan for a part's first line."""

from __future__ import annotations

import io
import os
import threading
import zlib

from ..errors import TrecgainError
from .sources import BLOCK, is_utf8

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any

_QRELS: dict = {}
_QRELS_LOCK = threading.Lock()


def ship_data(data: Any) -> Any:
    """A task: what the client shipped (the qrels, standard input's run)."""
    return data


def _qrels(shipped: tuple) -> Any:
    """The qrels a task needs, read once per worker from what the client shipped."""
    from .. import _core  # not at import: only this path needs it

    key, name, fractional, rel_format, data = shipped
    with _QRELS_LOCK:
        qrels = _QRELS.get(key)
        if qrels is None:
            if len(_QRELS) >= 4:
                _QRELS.clear()
            qrels = _QRELS[key] = _core.Qrels.read(io.BytesIO(data), name, fractional, rel_format)
    return qrels


def _open(location: str, kind: str) -> Any:
    """A binary file object of a path or an fsspec URL (not decompressed: the reader
    recognises gzip by its content, as for a local file)."""
    if kind == "url":
        import fsspec  # optional dependency: imported only when used

        return fsspec.open(location, "rb", compression=None).open()
    return open(location, "rb")


class _Limited:
    """The next `length` bytes of a file object, for the core's reader (`read(n)`)."""

    def __init__(self, stream: Any, length: int | None):
        self.stream, self.left = stream, length

    def read(self, n: int = -1) -> bytes:
        if self.left is None:
            return self.stream.read(n)
        if self.left <= 0:
            return b""
        data = self.stream.read(self.left if n is None or n < 0 else min(n, self.left))
        self.left -= len(data)
        return data


def scan_part(location: str, kind: str, start: int, end: int) -> tuple[int, int, int]:
    """A worker's look at bytes start..end of a plain run file: the newlines in them, and
    the first boundary at or after `start` where a part may begin (the start of a line whose
    qid is not the qid of the first run line that starts at or after `start`: that query stays
    whole before it), with the newlines from `start` to it. For start 0: boundary 0."""
    with _open(location, kind) as f:
        f.seek(start)
        newlines, left = 0, end - start
        while left > 0:
            block = f.read(min(BLOCK, left))
            if not block:
                break
            newlines += block.count(b"\n")
            left -= len(block)
        if start == 0:
            return newlines, 0, 0
        f.seek(start - 1)
        from .. import _core  # not at import: only this path needs it

        return (newlines, *_core.part_start(f, start - 1))  # the core reader's fields and comment lines


class _Lines:
    """The lines of a binary file object from where it is, each as (its first 4 KiB, enough for
    its qid; its length; whether it ends with a newline), a long line never held whole (the
    one line of a one-line part; where a part begins is the core's: _core.part_start)."""

    HEAD = 4096

    def __init__(self, stream: Any):
        self.stream, self.buffer, self.position = stream, b"", 0

    def next(self) -> tuple[bytes, int, bool]:
        head, length = b"", 0
        while True:
            if self.position >= len(self.buffer):
                self.buffer, self.position = self.stream.read(1 << 16), 0
                if not self.buffer:
                    return head, length, False
            newline = self.buffer.find(b"\n", self.position)
            end = len(self.buffer) if newline < 0 else newline + 1
            if len(head) < self.HEAD:
                head += self.buffer[self.position:min(end, self.position + self.HEAD - len(head))]
            length += end - self.position
            self.position = end
            if newline >= 0:
                return head, length, True



def _read(part: dict, ranks: bool, data: bytes | None, lines: Any = None) -> Any:
    """The core's Run of one part (or the whole run)."""
    from .. import _core  # not at import: only this path needs it

    options = dict(first_line=part["first_line"], file_start=part["file_start"], allow_empty=part["allow_empty"])
    if part["kind"] == "bytes":
        return _core.Run.read(io.BytesIO(data), part["name"], ranks, lines=lines, **options)
    if part["kind"] == "path" and is_utf8(part["location"]):
        return _core.Run.read(part["location"], part["name"], ranks, range=(part["offset"], part["length"]),
                              lines=lines, **options)
    try:
        stream = _open(part["location"], part["kind"])
    except (OSError, ValueError) as err:
        raise TrecgainError(f"cannot read: {_os_reason(err)}", part["name"]) from None
    with stream:
        stream.seek(part["offset"])
        return _core.Run.read(_Limited(stream, part["length"]), part["name"], ranks, lines=lines, **options)


def _os_reason(err: BaseException) -> str:
    """Why a file could not be opened, as the system says it of a local file: fsspec's
    filesystems raise FileNotFoundError(path) and the like, without an errno."""
    import errno  # not at import: only this path needs it

    strerror = getattr(err, "strerror", None)
    if strerror:
        return strerror
    for kind, number in ((FileNotFoundError, errno.ENOENT), (IsADirectoryError, errno.EISDIR),
                         (NotADirectoryError, errno.ENOTDIR), (PermissionError, errno.EACCES)):
        if isinstance(err, kind):
            return os.strerror(number)
    return str(err)


def _joined(qids: list[bytes]) -> bytes:
    """Qids as one bytes object, a newline between them (qids hold no whitespace): Dask sends
    one bytes object at once, but a list of many small ones slowly, one by one."""
    return b"\n".join(qids)


def split_qids(qids: bytes) -> list[bytes]:
    return qids.split(b"\n") if qids else []


def _failure(err: TrecgainError) -> tuple:
    return (err.message, err.source, err.line)


def _measure(qrels: Any, run: Any, job: dict, tie_check: bool) -> dict:
    """A part's run evaluated with the part options: what `assemble` needs of it."""
    from .. import _core  # not at import: only this path needs it

    out: dict = {}
    for key, options in (("main", job["options"]), ("reversed", job["reversed"])):
        if key == "reversed" and not (tie_check and out["mixed"]):
            break
        try:
            evaluation = _core.evaluate(qrels, run, job["requests"], options, True)
        except TrecgainError as err:
            qid = _core.failing_query(qrels, run, job["requests"], options)
            out[key] = {"failure": (qid if qid is not None else b"", *_failure(err))}
            if key == "main":
                break
            continue
        out[key] = {"qids": _joined(evaluation.qids), "values": evaluation.values_bytes()}
        if key == "main":
            skipped = evaluation.skipped_queries[1]
            out.update(kernel_warnings=list(evaluation.warnings)[len(run.warnings):],
                       mixed=evaluation.mixed_tie_queries, not_in_qrels=skipped,
                       left_out=evaluation.left_out_queries)
    return out


def evaluate_part(shipped: tuple, part: dict, job: dict, data: bytes | None = None) -> dict:
    """A task: read one part of a run (or all of it) and measure its queries."""
    qrels = _qrels(shipped)
    try:
        run = _read(part, job["ranks"], data)
    except TrecgainError as err:
        return {"read_error": _failure(err)}
    out = {"qids": _joined(run.qids), "tag": bytes(run.tag), "warnings": list(run.warnings), "lines": len(run),
           "score_not_rank": _score_not_rank(run, part, data)}
    out.update(_measure(qrels, run, job, job["tie_check"]))
    return out


def evaluate_batch(shipped: tuple, parts: list[dict], job: dict) -> list[dict]:
    """A task: several small runs read whole and measured, one after the other (a task each
    would cost the scheduler more than measuring them)."""
    return [evaluate_part(shipped, part, job) for part in parts]


def reversed_part(shipped: tuple, part: dict, job: dict, data: bytes | None = None, lines: Any = None) -> dict:
    """A task: a part's queries measured with tied documents ordered the other way round."""
    run = _read(part, job["ranks"], data, lines)
    return _measure(_qrels(shipped), run, {**job, "options": job["reversed"]}, False)


def _score_not_rank(run: Any, part: dict, data: bytes | None) -> bool:
    """Whether some line's score is not written as its rank (Run.score_is_rank says so only
    of a run of two lines or more: a part of one line is looked at here)."""
    if len(run) != 1:
        return len(run) > 1 and not run.score_is_rank
    stream: Any = io.BytesIO(data or b"") if part["kind"] == "bytes" else _open(part["location"], part["kind"])
    with stream:
        stream.seek(part["offset"])
        lines = _Lines(_Limited(stream, part["length"]))
        while True:
            head, length, _ = lines.next()
            if not length:
                return False
            fields = head.split() if head[:1] != b"#" else []
            if fields:  # the one run line (at most 1 MiB, its first fields within the head)
                return len(fields) > 4 and fields[3] != fields[4]


def shuffle_map(part: dict, buckets: int) -> list[tuple[bytes, bytes]]:
    """A task: one part's run lines (already read without fault) sorted into buckets by the
    hash of their qid, each bucket its lines and their line numbers (array('Q') bytes)."""
    from array import array  # not at import: only this path needs it

    stream = _open(part["location"], part["kind"])
    with stream:
        stream.seek(part["offset"])
        data = stream.read(part["length"]) if part["length"] is not None else stream.read()
    lines: list[list[bytes]] = [[] for _ in range(buckets)]
    numbers = [array("Q") for _ in range(buckets)]
    number = part["first_line"]
    crc32 = zlib.crc32
    for line in data.split(b"\n"):
        if line and line[:1] != b"#":
            fields = line.split(None, 1)
            if fields:
                b = crc32(fields[0]) % buckets
                lines[b].append(line)
                numbers[b].append(number)
        number += 1
    return [(b"\n".join(ls) + b"\n" if ls else b"", n.tobytes()) for ls, n in zip(lines, numbers)]


def bucket_of(mapped: list, index: int) -> tuple[bytes, bytes]:
    return mapped[index]


def shuffle_reduce(shipped: tuple, name: str, pieces: list, job: dict) -> dict:
    """A task: one bucket's lines from every part, in file order, read and measured."""
    from array import array  # not at import: only this path needs it

    data = b"".join(p[0] for p in pieces)
    numbers = array("Q")
    for p in pieces:
        numbers.frombytes(p[1])
    part = {"kind": "bytes", "name": name, "first_line": 1, "file_start": False, "allow_empty": True}
    run = _read(part, job["ranks"], data, numbers)
    out = {"qids": _joined(run.qids)}
    out.update(_measure(_qrels(shipped), run, job, job["tie_check"]))
    return out
