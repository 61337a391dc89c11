"""The `trecgain` command: trec_eval's options, parsed here, handed to the library."""

from __future__ import annotations

import sys

from . import __version__
from .console import (UsageError, fail, integer_option, parse_args, quiet_stdout, result_messages, say,
                      tie_rule, write_stdout)
from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from .options import EvaluationOptions

USAGE = "Usage: trecgain [-h] [-q] [--compat 10|9] [-j N] {-m measure}* qrels_file run_file [run_file ...]"


#: The help of each option, by key, in the order -h lists them: (value name, text; a second
#: line after a newline).  Options left out (-D, -Z) are refused with a message.
OPTION_HELP = {
    "per_query": ("", "also print each query's values"),
    "measures": ("NAME[.PARAMS]", "measure to compute (repeatable; default: official), as trec_eval\n"
                 "spells it (ndcg_cut.10) or as ir_measures does (nDCG@10)"),
    "complete": ("", "average over every qrels query (missing ones score 0)"),
    "level": ("L", "grade >= L counts as relevant (default 1)"),
    "nosummary": ("", "no 'all' lines"),
    "judged_only": ("", "drop documents the qrels do not judge, then re-rank"),
    "max_docs": ("M", "keep the first M documents of each ranking"),
    "num_docs": ("N", "documents in the collection (utility's d coefficient)"),
    "rel_format": ("qrels", "only 'qrels'"),
    "results_format": ("trec_results", "only 'trec_results'"),
    "old_format": ("", "accepted, no effect (trec_eval's obsolete -o)"),
    "compat": ("10|9", "trec_eval 10.0 numerics (default) or 9.x (float32 scores)"),
    "jobs": ("N", "evaluate several run files in N processes (qrels read once)"),
    "dask": ("ADDRESS|local", "evaluate the runs on a Dask cluster: a scheduler's address, or local\n"
             "(a LocalCluster sized to this machine); runs may be globs and URLs"),
    "output_format": ("FORMAT", "trec (default: trec_eval's text), json, jsonl, csv, tsv or markdown"),
    "output": ("FILE", "write the results to FILE, atomically (- is standard output)"),
    "fail_under": ("NAME=VALUE", "exit status 3 when a run's 'all' value of NAME is below VALUE\n"
                   "(repeatable; NAME a line as printed, ndcg_cut_10, or its\n"
                   "ir_measures name, nDCG@10)"),
    "quiet": ("", "no notes or warnings on standard error (errors still)"),
    "global_gains": ("SPEC", "gains for every gain measure, ndcg_cut too: linear, exp, binary,\n"
                     "or level=gain,... (a measure's own gain string wins)"),
    "discount": ("SPEC", "log:2 (default), log:e, log:10, log:B, or jk:B (Jarvelin-Kekalainen)"),
    "exact_ideal": ("", "sort gains by value when building the ideal ranking"),
    "fractional_grades": ("", "accept grades such as 2.5 (the grade is the gain, or its exponent)"),
    "err_max_grade": ("G", "err_cut's top grade (default 4, as gdeval.pl)"),
    "ties": ("RULE", "docno (default: score, then docno descending, as trec_eval), rank (the\n"
             "rank column), average (each tied document its group's mean gain:\n"
             "{tie_average})"),
    "show_version": ("", "print the version"),
    "show_help": ("", "this help (-h -m NAME: what a measure computes)"),
}


def _option_text(text: str) -> str:
    """An OPTION_HELP text with its `{tie_average}`: the measures whose records define
    `--ties average` (those of a float value by name, then "the counts")."""
    if "{tie_average}" not in text:
        return text
    from .measures import REGISTRY  # not needed for --version

    named = [m.name for m in REGISTRY if m.tie_average and m.value == "float"]
    counts = any(m.tie_average and m.value != "float" for m in REGISTRY)
    return text.replace("{tie_average}", ", ".join(named + (["the counts"] if counts else [])))


def _option_lines() -> list[str]:
    """-h's option list, from OPTIONS and OPTION_HELP (with the measures --ties average is
    defined for, from their records)."""
    by_key = {o[2]: o for o in OPTIONS}
    lines = []
    for key, (metavar, text) in OPTION_HELP.items():
        short, long, _, _ = by_key[key]
        spelled = (f"-{short}, " if short else "    ") + f"--{long}" + (f" {metavar}" if metavar else "")
        first, *more = _option_text(text).split("\n")
        lines.append(f"  {spelled:<31}{first}" if len(spelled) < 31 else f"  {spelled}  {first}")
        lines.extend(" " * 33 + line for line in more)
    return lines


def _help_text() -> str:
    lines = [USAGE, "", "Evaluate a TREC run against qrels with trec_eval's measures, printing exactly",
             "what trec_eval prints (-h -m MEASURE explains one measure).", "", "Options:",
             *_option_lines(), "", "Subcommands (trecgain SUBCOMMAND --help for each):"]
    lines.extend(f"  trecgain {name:<12} {help}" for name, (_, help) in SUBCOMMANDS.items())
    lines.extend(["", "Exit status: 0 done, 1 error, 2 usage error, 3 a --fail-under threshold missed, "
                  "130 interrupted.", "", "Measures (printed in this order):"])
    from .measures import REGISTRY  # not needed for --version

    from .measures import NICKNAMES  # not at start-up: only this path of the command needs it

    for m in REGISTRY:
        lines.append(f"  {m.name:<12} {m.help.split(': -m')[0].split('. ')[0].rstrip('.')}")
    lines.append("")
    for nickname, members in NICKNAMES["10"].items():
        lines.append(f"  {nickname:<12} {' '.join(members)}")
    lines.append("  ir_measures names also work: nDCG@10, AP@100, P@10, R@1000, RR@10, Judged@10, ...")
    return "\n".join(lines) + "\n"


#: trec_eval's options, as getopt_long reads them: (short, long, key, takes), where takes is
#: "flag", "value" (the last one given wins) or "values" (every one given, in order).
OPTIONS = (
    ("h", "help", "show_help", "flag"),
    ("v", "version", "show_version", "flag"),
    ("q", "query_eval_wanted", "per_query", "flag"),
    ("m", "measure", "measures", "values"),
    ("c", "complete_rel_info_wanted", "complete", "flag"),
    ("l", "level_for_rel", "level", "value"),
    ("n", "nosummary", "nosummary", "flag"),
    ("D", "Debug_level", "debug", "value"),
    ("J", "Judged_docs_only", "judged_only", "flag"),
    ("N", "Number_docs_in_coll", "num_docs", "value"),
    ("M", "Max_retrieved_per_topic", "max_docs", "value"),
    ("R", "Rel_info_format", "rel_format", "value"),
    ("T", "Results_format", "results_format", "value"),
    (None, "Output_old_results_format", "old_format", "flag"),  # trec_eval's -o: -o is --output here
    ("Z", "Zscore", "zscore", "value"),
    (None, "compat", "compat", "value"),
    ("j", "jobs", "jobs", "value"),
    (None, "dask", "dask", "value"),
    (None, "global-gains", "global_gains", "value"),
    (None, "discount", "discount", "value"),
    (None, "exact-ideal", "exact_ideal", "flag"),
    (None, "fractional-grades", "fractional_grades", "flag"),
    (None, "err-max-grade", "err_max_grade", "value"),
    (None, "format", "output_format", "value"),
    ("o", "output", "output", "value"),
    (None, "fail-under", "fail_under", "values"),
    ("Q", "quiet", "quiet", "flag"),
    (None, "ties", "ties", "value"),
)
_DEFAULTS = {"compat": "10", "discount": "log:2", "output_format": "trec", "ties": "docno"}


def command(show_help: bool, show_version: bool, per_query: bool, measures: list[str], complete: bool,
            level: str | None, nosummary: bool, debug: str | None, judged_only: bool, num_docs: str | None,
            max_docs: str | None, rel_format: str | None, results_format: str | None, old_format: bool,
            zscore: str | None, compat: str, jobs: str | None, global_gains: str | None, discount: str,
            exact_ideal: bool, fractional_grades: bool, err_max_grade: str | None, output_format: str,
            output: str | None, fail_under: list[str], quiet: bool, ties: str, files: tuple[str, ...],
            dask: str | None = None) -> int:
    """Parse trec_eval's options and print the evaluation; the exit status (0, or 3 when a
    --fail-under threshold is missed)."""
    if show_help:
        if measures:
            from .measures import describe  # not at start-up: only this path of the command needs it

            write_stdout("".join(describe(m) for m in measures).encode())
        else:
            write_stdout(_help_text().encode())
        return 0
    if show_version:
        write_stdout(f"trecgain {__version__} (trec_eval 10.0 and 9.x compatible)\n".encode())
        return 0
    _refuse_unsupported(debug, zscore, rel_format, results_format)
    collection_size = integer_option(num_docs, "-N", 0) or 0
    if compat not in ("10", "9"):
        raise UsageError(f"option --compat takes 10 or 9, not '{compat}'")
    if len(files) < 2:
        raise UsageError(f"expected a qrels file and a run file, got {len(files)} file name(s)")
    if files[1:].count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one run only")
    tie_rule(ties)
    form = _output_format(output_format, per_query, nosummary)
    # the Evaluator's arguments, and the options --format json reports
    settings = dict(measures=list(measures) or ["official"],
                    relevance_level=integer_option(level, "-l") if level is not None else 1,
                    judged_only=judged_only, complete=complete,
                    max_docs=integer_option(max_docs, "-M", 0), compat=compat, global_gains=global_gains,
                    discount=discount, exact_ideal=exact_ideal, fractional_grades=fractional_grades,
                    num_docs=collection_size,
                    err_max_grade=integer_option(err_max_grade, "--err-max-grade", 0) if err_max_grade else 4,
                    ties=ties)
    if rel_format not in (None, "qrels"):  # -R: the Evaluator's rel_format
        settings["rel_format"] = rel_format
    if zscore is not None:  # -Z FILE: the Evaluator's zscores
        settings["zscores"] = zscore
    if debug is not None and _debug_query(debug):  # -D 0.QID: the Evaluator's only_query
        settings["only_query"] = _debug_query(debug)
    thresholds = _thresholds(fail_under, settings["measures"], compat, nosummary)
    if dask is not None:  # the runs are read by the cluster's workers: trecgain.distributed
        from . import distributed  # not at start-up: only this path of the command needs it

        if jobs is not None:
            raise UsageError("-j and --dask exclude each other (--dask spreads the runs over the cluster's workers)")
        files = (files[0], *distributed.expand_runs(files[1:]))
    # -o is none of the inputs: a run given as a URL of a local file is that file
    target = _output_target(output, files if dask is None else distributed.local_paths(files))
    try:
        if dask is not None:
            distributed.need_dask(distributed.COMMAND)  # Dask missing: one line before the options are checked
            outcomes = distributed.command_outcomes(dask, files, settings["measures"], _options(settings), per_query,
                                                    not nosummary, form, quiet)
        else:
            evaluator, runs = _evaluator(files, settings)
            outcomes = _evaluate_runs(evaluator, runs, integer_option(jobs, "-j", 1) or 1, per_query, not nosummary,
                                      form, files[1:], quiet)
    except TrecgainError as err:  # `trecgain run qrels`: say so, not what the run's first line lacks
        from .output import swapped_error  # not at start-up: only this path of the command needs it

        raise swapped_error(err, files[0], files[1], "trecgain [options] QRELS RUN...") from None
    header = {"trecgain": __version__, "compat": compat, "qrels": files[0],
              "options": {**{k: v for k, v in settings.items() if k != "compat"}, "per_query": per_query,
                          "nosummary": nosummary}}
    _publish(target, lambda write: _emit(write, form, outcomes, files[1:], header, per_query, not nosummary))
    for message in dict.fromkeys(m for _, _, ms in outcomes for m in ms):  # once the results are out
        _note(message, quiet)
    if form == "trec" and len(outcomes) > 1 and not quiet and not _prints_runid(settings["measures"], compat):
        _note(f"note: the {len(outcomes)} runs' results are printed one after another without their names, as "
              "trec_eval prints them: -m runid adds each run's runid line, --format markdown (or csv, json) "
              "names each run by its file", quiet)
    misses = _misses(thresholds, outcomes, files[1:])
    for miss in misses:
        say(miss)
    return 3 if misses else 0


def _prints_runid(measures: list[str], compat: str) -> bool:
    """Whether the measures print a runid line (-m runid, or a nickname such as all_trec)."""
    from .measures import parse_requests  # not at start-up: only this path of the command needs it

    return any(r.measure.name == "runid" for r in parse_requests(measures, compat))


def _refuse_unsupported(debug: str | None, zscore: str | None, rel_format: str | None,
                        results_format: str | None) -> None:
    """trec_eval's options trecgain does not offer: an error saying so."""
    if debug is not None and _debug_query(debug) is None:
        raise TrecgainError(f"option -D {debug}: trec_eval's debug output is not reproduced (-D 0 and -D 0.QID, "
                            "one query only, are); `trecgain explain` shows how each measure is computed")
    if rel_format is not None and rel_format not in ("qrels", "qrels_jg", "prefs", "qrels_prefs"):
        raise TrecgainError(f"option -R: the formats are qrels, qrels_jg, prefs and qrels_prefs, not '{rel_format}'")
    if results_format is not None and results_format != "trec_results":
        raise TrecgainError(f"option -T: only the 'trec_results' format is supported, not '{results_format}'")


def _debug_query(debug: str) -> str | None:
    """-D LEVEL[.QID] at level 0 (trec_eval reads the level with atol): QID, "" without one;
    None at another level."""
    level, dot, qid = debug.partition(".")
    if level.strip("0") or (dot and not qid):
        return None
    return qid


def _options(settings: dict) -> EvaluationOptions:
    """The one options value of the command, checked once as the Evaluator checks its keywords
    (a bad measure first, then each option in turn): -j workers and Dask get this value."""
    from . import check  # not at start-up: only this path of the command needs it
    from .measures import parse_requests  # not at start-up: only this path of the command needs it
    from .options import EvaluationOptions  # not at start-up: only this path of the command needs it

    values = {k: v for k, v in settings.items() if k != "measures"}
    return EvaluationOptions.checked(**values, requests=lambda compat: parse_requests(
        check.measures(settings["measures"]), compat, []))


def _evaluator(files: tuple[str, ...], settings: dict) -> tuple[object, tuple]:
    """The Evaluator of the qrels and the runs to evaluate (a single run file is read while
    the qrels are)."""
    from .evaluate import Evaluator  # not at start-up: only this path of the command needs it

    runs: list = list(files[1:])
    if len(runs) == 1 and runs[0] != "-":
        runs[0] = _ReadAhead(runs[0], settings["ties"] == "rank")  # the run is read while the qrels are
    try:
        evaluator = Evaluator.from_options(files[0], settings["measures"], _options(settings))
    finally:
        if isinstance(runs[0], _ReadAhead):
            runs[0].join()  # a thread still in the core must not meet the interpreter's exit
    if isinstance(runs[0], _ReadAhead):
        runs[0] = runs[0].result()  # only now: an error in the qrels is reported first
    return evaluator, tuple(runs)


def _note(message: str, quiet: bool) -> None:
    """A note or a warning on standard error, unless -Q (errors and --fail-under misses are
    never quiet: they go through say)."""
    if not quiet:
        say(message)


def _output_format(form: str, per_query: bool, nosummary: bool) -> str:
    """--format's value, checked (usage errors)."""
    if form == "trec":
        return form  # the default: trecgain.formats is not needed (start-up)
    from .formats import FORMATS  # not at start-up: only this path of the command needs it

    if form not in FORMATS:
        raise UsageError(f"option --format takes {', '.join(FORMATS)}, not '{form}'")
    if form == "markdown" and (per_query or nosummary):
        raise UsageError("--format markdown is one table of the runs' 'all' values: it takes neither -q nor -n")
    return form


def _thresholds(specs: list[str], measures: list[str], compat: str, nosummary: bool) -> list:
    """--fail-under NAME=VALUE, each NAME matched to an `all` line the measures print (usage
    errors, before anything is read)."""
    if not specs:
        return []
    if nosummary:
        raise UsageError("--fail-under checks the 'all' lines, which -n (--nosummary) leaves out")
    from .measures import parse_requests  # not at start-up: only this path of the command needs it
    from .thresholds import thresholds  # not at start-up: only this path of the command needs it

    requests = parse_requests(measures, compat)  # a bad measure: an error (1), as it would be later
    try:
        return thresholds(specs, requests, measures)
    except TrecgainError as err:
        raise UsageError(str(err)) from None


def _output_target(output: str | None, files: tuple[str, ...]) -> str | None:
    """-o FILE, checked before anything is read (None: standard output)."""
    if output is None or output == "-":
        return None
    from .output import check_target  # not at start-up: only this path of the command needs it

    check_target(output, files)
    return output


def _emit(write, form: str, outcomes: list, files: tuple[str, ...], header: dict, per_query: bool,
          summary: bool) -> None:
    """Hand the results, in format `form`, to `write(bytes)`."""
    if form == "trec":
        for output, _, _ in outcomes:  # printed only once every run has been evaluated
            if isinstance(output, bytes):
                write(output)
            else:
                output.write_trec(write, per_query, summary)
        return
    from .formats import write_document  # not at start-up: only this path of the command needs it

    if form == "markdown":  # the `all` values only
        runs = [_values(outcome, file, False, True) for outcome, file in zip(outcomes, files)]
    else:  # a worker's text of its run, or the run evaluated here, streamed as it is written
        runs = [outcome[0] if isinstance(outcome[0], bytes) else _values(outcome, file, per_query, summary)
                for outcome, file in zip(outcomes, files)]
    write_document(form, runs, header, write)


def _values(outcome: tuple, file: str, per_query: bool, summary: bool):
    """A run's RunValues: a worker's, or made from the Result evaluated here."""
    from .formats import run_values  # not at start-up: only this path of the command needs it

    output, values, _ = outcome
    return values if values is not None else run_values(output, file, per_query, summary)


def _misses(thresholds: list, outcomes: list, files: tuple[str, ...]) -> list[str]:
    """One message per run and --fail-under threshold it misses."""
    if not thresholds:
        return []
    from .thresholds import misses  # not at start-up: only this path of the command needs it

    return [f"{file}: {miss}" for outcome, file in zip(outcomes, files)
            for miss in misses(thresholds, _values(outcome, file, False, True).aggregate)]


def _publish(target: str | None, produce) -> None:
    """Call `produce(write)` with standard output's write, or write the target atomically
    (trecgain.output), Ctrl-C, SIGTERM and SIGHUP then leaving the old file as it was."""
    if target is None:
        produce(write_stdout)
        return
    from .output import write  # not at start-up: only this path of the command needs it

    with _signals_raise():
        write(target, produce)


#: Set by the `trecgain` program (trecgain._entry): the core's Ctrl-C handler is installed.
CORE_HANDLES_INTERRUPT = False


class _signals_raise:
    """While a results file is written: Ctrl-C raises KeyboardInterrupt (the core's handler
    would end the process at once, leaving the temporary file), SIGTERM and SIGHUP raise
    SystemExit(128 + signal), so that `finally` removes the temporary file (trecgain.output's
    on_signal: held while the temporary file is created, renamed or removed)."""

    def __enter__(self) -> None:
        import signal  # not at start-up: only this path of the command needs it
        import threading  # not at start-up: only this path of the command needs it

        from .output import on_signal  # not at start-up: only this path of the command needs it

        self.saved: dict = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.saved[sig] = signal.signal(sig, on_signal)

    def __exit__(self, *exc: object) -> None:
        import signal  # not at start-up: only this path of the command needs it

        for sig, handler in self.saved.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        if self.saved and CORE_HANDLES_INTERRUPT:
            from . import _core  # not at start-up: only this path of the command needs it

            _core.exit_on_interrupt(True)


class _ReadAhead:
    """Reads a run file on a second thread (the core reads without holding the interpreter)."""

    def __init__(self, path: str, ranks: bool):
        import threading  # not at start-up: only this path of the command needs it

        from .read import read_run  # not at start-up: only this path of the command needs it

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


def _evaluate_runs(evaluator, runs: tuple, jobs: int, per_query: bool, summary: bool, form: str = "trec",
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

    from .read import read_run  # not at start-up: only this path of the command needs it

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
    from . import _core  # not at start-up: only this path of the command needs it

    _core.exit_on_interrupt(False)
    _core.exit_on_out_of_memory(False)
    _core.die_with_parent(_SHARED["parent"])


def _evaluate_in_worker(index: int) -> tuple[bytes | None, object, list[str]]:
    """One run in a worker: values, not a Result (the text itself for format trec)."""
    from .formats import run_values  # not at start-up: only this path of the command needs it

    shared = _SHARED
    evaluator = shared["evaluator"]
    run = evaluator.read_run(shared["runs"][index])
    result = evaluator.evaluate(run, keep_values=False, check_ties=not shared["quiet"])
    file, per_query, summary = shared["files"][index], shared["per_query"], shared["summary"]
    messages = result_messages(result, run.source, per_query, summary, shared["quiet"])
    summary_values = run_values(result, file, False, True)  # for --fail-under and markdown
    if shared["form"] == "trec":
        return result.to_trec_bytes(per_query, summary), summary_values, messages
    if shared["form"] == "markdown":
        return None, summary_values, messages
    from .formats import render_run  # not at start-up: only this path of the command needs it

    return render_run(shared["form"], run_values(result, file, per_query, summary)), summary_values, messages


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors become one line on stderr and a non-zero exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] and args[0] in SUBCOMMANDS:  # a qrels file of that name is ./gdeval
        return SUBCOMMANDS[args[0]][0](args[1:])
    try:
        options, files = parse_args(args, OPTIONS, _DEFAULTS)
        status = command(**options, files=files)
    except TrecgainError as err:
        return fail(str(err), 1)
    except UsageError as err:
        return fail(f"{err} ({USAGE.split(': ', 1)[1]}; -h for help)", 2)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except MemoryError:
        return fail("out of memory", 1)
    except BrokenPipeError:  # standard output's reader went away (`| head -1`): status 0
        quiet_stdout()
        return 0
    return status


_HELP_FLAGS = ("-h", "--help", "-help")  # -help: gdeval.pl's own spelling
GDEVAL_HELP = """usage: trecgain gdeval QRELS RUN K

gdeval.pl's nDCG@K and ERR@K (the TREC Web track's script, version 1.2a as ir_measures ships
it), printed exactly as gdeval.pl prints them: the header runid,topic,ndcg@K,err@K, a line
per topic in numeric order, then the runid,amean,... line of the means.  K is a positive
whole number.
Gains are 2^grade - 1 (grades at most 4), the discount is ln(rank + 1).  trecgain's -m err_cut.K
and -m ERR@K give the same ERR inside trec_eval's output.
"""


def _gdeval(args: list[str]) -> int:
    """`trecgain gdeval QRELS RUN K`: gdeval.pl's output (a file named gdeval needs ./gdeval)."""
    if args[:1] and args[0] in _HELP_FLAGS:
        return _help(GDEVAL_HELP)
    if len(args) != 3 or not (args[2].isascii() and args[2].isdigit() and args[2][0] != "0"):
        return fail("usage: trecgain gdeval QRELS RUN K (K a positive whole number; --help for help)", 2)
    from . import gdeval  # not at start-up: only this path of the command needs it

    try:
        write_stdout(gdeval.evaluate(args[0], args[1], gdeval.whole_number(args[2])).to_bytes())
    except TrecgainError as err:
        return fail(str(err), 1)
    except BrokenPipeError:  # standard output's reader went away (`| head -1`): status 0
        quiet_stdout()
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except MemoryError:
        return fail("out of memory", 1)
    return 0


def _help(text: str) -> int:
    """A subcommand's --help: the text on standard output, status 0."""
    try:
        write_stdout(text.encode())
    except TrecgainError as err:
        return fail(str(err), 1)
    except BrokenPipeError:
        quiet_stdout()
    return 0


COMPLETION_HELP = """usage: trecgain completion bash|zsh|fish

Print a completion script for the shell: options, measure names after -m, formats after
--format, 10 and 9 after --compat, file names elsewhere.  Load it with
  bash:  eval "$(trecgain completion bash)"     (in ~/.bashrc)
  zsh:   eval "$(trecgain completion zsh)"      (in ~/.zshrc, after compinit)
  fish:  trecgain completion fish | source      (in ~/.config/fish/config.fish)
"""

#: What completion offers as an option's value, by key: words, None for a file name, and
#: nothing for the others (numbers).
_VALUE_WORDS = {"compat": ("10", "9"), "rel_format": ("qrels",), "results_format": ("trec_results",),
                "global_gains": ("linear", "exp", "binary"), "discount": ("log:2", "log:e", "log:10", "jk:2"),
                "output": None, "dask": ("local",)}


def _completion(args: list[str]) -> int:
    """`trecgain completion bash|zsh|fish`: the shell's completion script."""
    from . import completion  # not at start-up: only this path of the command needs it

    if args[:1] and args[0] in _HELP_FLAGS:
        return _help(COMPLETION_HELP)
    if len(args) != 1 or args[0] not in completion.SHELLS:
        return fail(f"usage: trecgain completion {'|'.join(completion.SHELLS)} (--help for help)", 2)
    from .formats import FORMATS  # not at start-up: only this path of the command needs it

    from .options import TIE_RULES  # not at start-up: only this path of the command needs it

    words = {**_VALUE_WORDS, "measures": tuple(completion.measure_names()), "output_format": FORMATS,
             "ties": TIE_RULES}
    options = [completion.Option(short, long, takes != "flag", words.get(key, ()),
                                 _option_text(OPTION_HELP[key][1]).replace("\n", " "))
               for short, long, key, takes in OPTIONS if key in OPTION_HELP]  # not -D, -Z: refused
    return _help(completion.script(args[0], options, {name: help for name, (_, help) in SUBCOMMANDS.items()}))


def _explain(args: list[str]) -> int:
    """`trecgain explain ...`: one query's computation rank by rank (trecgain.explain)."""
    from . import explain  # not at start-up: only this path of the command needs it

    return explain.main(args)


def _compare(args: list[str]) -> int:
    """`trecgain compare QRELS RUN_A RUN_B ...`: paired tests, intervals and corrections."""
    from .compare_cli import main as compare_main  # not at start-up: only this path of the command needs it

    return compare_main(args)


#: The subcommands: name -> (function of the arguments after the name, returning the exit
#: status; one line of help).  Each answers --help.
SUBCOMMANDS = {
    "compare": (_compare, "is run B better than run A: paired tests, intervals, corrections"),
    "explain": (_explain, "one query's computation rank by rank: gains, discounts, ideal ranking, ties"),
    "gdeval": (_gdeval, "gdeval.pl's nDCG@K and ERR@K, exactly as it prints them"),
    "completion": (_completion, "a completion script for bash, zsh or fish"),
}
