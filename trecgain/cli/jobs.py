"""Several runs of one evaluation: read ahead while the qrels are read, or evaluated in forked
worker processes (-j N), the qrels read once."""

from __future__ import annotations

from ..errors import TrecgainError
from .console import result_messages

class ReadAhead:
    """Reads a run file on a second thread (the core reads without holding the interpreter)."""

    def __init__(self, path: str, ranks: bool):
        import threading  # not at start-up: only this path of the command needs it

        from ..read import read_run  # not at start-up: only this path of the command needs it

        self._outcome: tuple[object, BaseException | None] = (None, None)

        def read() -> None:
            try:
                self._outcome = (read_run(path, ranks), None)
            except BaseException as err:  # handed to the main thread by result()
                self._outcome = (None, err)

        self._thread = threading.Thread(target=read, daemon=True)
        self._thread.start()

    def join(self) -> None:
        self._thread.join()

    def result(self) -> object:
        self._thread.join()
        run, error = self._outcome
        if error is not None:
            raise error
        return run


_SHARED: dict = {}


def evaluate_runs(evaluator, runs: tuple, jobs: int, per_query: bool, summary: bool, form: str = "trec",
                   files: tuple[str, ...] = (), quiet: bool = False) -> list[tuple[object, object, list[str]]]:
    """Each run's (output, values, messages), in the order given.  Here: (Result, None, messages);
    from forked workers with jobs > 1: the run's text in the format (its part of the document;
    None for markdown, which shows only the `all` values), the run's RunValues (its `all`
    values) and messages (warnings and notes for standard error; with `quiet`, no note that
    needs more work)."""
    if jobs == 1 or len(runs) == 1:
        outcomes = []
        for source in runs:
            run = evaluator.read_run(source)
            # every format measures the per-query lines again as it writes them, a block at a time
            result = evaluator.evaluate(run, keep_values=False, check_ties=not quiet)
            outcomes.append((result, None, result_messages(result, run.source, per_query, summary, quiet)))
        return outcomes
    import multiprocessing  # not at start-up: only this path of the command needs it
    import os  # not at start-up: only this path of the command needs it
    from concurrent.futures import ProcessPoolExecutor  # not at start-up: only this path of the command needs it
    from concurrent.futures.process import BrokenProcessPool  # not at start-up: only this path of the command needs it

    from ..read import read_run  # not at start-up: only this path of the command needs it

    # standard input is read here: a worker's is not the command's
    sources = [read_run(r, evaluator.ties == "rank") if r == "-" else r for r in runs]
    _SHARED.update(evaluator=evaluator, runs=sources, per_query=per_query, summary=summary, form=form,
                   files=tuple(files) or tuple(str(r) for r in runs), quiet=quiet,
                   parent=os.getpid())  # inherited by fork
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(jobs, len(runs)), mp_context=context,
                             initializer=_quiet_on_interrupt) as pool:
        try:
            return list(pool.map(_evaluate_in_worker, range(len(sources))))
        except BrokenProcessPool:
            raise TrecgainError("a worker process ended before its run was evaluated (killed, or out of "
                                "memory?)") from None


def _quiet_on_interrupt() -> None:
    """A worker stops at Ctrl-C without a word (the main process says it once), and dies with
    the main process whatever ends it."""
    from .. import _core  # not at start-up: only this path of the command needs it

    _core.exit_on_interrupt(False)
    _core.exit_on_out_of_memory(False)
    _core.die_with_parent(_SHARED["parent"])


def _evaluate_in_worker(index: int) -> tuple[bytes | None, object, list[str]]:
    """One run in a worker: its text in the format, and its `all` values (not a Result)."""
    from ..formats import run_values  # not at start-up: only this path of the command needs it

    shared = _SHARED
    evaluator = shared["evaluator"]
    run = evaluator.read_run(shared["runs"][index])
    result = evaluator.evaluate(run, keep_values=False, check_ties=not shared["quiet"])
    file, per_query, summary = shared["files"][index], shared["per_query"], shared["summary"]
    messages = result_messages(result, run.source, per_query, summary, shared["quiet"])
    summary_values = run_values(result, file, False, True)  # for --fail-under and a table of `all` values
    from ..formats import FORMATS, render_run  # not at start-up: only this path of the command needs it

    if FORMATS[shared["form"]].write_run is None:
        return None, summary_values, messages
    return render_run(shared["form"], run_values(result, file, per_query, summary)), summary_values, messages
