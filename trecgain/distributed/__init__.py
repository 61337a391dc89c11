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

import os
import sys

from ..errors import TrecgainError
from .cluster import API, COMMAND, Connection, deaf_to_interrupts, is_terminal, need_dask, quiet_resource_tracker
from .plan import Tied, evaluate_runs
from .sources import filesystem_of, is_url

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any, Iterable

    from ..evaluate import Evaluator, Result
    from ..options import EvaluationOptions

_GLOB = ("*", "?", "[")


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
    from .. import check  # not at import: only this path needs it
    from ..evaluate import Evaluator  # not at import: only this path needs it

    if not isinstance(evaluator, Evaluator):
        raise TrecgainError(f"{API}: evaluator must be an Evaluator, not {check.a(evaluator)}")
    keep_values = check.flag(keep_values, f"{API}: keep_values")
    progress = check.flag(progress, f"{API}: progress")
    if partition_bytes is not None:
        partition_bytes = check.whole(partition_bytes, f"{API}: partition_bytes", 1)
    names = expand_runs(_run_names(runs))
    with Connection(client, API) as dask_client:
        outcomes = evaluate_runs(dask_client, evaluator, names, keep_values, False, progress, partition_bytes)
    return [result for result, _ in outcomes]


def _run_names(runs: object) -> list[str]:
    """evaluate_on_dask's runs as names: one name, or an iterable of them (a str, bytes or
    os.PathLike each); anything else is a TrecgainError naming the argument."""
    from .. import check  # not at import: only this path needs it

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
    from ..cli.console import result_messages  # not at import: only this path needs it
    from ..evaluate import Evaluator, printed_differences  # not at import: only this path needs it

    need_dask(COMMAND)  # Dask missing: one line before anything is read
    evaluator = Evaluator.from_options(files[0], measures, options)  # bad qrels: before a cluster starts
    if address == "local":  # this process's own cluster: its worker processes quiet when it is interrupted
        quiet_resource_tracker()
        connection = deaf_to_interrupts(lambda: Connection(address, COMMAND))
    else:
        connection = Connection(address, COMMAND)
    with connection as client:
        keep = per_query and form != "trec"  # as cli._evaluate_runs: the trec text needs no kept values
        progress = not quiet and is_terminal(sys.stderr)
        outcomes = evaluate_runs(client, evaluator, list(files[1:]), keep, not quiet, progress, None)
    out = []
    for result, info in outcomes:
        tied = Tied(info.reversed, printed_differences)
        decided = tied.count(result, per_query, summary)
        out.append((result, None, result_messages(result, info.source, per_query, summary, quiet, decided)))
    return out


def local_paths(names: Iterable[str]) -> list[str]:
    """The names with each URL of a file on this machine (file://, local://) as its path:
    what -o must not be (trecgain.output.check_target)."""
    return [_local_path(name) for name in names]


def _local_path(name: str) -> str:
    if not is_url(name):
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
        if is_url(name):
            fs, pattern = filesystem_of(name)
            matches = [fs.unstrip_protocol(m) for m in sorted(fs.glob(pattern))]
        else:
            import glob  # not at import: only this path needs it

            matches = sorted(glob.glob(name, recursive=True))
        if not matches:
            raise TrecgainError("no run file matches this pattern", name)
        out.extend(matches)
    return out
