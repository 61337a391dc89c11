"""`trecgain [options] QRELS RUN...`: trec_eval's command line, declared with click, handed to
the library (trecgain.Evaluator; -j: trecgain.cli.jobs; --dask: trecgain.distributed)."""

from __future__ import annotations

import click

from .. import __version__
from ..errors import TrecgainError
from . import console
from .console import UsageError, integer_option, say, tie_rule, write_stdout
from .declare import SUBCOMMANDS, TEXT, TrecgainCommand, Words, evaluation_options, files_argument, help_flag

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from ..options import EvaluationOptions

#: -R's formats (trec_eval's names), in the order help lists them.
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs", "subtopics")
USAGE = "Usage: trecgain [-h] [-q] [--compat 10|9] [-j N] {-m measure}* qrels_file run_file [run_file ...]"
DESCRIPTION = ("Evaluate a TREC run against qrels with trec_eval's measures, printing exactly what trec_eval "
               "prints (-h -m MEASURE explains one measure).")


def _formats() -> tuple[str, ...]:
    from ..formats import FORMATS  # not at start-up: only completion needs it

    return FORMATS


class Evaluate(TrecgainCommand):
    """The evaluation command, whose -h also lists the subcommands, the exit statuses and the
    measures."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        from ..measures import NICKNAMES, REGISTRY  # not at start-up: only -h needs them

        lines = ["", "Subcommands (trecgain SUBCOMMAND --help for each):"]
        lines.extend(f"  trecgain {name:<12} {help}" for name, (_, help) in SUBCOMMANDS.items())
        lines.extend(["", "Exit status: 0 done, 1 error, 2 usage error, 3 a --fail-under threshold missed, "
                      "130 interrupted.", "", "Measures (printed in this order):"])
        lines.extend(f"  {m.ir_measures[0] if m.naming == 'named' else m.name:<12} "  # named: as ir_measures
                     f"{m.help.split(': -m')[0].split('. ')[0].rstrip('.')}" for m in REGISTRY)
        lines.append("")
        lines.extend(f"  {nickname:<12} {' '.join(members)}" for nickname, members in NICKNAMES["10"].items())
        lines.append("  ir_measures names also work: nDCG@10, AP@100, P@10, R@1000, RR@10, Judged@10, ...")
        formatter.write("\n".join(lines) + "\n")


@click.command(cls=Evaluate, help=DESCRIPTION, usage=USAGE, usage_hint=f"{USAGE.split(': ', 1)[1]}; -h for help")
@click.option("-q", "--query_eval_wanted", "per_query", is_flag=True, help="also print each query's values")
@evaluation_options("measure to compute (repeatable; default: official), as trec_eval spells it (ndcg_cut.10) "
                    "or as ir_measures does (nDCG@10)")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="no 'all' lines")
@click.option("-D", "--Debug_level", "debug", metavar="0[.QID]", type=TEXT,
              help="0 (no debug output), or 0.QID: evaluate that query only (trecgain explain shows a "
                   "computation)")
@click.option("-R", "--Rel_info_format", "rel_format", metavar="FORMAT", type=Words(REL_FORMATS),
              help="qrels (default), qrels_jg (a judgment group in the second column), prefs (preference "
                   "judgments), qrels_prefs (qrels read as preferences) or subtopics (diversity "
                   "qrels: qid subtopic docno judgment)")
@click.option("-T", "--Results_format", "results_format", metavar="trec_results", type=Words(("trec_results",)),
              help="only 'trec_results'")
@click.option("--Output_old_results_format", "old_format", is_flag=True,
              help="accepted, no effect (trec_eval's obsolete -o)")
@click.option("-Z", "--Zscore", "zscore", metavar="FILE", type=click.Path(),
              help="print each value as a z-score against FILE's per-query means and deviations "
                   "(qid measure mean deviation lines)")
@click.option("-j", "--jobs", "jobs", metavar="N", type=TEXT,
              help="evaluate several run files in N processes (qrels read once)")
@click.option("--dask", "dask", metavar="ADDRESS|local", type=Words(("local",)),
              help="evaluate the runs on a Dask cluster: a scheduler's address, or local (a LocalCluster sized "
                   "to this machine); runs may be globs and URLs")
@click.option("--format", "output_format", default="trec", metavar="FORMAT", type=Words(_formats),
              help="the output's format: {formats}")
@click.option("-o", "--output", "output", metavar="FILE", type=click.Path(),
              help="write the results to FILE, atomically (- is standard output)")
@click.option("--fail-under", "fail_under", multiple=True, metavar="NAME=VALUE",
              help="exit status 3 when a run's 'all' value of NAME is below VALUE (repeatable; NAME a line as "
                   "printed, ndcg_cut_10, or its ir_measures name, nDCG@10)")
@click.option("-Q", "--quiet", "quiet", is_flag=True, help="no notes or warnings on standard error (errors still)")
@click.option("-v", "--version", "show_version", is_flag=True, help="print the version")
@help_flag("this help (-h -m NAME: what a measure computes)")
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, show_version: bool, measures: tuple[str, ...], files: tuple[str, ...],
            **options: object) -> int:
    """-h, -v, or the evaluation."""
    if show_help:
        if measures:
            from ..measures import describe  # not at start-up: only this path of the command needs it

            write_stdout("".join(describe(m) for m in measures).encode())
        else:
            write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    if show_version:
        write_stdout(f"trecgain {__version__} (trec_eval 10.0 and 9.x compatible)\n".encode())
        return 0
    return command(measures=list(measures), files=files, prefetched=ctx.obj, **options)


def command(per_query: bool, measures: list[str], complete: bool,
            level: str | None, nosummary: bool, debug: str | None, judged_only: bool, num_docs: str | None,
            max_docs: str | None, rel_format: str | None, results_format: str | None, old_format: bool,
            zscore: str | None, compat: str, jobs: str | None, global_gains: str | None, discount: str,
            exact_ideal: bool, fractional_grades: bool, err_max_grade: str | None, output_format: str,
            output: str | None, fail_under: list[str], quiet: bool, ties: str, files: tuple[str, ...],
            dask: str | None = None, convention: str = "trec_eval", prefetched: object | None = None) -> int:
    """Evaluate and print (or write -o); the exit status (0, or 3 when a --fail-under
    threshold is missed).  The options' values as click read them: text, checked here;
    `prefetched`: the program's first reading (trecgain._entry), taken if it read these files
    as these options read them."""
    _refuse_unsupported(debug, zscore, rel_format, results_format)
    collection_size = integer_option(num_docs, "-N", 0) or 0
    if compat not in ("10", "9"):
        raise UsageError(f"option --compat takes 10 or 9, not '{compat}'")
    if len(files) < 2:
        raise UsageError(f"expected a qrels file and a run file, got {len(files)} file name(s)")
    if files[1:].count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one run only")
    tie_rule(ties)
    ranks = _ranks(ties, convention)
    if dask is not None or (prefetched is not None and len(files) != 2):
        prefetched = None  # the runs are read elsewhere, or the prefetch read another pair of files
    # the single run is read while the rest is checked and imported (or was, while click was imported)
    ahead = _read_ahead(files, ranks) if dask is None and (prefetched is None or ranks) else None
    try:
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
        if convention != "trec_eval":  # --as TOOL: the Evaluator's convention
            settings["convention"] = convention
        if rel_format not in (None, "qrels"):  # -R: the Evaluator's rel_format
            settings["rel_format"] = rel_format
        if zscore is not None:  # -Z FILE: the Evaluator's zscores
            settings["zscores"] = zscore
        if debug is not None and _debug_query(debug):  # -D 0.QID: the Evaluator's only_query
            settings["only_query"] = _debug_query(debug)
        thresholds = _thresholds(fail_under, settings["measures"], compat, nosummary)
        if dask is not None:  # the runs are read by the cluster's workers: trecgain.distributed
            from .. import distributed  # not at start-up: only this path of the command needs it

            if jobs is not None:
                raise UsageError("-j and --dask exclude each other "
                                 "(--dask spreads the runs over the cluster's workers)")
            files = (files[0], *distributed.expand_runs(files[1:]))
        # -o is none of the inputs: a run given as a URL of a local file is that file
        inputs = (*(files if dask is None else distributed.local_paths(files)), *([zscore] if zscore else []))
        target = _output_target(output, inputs)  # never onto an input: the -Z file is one too
        try:
            if dask is not None:
                distributed.need_dask(distributed.COMMAND)  # Dask missing: one line before the options are checked
                outcomes = distributed.command_outcomes(dask, files, settings["measures"], _options(settings),
                                                        per_query, not nosummary, form, quiet)
            else:
                from .jobs import evaluate_runs  # not at start-up: only this path of the command needs it

                evaluator, runs = _evaluator(files, settings, ahead, prefetched)
                outcomes = evaluate_runs(evaluator, runs, integer_option(jobs, "-j", 1) or 1, per_query, not nosummary,
                                          form, files[1:], quiet)
        except TrecgainError as err:  # `trecgain run qrels`: say so, not what the run's first line lacks
            from ..output import swapped_error  # not at start-up: only this path of the command needs it

            raise swapped_error(err, files[0], files[1], "trecgain [options] QRELS RUN...") from None
    except BaseException:
        if ahead is not None:
            ahead.join()  # a thread still in the core must not meet the interpreter's exit
        raise
    header = {"trecgain": __version__, "compat": compat, "convention": convention, "qrels": files[0],
              "options": {**{k: v for k, v in settings.items() if k != "compat"}, "per_query": per_query,
                          "nosummary": nosummary}}
    _publish(target, lambda write: _emit(write, form, outcomes, files[1:], header, per_query, not nosummary))
    for message in dict.fromkeys(m for _, _, ms in outcomes for m in ms):  # once the results are out
        _note(message, quiet)
    if len(outcomes) > 1 and not quiet and not _names_runs(form) and not _prints_runid(settings["measures"], compat):
        _note(f"note: the {len(outcomes)} runs' results are printed one after another without their names, as "
              "trec_eval prints them: -m runid adds each run's runid line, --format markdown (or csv, json) "
              "names each run by its file", quiet)
    misses = _misses(thresholds, outcomes, files[1:])
    for miss in misses:
        say(miss)
    return 3 if misses else 0


def _names_runs(form: str) -> bool:
    """Whether the format's text names each run (trec's does not)."""
    from ..formats import FORMATS  # not at start-up: only this path of the command needs it

    return FORMATS[form].names_runs


def _prints_runid(measures: list[str], compat: str) -> bool:
    """Whether the measures print a runid line (-m runid, or a nickname such as all_trec)."""
    from ..measures import parse_requests  # not at start-up: only this path of the command needs it

    return any(r.measure.name == "runid" for r in parse_requests(measures, compat))


def _refuse_unsupported(debug: str | None, zscore: str | None, rel_format: str | None,
                        results_format: str | None) -> None:
    """trec_eval's option values trecgain does not offer: an error saying so."""
    if debug is not None and _debug_query(debug) is None:
        raise TrecgainError(f"option -D {debug}: trec_eval's debug output is not reproduced (-D 0 and -D 0.QID, "
                            "one query only, are); `trecgain explain` shows how each measure is computed")
    if rel_format is not None and rel_format not in REL_FORMATS:
        raise TrecgainError(f"option -R: the formats are {', '.join(REL_FORMATS[:-1])} and {REL_FORMATS[-1]}, "
                            f"not '{rel_format}'")
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
    from .. import check  # not at start-up: only this path of the command needs it
    from ..measures import parse_requests  # not at start-up: only this path of the command needs it
    from ..options import EvaluationOptions  # not at start-up: only this path of the command needs it

    values = {k: v for k, v in settings.items() if k != "measures"}
    return EvaluationOptions.checked(**values, requests=lambda compat: parse_requests(
        check.measures(settings["measures"]), compat, []))


def _ranks(ties: str, convention: str) -> bool:
    """Whether the runs are read with their rank column: the tie rule (or --as TOOL's) orders by it."""
    if ties == "rank":
        return True
    from ..conventions import CONVENTIONS  # not at start-up: only this path of the command needs it

    tool = CONVENTIONS.get(convention)
    return tool is not None and tool.ties == "rank"


def _read_ahead(files: tuple[str, ...], ranks: bool) -> object | None:
    """A single run file's reading, started on a second thread (None: stdin or several runs),
    with its rank column if `ranks`."""
    if len(files) != 2 or files[1] == "-":
        return None
    from .jobs import ReadAhead  # not at start-up: only this path of the command needs it

    return ReadAhead(files[1], ranks)


def _evaluator(files: tuple[str, ...], settings: dict, ahead: object | None,
               prefetched: object | None) -> tuple[object, tuple]:
    """The Evaluator of the qrels and the runs to evaluate (`ahead`: the single run's reading,
    under way since the options were read; it goes on while the qrels are read).  `prefetched`
    (a single run, read while click was imported) gives the qrels if the options read them as
    plain qrels with integer grades, and the run if it is read without its rank column."""
    from ..evaluate import Evaluator  # not at start-up: only this path of the command needs it

    options = _options(settings)
    qrels, run = files[0], None
    if prefetched is not None:
        plain = options.rel_format == "qrels" and not options.fractional_grades
        qrels_read, run = prefetched.take(files[0], files[1], plain, ahead is None)  # type: ignore[attr-defined]
        qrels = qrels_read if qrels_read is not None else qrels
    evaluator = Evaluator.from_options(qrels, settings["measures"], options)
    if run is not None:
        return evaluator, (run,)
    if ahead is not None:
        return evaluator, (ahead.result(),)  # only now: an error in the qrels is reported first
    return evaluator, tuple(files[1:])


def _note(message: str, quiet: bool) -> None:
    """A note or a warning on standard error, unless -Q (errors and --fail-under misses are
    never quiet: they go through say)."""
    if not quiet:
        say(message)


def _output_format(form: str, per_query: bool, nosummary: bool) -> str:
    """--format's value, checked (usage errors)."""
    from ..formats import FORMATS  # not at start-up: only this path of the command needs it

    if form not in FORMATS:
        raise UsageError(f"option --format takes {', '.join(FORMATS)}, not '{form}'")
    if FORMATS[form].write_run is None and (per_query or nosummary):
        raise UsageError(f"--format {form} is one table of the runs' 'all' values: it takes neither -q nor -n")
    return form


def _thresholds(specs: list[str], measures: list[str], compat: str, nosummary: bool) -> list:
    """--fail-under NAME=VALUE, each NAME matched to an `all` line the measures print (usage
    errors, before anything is read)."""
    if not specs:
        return []
    if nosummary:
        raise UsageError("--fail-under checks the 'all' lines, which -n (--nosummary) leaves out")
    from ..measures import parse_requests  # not at start-up: only this path of the command needs it
    from ..thresholds import thresholds  # not at start-up: only this path of the command needs it

    requests = parse_requests(measures, compat)  # a bad measure: an error (1), as it would be later
    try:
        return thresholds(specs, requests, measures)
    except TrecgainError as err:
        raise UsageError(str(err)) from None


def _output_target(output: str | None, files: tuple[str, ...]) -> str | None:
    """-o FILE, checked before anything is read (None: standard output)."""
    if output is None or output == "-":
        return None
    from ..output import check_target  # not at start-up: only this path of the command needs it

    check_target(output, files)
    return output


def _emit(write, form: str, outcomes: list, files: tuple[str, ...], header: dict, per_query: bool,
          summary: bool) -> None:
    """Hand the results, in format `form`, to `write(bytes)`: a worker's text of its run, or the
    run evaluated here, streamed as it is written (a table of `all` values: those only)."""
    from ..formats import FORMATS, write_document  # not at start-up: only this path of the command needs it

    if FORMATS[form].write_run is None:
        runs = [_values(outcome, file, False, True) for outcome, file in zip(outcomes, files)]
    else:
        runs = [outcome[0] if isinstance(outcome[0], bytes) else _values(outcome, file, per_query, summary)
                for outcome, file in zip(outcomes, files)]
    write_document(form, runs, header, write)


def _values(outcome: tuple, file: str, per_query: bool, summary: bool):
    """A run's RunValues: a worker's, or made from the Result evaluated here."""
    from ..formats import run_values  # not at start-up: only this path of the command needs it

    output, values, _ = outcome
    return values if values is not None else run_values(output, file, per_query, summary)


def _misses(thresholds: list, outcomes: list, files: tuple[str, ...]) -> list[str]:
    """One message per run and --fail-under threshold it misses."""
    if not thresholds:
        return []
    from ..thresholds import misses  # not at start-up: only this path of the command needs it

    return [f"{file}: {miss}" for outcome, file in zip(outcomes, files)
            for miss in misses(thresholds, _values(outcome, file, False, True).aggregate)]


def _publish(target: str | None, produce) -> None:
    """Call `produce(write)` with standard output's write, or write the target atomically
    (trecgain.output), Ctrl-C, SIGTERM and SIGHUP then leaving the old file as it was."""
    if target is None:
        produce(write_stdout)
        return
    from ..output import write  # not at start-up: only this path of the command needs it

    with _signals_raise():
        write(target, produce)


class _signals_raise:
    """While a results file is written: Ctrl-C raises KeyboardInterrupt (the core's handler
    would end the process at once, leaving the temporary file), SIGTERM and SIGHUP raise
    SystemExit(128 + signal), so that `finally` removes the temporary file (trecgain.output's
    on_signal: held while the temporary file is created, renamed or removed)."""

    def __enter__(self) -> None:
        import signal  # not at start-up: only this path of the command needs it
        import threading  # not at start-up: only this path of the command needs it

        from ..output import on_signal  # not at start-up: only this path of the command needs it

        self.saved: dict = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.saved[sig] = signal.signal(sig, on_signal)

    def __exit__(self, *exc: object) -> None:
        import signal  # not at start-up: only this path of the command needs it

        for sig, handler in self.saved.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        if self.saved and console.CORE_HANDLES_INTERRUPT:
            from .. import _core  # not at start-up: only this path of the command needs it

            _core.exit_on_interrupt(True)


