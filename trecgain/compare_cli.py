"""`trecgain compare [options] QRELS RUN_A RUN_B [RUN_C ...]`: the command over trecgain.compare.

Its own option table (the main command's evaluation options, and the statistics'), read by
trecgain.console.parse_args; errors are one line on standard error (status 2 for a command line
that does not parse or an option value out of range, 1 for bad files or measures)."""

from __future__ import annotations

from .console import UsageError, fail, integer_option, parse_args, quiet_stdout, say, write_stdout
from .errors import TrecgainError

USAGE = ("usage: trecgain compare [-m measure]* [--all-pairs] [--format text|json|csv|markdown|latex] "
         "[--plot FILE] qrels_file run_a run_b [run_c ...]")
FORMATS = ("text", "json", "csv", "markdown", "latex")

#: (short, long, key, takes) as trecgain.cli.OPTIONS.
OPTIONS = (
    ("h", "help", "show_help", "flag"),
    ("m", "measure", "measures", "values"),
    ("c", "complete_rel_info_wanted", "complete", "flag"),
    ("l", "level_for_rel", "level", "value"),
    ("J", "Judged_docs_only", "judged_only", "flag"),
    ("N", "Number_docs_in_coll", "num_docs", "value"),
    ("M", "Max_retrieved_per_topic", "max_docs", "value"),
    (None, "compat", "compat", "value"),
    (None, "global-gains", "global_gains", "values"),
    (None, "discount", "discount", "value"),
    (None, "exact-ideal", "exact_ideal", "flag"),
    (None, "fractional-grades", "fractional_grades", "flag"),
    (None, "err-max-grade", "err_max_grade", "value"),
    (None, "ties", "ties", "value"),
    (None, "all-pairs", "all_pairs", "flag"),
    (None, "permutations", "permutations", "value"),
    (None, "bootstrap", "bootstrap", "value"),
    (None, "seed", "seed", "value"),
    (None, "correction", "correction", "value"),
    (None, "alpha", "alpha", "value"),
    (None, "confidence", "confidence", "value"),
    (None, "wilcoxon", "wilcoxon", "flag"),
    (None, "test", "test", "value"),
    (None, "top", "top", "value"),
    ("f", "format", "format", "value"),
    (None, "plot", "plot", "value"),
    (None, "plot-depth", "plot_depth", "value"),
    (None, "plot-measure", "plot_measure", "value"),
)
_DEFAULTS = {"compat": "10", "discount": "log:2", "ties": "docno", "permutations": "10000", "bootstrap": "10000",
             "correction": "holm", "alpha": "0.05", "confidence": "0.95", "top": "5", "format": "text"}


def help_text() -> str:
    from .comparison import DEFAULT_MEASURES, DEFAULT_SEED  # not at start-up: only this path of the command needs it

    return "\n".join([
        USAGE, "",
        "Is run B better than run A, by how much, and where: per measure, each run's mean (the main",
        "command's 'all' value), its paired difference from the baseline (the first run) with t and",
        "bootstrap intervals, the effect size, wins/ties/losses by query, a paired t-test and a paired",
        "randomization (sign-flip) test, p-values adjusted across the comparisons of each measure.",
        "Queries: those of the qrels every run has; with -c every qrels query (a missing one scores 0).",
        "", "Evaluation options (as in trecgain -h):",
        f"  -m, --measure NAME[.PARAMS]   measure to compare (repeatable; default {' '.join(DEFAULT_MEASURES)})",
        "  -c, -l L, -J, -M M, -N N, --compat 10|9, --discount SPEC, --exact-ideal, --fractional-grades,",
        "  --err-max-grade G, --ties docno|rank|average",
        "      --global-gains SPEC        gains for the gain measures; several (linear,exp, or the option",
        "                                 repeated) compare each gain measure under each and list the runs",
        "                                 and queries whose order the schemes reverse",
        "", "Statistics:",
        "      --all-pairs                compare every pair of runs (default: each against the first);",
        "                                 significance from the randomized Tukey HSD",
        "      --permutations N           sign flips of the randomization test, permutations of the Tukey HSD",
        "                                 (default 10000; p = (b + 1) / (N + 1))",
        "      --bootstrap N              bootstrap resamples of the percentile interval (default 10000; 0: none)",
        f"      --seed S                   seed of every resampling (default {DEFAULT_SEED}; same seed, same output)",
        "      --correction METHOD        holm (default), bonferroni, benjamini-hochberg, none",
        "      --alpha A                  significance level of the markers (default 0.05)",
        "      --confidence C             level of the intervals (default 0.95)",
        "      --wilcoxon                 also the Wilcoxon signed-rank test",
        "      --test TEST                what the markers follow: randomization (default), t, wilcoxon,",
        "                                 tukey (default with --all-pairs)",
        "      --top K                    the K queries with the largest differences per comparison (default 5)",
        "", "Output:",
        "  -f, --format FORMAT            text (default), json, csv, markdown, latex (booktabs)",
        "      --plot FILE.png|svg|pdf    a row per measure: per-query differences against the baseline,",
        "                                 sorted, with the mean and its t interval, on one scale; for gain",
        "                                 measures nDCG@k for k = 1..K per run (needs trecgain[plot]); never",
        "                                 onto an input file or what looks like qrels or a run",
        "      --plot-depth K             K of the nDCG@k figure (default: the largest ndcg_cut cutoff, else 20)",
        "      --plot-measure NAME        draw only that line's row (default: every line compared)",
        "  -h, --help                     this help", ""])


def main(args: list[str]) -> int:
    try:
        options, files = parse_args(args, OPTIONS, _DEFAULTS)
        if options["show_help"]:
            write_stdout(help_text().encode())
            return 0
        return command(options, files)
    except UsageError as err:
        return fail(f"compare: {err} ({USAGE.split(': ', 1)[1]}; trecgain compare -h for help)", 2)
    except TrecgainError as err:
        return fail(str(err), 1)
    except ImportError as err:  # numpy, scipy or matplotlib missing: the message says what to install
        return fail(str(err), 1)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except MemoryError:
        return fail("out of memory", 1)
    except BrokenPipeError:
        quiet_stdout()
        return 0


def _whole(options: dict, key: str, option: str, minimum: int, maximum: int) -> int | None:
    value = options[key]
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if text[:1] == "+" else text
    digits = body.lstrip("0") or "0"  # int() refuses over 4300 digits, leading zeros too
    if not (body.isascii() and body.isdigit()) or len(digits) > 19:
        raise UsageError(f"option {option} takes a whole number from {minimum} to {maximum}, not '{value}'")
    number = int(digits)
    if not minimum <= number <= maximum:
        raise UsageError(f"option {option} takes a whole number from {minimum} to {maximum}, not '{value}'")
    return number


def _fraction(options: dict, key: str, option: str) -> float:
    value = options[key]
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0.0 < number < 1.0 or not value.isascii() or "_" in value:
        raise UsageError(f"option {option} takes a number between 0 and 1, such as 0.05, not '{value}'")
    return number


def _choice(options: dict, key: str, option: str, allowed: tuple) -> str | None:
    value = options[key]
    if value is not None and value not in allowed:
        raise UsageError(f"option {option} takes {', '.join(allowed[:-1])} or {allowed[-1]}, not '{value}'")
    return value


def command(options: dict, files: tuple[str, ...]) -> int:
    from . import stats  # not at start-up: only this path of the command needs it

    if len(files) < 3:
        raise UsageError(f"expected a qrels file and at least two run files, got {len(files)} file name(s)")
    if files[1:].count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one run only")
    fmt = _choice(options, "format", "--format", FORMATS)
    _choice(options, "compat", "--compat", ("10", "9"))
    from .options import TIE_RULES  # not at start-up: only this path of the command needs it

    _choice(options, "ties", "--ties", TIE_RULES)
    correction = _choice(options, "correction", "--correction", stats.CORRECTIONS)
    from .comparison import DEFAULT_SEED, TESTS  # not at start-up: only this path of the command needs it

    test = _choice(options, "test", "--test", TESTS)
    from .compare_plot import SUFFIXES  # the module imports matplotlib only to draw

    plot = options["plot"]
    if plot is not None and not plot.lower().endswith(SUFFIXES):
        raise UsageError(f"option --plot takes a file name ending in .png, .svg or .pdf, not '{plot}'")
    if plot is not None:  # before any file is read: never onto an input, as -o
        from .compare_plot import check_target  # not at start-up: only this path of the command needs it

        try:
            check_target(plot, files, "--plot")
        except TrecgainError as err:
            return fail(str(err), 1)  # as -o refuses an input
    permutations = _whole(options, "permutations", "--permutations", 0, 10**9)
    bootstrap = _whole(options, "bootstrap", "--bootstrap", 0, 10**9)
    seed = _whole(options, "seed", "--seed", 0, 2**63 - 1)
    top = _whole(options, "top", "--top", 0, 10**6)
    depth = _whole(options, "plot_depth", "--plot-depth", 1, 1000)
    alpha = _fraction(options, "alpha", "--alpha")
    confidence = _fraction(options, "confidence", "--confidence")
    level = options["level"]
    err_max_grade = options["err_max_grade"]
    evaluator = {  # read as the main command reads them (trecgain.console.integer_option)
        "relevance_level": integer_option(level, "-l") if level is not None else 1,
        "judged_only": options["judged_only"], "complete": options["complete"],
        "max_docs": integer_option(options["max_docs"], "-M", 0), "num_docs": integer_option(options["num_docs"], "-N", 0) or 0,
        "compat": options["compat"], "discount": options["discount"], "exact_ideal": options["exact_ideal"],
        "fractional_grades": options["fractional_grades"], "ties": options["ties"],
        "err_max_grade": integer_option(err_max_grade, "--err-max-grade", 0) if err_max_grade else 4}
    if options["global_gains"]:
        evaluator["global_gains"] = list(options["global_gains"])
    stats.need_scipy()  # before any file is read: one line saying what to install
    if plot is not None:
        from .compare_plot import need_matplotlib  # not at start-up: only this path of the command needs it

        need_matplotlib()
    from .comparison import compare  # not at start-up: only this path of the command needs it

    result = compare(files[0], list(files[1:]), measures=list(options["measures"]) or None,
                     all_pairs=options["all_pairs"], permutations=permutations, bootstrap=bootstrap,
                     seed=DEFAULT_SEED if seed is None else seed, correction=correction,
                     alpha=alpha, confidence=confidence, wilcoxon=options["wilcoxon"],
                     test=test, top=top, **evaluator)
    output = result.render(fmt).encode("utf-8", "surrogateescape")
    if plot is not None:  # drawn before anything is printed: a failure is the only line on stderr
        result.plot(plot, depth, options["plot_measure"])
    for warning in result.warnings:
        say(f"warning: {warning}")
    for note in result.notes:
        say(f"note: {note}")
    write_stdout(output)
    return 0
