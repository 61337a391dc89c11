"""The `trecgain` command: trec_eval's options, parsed here, handed to the library."""

from __future__ import annotations

import sys

from . import __version__
from .errors import TrecgainError

USAGE = "Usage: trecgain [-h] [-q] [--compat 10|9] [-j N] {-m measure}* qrels_file run_file [run_file ...]"


def _integer(value: str | None, option: str, minimum: int | None = None) -> int | None:
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not (body.isdigit() and body.isascii()):
        raise TrecgainError(f"option {option} takes a whole number, not '{value}'")
    from .check import digits

    number = digits(text)
    if minimum is not None and number < minimum:
        raise TrecgainError(f"option {option} must be at least {minimum}, not {number}")
    return number


def _help_text() -> str:
    lines = [USAGE, "", "Evaluate a TREC run against qrels with trec_eval's measures, printing exactly",
             "what trec_eval prints (-h -m MEASURE explains one measure).", "", "Options:",
             "  -q, --query_eval_wanted        also print each query's values",
             "  -m, --measure NAME[.PARAMS]    measure to compute (repeatable; default: official)",
             "  -c, --complete_rel_info_wanted average over every qrels query (missing ones score 0)",
             "  -l, --level_for_rel L          grade >= L counts as relevant (default 1)",
             "  -n, --nosummary                no 'all' lines",
             "  -J, --Judged_docs_only         drop documents the qrels do not judge, then re-rank",
             "  -M, --Max_retrieved_per_topic M  keep the first M documents of each ranking",
             "  -N, --Number_docs_in_coll N    documents in the collection (utility's d coefficient)",
             "  -R, --Rel_info_format qrels    only 'qrels'",
             "  -T, --Results_format trec_results  only 'trec_results'",
             "      --compat 10|9              trec_eval 10.0 numerics (default) or 9.x (float32 scores)",
             "  -j, --jobs N                   evaluate several run files in N processes (qrels read once)",
             "      --global-gains SPEC        gains for every gain measure, ndcg_cut too: linear, exp, binary,",
             "                                 or level=gain,... (a measure's own gain string wins)",
             "      --discount SPEC            log:2 (default), log:e, log:10, log:B, or jk:B (Jarvelin-Kekalainen)",
             "      --exact-ideal              sort gains by value when building the ideal ranking",
             "      --fractional-grades        accept grades such as 2.5 (the grade is the gain, or its exponent)",
             "      --err-max-grade G          err_cut's top grade (default 4, as gdeval.pl)",
             "      --ties docno|rank|average  tie rule: trec_eval's (score, then docno descending), the rank",
             "                                 column, or each tied document its group's mean gain (dcg, ndcg,",
             "                                 ndcg_cut, dcg_cut, ndcg_p, cg_cut, ideal_dcg and the counts)",
             "  -v, --version                  print the version",
             "  -h, --help                     this help",
             "",
             "  trecgain gdeval QRELS RUN K    gdeval.pl's nDCG@K and ERR@K, exactly as it prints them",
             "  trecgain compare QRELS RUN_A RUN_B ...  paired tests of runs (trecgain compare -h)",
             "", "Measures (printed in this order):"]
    from .measures import REGISTRY  # not needed for --version

    from .measures import NICKNAMES

    for m in REGISTRY:
        lines.append(f"  {m.name:<12} {m.help.split(': -m')[0].split('. ')[0].rstrip('.')}")
    lines.append("")
    for nickname, members in NICKNAMES["10"].items():
        lines.append(f"  {nickname:<12} {' '.join(members)}")
    lines.append("  ir_measures names also work: nDCG@10, AP@100, P@10, R@1000, RR@10, Judged@10, ...")
    return "\n".join(lines) + "\n"


class UsageError(Exception):
    """A command line that does not parse (status 2, with the usage line)."""


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
    ("o", "Output_old_results_format", "old_format", "flag"),
    ("Z", "Zscore", "zscore", "value"),
    (None, "compat", "compat", "value"),
    ("j", "jobs", "jobs", "value"),
    (None, "global-gains", "global_gains", "value"),
    (None, "discount", "discount", "value"),
    (None, "exact-ideal", "exact_ideal", "flag"),
    (None, "fractional-grades", "fractional_grades", "flag"),
    (None, "err-max-grade", "err_max_grade", "value"),
    (None, "ties", "ties", "value"),
)
_DEFAULTS = {"compat": "10", "discount": "log:2", "ties": "docno"}


def parse_args(args: list[str], options: tuple = OPTIONS,
               defaults: dict | None = None) -> tuple[dict, tuple[str, ...]]:
    """Options by key, and the file names, as GNU getopt_long reads them: bundled short
    flags (-qc), attached values (-l2, -mndcg, --compat=9), unique prefixes of long names,
    options after file names, and `--` before file names that start with a dash.  `options`
    is a table like OPTIONS (a subcommand has its own)."""
    defaults = _DEFAULTS if defaults is None else defaults
    short = {o[0]: o for o in options if o[0]}
    values: dict = {key: ([] if takes == "values" else False if takes == "flag" else defaults.get(key))
                    for _, _, key, takes in options}
    files: list[str] = []
    i = 0
    while i < len(args):
        arg, i = args[i], i + 1
        if arg == "--":
            files.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, attached = arg[2:].partition("=")
            option = _long_option(name, options)
            i = _take(values, option, f"--{option[1]}", attached if eq else None, args, i)
        elif arg.startswith("-") and arg != "-":
            for k, letter in enumerate(arg[1:], 1):
                option = short.get(letter)
                if option is None:
                    raise UsageError(f"unknown option '-{letter}'")
                if option[3] != "flag":
                    i = _take(values, option, f"-{letter}", arg[k + 1:] or None, args, i)
                    break
                values[option[2]] = True
        else:
            files.append(arg)
    return values, tuple(files)


def _long_option(name: str, options: tuple) -> tuple:
    exact = [o for o in options if o[1] == name]
    matches = exact or [o for o in options if o[1].startswith(name)] if name else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"unknown option '--{name}'")
    raise UsageError(f"option '--{name}' is ambiguous: {', '.join('--' + o[1] for o in matches)}")


def _take(values: dict, option: tuple, spelled: str, attached: str | None, args: list[str], i: int) -> int:
    """Store one option's value (attached, or the next argument); the index after it."""
    _, _, key, takes = option
    if takes == "flag":
        if attached is not None:
            raise UsageError(f"option '{spelled}' takes no value")
        values[key] = True
        return i
    if attached is None:
        if i >= len(args):
            raise UsageError(f"option '{spelled}' needs a value")
        attached, i = args[i], i + 1
    if takes == "values":
        values[key].append(attached)
    else:
        values[key] = attached
    return i


def command(show_help: bool, show_version: bool, per_query: bool, measures: list[str], complete: bool,
            level: str | None, nosummary: bool, debug: str | None, judged_only: bool, num_docs: str | None,
            max_docs: str | None, rel_format: str | None, results_format: str | None, old_format: bool,
            zscore: str | None, compat: str, jobs: str | None, global_gains: str | None, discount: str,
            exact_ideal: bool, fractional_grades: bool, err_max_grade: str | None, ties: str,
            files: tuple[str, ...]) -> None:
    """Parse trec_eval's options and print the evaluation."""
    if show_help:
        if measures:
            from .measures import describe

            _write("".join(describe(m) for m in measures).encode())
        else:
            _write(_help_text().encode())
        return
    if show_version:
        _write(f"trecgain {__version__} (trec_eval 10.0 and 9.x compatible)\n".encode())
        return
    if debug is not None:
        raise TrecgainError("option -D (debug output) is not supported; use -q for per-query values")
    if zscore is not None:
        raise TrecgainError("option -Z (z-scores) is not supported; standardise the -q output instead")
    for option, value, allowed in (("-R", rel_format, "qrels"), ("-T", results_format, "trec_results")):
        if value is not None and value != allowed:
            raise TrecgainError(f"option {option}: only the '{allowed}' format is supported, not '{value}'")
    collection_size = _integer(num_docs, "-N", 0) or 0
    if compat not in ("10", "9"):
        raise UsageError(f"option --compat takes 10 or 9, not '{compat}'")
    if len(files) < 2:
        raise UsageError(f"expected a qrels file and a run file, got {len(files)} file name(s)")
    if ties not in ("docno", "rank", "average"):
        raise UsageError(f"option --ties takes docno, rank or average, not '{ties}'")
    if files[1:].count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one run only")
    from .evaluate import Evaluator

    runs: list = list(files[1:])
    if len(runs) == 1 and runs[0] != "-":
        runs[0] = _ReadAhead(runs[0], ties == "rank")  # the run is read while the qrels are
    try:
        evaluator = Evaluator(files[0], measures=list(measures) or ["official"], num_docs=collection_size,
                              relevance_level=_integer(level, "-l") if level is not None else 1,
                              judged_only=judged_only, complete=complete,
                              max_docs=_integer(max_docs, "-M", 0), compat=compat, global_gains=global_gains,
                              discount=discount, exact_ideal=exact_ideal, fractional_grades=fractional_grades,
                              err_max_grade=_integer(err_max_grade, "--err-max-grade", 0) if err_max_grade else 4,
                              ties=ties)
    finally:
        if isinstance(runs[0], _ReadAhead):
            runs[0].join()  # a thread still in the core must not meet the interpreter's exit
    if isinstance(runs[0], _ReadAhead):
        runs[0] = runs[0].result()  # only now: an error in the qrels is reported first
    outputs = _evaluate_runs(evaluator, tuple(runs), _integer(jobs, "-j", 1) or 1, per_query, not nosummary)
    for message in dict.fromkeys(m for _, ms in outputs for m in ms):
        _say(message)
    for output, _ in outputs:  # printed only once every run has been evaluated
        if isinstance(output, bytes):
            _write(output)
        else:
            output.write_trec(_write, per_query, not nosummary)


class _ReadAhead:
    """Reads a run file on a second thread (the core reads without holding the interpreter)."""

    def __init__(self, path: str, ranks: bool):
        import threading

        from .read import read_run

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


def _write(data: bytes) -> None:
    """Write to standard output; a full disk or a closed stdout is an error, a closed pipe is not."""
    if sys.stdout is None:
        raise TrecgainError("cannot write the results: standard output is closed")
    out = sys.stdout.buffer
    try:
        out.write(data)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        _quiet_stdout()
        raise TrecgainError(f"cannot write the results: {err.strerror or err}") from None


_SHARED: dict = {}


def _evaluate_runs(evaluator, runs: tuple[str, ...], jobs: int, per_query: bool,
                   summary: bool) -> list[tuple[object, list[str]]]:
    """Each run's result (or, from forked workers with jobs > 1, its trec_eval text) and
    warnings, in the order given."""
    if jobs == 1 or len(runs) == 1:
        outputs = []
        for source in runs:
            run = evaluator.read_run(source)  # read once: ties_decided may evaluate it again
            result = evaluator.evaluate(run, keep_values=False)  # lines measured as written
            outputs.append((result, _messages(evaluator, run, result, per_query, summary)))
        return outputs
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from .read import read_run

    # standard input is read here: a worker's is not the command's
    sources = [read_run(r, evaluator.ties == "rank") if r == "-" else r for r in runs]
    _SHARED.update(evaluator=evaluator, runs=sources, per_query=per_query, summary=summary,
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
    from . import _core

    _core.exit_on_interrupt(False)
    _core.exit_on_out_of_memory(False)
    _core.die_with_parent(_SHARED["parent"])


def _evaluate_in_worker(index: int) -> tuple[bytes, list[str]]:
    evaluator = _SHARED["evaluator"]
    run = evaluator.read_run(_SHARED["runs"][index])
    per_query, summary = _SHARED["per_query"], _SHARED["summary"]
    result = evaluator.evaluate(run, keep_values=False)
    return result.to_trec_bytes(per_query, summary), _messages(evaluator, run, result, per_query, summary)


def _messages(evaluator, run, result, per_query: bool, summary: bool) -> list[str]:
    """The warnings and notes a run's evaluation has for standard error."""
    notes = list(result.notes)
    decided = evaluator.ties_decided(run, result, per_query, summary)
    if decided:
        notes.append(f"ties between documents of different grades decided {decided} printed "
                     f"{'value' if decided == 1 else 'values'} of {run.source}: trec_eval orders "
                     "tied documents by docno, descending (--ties average or --ties rank for another rule)")
    return [f"warning: {w}" for w in result.warnings] + [f"note: {n}" for n in notes]


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors become one line on stderr and a non-zero exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] and args[0] in SUBCOMMANDS:  # a qrels file of that name is ./gdeval
        return SUBCOMMANDS[args[0]][0](args[1:])
    try:
        options, files = parse_args(args)
        command(**options, files=files)
    except TrecgainError as err:
        return _fail(str(err), 1)
    except UsageError as err:
        return _fail(f"{err} ({USAGE.split(': ', 1)[1]}; -h for help)", 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except MemoryError:
        return _fail("out of memory", 1)
    except BrokenPipeError:  # standard output's reader went away (`| head -1`): status 0
        _quiet_stdout()
        return 0
    return 0


def _gdeval(args: list[str]) -> int:
    """`trecgain gdeval QRELS RUN K`: gdeval.pl's output (a file named gdeval needs ./gdeval)."""
    if len(args) != 3 or not (args[2].isascii() and args[2].isdigit() and args[2][0] != "0"):
        return _fail("usage: trecgain gdeval QRELS RUN K (K a positive whole number)", 2)
    from . import gdeval

    try:
        _write(gdeval.evaluate(args[0], args[1], gdeval.whole_number(args[2])).to_bytes())
    except TrecgainError as err:
        return _fail(str(err), 1)
    except BrokenPipeError:  # standard output's reader went away (`| head -1`): status 0
        _quiet_stdout()
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except MemoryError:
        return _fail("out of memory", 1)
    return 0


def _compare(args: list[str]) -> int:
    """`trecgain compare QRELS RUN_A RUN_B ...`: paired tests, intervals and corrections."""
    from .compare_cli import main as compare_main

    return compare_main(args)


#: The subcommands: name -> (function of the arguments after the name, returning the exit
#: status; one line of help).
SUBCOMMANDS = {
    "gdeval": (_gdeval, "gdeval.pl's nDCG@K and ERR@K, exactly as it prints them"),
    "compare": (_compare, "is run B better than run A: paired tests, intervals, corrections"),
}

_ESCAPES = {c: repr(chr(c))[1:-1] for c in (*range(32), 127)}


def _fail(message: str, status: int) -> int:
    _say(message)
    return status


def _say(message: str) -> None:
    """One line on standard error, control characters escaped; a closed or full stderr is
    ignored: what goes to standard output never depends on it."""
    try:
        sys.stderr.write(f"trecgain: {message.translate(_ESCAPES)}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # closed (None, or a closed file), full, gone
        pass


def _quiet_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so interpreter shutdown does not complain."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def entry() -> None:
    """Run as a program (the installed `trecgain` goes through trecgain._entry, which also
    turns Ctrl-C during start-up into one line)."""
    sys.exit(main())
