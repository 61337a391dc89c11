"""Runs evaluated on a Dask cluster: `trecgain --dask ADDRESS|local` and `evaluate_on_dask`.

Many runs are spread over the workers (small ones several to a task while each worker has
many). A run larger than a partition is read in
parts: byte ranges of the file that start where the qid changes, so that no query is split
(workers find the boundaries and count the lines before them, so that messages name the file's
own lines); a run whose queries turn out not to be grouped is shuffled by qid instead. Gzip
runs are read whole by one worker. The qrels travel once to each worker.

Workers send back each query's values, the core's own, and the client puts them together
with the core's `assemble`: the queries -c brings in are measured there, the `all` values are
added in query order as one process adds them, and errors are the ones one process reports
(the first line at fault in the file, then the first query in query order). Every output,
in every format, is byte for byte what the command prints without --dask.

Dask is optional (pip install trecgain[dask]) and imported only here, when it is used."""

from __future__ import annotations

import io
import os
import sys
import threading
import zlib

from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any, Iterable

    from .evaluate import Evaluator, Result
    from .options import EvaluationOptions

INSTALL = "pip install trecgain[dask]"
#: Who asked, as messages name it: the library's call, or the command's option.
API, COMMAND = "evaluate_on_dask", "--dask"
#: How long a cluster may have no worker while tasks wait, when Dask's
#: distributed.scheduler.no-workers-timeout is not set (its default: wait for ever).
NO_WORKERS_SECONDS = 60.0
#: How often the wait for tasks looks at the cluster's workers.
_POLL_SECONDS = 1.0
#: A run larger than this is read in parts (unless TRECGAIN_DASK_PARTITION_BYTES or
#: partition_bytes= says otherwise, or the workers' memory limits call for smaller parts).
DEFAULT_PARTITION_BYTES = 64 << 20
MIN_PARTITION_BYTES = 1 << 16
#: Bytes read at a time where workers scan a file.
_BLOCK = 1 << 20
_GLOB = ("*", "?", "[")
#: The magic bytes of gzip and of the compressed formats the reader names: such a run is read
#: whole by one worker (its reader decompresses gzip, and refuses the others with a message).
_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"PK\x03\x04")


# --- the API ---------------------------------------------------------------------------------


def evaluate_on_dask(evaluator: Evaluator, runs: Iterable[str] | str, client: Any = "local", *,
                     keep_values: bool = True, progress: bool = False,
                     partition_bytes: int | None = None) -> list[Result]:
    """Evaluate run files on a Dask cluster: each run's Result, exactly as
    `evaluator.evaluate(run, keep_values)` makes it in this process, in the order given.

    runs: paths every worker can read, fsspec URLs (s3://..., with fsspec and its filesystem
    installed; gzip included), or globs of either (expanded, sorted); '-' is standard input,
    read here.  client: a `distributed.Client`, a scheduler's address ('tcp://host:8786'), or
    'local' for a LocalCluster sized to this machine, started and closed here.  progress: a
    progress bar on standard error (only if it is a terminal).  partition_bytes: runs larger
    than this are read in parts (default: 64 MiB, less when the workers' memory limits are
    small; the environment's TRECGAIN_DASK_PARTITION_BYTES).

    Raises TrecgainError as `evaluate` would for the first run at fault (a worker that died
    and could not be replaced included, and a cluster left without workers for Dask's
    distributed.scheduler.no-workers-timeout, 60 s when it is not set), and for a bad
    argument, naming it."""
    from . import check  # not at import: only this path needs it
    from .evaluate import Evaluator  # not at import: only this path needs it

    if not isinstance(evaluator, Evaluator):
        raise TrecgainError(f"{API}: evaluator must be an Evaluator, not {check.a(evaluator)}")
    keep_values = check.flag(keep_values, f"{API}: keep_values")
    progress = check.flag(progress, f"{API}: progress")
    if partition_bytes is not None:
        partition_bytes = check.whole(partition_bytes, f"{API}: partition_bytes", 1)
    names = expand_runs(_run_names(runs))
    with _Connection(client, API) as dask_client:
        outcomes = _evaluate(dask_client, evaluator, names, keep_values, False, progress, partition_bytes)
    return [result for result, _ in outcomes]


def _run_names(runs: object) -> list[str]:
    """evaluate_on_dask's runs as names: one name, or an iterable of them (a str, bytes or
    os.PathLike each); anything else is a TrecgainError naming the argument."""
    from . import check  # not at import: only this path needs it

    if isinstance(runs, (str, bytes, os.PathLike)):
        runs = [runs]
    elif isinstance(runs, dict) or not hasattr(runs, "__iter__"):
        raise TrecgainError(f"{API}: runs must be a run file's name, URL or glob, or a list of them, not "
                            f"{check.show(runs)} (a run in memory: Evaluator.evaluate)")
    names = list(runs)  # type: ignore[call-overload]
    for i, name in enumerate(names):
        if not isinstance(name, (str, bytes, os.PathLike)):
            raise TrecgainError(f"{API}: runs[{i}] must be a run file's name, URL or glob, not {check.show(name)}")
    return names


def command_outcomes(address: str, files: tuple[str, ...], measures: list[str], options: EvaluationOptions,
                     per_query: bool, summary: bool, form: str, quiet: bool) -> list[tuple[object, None, list[str]]]:
    """`trecgain --dask ADDRESS ...`: each run's (Result, None, messages), as cli._evaluate_runs
    returns them without -j (files: the qrels and the runs, globs expanded; options: the command's
    one checked value, after need_dask(COMMAND))."""
    from .cli.console import result_messages  # not at import: only this path needs it
    from .evaluate import Evaluator, printed_differences  # not at import: only this path needs it

    need_dask(COMMAND)  # Dask missing: one line before anything is read
    evaluator = Evaluator.from_options(files[0], measures, options)  # bad qrels: before a cluster starts
    if address == "local":  # this process's own cluster: its worker processes quiet when it is interrupted
        _quiet_resource_tracker()
        connection = _deaf_to_interrupts(lambda: _Connection(address, COMMAND))
    else:
        connection = _Connection(address, COMMAND)
    with connection as client:
        keep = per_query and form != "trec"  # as cli._evaluate_runs: the trec text needs no kept values
        progress = not quiet and _is_terminal(sys.stderr)
        outcomes = _evaluate(client, evaluator, list(files[1:]), keep, not quiet, progress, None)
    out = []
    for result, info in outcomes:
        tied = _Tied(info.reversed, printed_differences)
        decided = tied.count(result, per_query, summary)
        out.append((result, None, result_messages(result, info.source, per_query, summary, quiet, decided)))
    return out


def local_paths(names: Iterable[str]) -> list[str]:
    """The names with each URL of a file on this machine (file://, local://) as its path:
    what -o must not be (trecgain.output.check_target)."""
    return [_local_path(name) for name in names]


def _local_path(name: str) -> str:
    if not _is_url(name):
        return name
    try:
        import fsspec  # optional dependency: imported only when used
        from fsspec.implementations.local import LocalFileSystem  # optional dependency: imported only when used

        fs, path = fsspec.core.url_to_fs(name)
    except Exception:  # no fsspec, an unknown protocol: read later, and refused there
        return name
    return path if isinstance(fs, LocalFileSystem) else name


def expand_runs(runs: Iterable[str]) -> list[str]:
    """The run arguments with globs expanded (sorted): a name that exists as it is, or has no
    glob character, is kept; a URL's glob is its filesystem's (fsspec)."""
    out: list[str] = []
    for run in runs:
        name = os.fspath(run)
        if not isinstance(name, str):
            name = os.fsdecode(name)
        if name == "-" or os.path.exists(name) or not any(c in name for c in _GLOB):
            out.append(name)
            continue
        if _is_url(name):
            fs, pattern = _filesystem(name)
            matches = [fs.unstrip_protocol(m) for m in sorted(fs.glob(pattern))]
        else:
            import glob  # not at import: only this path needs it

            matches = sorted(glob.glob(name, recursive=True))
        if not matches:
            raise TrecgainError("no run file matches this pattern", name)
        out.extend(matches)
    return out


# --- connecting ------------------------------------------------------------------------------


def need_dask(who: str) -> None:
    """Dask missing: the one line _distributed says, without importing Dask (which starts a thread)."""
    from importlib.util import find_spec  # not at import: only this path needs it

    try:
        found = find_spec("distributed") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        _distributed(who)


def _distributed(who: str = API) -> Any:
    try:
        import distributed  # optional dependency: imported only when used
    except ImportError:
        raise TrecgainError(f"Dask is not installed ({who} needs dask[distributed]): {INSTALL}") from None
    return distributed


class _Connection:
    """A Client for `target` (a Client, an address, or 'local'), closed on exit if made here;
    `who` (API or COMMAND) is what the messages name."""

    def __init__(self, target: Any, who: str):
        distributed = _distributed(who)
        self.cluster = None
        self.client = None
        self.owned = True
        if isinstance(target, distributed.Client):
            self.client, self.owned = target, False
            return
        if not isinstance(target, str) or not target:
            from . import check  # not at import: only this path needs it

            raise TrecgainError(f"{who}: client must be a distributed.Client, a scheduler's address or 'local', "
                                f"not {check.show(target)}")
        import logging  # not at import: only this path needs it

        try:
            if target == "local":
                self.cluster = distributed.LocalCluster(processes=True, dashboard_address=":0",
                                                        silence_logs=logging.CRITICAL)
                self.client = _client(distributed, self.cluster)
            else:
                # Dask's distributed.comm.timeouts.connect (30 s) bounds the wait
                self.client = _client(distributed, target)
        except Exception as err:  # refused, timed out, a bad address: one line
            self.close()
            where = "start a local Dask cluster" if target == "local" else f"reach a Dask scheduler at {target}"
            raise TrecgainError(f"{who}: cannot {where}: {_reason(err)}") from None

    def __enter__(self) -> Any:
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if not self.owned:
            return
        for thing in (self.client, self.cluster):
            if thing is not None:
                _close(thing)


def _client(distributed: Any, target: Any) -> Any:
    """A Client connected to `target`; one that fails half-way (an address Dask cannot parse,
    a scheduler out of reach) is closed here, at once: left to the garbage collector, it would
    wait 60 s at the interpreter's exit and print a traceback."""
    client = distributed.Client.__new__(distributed.Client)
    try:
        client.__init__(target, set_as_default=False)
    except BaseException:
        _close(client)
        raise
    return client


def _close(thing: Any) -> None:
    """Close a Client or a cluster (closing: nothing left to report)."""
    try:
        thing.close()
    except Exception:
        pass


def _deaf_to_interrupts(start: Any) -> Any:
    """start() (Dask imported, the LocalCluster started) with SIGINT blocked in this thread:
    the threads Dask starts meanwhile, and the worker processes they spawn, now or later to
    replace one, inherit the block. A terminal's Ctrl-C reaches every process of the command:
    it then ends trecgain alone (one line, `trecgain: interrupted`), whose workers end with
    it, instead of each worker printing its KeyboardInterrupt. Meanwhile a thread started
    before the block takes a Ctrl-C at once (the signal goes to a thread that does not block
    it, and the handler, the core's or Python's, does the rest); SIGINT is unblocked here after."""
    import signal  # not at import: only this path needs it

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return start()
    started = threading.Event()
    listener = threading.Thread(target=started.wait, name="trecgain: Ctrl-C while Dask starts", daemon=True)
    listener.start()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        started.set()


def _quiet_resource_tracker() -> None:
    """The command's own LocalCluster: multiprocessing's resource tracker (the process that
    removes what the worker processes leave) started with its warnings off, so that a command
    ended by a signal (Ctrl-C: `trecgain: interrupted`) says nothing more: the tracker warns
    of the semaphores it then removes. An environment variable of the tracker's process only."""
    from multiprocessing import resource_tracker  # not at import: only this path needs it

    saved = os.environ.get("PYTHONWARNINGS")
    quiet = "ignore::UserWarning:multiprocessing.resource_tracker"
    os.environ["PYTHONWARNINGS"] = f"{saved},{quiet}" if saved else quiet
    try:
        resource_tracker.ensure_running()
    except Exception:  # no tracker: the cluster starts one, or says why it cannot
        pass
    finally:
        if saved is None:
            del os.environ["PYTHONWARNINGS"]
        else:
            os.environ["PYTHONWARNINGS"] = saved


def _reason(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


# --- where runs are --------------------------------------------------------------------------


def _is_url(name: str) -> bool:
    scheme, sep, _ = name.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").isalnum() and not os.path.exists(name)


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec  # optional dependency: imported only when used
    except ImportError:
        raise TrecgainError("reading a run from a URL needs fsspec (and the filesystem's package, such as s3fs): "
                            "pip install fsspec", url) from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as err:  # an unknown protocol, or its package missing
        raise TrecgainError(f"cannot read: {_reason(err)}", url) from None


class _Source:
    """A run to read: its name (in messages and outputs), where workers find it (kind "path":
    an absolute path; "url": an fsspec URL; "bytes": the data, standard input's), its size
    when known, and whether it can be read in parts (a plain regular file or object)."""

    def __init__(self, name: str, partition: int):
        from .read import describe  # not at import: only this path needs it

        self.arg = name  # as given: Result.source
        self.name = name if _utf8(name) else describe(name)
        self.size: int | None = None
        self.splittable = False
        self.data: bytes | None = None
        if name == "-":
            self.kind, self.location, self.name = "bytes", None, "(standard input)"
            if sys.stdin is None:
                raise TrecgainError("cannot read: standard input is closed", self.name)
            try:
                self.data = getattr(sys.stdin, "buffer", sys.stdin).read()
            except (OSError, ValueError) as err:
                raise TrecgainError(f"cannot read: {getattr(err, 'strerror', None) or err}", self.name) from None
            return
        if _is_url(name):
            self.kind, self.location = "url", name
            fs, path = _filesystem(name)
            try:
                self.size = int(fs.size(path))
                with fs.open(path, "rb") as f:
                    head = f.read(8)
            except (OSError, ValueError, TypeError):
                return  # read whole: the worker's reader says what is wrong
        else:
            self.kind, self.location = "path", os.path.abspath(name)
            try:
                if not os.path.isfile(self.location):
                    return
                self.size = os.path.getsize(self.location)
                with open(self.location, "rb") as f:
                    head = f.read(8)
            except OSError:
                return
        self.splittable = self.size is not None and self.size > partition and not head.startswith(_COMPRESSED)


def _utf8(name: str) -> bool:
    """Whether a name is text the core takes as it is (not bytes smuggled in by surrogateescape)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# --- on the workers --------------------------------------------------------------------------

_QRELS: dict = {}
_QRELS_LOCK = threading.Lock()


def _shipped(data: Any) -> Any:
    """A task: what the client shipped (the qrels, standard input's run)."""
    return data


def _qrels(shipped: tuple) -> Any:
    """The qrels a task needs, read once per worker from what the client shipped."""
    from . import _core  # not at import: only this path needs it

    key, name, fractional, data = shipped
    with _QRELS_LOCK:
        qrels = _QRELS.get(key)
        if qrels is None:
            if len(_QRELS) >= 4:
                _QRELS.clear()
            qrels = _QRELS[key] = _core.Qrels.read(io.BytesIO(data), name, fractional)
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


def _scan(location: str, kind: str, start: int, end: int) -> tuple[int, int, int]:
    """A worker's look at bytes start..end of a plain run file: the newlines in them, and
    the first boundary at or after `start` where a part may begin (the start of a line whose
    qid is not the qid of the first run line that starts at or after `start`: that query stays
    whole before it), with the newlines from `start` to it. For start 0: boundary 0."""
    with _open(location, kind) as f:
        f.seek(start)
        newlines, left = 0, end - start
        while left > 0:
            block = f.read(min(_BLOCK, left))
            if not block:
                break
            newlines += block.count(b"\n")
            left -= len(block)
        if start == 0:
            return newlines, 0, 0
        f.seek(start - 1)
        return (newlines, *_boundary(_Lines(f), start - 1))


def _boundary(lines: _Lines, position: int) -> tuple[int, int]:
    """From byte `position` (where `lines` reads): the start of the first line after the one
    holding `position` whose qid differs from the first run line's there, or the end of the
    file; and the newlines from position + 1 to it."""
    _, length, ended = lines.next()  # the rest of the line holding `position`
    newlines = int(ended and length >= 2)  # its end, if after `position`
    position += length
    first = None
    while True:
        head, length, ended = lines.next()
        if not length:
            return position, newlines
        fields = head.split(None, 1) if head[:1] != b"#" else []
        if fields:
            if first is None:
                first = fields[0]
            elif fields[0] != first:
                return position, newlines
        position += length
        newlines += ended


class _Lines:
    """The lines of a binary file object from where it is, each as (its first 4 KiB, enough for
    its qid; its length; whether it ends with a newline), a long line never held whole."""

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
    from . import _core  # not at import: only this path needs it

    options = dict(first_line=part["first_line"], file_start=part["file_start"], allow_empty=part["allow_empty"])
    if part["kind"] == "bytes":
        return _core.Run.read(io.BytesIO(data), part["name"], ranks, lines=lines, **options)
    if part["kind"] == "path" and _utf8(part["location"]):
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


def _split(qids: bytes) -> list[bytes]:
    return qids.split(b"\n") if qids else []


def _failure(err: TrecgainError) -> tuple:
    return (err.message, err.source, err.line)


def _measure(qrels: Any, run: Any, job: dict, tie_check: bool) -> dict:
    """A part's run evaluated with the part options: what `assemble` needs of it."""
    from . import _core  # not at import: only this path needs it

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
                       mixed=evaluation.mixed_tie_queries, not_in_qrels=skipped)
    return out


def _evaluate_part(shipped: tuple, part: dict, job: dict, data: bytes | None = None) -> dict:
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


def _evaluate_batch(shipped: tuple, parts: list[dict], job: dict) -> list[dict]:
    """A task: several small runs read whole and measured, one after the other (a task each
    would cost the scheduler more than measuring them)."""
    return [_evaluate_part(shipped, part, job) for part in parts]


def _reversed_part(shipped: tuple, part: dict, job: dict, data: bytes | None = None, lines: Any = None) -> dict:
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


def _shuffle_map(part: dict, buckets: int) -> list[tuple[bytes, bytes]]:
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


def _bucket(mapped: list, index: int) -> tuple[bytes, bytes]:
    return mapped[index]


def _shuffle_reduce(shipped: tuple, name: str, pieces: list, job: dict) -> dict:
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


# --- on the client ---------------------------------------------------------------------------


class _Info:
    """What the client knows of a run once its parts are in: its name (`source`, as a Run's),
    whether its scores are its ranks, and the evaluation with ties reversed (None if none)."""

    def __init__(self, source: str, score_is_rank: bool):
        self.source, self.score_is_rank = source, score_is_rank
        self.reversed = None


class _Tied:
    """What ties decided in a run put together from parts: its printed differences from the
    evaluation with ties reversed (also put together from parts)."""

    def __init__(self, other: Any, differences: Any):
        self.other, self.differences = other, differences

    def count(self, result: Any, per_query: bool = False, summary: bool = True) -> int:
        if self.other is None:
            return 0
        return self.differences(result, self.other, per_query, summary)


class _Progress:
    """tasks done / tasks, on one line of standard error that is rewritten in place."""

    def __init__(self, enabled: bool):
        self.enabled, self.done, self.total, self.shown = enabled, 0, 0, False

    def add(self, count: int) -> None:
        self.total += count
        self.show()

    def tick(self, count: int = 1) -> None:
        if count:
            self.done += count
            self.show()

    def show(self) -> None:
        if not self.enabled or not self.total:
            return
        width = 30
        filled = width * self.done // self.total
        try:
            sys.stderr.write(f"\rtrecgain: dask [{'#' * filled}{' ' * (width - filled)}] "
                             f"{self.done}/{self.total} tasks")
            sys.stderr.flush()
            self.shown = True
        except (OSError, ValueError, AttributeError):
            self.enabled = False

    def close(self) -> None:
        if self.shown:
            try:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass


class _Job:
    """One call's evaluation on the cluster: the client, what every task needs, the progress."""

    def __init__(self, client: Any, evaluator: Evaluator, keep: bool, tie_check: bool, progress: bool,
                 partition_bytes: int | None):
        import hashlib  # not at import: only this path needs it

        self.client, self.evaluator, self.keep = client, evaluator, keep
        self.tie_check = tie_check and evaluator.ties == "docno"
        self.progress = _Progress(progress)
        self.watch = _Watch(client)
        self.requests = [r.to_core() for r in evaluator.requests]
        self.options = evaluator.options  # the one value, as given; its parts' and the tie check's below
        part = evaluator.options.for_part()
        self.task = {"requests": self.requests, "options": part, "reversed": part.replace(ties="reversed"),
                     "ranks": evaluator.ties == "rank", "tie_check": self.tie_check}
        qrels = evaluator.qrels
        data = qrels.to_bytes()
        key = hashlib.sha1(data).hexdigest() + ("f" if qrels.fractional else "")
        self.qrels = self.ship((key, qrels.source, qrels.fractional, data))
        self.partition = _partition_bytes(client, partition_bytes)
        try:
            self.workers = max(1, len(client.scheduler_info().get("workers", {})))
        except Exception:  # no information: as if one
            self.workers = 1

    def ship(self, data: Any) -> Any:
        """A future of `data`, for tasks to take: a task of its own, which the scheduler can run
        again if every worker holding it dies (scattered data would be lost), and which each
        worker that needs it fetches once."""
        import warnings  # not at import: only this path needs it

        with warnings.catch_warnings():  # a large graph: the qrels are meant to be in it
            warnings.simplefilter("ignore")
            return self.client.submit(_shipped, data, pure=False)

    def submit(self, function: Any, *args: Any) -> Any:
        future = self.client.submit(function, *args, pure=False)
        self.progress.add(1)
        return future

    def gather(self, futures: list, name: str) -> list:
        """The futures' results; a worker that died, a cluster without workers for too long, or
        anything else the cluster raises, is one TrecgainError naming the run."""
        try:
            self.wait(futures, name)
            return self.client.gather(futures)
        except TrecgainError:
            raise
        except Exception as err:
            from distributed import scheduler  # optional dependency: imported only when used

            if isinstance(err, scheduler.KilledWorker):
                raise TrecgainError(f"a Dask worker died while evaluating it, too often for the scheduler to try "
                                    f"again (killed, or out of memory?): {_reason(err)}", name) from None
            # the scheduler's own no-workers-timeout (Dask 2024.1 on)
            if type(err).__name__ in ("NoWorkerError", "NoValidWorkerError"):
                raise self.watch.gone(name) from None
            raise TrecgainError(f"the Dask cluster could not evaluate it ({_reason(err)}; is trecgain "
                                "installed on the workers, in the same version?)", name) from None

    def wait(self, futures: list, name: str) -> None:
        """Until every future is done (or failed), the progress bar moving; a cluster that has
        had no worker for the watch's time is a TrecgainError naming the run."""
        from distributed import TimeoutError as StillWaiting, wait  # optional dependency: imported only when used

        waiting = [f for f in futures if not f.done()]
        self.progress.tick(len(futures) - len(waiting))
        until = "FIRST_COMPLETED" if self.progress.enabled else "ALL_COMPLETED"
        while waiting:
            try:
                with self.client.as_current():  # wait's client
                    wait(waiting, timeout=_POLL_SECONDS, return_when=until)
            except (StillWaiting, TimeoutError):
                pass
            still = [f for f in waiting if not f.done()]
            self.progress.tick(len(waiting) - len(still))
            waiting = still
            if waiting:
                self.watch.check(name)


class _Watch:
    """Whether a cluster has had no worker for longer than it may: Dask's
    distributed.scheduler.no-workers-timeout, or NO_WORKERS_SECONDS when that is not set (a
    cluster whose workers all died and were not replaced would otherwise be waited for for
    ever). The workers are counted once a second at most, and only while tasks wait."""

    def __init__(self, client: Any):
        self.client = client
        self.seconds = _no_workers_seconds()
        self.since: float | None = None  # when the cluster was first seen without a worker
        self.looked = 0.0

    def check(self, name: str) -> None:
        import time  # not at import: only this path needs it

        now = time.monotonic()
        if now - self.looked < _POLL_SECONDS:
            return
        self.looked = now
        workers = _worker_count(self.client)
        if workers is None or workers > 0:
            self.since = None
        elif self.since is None:
            self.since = now
        elif now - self.since >= self.seconds:
            raise self.gone(name)

    def gone(self, name: str) -> TrecgainError:
        return TrecgainError(f"the Dask cluster has had no workers for {self.seconds:g} s: giving up", name)


def _worker_count(client: Any) -> int | None:
    """How many workers the scheduler has (None: no answer; its errors come with the futures)."""
    try:
        try:
            info = client.scheduler_info(n_workers=0)  # the count, without every worker's details
        except TypeError:  # Dask before 2025: every worker's details
            info = client.scheduler_info()
        count = info.get("n_workers")
        return int(count) if count is not None else len(info.get("workers", {}))
    except Exception:
        return None


def _no_workers_seconds() -> float:
    """Dask's distributed.scheduler.no-workers-timeout in seconds, or NO_WORKERS_SECONDS."""
    import dask  # optional dependency: imported only when used
    from dask.utils import parse_timedelta  # optional dependency: imported only when used

    value = dask.config.get("distributed.scheduler.no-workers-timeout", None)
    if value is None:
        return NO_WORKERS_SECONDS
    try:
        seconds = parse_timedelta(value, "s")
    except (TypeError, ValueError, KeyError):
        raise TrecgainError(f"Dask's distributed.scheduler.no-workers-timeout must be a duration, not "
                            f"{value!r}") from None
    return float(seconds) if seconds and seconds > 0 else NO_WORKERS_SECONDS


def _partition_bytes(client: Any, asked: int | None) -> int:
    """The size of a run's parts: asked, or the environment's, or 64 MiB, at most an eighth of
    the smallest memory a worker's thread has."""
    if asked is None:
        value = os.environ.get("TRECGAIN_DASK_PARTITION_BYTES", "")
        if value:
            try:
                asked = int(value)
            except ValueError:
                asked = 0
            if asked < 1:
                raise TrecgainError(f"TRECGAIN_DASK_PARTITION_BYTES must be a positive whole number of bytes, not "
                                    f"'{value}'")
    if asked is not None:  # evaluate_on_dask checked its partition_bytes
        return int(asked)
    size = DEFAULT_PARTITION_BYTES
    try:
        workers = client.scheduler_info().get("workers", {}).values()
    except Exception:  # no information: the default
        workers = []
    for w in workers:
        limit, threads = w.get("memory_limit") or 0, w.get("nthreads") or 1
        if limit:
            size = min(size, max(MIN_PARTITION_BYTES, int(limit) // threads // 8))
    return size


def _evaluate(client: Any, evaluator: Evaluator, names: list[str], keep: bool, tie_check: bool, progress: bool,
              partition_bytes: int | None) -> list[tuple[Result, _Info]]:
    """Each run's Result and _Info, in order: the first run at fault raises its error."""
    job = _Job(client, evaluator, keep, tie_check, progress, partition_bytes)
    try:
        sources = [_Source(name, job.partition) for name in names]
        batches = _batches(job, sources)
        plans = [_Plan(job, source, batches.get(i)) for i, source in enumerate(sources)]  # every task submitted
        for plan in plans:
            plan.start_parts()
        out = []
        for plan in plans:
            out.append(plan.finish())
            plan.release()  # what the cluster holds of the run
        return out
    finally:
        job.progress.close()


#: Small runs are measured several to a task, up to this many bytes of runs a task.
BATCH_BYTES = 16 << 20


def _batches(job: _Job, sources: list[_Source]) -> dict[int, tuple[_Batch, int]]:
    """Consecutive small runs (files of known size, read whole) put together in tasks of at most
    BATCH_BYTES, and of at most a quarter of the runs a worker has to do (so that the tasks
    still spread over the workers): {run's index: (its batch, its place there)}."""
    most = max(1, len(sources) // (4 * job.workers))
    out: dict[int, tuple[_Batch, int]] = {}
    group: list[int] = []

    def close() -> None:
        if len(group) > 1:
            batch = _Batch(job, [_Plan.whole_part(sources[i]) for i in group])
            out.update((i, (batch, k)) for k, i in enumerate(group))
        group.clear()

    size = 0
    for i, source in enumerate(sources):
        small = source.kind != "bytes" and not source.splittable and source.size is not None
        if not small or len(group) >= most or size + (source.size or 0) > BATCH_BYTES:
            close()
            size = 0
        if small:
            group.append(i)
            size += source.size or 0
    close()
    return out


class _Batch:
    """One task measuring several small runs; its results gathered once for all of them."""

    def __init__(self, job: _Job, parts: list[dict]):
        self.job, self.results = job, None
        self.future = job.submit(_evaluate_batch, job.qrels, parts, job.task)

    def result(self, index: int, name: str) -> dict:
        if self.results is None:
            self.results = self.job.gather([self.future], name)[0]
            self.future = None
        return self.results[index]


class _Plan:
    """One run's tasks: read in parts (scans first, to find where parts start), or whole (in
    a batch of small runs, or a task of its own)."""

    @staticmethod
    def whole_part(s: _Source) -> dict:
        return {"name": s.name, "location": s.location, "kind": s.kind, "offset": 0, "length": None,
                "first_line": 1, "file_start": True, "allow_empty": False}

    def __init__(self, job: _Job, source: _Source, batch: tuple[_Batch, int] | None = None):
        self.job, self.source, self.batch = job, source, batch
        self.data = job.ship(source.data) if source.data is not None else None
        self.parts: list[dict] = []
        self.futures: list = []
        self.scans: list = []
        self.shuffled: tuple | None = None  # the shuffle's futures: (parts mapped, buckets' pieces)
        if source.splittable:
            assert source.size is not None
            count = -(-source.size // job.partition)
            self.starts = [source.size * i // count for i in range(count)] + [source.size]
            self.scans = [job.submit(_scan, source.location, source.kind, a, b)
                          for a, b in zip(self.starts, self.starts[1:])]
        else:
            self.parts = [self.whole_part(source)]
            if batch is None:
                self.futures = [job.submit(_evaluate_part, job.qrels, self.parts[0], job.task, self.data)]

    def _part(self, offset: int, length: int, first_line: int) -> dict:
        s = self.source
        return {"name": s.name, "location": s.location, "kind": s.kind, "offset": offset, "length": length,
                "first_line": first_line, "file_start": offset == 0, "allow_empty": True}

    def start_parts(self) -> None:
        """Once the scans are in: the parts, each starting where the qid changes."""
        if not self.scans:
            return
        scans = self.job.gather(self.scans, self.source.name)
        before, bounds = 0, []
        for (newlines, boundary, to_boundary), start in zip(scans, self.starts):
            if not bounds or boundary > bounds[-1][0]:
                bounds.append((boundary, before + to_boundary + 1))
            before += newlines
        ends = [b for b, _ in bounds[1:]] + [self.source.size]
        self.parts = [self._part(offset, end - offset, line) for (offset, line), end in zip(bounds, ends)
                      if end > offset]
        self.futures = [self.job.submit(_evaluate_part, self.job.qrels, p, self.job.task) for p in self.parts]

    def finish(self) -> tuple[Result, _Info]:
        job, name = self.job, self.source.name
        if self.batch is not None:
            results = [self.batch[0].result(self.batch[1], name)]
        else:
            results = job.gather(self.futures, name)
        for r in results:  # the first line at fault in the file, as one process reads it
            if "read_error" in r:
                raise TrecgainError(*r["read_error"])
        if sum(r["lines"] for r in results) == 0:
            raise TrecgainError("no results in the run file", name)
        measured = results
        if len(results) > 1:
            qids = [_split(r["qids"]) for r in results]
            if len({q for part in qids for q in part}) < sum(map(len, qids)):
                measured = self._shuffle()  # a query in two parts: the run is not grouped by query
        info = _Info(name, not any(r["score_not_rank"] for r in results) and sum(r["lines"] for r in results) > 1)
        tag = next((r["tag"] for r in reversed(results) if r["lines"]), b"")
        run_warnings = next((r["warnings"] for r in results if r["warnings"]), [])
        evaluation = self._assemble(measured, "main", job.options, tag, run_warnings, job.keep)
        evaluator = job.evaluator
        result = evaluator.result(evaluation, info, job.keep, self.source.arg)
        if job.tie_check and evaluation.mixed_tie_queries:
            missing = [i for i, r in enumerate(measured) if "reversed" not in r]
            if missing:  # parts without mixed ties of their own: measured again, ties reversed
                measured = self._reversed(measured, missing)
            info.reversed = self._assemble(measured, "reversed", evaluator.options.replace(ties="reversed"), tag, [],
                                           False)
        return result, info

    def release(self) -> None:
        self.futures, self.scans, self.shuffled, self.data, self.batch = [], [], None, None, None

    def _assemble(self, measured: list[dict], key: str, options: EvaluationOptions, tag: bytes, run_warnings: list[str],
                  keep: bool) -> Any:
        from . import _core  # not at import: only this path needs it

        job = self.job
        failures = [r[key]["failure"] for r in measured if "failure" in r[key]]
        failure = min(failures, key=lambda f: f[0]) if failures else None
        rows = [r[key] for r in measured if "failure" not in r[key]]
        qids = [q for r in rows for q in _split(r["qids"])]
        values = b"".join(r["values"] for r in rows)
        kernel: list[str] = []
        if key == "main":  # in the order of each part's first query (in qrels order)
            for r in sorted(measured, key=lambda r: min(_split(r["main"].get("qids", b"")) or [b"\xff" * 1025])):
                kernel.extend(w for w in r.get("kernel_warnings", ()) if w not in kernel)
        mixed = sum(r.get("mixed", 0) for r in measured)
        not_in_qrels = sum(r.get("not_in_qrels", 0) for r in measured)
        return _core.assemble(job.evaluator.qrels, job.requests, options, self.source.name, tag, qids, values,
                              run_warnings + kernel, (mixed, not_in_qrels), keep, failure)

    def _shuffle(self) -> list[dict]:
        """The run's lines regrouped by the hash of their qid, each bucket measured whole."""
        job, name = self.job, self.source.name
        buckets = max(2, len(self.parts))
        mapped = [job.submit(_shuffle_map, p, buckets) for p in self.parts]
        pieces = [[job.submit(_bucket, m, b) for m in mapped] for b in range(buckets)]
        reduced = [job.submit(_shuffle_reduce, job.qrels, name, ps, job.task) for ps in pieces]
        self.shuffled = (mapped, pieces)
        return job.gather(reduced, name)

    def _reversed(self, measured: list[dict], missing: list[int]) -> list[dict]:
        job, name = self.job, self.source.name
        if self.shuffled is not None:
            _, pieces = self.shuffled
            futures = [job.submit(_reversed_bucket, job.qrels, name, pieces[i], job.task) for i in missing]
        else:
            futures = [job.submit(_reversed_part, job.qrels, self.parts[i], job.task, self.data) for i in missing]
        done = job.gather(futures, name)
        measured = list(measured)
        for i, r in zip(missing, done):
            measured[i] = {**measured[i], "reversed": r["main"]}
        return measured


def _reversed_bucket(shipped: tuple, name: str, pieces: list, job: dict) -> dict:
    """A task: one bucket measured with tied documents ordered the other way round."""
    return _shuffle_reduce(shipped, name, pieces, {**job, "options": job["reversed"], "tie_check": False})
