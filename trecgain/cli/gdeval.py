"""`trecgain gdeval QRELS RUN K`: gdeval.pl's output (trecgain.gdeval), as the script prints it."""

from __future__ import annotations

import click

from .console import UsageError, write_stdout
from .declare import ScriptCommand, files_argument, help_flag

HELP = """gdeval.pl's nDCG@K and ERR@K (the TREC Web track's script, version 1.2a as ir_measures ships it),
printed exactly as gdeval.pl prints them: the header runid,topic,ndcg@K,err@K, a line per topic in
numeric order, then the runid,amean,... line of the means.  K is a positive whole number.

Gains are 2^grade - 1 (grades at most 4), the discount is ln(rank + 1).  trecgain's -m err_cut.K and
-m ERR@K give the same ERR inside trec_eval's output."""
USAGE = "usage: trecgain gdeval QRELS RUN K"


class Gdeval(ScriptCommand):
    """gdeval.pl reads its arguments as they come (a name or a K may start with a dash) and
    answers -help as --help."""

    def usage_message(self, message: str) -> str:
        return f"{USAGE} (K a positive whole number; --help for help)"


@click.command(cls=Gdeval, help=HELP, usage=USAGE, usage_hint="")
@help_flag()
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, files: tuple[str, ...]) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    if len(files) != 3 or not (files[2].isascii() and files[2].isdigit() and files[2][0] != "0"):
        raise UsageError("K")
    from .. import gdeval  # not at start-up: only this path of the command needs it

    write_stdout(gdeval.evaluate(files[0], files[1], gdeval.whole_number(files[2])).to_bytes())
    return 0
