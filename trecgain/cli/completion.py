"""`trecgain completion bash|zsh|fish`: click's completion script for the shell, and `complete`,
which answers the script's requests (click's completion, from the commands' declarations: a new
measure, option or subcommand is offered as soon as it exists).

bash's script is click's with two changes: it hands the program the line as bash split it
(COMP_LINE and COMP_WORDBREAKS, so that `-m nDCG@1` and `--format=cs` complete only the text
after `@`, `=` or `:`, which is all bash replaces), and file names come from `compgen -f`."""

from __future__ import annotations

import os

import click
from click.shell_completion import (BashComplete, CompletionItem, FishComplete, ZshComplete, add_completion_class,
                                     get_completion_class, shell_complete, split_arg_string)

from .console import UsageError, write_stdout
from .declare import TrecgainCommand, help_flag

SHELLS = ("bash", "zsh", "fish")
PROGRAM = "trecgain"
_BASH = """\
%(complete_func)s() {
    local IFS=$'\\n'
    local response type value
    response=$(env COMP_LINE="${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}" COMP_WORDBREAKS="$COMP_WORDBREAKS" \\
%(complete_var)s=bash_complete $1)
    for completion in $response; do
        IFS=',' read type value <<< "$completion"
        if [[ $type == 'dir' ]]; then
            COMPREPLY+=($(compgen -d -- "$value"))
        elif [[ $type == 'file' ]]; then
            COMPREPLY+=($(compgen -f -- "$value"))
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=("$value")
        fi
    done
    return 0
}

complete -o nosort -F %(complete_func)s %(prog_name)s
"""
#: bash's own default, for a shell that does not pass its COMP_WORDBREAKS.
_WORD_BREAKS = " \t\n\"'@><=;|&(:"


def _attached(args: list[str], incomplete: str) -> tuple[list[str], str]:
    """`--option=value` being completed as the option and its value (click splits it only after
    it has chosen the command, and the first word of the line names none yet)."""
    if incomplete.startswith("--") and "=" in incomplete:
        name, _, value = incomplete.partition("=")
        return [*args, name], value
    return args, incomplete


class Zsh(ZshComplete):
    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        return super().get_completions(*_attached(args, incomplete))


class Fish(FishComplete):
    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        return super().get_completions(*_attached(args, incomplete))


class Bash(BashComplete):
    """click's bash completion, reading the line as bash split it into words."""

    source_template = _BASH

    def get_completion_args(self) -> tuple[list[str], str]:
        line = os.environ.get("COMP_LINE", "")
        words = split_arg_string(line)
        if not line or line[-1] in " \t\n":
            words.append("")
        return words[1:-1], (words[-1] if words else "")

    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        args, value = _attached(args, incomplete)
        items = super().get_completions(args, value)
        breaks = set(os.environ.get("COMP_WORDBREAKS") or _WORD_BREAKS) - set(" \t\n")
        cut = max((value.rfind(c) for c in breaks), default=-1) + 1  # bash replaces only what follows
        return [CompletionItem(item.value[cut:] if item.type == "plain" else value[cut:], type=item.type)
                for item in items if item.type != "plain" or str(item.value).startswith(value[:cut])]


for _shell in (Bash, Zsh, Fish):
    add_completion_class(_shell)


def complete(program: click.Command, instruction: str) -> int:
    """Answer a completion script's request (`bash_complete`, `zsh_source`, ...): the exit status."""

    return shell_complete(program, {}, PROGRAM, "_TRECGAIN_COMPLETE", instruction)


def script(program: click.Command, shell: str) -> str:
    """The completion script for `shell`, from click."""

    return get_completion_class(shell)(program, {}, PROGRAM, "_TRECGAIN_COMPLETE").source()


HELP = """Print a completion script for the shell: options, measure names after -m, formats after --format,
10 and 9 after --compat, file names elsewhere (click's completion).  Load it with

\b
  bash:  eval "$(trecgain completion bash)"     (in ~/.bashrc)
  zsh:   eval "$(trecgain completion zsh)"      (in ~/.zshrc, after compinit)
  fish:  trecgain completion fish | source      (in ~/.config/fish/config.fish)"""
USAGE = f"usage: trecgain completion {'|'.join(SHELLS)}"


class Completion(TrecgainCommand):
    def usage_message(self, message: str) -> str:
        return f"{USAGE} (--help for help)"


@click.command(cls=Completion, help=HELP, usage=USAGE, usage_hint="")
@help_flag()
@click.argument("shell", nargs=-1, type=click.Choice(SHELLS))
@click.pass_context
def COMMAND(ctx: click.Context, show_help: bool, shell: tuple[str, ...]) -> int:
    if show_help:
        write_stdout(ctx.command.help_text(ctx).encode())
        return 0
    if len(shell) != 1:
        raise UsageError("one shell")
    write_stdout(script(ctx.find_root().command, shell[0]).encode())  # the program's completion
    return 0
