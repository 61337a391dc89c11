"""What the commands declare once and share: the evaluation options (`evaluation_options`), the
parameter types whose values completion offers (`Words`, `Files`), and `TrecgainCommand`, a
click command that reads its command line as trec_eval's getopt_long does.

click parses; the values stay text, checked by the commands with trecgain's own messages (a
bad value is a TrecgainError or a UsageError naming the option, as before click)."""

from __future__ import annotations

import click

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable, Iterable

#: The subcommands: name -> (module of this package that declares it as COMMAND, one line of help).
SUBCOMMANDS = {
    "compare": ("compare", "is run B better than run A: paired tests, intervals, corrections"),
    "explain": ("explain", "one query's computation rank by rank: gains, discounts, ideal ranking, ties"),
    "differ": ("differ", "one measure as each tool computes it: where the numbers differ, and why"),
    "gdeval": ("gdeval", "gdeval.pl's nDCG@K and ERR@K, exactly as it prints them"),
    "cwl": ("cwl", "cwl_eval's C/W/L measures (EU, ETU, EC, ETC, ED), exactly as it prints them"),
    "ndeval": ("ndeval", "ndeval's diversity measures (ERR-IA, alpha-nDCG, NRBP, ...), exactly as it prints them"),
    "completion": ("completion", "a completion script for bash, zsh or fish"),
}
#: Cutoffs offered with ir_measures names (`nDCG@10`); any other cutoff can be typed.
_CUTOFFS = (1, 5, 10, 20, 100, 1000)


def measure_names() -> list[str]:
    """What -m offers: the registry's measures, the nicknames, and ir_measures' common names."""
    from ..measures import NICKNAMES, REGISTRY  # not at start-up: only completion needs them
    from ..names import MEASURES, NAMED  # not at start-up: only completion needs it

    out = [m.name for m in REGISTRY if m.naming != "named"] + [n for version in NICKNAMES.values() for n in version]
    for name, (with_cutoff, without, _) in MEASURES.items():
        if name in ("ndcg", "err"):
            continue  # lower-case aliases of nDCG and ERR
        if name == "IPrec":  # its number is a recall point, and it needs one
            out.append("IPrec@0.5")
            continue
        if without:
            out.append(name)
        if with_cutoff:
            limit = NAMED[with_cutoff]["max_cutoff"] if with_cutoff in NAMED else 0
            out.extend(f"{name}@{k}" for k in _CUTOFFS if not limit or k <= limit)
    return list(dict.fromkeys(out))


def tie_rules() -> tuple[str, ...]:
    from ..options import TIE_RULES  # not at start-up: only completion needs it

    return TIE_RULES


def convention_names() -> tuple[str, ...]:
    from ..conventions import CONVENTIONS  # not at start-up: only completion needs it

    return tuple(CONVENTIONS)


class Words(click.ParamType):
    """A text value for which completion offers words (a tuple, or a function that gives them
    when asked); the command checks the value with its own message."""

    name = "text"

    def __init__(self, words: tuple[str, ...] | Callable[[], Iterable[str]]):
        self.words = words

    def convert(self, value: object, param: object, ctx: object) -> object:
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
        from click.shell_completion import CompletionItem  # not at start-up: only completion needs it

        words = self.words() if callable(self.words) else self.words
        return [CompletionItem(w) for w in words if w.startswith(incomplete)]


class Files(click.ParamType):
    """File names (qrels and runs: `-` is standard input), completed by the shell."""

    name = "file"

    def convert(self, value: object, param: object, ctx: object) -> object:
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list:
        from click.shell_completion import CompletionItem  # not at start-up: only completion needs it

        return [CompletionItem(incomplete, type="file")]


TEXT = Words(())
FILES = Files()
GAIN_WORDS = ("linear", "exp", "binary")
DISCOUNT_WORDS = ("log:2", "log:e", "log:10", "jk:2")


def evaluation_options(measure_help: str, several_gains: bool = False,
                       leave_out: tuple[str, ...] = ()) -> Callable:
    """A decorator declaring the options of an evaluation (trec_eval's and trecgain's), which
    every command that evaluates shares: `measure_help` says what -m does there; with
    `several_gains`, --global-gains repeats (compare); `leave_out`: parameter names the command
    does not take."""
    declared = [
        click.option("-m", "--measure", "measures", multiple=True, metavar="NAME[.PARAMS]",
                     type=Words(measure_names), help=measure_help),
        click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
                     help="average over every qrels query (missing ones score 0)"),
        click.option("-l", "--level_for_rel", "level", metavar="L", type=TEXT,
                     help="grade >= L counts as relevant (default 1)"),
        click.option("-J", "--Judged_docs_only", "judged_only", is_flag=True,
                     help="drop documents the qrels do not judge, then re-rank"),
        click.option("-M", "--Max_retrieved_per_topic", "max_docs", metavar="M", type=TEXT,
                     help="keep the first M documents of each ranking"),
        click.option("-N", "--Number_docs_in_coll", "num_docs", metavar="N", type=TEXT,
                     help="documents in the collection (utility's d coefficient)"),
        click.option("--compat", default="10", metavar="10|9", type=Words(("10", "9")),
                     help="trec_eval 10.0 numerics (default) or 9.x (float32 scores)"),
        click.option("--global-gains", "global_gains", multiple=several_gains, metavar="SPEC",
                     type=Words(GAIN_WORDS),
                     help="gains for every gain measure, ndcg_cut too: linear, exp, binary, or level=gain,... "
                          "(a measure's own gain string wins)"
                          + ("; several (repeated, or linear,exp) compare each gain measure under each"
                             if several_gains else "")),
        click.option("--discount", default="log:2", metavar="SPEC", type=Words(DISCOUNT_WORDS),
                     help="log:2 (default), log:e, log:10, log:B, or jk:B (Jarvelin-Kekalainen)"),
        click.option("--exact-ideal", "exact_ideal", is_flag=True,
                     help="sort gains by value when building the ideal ranking"),
        click.option("--fractional-grades", "fractional_grades", is_flag=True,
                     help="accept grades such as 2.5 (the grade is the gain, or its exponent)"),
        click.option("--err-max-grade", "err_max_grade", metavar="G", type=TEXT,
                     help="err_cut's top grade (default 4, as gdeval.pl)"),
        click.option("--ties", default="docno", metavar="RULE", type=Words(tie_rules),
                     help="docno (default: score, then docno descending, as trec_eval), rank (the rank "
                          "column), average (each tied document its group's mean gain: {tie_average})"),
        click.option("--as", "convention", default="trec_eval", metavar="TOOL", type=Words(convention_names),
                     help="compute each measure as TOOL computes it, its lines marked NAME~TOOL: {conventions}"),
    ]
    names = ("measures", "complete", "level", "judged_only", "max_docs", "num_docs", "compat", "global_gains",
             "discount", "exact_ideal", "fractional_grades", "err_max_grade", "ties", "convention")
    kept = [option for name, option in zip(names, declared) if name not in leave_out]

    def declare(function: Callable) -> Callable:
        for option in reversed(kept):
            function = option(function)
        return function

    return declare


def help_flag(text: str = "this help") -> Callable:
    """-h/--help as an ordinary flag: the command decides what it shows (`-h -m NAME`)."""
    return click.option("-h", "--help", "show_help", is_flag=True, help=text)


def files_argument(function: Callable) -> Callable:
    """The file names, anywhere among the options (the command counts them)."""
    return click.argument("files", nargs=-1, type=FILES)(function)


class TrecgainCommand(click.Command):
    """A click command read as trec_eval's getopt_long reads a command line: unique prefixes of
    long options (`--meas=ndcg`), options after file names, `--` before names that start with a
    dash.  `usage`: its usage line; `usage_hint`: what follows a usage error's message, in
    parentheses.  Its own UsageError (trecgain.cli.console) becomes click's, with this command."""

    def __init__(self, *args: object, usage: str, usage_hint: str, **kwargs: object):
        super().__init__(*args, add_help_option=False, **kwargs)  # -h is a flag of the command's
        self.usage, self.usage_hint = usage, usage_hint

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.full_long_names(ctx, args))

    def invoke(self, ctx: click.Context) -> object:
        from .console import UsageError  # the command's own usage errors, as click's

        try:
            return super().invoke(ctx)
        except UsageError as err:
            raise click.UsageError(str(err), ctx) from None

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write(self.usage + "\n")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        templates = {param: param.help for param in self.params
                     if isinstance(param, click.Option) and param.help and "{" in param.help}
        try:  # the tables' words, as they are now (a format registered since is listed)
            for param, template in templates.items():
                param.help = template.format_map(_HelpWords())
            super().format_options(ctx, formatter)
        finally:
            for param, template in templates.items():
                param.help = template

    def help_text(self, ctx: click.Context) -> str:
        """The command's -h: its usage line, description and options, as click formats them."""
        formatter = click.HelpFormatter(width=100, max_width=100)
        self.format_help(ctx, formatter)
        return formatter.getvalue()

    def usage_message(self, message: str) -> str:
        """A usage error's one line."""
        return f"{message} ({self.usage_hint})"

    def full_long_names(self, ctx: click.Context, args: list[str]) -> list[str]:
        """`args` with each long option's unique prefix spelled out (getopt_long's reading); an
        ambiguous prefix is a usage error, an unknown name is left for click to refuse."""
        takes: dict[str, bool] = {}
        long_of: dict[str, str] = {}
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                longs = [name for name in param.opts if name.startswith("--")]
                for name in param.opts:
                    takes[name] = not param.is_flag
                    if longs and not name.startswith("--"):
                        long_of[name] = longs[0]
        out: list[str] = []
        i = 0
        while i < len(args):
            arg, i = args[i], i + 1
            if arg == "--":
                out.extend(args[i - 1:])
                break
            if arg.startswith("--"):
                name, eq, value = arg.partition("=")
                name = _full_name(name, takes, ctx)
                out.append(name + eq + value)
                value_follows = takes.get(name) and not eq
            else:
                value_follows = arg.startswith("-") and arg != "-" and _bundle_ends_wanting_value(arg, takes)
                spelled = _bundle_as_long(arg, takes, long_of) if arg.startswith("-") and arg != "-" else None
                out.extend(spelled if spelled is not None and (i < len(args) or not value_follows) else [arg])
            if value_follows and i < len(args):  # the option's value, whatever it looks like
                out.append(args[i])
                i += 1
        return out


class ScriptCommand(TrecgainCommand):
    """A subcommand that reads its arguments as the script it reproduces does (gdeval.pl,
    ndeval): everything after its name is an argument, even one that starts with a dash, except
    a first -h, --help or -help, which asks for help."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args[:1] in (["-h"], ["--help"], ["-help"]):
            args = ["--help"]
        elif args[:1] != ["--help"]:
            args = ["--", *args]
        return super().parse_args(ctx, args)


class _HelpWords(dict):
    """What an option's help names from the tables (`{tie_average}`, `{formats}`), looked up
    when -h is asked for."""

    def __missing__(self, key: str) -> str:
        if key == "tie_average":  # the measures whose records define --ties average
            from ..measures import REGISTRY  # not at start-up: only -h needs it

            named = [m.name for m in REGISTRY if m.tie_average and m.value == "float"]
            counts = any(m.tie_average and m.value != "float" for m in REGISTRY)
            return ", ".join(named + (["the counts"] if counts else []))
        if key == "conventions":  # the tools of --as
            return ", ".join(convention_names())
        if key == "formats":  # the registry's formats and what each is
            from ..formats import FORMATS  # not at start-up: only -h needs it

            return "; ".join(f"{f.name} ({f.help})" for f in FORMATS.values())
        raise KeyError(key)


def _full_name(name: str, takes: dict[str, bool], ctx: click.Context) -> str:
    """The long option `name` is a unique prefix of (itself when exact or unknown)."""
    if name in takes or name == "--":
        return name
    matches = [o for o in takes if o.startswith("--") and o.startswith(name)]
    if len(matches) > 1:
        raise click.UsageError(f"option '{name}' is ambiguous: {', '.join(matches)}", ctx)
    return matches[0] if matches else name


def _bundle_as_long(arg: str, takes: dict[str, bool], long_of: dict[str, str]) -> list[str] | None:
    """A bundle of short options (-qc, -mndcg, -l2) spelled long (--q.., --measure=ndcg), or None
    when a letter is unknown or has no long name (click then reads it as given).  click's parser
    looks every short option up as a long one first, and a miss builds a "did you mean" list:
    a difflib import and a search per option on every ordinary command line."""
    out: list[str] = []
    for k, letter in enumerate(arg[1:], 1):
        wants, long = takes.get(f"-{letter}"), long_of.get(f"-{letter}")
        if wants is None or long is None:
            return None
        if wants:
            value = arg[k + 1:]
            out.append(f"{long}={value}" if value else long)
            return out
        out.append(long)
    return out


def _bundle_ends_wanting_value(arg: str, takes: dict[str, bool]) -> bool:
    """Whether a bundle of short options (-qc, -qm) ends in an option whose value is the next
    argument."""
    for k, letter in enumerate(arg[1:], 1):
        wants = takes.get(f"-{letter}")
        if wants is None:
            return False  # unknown: click says so
        if wants:
            return k == len(arg) - 1
    return False
