"""The `trecgain` command line, on click: `trecgain [options] QRELS RUN...` evaluates
(trecgain.cli.evaluate), `trecgain SUBCOMMAND ...` runs a subcommand (a module of this package
each, imported only when named).  `main` runs a command line and is the one place that turns
errors into one line on standard error and an exit status: 0 done, 1 error, 2 usage error,
3 a --fail-under threshold missed, 130 interrupted."""

from __future__ import annotations

import sys

import click

from ..errors import TrecgainError
from .console import fail, quiet_stdout
from .declare import SUBCOMMANDS
from .evaluate import COMMAND as EVALUATE

#: The evaluation's name inside the group: no argument can be it (a file named like a
#: subcommand is ./gdeval).
_EVALUATE = "\0evaluate"
#: The environment variable click's completion scripts set.
COMPLETE_VAR = "_TRECGAIN_COMPLETE"


class Trecgain(click.Group):
    """The program: the evaluation unless the first argument names a subcommand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == _EVALUATE:
            return EVALUATE
        if name not in SUBCOMMANDS:
            return None
        import importlib  # not at start-up: only a subcommand needs it

        return importlib.import_module(f"{__name__}.{SUBCOMMANDS[name][0]}").COMMAND

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if (args and args[0] in SUBCOMMANDS) or (not args and ctx.resilient_parsing):
            return super().parse_args(ctx, args)  # completing the first word: subcommands too
        return super().parse_args(ctx, [_EVALUATE, *args])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list:
        """The first word: a subcommand, or what the evaluation takes there (an option, a file)."""
        subcommands = [item for item in super().shell_complete(ctx, incomplete) if not incomplete.startswith("-")]
        from click.shell_completion import CompletionItem  # not at start-up: only completion needs it

        if incomplete.startswith("-"):
            return subcommands + EVALUATE.shell_complete(ctx, incomplete)
        return subcommands + [CompletionItem(incomplete, type="file")]


PROGRAM = Trecgain("trecgain", add_help_option=False, no_args_is_help=False)


def main(argv: list[str] | None = None, prefetched: object | None = None) -> int:
    """Run the command line (sys.argv's by default); the exit status.  `prefetched`: a reading
    of the last two arguments started before click was imported (trecgain._entry), which the
    evaluation takes if its options read those files that way."""
    args = sys.argv[1:] if argv is None else list(argv)
    import os  # the environment: completion's request

    if COMPLETE_VAR in os.environ:
        from .completion import complete  # not at start-up: only completion needs it

        return complete(PROGRAM, os.environ[COMPLETE_VAR])
    try:
        with PROGRAM.make_context("trecgain", args, obj=prefetched) as ctx:
            return PROGRAM.invoke(ctx) or 0
    except click.UsageError as err:
        return fail(_usage_message(err), 2)
    except TrecgainError as err:
        return fail(str(err), 1)
    except ImportError as err:  # numpy, scipy, matplotlib or Dask missing: the message says what to install
        return fail(str(err), 1)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except MemoryError:
        return fail("out of memory", 1)
    except BrokenPipeError:  # standard output's reader went away (`| head -1`): status 0
        quiet_stdout()
        return 0


def parsed(args: list[str], subcommand: str | None = None) -> dict:
    """The values of a command line's options by name (its file names under `files`), as the
    evaluation or `subcommand` reads them, without running it (click.UsageError: it does not
    parse)."""
    command = EVALUATE if subcommand is None else PROGRAM.get_command(None, subcommand)  # type: ignore[arg-type]
    with command.make_context(f"trecgain {subcommand or ''}".strip(), list(args)) as ctx:
        return dict(ctx.params)


def option_names(subcommand: str | None = None) -> list[str]:
    """Every spelling of the evaluation's or `subcommand`'s options (-m, --measure, ...)."""
    command = EVALUATE if subcommand is None else PROGRAM.get_command(None, subcommand)  # type: ignore[arg-type]
    return [name for param in command.params if isinstance(param, click.Option) for name in param.opts]


def _usage_message(err: click.UsageError) -> str:
    """A usage error's one line, in the words of trec_eval's getopt and with the usage line of
    the command it is about."""
    command = err.ctx.command if err.ctx is not None else EVALUATE
    if not hasattr(command, "usage_message"):
        command = EVALUATE
    if isinstance(err, click.NoSuchOption):
        message = f"unknown option '{err.option_name}'"
    elif isinstance(err, click.BadOptionUsage):
        flag = any(err.option_name in p.opts and getattr(p, "is_flag", False) for p in command.params)
        message = f"option '{err.option_name}' {'takes no value' if flag else 'needs a value'}"
    else:
        message = err.format_message()
    return command.usage_message(message)
