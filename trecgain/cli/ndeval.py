"""`trecgain ndeval [options] QRELS RUN`: ndeval's CSV (trecgain.ndeval), as ndeval prints it."""

from __future__ import annotations

import click

from .console import UsageError, write_stdout
from .declare import ScriptCommand, files_argument, help_flag

HELP = """ndeval's diversity measures (the TREC Web track's program, version 4.5 as pyndeval ships it),
printed exactly as ndeval prints them: the header runid,topic,ERR-IA@5,...,strec@20, a line per run
topic in numeric order, then the runid,amean,... line of the means.  QRELS are subtopic qrels
(topic subtopic docno judgment).

Options, before the files, as ndeval reads them:
  -alpha A       redundancy intolerance, 0 to 1 (default 0.5)
  -beta B        patience of NRBP, 0 to 1 (default 0.5)
  -traditional   rank by score, then docno descending (default: by the rank column)
  -M N           keep the first N documents of each topic
  -c             average over every qrels topic
  -baseline RUN  risk-sensitive values against a baseline run
  -riskAlpha R   weight 1 + R of a loss against the baseline (default 0)
  -version       ndeval's version

trecgain's -m ERR_IA@20, alpha_nDCG@10, NRBP, ... with -R subtopics give the same values inside
trec_eval's output (ranked as pyndeval ranks: score descending, then docno ascending)."""
USAGE = "usage: trecgain ndeval [options] QRELS RUN"
#: ndeval's options that take a value.
VALUED = ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha")


class Ndeval(ScriptCommand):
    """ndeval reads its arguments itself: options (one dash) before the two file names."""

    def usage_message(self, message: str) -> str:
        return f"{USAGE} ({message}; --help for help)"


def _number(text: str, name: str, low: float, high: float) -> float:
    import math  # not at start-up: only this path needs it

    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{name} must be a number") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise UsageError(f"{name} must be a number from {low:g} to {high:g}" if high < math.inf
                         else f"{name} must be a number >= {low:g}")
    return value


def options_of(args: tuple[str, ...]):  # -> tuple[ndeval.Options, list[str]]
    """ndeval's options and its two file names."""
    from ..ndeval import Options  # not at start-up: only this command needs it

    options, args = Options(), list(args)
    while len(args) > 2:
        flag = args.pop(0)
        if flag in VALUED:
            if len(args) < 3:
                raise UsageError(f"{flag} needs a value")
            value = args.pop(0)
            if flag == "-alpha":
                options.alpha = _number(value, "-alpha", 0.0, 1.0)
            elif flag == "-beta":
                options.beta = _number(value, "-beta", 0.0, 1.0)
            elif flag == "-M":
                if not (value.isascii() and value.isdigit() and int(value) > 0):
                    raise UsageError("-M must be a positive whole number")
                options.depth = int(value)
            elif flag == "-baseline":
                options.baseline = value
            else:
                options.risk_alpha = _number(value, "-riskAlpha", 0.0, float("inf"))
                options.risk_alpha_text = value
        elif flag == "-traditional":
            options.traditional = True
        elif flag.startswith("-") and len(flag) > 1 and set(flag[1:]) <= {"c", "a"}:
            options.complete = options.complete or "c" in flag  # -a: ndeval's, which changes nothing
        else:
            raise UsageError(f"unknown option {flag}")
    if len(args) != 2:
        raise UsageError("QRELS and RUN")
    return options, args


@click.command(cls=Ndeval, help=HELP, usage=USAGE, usage_hint="")
@help_flag()
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, files: tuple[str, ...]) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    from .. import ndeval  # not at start-up: only this path of the command needs it

    if files[:1] == ("-version",):
        write_stdout(f"ndeval: {ndeval.VERSION}\n".encode())
        return 0
    options, (qrels, run) = options_of(files)
    write_stdout(ndeval.evaluate(qrels, run, options))
    return 0
