"""`trecgain differ -m MEASURE [--query QID] [-l L] [--format text|json|markdown] QRELS RUN`: one
measure under every tool's convention and formula choice, grouped where the numbers agree
(trecgain.differ)."""

from __future__ import annotations

import click

from .console import UsageError, integer_option, write_stdout
from .declare import TEXT, TrecgainCommand, Words, files_argument, help_flag

USAGE = "usage: trecgain differ -m MEASURE [--query QID] [-l L] [--format text|json|markdown] QRELS RUN"
HELP = """Compute one measure every way the evaluation tools compute it: each tool's convention (--as TOOL:
trec_eval, trec_eval9, pytrec_eval, beir, mteb, ir_measures, ranx, sklearn, msmarco) and, for a measure
with gains and a discount, the formula's choices on trec_eval's rules (gains linear or exp; discount
log2, ln, log10 or Jarvelin and Kekalainen's with base 2).  Ways whose numbers agree (every query's
and the mean) form a group; for each group that differs from trec_eval's, the choices in which it
departs (each tried alone on trec_eval's rules: does it change the numbers by itself?) and the queries
where it differs most.  --query QID adds that query's value under every way (`trecgain explain -m
MEASURE --query QID --global-gains exp --discount jk:2` shows a formula side by side with trec_eval's,
rank by rank)."""
FORMATS = ("text", "json", "markdown")


class Differ(TrecgainCommand):
    def usage_message(self, message: str) -> str:
        return f"differ: {message} ({USAGE}; --help for help)"


@click.command(cls=Differ, help=HELP, usage=USAGE, usage_hint="")
@click.option("-m", "--measure", "measure", metavar="MEASURE", type=TEXT, help="the measure, of one line (ndcg_cut.10)")
@click.option("-l", "--level_for_rel", "level", metavar="L", type=TEXT, help="grade >= L counts as relevant (default 1)")
@click.option("--query", "query", metavar="QID", type=TEXT, help="that query's value under every way, too")
@click.option("--format", "format", default="text", metavar="text|json|markdown", type=Words(FORMATS),
              help="text (default), a JSON document or a Markdown table")
@help_flag()
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, files: tuple[str, ...], measure: str | None, level: str | None,
            query: str | None, format: str) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    if measure is None:
        raise UsageError("give the measure with -m")
    if len(files) != 2:
        raise UsageError(f"expected a qrels file and a run file, got {len(files)} file name(s)")
    if format not in FORMATS:
        raise UsageError(f"option --format takes {', '.join(FORMATS)}, not '{format}'")
    relevance_level = integer_option(level, "-l") if level is not None else 1
    from ..differ import differ  # not at start-up: only this path of the command needs it
    from ..output import swapped_error  # not at start-up: only this path of the command needs it
    from ..errors import TrecgainError  # not at start-up: only this path of the command needs it

    try:
        found = differ(files[0], files[1], measure, relevance_level, query)
    except TrecgainError as err:
        raise swapped_error(err, files[0], files[1], "trecgain differ -m MEASURE QRELS RUN") from None
    text = {"text": found.to_text, "json": found.to_json, "markdown": found.to_markdown}[format]()
    write_stdout(text.encode("utf-8", "surrogateescape"))
    return 0
