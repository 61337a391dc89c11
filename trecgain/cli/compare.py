"""`trecgain compare [options] QRELS RUN_A RUN_B [RUN_C ...]`: the command over trecgain.compare.

The evaluation options as the main command declares them (trecgain.cli.declare), and the
statistics'; errors are one line on standard error (status 2 for a command line that does not
parse or an option value out of range, 1 for bad files or measures)."""

from __future__ import annotations

import click

from ..errors import TrecgainError
from .console import UsageError, fail, integer_option, say, write_stdout
from .declare import TEXT, TrecgainCommand, Words, evaluation_options, files_argument, help_flag

USAGE = ("usage: trecgain compare [-m measure]* [--all-pairs] [--format text|json|csv|markdown|latex] "
         "[--plot FILE] qrels_file run_a run_b [run_c ...]")
FORMATS = ("text", "json", "csv", "markdown", "latex")
HELP = """Is run B better than run A, by how much, and where: per measure, each run's mean (the main
command's 'all' value), its paired difference from the baseline (the first run) with t and bootstrap
intervals, the effect size, wins/ties/losses by query, a paired t-test and a paired randomization
(sign-flip) test, p-values adjusted across the comparisons of each measure.  Queries: those of the
qrels every run has; with -c every qrels query (a missing one scores 0).  -m's default:
{default_measures}; several --global-gains compare each
gain measure under each and list the runs and queries whose order the schemes reverse."""


def _corrections() -> tuple[str, ...]:
    from ..comparison import stats  # not at start-up: only completion needs it

    return stats.CORRECTIONS


def _tests() -> tuple[str, ...]:
    from ..comparison import TESTS  # not at start-up: only completion needs it

    return tuple(TESTS)


class Compare(TrecgainCommand):
    def usage_message(self, message: str) -> str:
        return f"compare: {message} ({USAGE.split(': ', 1)[1]}; trecgain compare -h for help)"


@click.command(cls=Compare, help=HELP, usage=USAGE, usage_hint="")
@evaluation_options("measure to compare (repeatable)", several_gains=True)
@click.option("--all-pairs", "all_pairs", is_flag=True,
              help="compare every pair of runs (default: each against the first); significance from the "
                   "randomized Tukey HSD")
@click.option("--permutations", default="10000", metavar="N", type=TEXT,
              help="sign flips of the randomization test, permutations of the Tukey HSD (default 10000; "
                   "p = (b + 1) / (N + 1))")
@click.option("--bootstrap", default="10000", metavar="N", type=TEXT,
              help="bootstrap resamples of the percentile interval (default 10000; 0: none)")
@click.option("--seed", metavar="S", type=TEXT, help="seed of every resampling (same seed, same output)")
@click.option("--correction", default="holm", metavar="METHOD", type=Words(_corrections),
              help="holm (default), bonferroni, benjamini-hochberg, none")
@click.option("--alpha", default="0.05", metavar="A", type=TEXT, help="significance level of the markers (default 0.05)")
@click.option("--confidence", default="0.95", metavar="C", type=TEXT, help="level of the intervals (default 0.95)")
@click.option("--wilcoxon", is_flag=True, help="also the Wilcoxon signed-rank test")
@click.option("--test", metavar="TEST", type=Words(_tests),
              help="what the markers follow: randomization (default), t, wilcoxon, tukey (default with --all-pairs)")
@click.option("--top", default="5", metavar="K", type=TEXT,
              help="the K queries with the largest differences per comparison (default 5)")
@click.option("-f", "--format", "format", default="text", metavar="FORMAT", type=Words(FORMATS),
              help="text (default), json, csv, markdown, latex (booktabs)")
@click.option("--plot", metavar="FILE.png|svg|pdf", type=click.Path(),
              help="a row per measure: per-query differences against the baseline, sorted, with the mean and "
                   "its t interval, on one scale; for gain measures nDCG@k for k = 1..K per run (needs "
                   "trecgain[plot]); never onto an input file or what looks like qrels or a run")
@click.option("--plot-depth", "plot_depth", metavar="K", type=TEXT,
              help="K of the nDCG@k figure (default: the largest ndcg_cut cutoff, else 20)")
@click.option("--plot-measure", "plot_measure", metavar="NAME", type=TEXT,
              help="draw only that line's row (default: every line compared)")
@help_flag()
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, files: tuple[str, ...], **options: object) -> int:
    if show_help:
        from ..comparison import DEFAULT_MEASURES  # not at start-up: only this path of the command needs it

        text = ctx.command.help_text(ctx).replace("{default_measures}", ", ".join(DEFAULT_MEASURES))
        write_stdout(text.encode())
        return 0
    return command(options, files)


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
    from ..comparison import stats  # not at start-up: only this path of the command needs it

    if len(files) < 3:
        raise UsageError(f"expected a qrels file and at least two run files, got {len(files)} file name(s)")
    if files[1:].count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one run only")
    fmt = _choice(options, "format", "--format", FORMATS)
    _choice(options, "compat", "--compat", ("10", "9"))
    from ..options import TIE_RULES  # not at start-up: only this path of the command needs it

    _choice(options, "ties", "--ties", TIE_RULES)
    correction = _choice(options, "correction", "--correction", stats.CORRECTIONS)
    from ..comparison import DEFAULT_SEED, TESTS  # not at start-up: only this path of the command needs it

    test = _choice(options, "test", "--test", tuple(TESTS))
    from ..comparison.plot import SUFFIXES  # the module imports matplotlib only to draw

    plot = options["plot"]
    if plot is not None and not plot.lower().endswith(SUFFIXES):
        raise UsageError(f"option --plot takes a file name ending in .png, .svg or .pdf, not '{plot}'")
    if plot is not None:  # before any file is read: never onto an input, as -o
        from ..comparison.plot import check_target  # not at start-up: only this path of the command needs it

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
        "convention": options["convention"],
        "err_max_grade": integer_option(err_max_grade, "--err-max-grade", 0) if err_max_grade else 4}
    if options["global_gains"]:
        evaluator["global_gains"] = list(options["global_gains"])
    stats.need_scipy()  # before any file is read: one line saying what to install
    if plot is not None:
        from ..comparison.plot import need_matplotlib  # not at start-up: only this path of the command needs it

        need_matplotlib()
    from ..comparison import compare  # not at start-up: only this path of the command needs it

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
