"""trecgain.distributed's client: the runs planned into tasks (batches of small runs, parts of
large ones, shuffles), submitted, waited for (workers gone, none left) and put together with
the core's `assemble`, with progress on a terminal."""

from __future__ import annotations

import os
import sys

from ..errors import TrecgainError
from .cluster import NO_WORKERS_SECONDS, POLL_SECONDS, reason_of
from .sources import DEFAULT_PARTITION_BYTES, MIN_PARTITION_BYTES, Source
from .tasks import (bucket_of, evaluate_batch, evaluate_part, reversed_part, scan_part, ship_data, shuffle_map,
                    shuffle_reduce, split_qids)

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any

    from ..evaluate import Evaluator, Result
    from ..options import EvaluationOptions


def _relevance_file(source: str, rel_format: str) -> bytes:
    """The bytes of a -R qrels_jg, prefs or qrels_prefs file, for the workers to read as the
    client did: its groups and preferences travel as written (a plain qrels travels as the
    judgments the client read)."""
    if source in ("-", "(standard input)"):
        raise TrecgainError(f"-R {rel_format} on Dask reads the relevance file again on the workers: give it as "
                            "a file, not standard input")
    try:
        with open(source, "rb") as f:
            return f.read()
    except OSError as err:
        raise TrecgainError(f"cannot read it again for the workers: {reason_of(err)}", source) from None


class _Info:
    """What the client knows of a run once its parts are in: its name (`source`, as a Run's),
    whether its scores are its ranks, and the evaluation with ties reversed (None if none)."""

    def __init__(self, source: str, score_is_rank: bool):
        self.source, self.score_is_rank = source, score_is_rank
        self.reversed = None


class Tied:
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
        qrels, rel_format = evaluator.qrels, evaluator.options.rel_format
        data = qrels.to_bytes() if rel_format == "qrels" else _relevance_file(qrels.source, rel_format)
        key = hashlib.sha1(data).hexdigest() + ("f" if qrels.fractional else "") + rel_format
        self.qrels = self.ship((key, qrels.source, qrels.fractional, rel_format, data))
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
            return self.client.submit(ship_data, data, pure=False)

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
                                    f"again (killed, or out of memory?): {reason_of(err)}", name) from None
            # the scheduler's own no-workers-timeout (Dask 2024.1 on)
            if type(err).__name__ in ("NoWorkerError", "NoValidWorkerError"):
                raise self.watch.gone(name) from None
            raise TrecgainError(f"the Dask cluster could not evaluate it ({reason_of(err)}; is trecgain "
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
                    wait(waiting, timeout=POLL_SECONDS, return_when=until)
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
        if now - self.looked < POLL_SECONDS:
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


def evaluate_runs(client: Any, evaluator: Evaluator, names: list[str], keep: bool, tie_check: bool, progress: bool,
              partition_bytes: int | None) -> list[tuple[Result, _Info]]:
    """Each run's Result and _Info, in order: the first run at fault raises its error."""
    job = _Job(client, evaluator, keep, tie_check, progress, partition_bytes)
    try:
        sources = [Source(name, job.partition) for name in names]
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


def _batches(job: _Job, sources: list[Source]) -> dict[int, tuple[_Batch, int]]:
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
        self.future = job.submit(evaluate_batch, job.qrels, parts, job.task)

    def result(self, index: int, name: str) -> dict:
        if self.results is None:
            self.results = self.job.gather([self.future], name)[0]
            self.future = None
        return self.results[index]


class _Plan:
    """One run's tasks: read in parts (scans first, to find where parts start), or whole (in
    a batch of small runs, or a task of its own)."""

    @staticmethod
    def whole_part(s: Source) -> dict:
        return {"name": s.name, "location": s.location, "kind": s.kind, "offset": 0, "length": None,
                "first_line": 1, "file_start": True, "allow_empty": False}

    def __init__(self, job: _Job, source: Source, batch: tuple[_Batch, int] | None = None):
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
            self.scans = [job.submit(scan_part, source.location, source.kind, a, b)
                          for a, b in zip(self.starts, self.starts[1:])]
        else:
            self.parts = [self.whole_part(source)]
            if batch is None:
                self.futures = [job.submit(evaluate_part, job.qrels, self.parts[0], job.task, self.data)]

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
        self.futures = [self.job.submit(evaluate_part, self.job.qrels, p, self.job.task) for p in self.parts]

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
            qids = [split_qids(r["qids"]) for r in results]
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
        from .. import _core  # not at import: only this path needs it

        job = self.job
        failures = [r[key]["failure"] for r in measured if "failure" in r[key]]
        failure = min(failures, key=lambda f: f[0]) if failures else None
        rows = [r[key] for r in measured if "failure" not in r[key]]
        qids = [q for r in rows for q in split_qids(r["qids"])]
        values = b"".join(r["values"] for r in rows)
        kernel: list[str] = []
        if key == "main":  # in the order of each part's first query (in qrels order)
            for r in sorted(measured, key=lambda r: min(split_qids(r["main"].get("qids", b"")) or [b"\xff" * 1025])):
                kernel.extend(w for w in r.get("kernel_warnings", ()) if w not in kernel)
        mixed = sum(r.get("mixed", 0) for r in measured)
        not_in_qrels = sum(r.get("not_in_qrels", 0) for r in measured)
        left_out = sum(r.get("left_out", 0) for r in measured)  # queries with nothing relevant (a convention's)
        return _core.assemble(job.evaluator.qrels, job.requests, options, self.source.name, tag, qids, values,
                              run_warnings + kernel, (mixed, not_in_qrels, left_out), keep, failure)

    def _shuffle(self) -> list[dict]:
        """The run's lines regrouped by the hash of their qid, each bucket measured whole."""
        job, name = self.job, self.source.name
        buckets = max(2, len(self.parts))
        mapped = [job.submit(shuffle_map, p, buckets) for p in self.parts]
        pieces = [[job.submit(bucket_of, m, b) for m in mapped] for b in range(buckets)]
        reduced = [job.submit(shuffle_reduce, job.qrels, name, ps, job.task) for ps in pieces]
        self.shuffled = (mapped, pieces)
        return job.gather(reduced, name)

    def _reversed(self, measured: list[dict], missing: list[int]) -> list[dict]:
        job, name = self.job, self.source.name
        if self.shuffled is not None:
            _, pieces = self.shuffled
            futures = [job.submit(_reversed_bucket, job.qrels, name, pieces[i], job.task) for i in missing]
        else:
            futures = [job.submit(reversed_part, job.qrels, self.parts[i], job.task, self.data) for i in missing]
        done = job.gather(futures, name)
        measured = list(measured)
        for i, r in zip(missing, done):
            measured[i] = {**measured[i], "reversed": r["main"]}
        return measured


def _reversed_bucket(shipped: tuple, name: str, pieces: list, job: dict) -> dict:
    """A task: one bucket measured with tied documents ordered the other way round."""
    return shuffle_reduce(shipped, name, pieces, {**job, "options": job["reversed"], "tie_check": False})
