"""`trecgain explain -m MEASURE --query QID [options] QRELS RUN`: one query's computation rank by
rank (trecgain.explain), as text or JSON."""

from __future__ import annotations

import click

from ..errors import TrecgainError
from ..explain import SUPPORTED_TEXT, explain_options, parse_measure
from ..formats import dumps
from ..measures import parse_requests
from ..options import REL_FORMATS, EvaluationOptions
from ..output import swapped_error
from ..read import read_qrels, read_run
from .console import UsageError, integer_option, say, tie_rule, write_stdout
from .declare import TEXT, TrecgainCommand, Words, evaluation_options, files_argument, help_flag

USAGE = ("usage: trecgain explain -m MEASURE [-m MEASURE ...] --query QID [-l L] [-J] [-M M] [-R FORMAT] [--compat 10|9] "
         "[--global-gains SPEC] [--discount SPEC] [--exact-ideal] [--fractional-grades] [--ties RULE] "
         "[--format text|json] QRELS RUN")
HELP = """Show one query's computation of a measure rank by rank. For the DCG family: each ranked document's
score, grade ('unjudged': judged negative; '-': not in the qrels), gain, discount (the divisor, log2(rank + 1)
by default), what it adds and the DCG so far; the ideal ranking's grade, what it adds and the ideal DCG
so far; and the measure at that rank (rows go on past the ranking while the ideal ranking has
documents). For Compat: per depth the ranked document, whether the ideal ranking has it, the documents
both rankings share so far, the ideal's document, the weight p^(d-1) and the overlap so far. For the
diversity measures (-R subtopics): per rank the document's relevant subtopics with each one's count so
far, its novelty gain, the discount, the running sum, the sum with every subtopic covered at every rank,
and ndeval's greedy ideal ranking beside (ties by docno ascending, as ndeval ranks). For the judgment-group
measures (-R qrels_jg): each group's value of the plain measure and each document's grade per group. For the
preference measures (-R prefs): which ranked documents the preferences name, and each group's fulfilled and
possible preferences (they count pairs, not ranks). For the C/W/L measures (INST, INSQ, BPM, SDCG, NERR8-11,
RBP(rel=...)): per rank of their ranking (ties in the run's order) the gain, C(i) (the chance of going on),
W(i) (the rank's weight) and the expected utility to that rank. runid: the run's tag and its line; num_q: the
queries counted. For the other measures: the formula, the counts that enter it (R, retrieved, ...), and per
rank the columns the formula has (whether the document counts, how many have so far, the term it adds,
the running sum, the measure there). Rows stop at a cutoff measure's largest cutoff. Then each line's
value as the evaluation prints it (and in full precision), the judged documents the ranking misses,
and the runs of tied scores trec_eval's rule (score descending, then docno descending) ordered (for a
cutoff measure, those reaching its largest cutoff). The numbers are the evaluation's, bit for bit.
With --global-gains or --discount, a measure they change shows trec_eval's default and the given
computation side by side.

Measures: {supported}; a measure's own gains too (ndcg.1=1,2=3).  Several -m give several tables
(with --format json, a JSON array of documents)."""


class Explain(TrecgainCommand):
    def usage_message(self, message: str) -> str:
        return (f"explain: {message} (usage: trecgain explain -m MEASURE --query QID [options] QRELS RUN; "
                "--help for help)")


@click.command(cls=Explain, help=HELP, usage=USAGE, usage_hint="")
@evaluation_options("the measure to explain (repeatable)", leave_out=(
    "complete", "num_docs", "err_max_grade", "convention"))
@click.option("--query", "query", metavar="QID", type=TEXT, help="the query (required)")
@click.option("-R", "--Rel_info_format", "rel_format", metavar="FORMAT", type=Words(REL_FORMATS),
              help="qrels (default); qrels_jg (judgment groups), prefs or qrels_prefs (preferences), subtopics "
                   "(diversity qrels: qid subtopic docno judgment), for the measures that read them")
@click.option("--format", "format", default="text", metavar="text|json", type=Words(("text", "json")),
              help="text (default) or a JSON document")
@help_flag()
@files_argument
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, files: tuple[str, ...], **options: object) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).replace("{supported}", SUPPORTED_TEXT).encode())
        return 0
    output = _command(options, files, say)
    write_stdout(output.encode("utf-8", "surrogateescape"))
    return 0


def _command(o: dict, files: tuple[str, ...], say) -> str:
    if not o["measures"]:
        raise UsageError("give a measure with -m")
    if o["query"] is None:
        raise UsageError("give the query with --query QID")
    if len(files) != 2:
        raise UsageError(f"expected a qrels file and a run file, got {len(files)} file name(s)")
    if o["compat"] not in ("10", "9"):
        raise UsageError(f"option --compat takes 10 or 9, not '{o['compat']}'")
    tie_rule(o["ties"])
    if o["format"] not in ("text", "json"):
        raise UsageError(f"option --format takes text or json, not '{o['format']}'")
    rel_format = o["rel_format"] or "qrels"
    if rel_format not in REL_FORMATS:
        raise UsageError(f"option -R takes {', '.join(REL_FORMATS)}, not '{rel_format}'")
    if files.count("-") > 1:
        raise TrecgainError("standard input ('-') can be read as one file only")
    for m in o["measures"]:  # refused before any file is read
        parse_measure(m, o["compat"])
    level = integer_option(o["level"], "-l") if o["level"] is not None else 1
    max_docs = integer_option(o["max_docs"], "-M", 0)
    try:
        qrels = read_qrels(files[0], fractional=o["fractional_grades"], rel_format=rel_format)
        run = read_run(files[1], ranks=o["ties"] == "rank")
    except TrecgainError as err:
        raise swapped_error(err, files[0], files[1], "trecgain explain -m MEASURE --query QID [options] QRELS RUN") \
            from None
    # checked once, as the first measure's explanation checked them (its measure for the tie rule); each
    # further measure's tie rule is checked by Evaluator.from_options in turn
    options = EvaluationOptions.checked(o["compat"], level, o["judged_only"], False, max_docs, o["global_gains"],
                                        o["discount"], o["exact_ideal"], o["fractional_grades"], ties=o["ties"],
                                        requests=lambda mode: parse_requests([o["measures"][0]], mode),
                                        rel_format=rel_format)
    explanations = [explain_options(qrels, run, m, o["query"], options) for m in o["measures"]]
    for warning in dict.fromkeys(w for e in explanations for w in e.warnings):
        say(f"warning: {warning}")
    if o["format"] == "json":
        docs = [e.to_dict() for e in explanations]
        return dumps(docs[0] if len(docs) == 1 else docs, indent=1) + "\n"
    return "\n".join(e.to_text() for e in explanations)
