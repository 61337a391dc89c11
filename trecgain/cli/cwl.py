"""`trecgain cwl GAIN_FILE RESULT_FILE [options]`: cwl_eval's output (trecgain.cwl), as it prints it."""

from __future__ import annotations

import click

from ..errors import TrecgainError
from .console import UsageError, write_stdout
from .declare import TEXT, TrecgainCommand, files_argument, help_flag

HELP = """cwl_eval's C/W/L measures (PyPI cwl-eval 1.0.12), printed exactly as cwl_eval prints them: per
topic of the result file (in file order) and metric, a tab-separated line Topic, Metric, EU (expected
utility per item), ETU (expected total utility), EC (expected cost per item), ETC (expected total cost),
ED (expected depth), with -r the five residuals (best case for unjudged items minus worst case).

GAIN_FILE is a qrels file whose judgments are gains (topic unused docno gain); RESULT_FILE a TREC run
whose second field is the element type the cost file prices.  The metrics file has a line per metric,
ClassName(params) as cwl_eval names them (PrecisionCWLMetric(10), RBPCWLMetric(0.8), INSTCWLMetric(3.0),
BPMCWLMetric(1.0,20), IFTGoalRateCWLMetric(...), NERReq8CWLMetric(10), ...: docs/cwl.md lists them)."""
USAGE = "usage: trecgain cwl GAIN_FILE RESULT_FILE [-c COST_FILE] [-m METRICS_FILE] [-b BIB_FILE] [-n] [-r] ..."


def _number(value: str | None, option: str, default: float, kind: type = float) -> float:
    """An option's value as cwl_eval's argparse reads it (Python's float() or int())."""
    if value is None:
        return default
    try:
        return kind(value)
    except ValueError:
        raise UsageError(f"{option}: invalid {kind.__name__} value: {value!r}") from None


@click.command(cls=TrecgainCommand, help=HELP, usage=USAGE, usage_hint="-h for help")
@help_flag()
@click.option("-c", "--cost_file", metavar="COST_FILE", type=TEXT, help="costs per element type (element_type cost)")
@click.option("-m", "--metrics_file", metavar="METRICS_FILE", type=TEXT,
              help="the metrics, one ClassName(params) a line (default: cwl_eval's 16)")
@click.option("-b", "--bib_file", metavar="BIB_FILE", type=TEXT,
              help="write the BibTeX of the metrics used to this file (as cwl_eval does)")
@click.option("-n", "--colnames", is_flag=True, help="a header line first")
@click.option("-r", "--residuals", is_flag=True, help="the residuals too (unjudged items at best minus at worst)")
@click.option("--max_gain", metavar="G", type=TEXT, help="the highest gain: checks the gain file, residuals (1.0)")
@click.option("--min_gain", metavar="G", type=TEXT, help="the lowest gain the gain file may hold (0.0)")
@click.option("--max_cost", metavar="C", type=TEXT, help="the cost of an item without one (1.0)")
@click.option("--min_cost", metavar="C", type=TEXT, help="the same for the residuals' best case (1.0)")
@click.option("--max_depth", metavar="N", type=TEXT, help="the depth of every ranking (1000)")
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, cost_file: str | None, metrics_file: str | None,
            bib_file: str | None, colnames: bool, residuals: bool, max_gain: str | None, min_gain: str | None,
            max_cost: str | None, min_cost: str | None, max_depth: str | None, files: tuple[str, ...]) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    if len(files) != 2:
        raise UsageError("GAIN_FILE and RESULT_FILE")
    from .. import cwl  # not at start-up: only this command needs it

    result = cwl.evaluate(
        files[0], files[1], cost_file, metrics_file, colnames, residuals,
        max_gain=_number(max_gain, "--max_gain", 1.0), min_gain=_number(min_gain, "--min_gain", 0.0),
        max_cost=_number(max_cost, "--max_cost", 1.0), min_cost=_number(min_cost, "--min_cost", 1.0),
        max_depth=int(_number(max_depth, "--max_depth", 1000, int)))
    if bib_file:  # cwl_eval writes it after the output; here before, so that a failure prints nothing
        _write_bibtex(bib_file, result.bibtex())
    write_stdout(result.to_bytes())
    return 0


def _write_bibtex(path: str, text: str) -> None:
    """The BibTeX file, as cwl_eval writes it (UTF-8 here, whatever the locale)."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        raise TrecgainError(f"cannot write: {err.strerror or err}", path) from None
