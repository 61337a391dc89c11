"""What the command line's pieces share (trecgain.cli, its subcommands, trecgain.distributed):
one line on standard error, the exit status of a failure, standard output's writes, trec_eval's
getopt_long reading of options, whole-number options, and a result's warnings and notes.

Imported at the command's start-up (--version): nothing here imports more than trecgain.errors
at module level.  The library never prints: only the command line uses this module."""

from __future__ import annotations

import sys

from .errors import TrecgainError


class UsageError(Exception):
    """A command line that does not parse (status 2, with the usage line)."""


def integer_option(value: str | None, option: str, minimum: int | None = None) -> int | None:
    """An option's whole number (None when not given): digits with an optional sign, at least
    `minimum`; anything else is a TrecgainError naming the option."""
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not (body.isdigit() and body.isascii()):
        raise TrecgainError(f"option {option} takes a whole number, not '{value}'")
    from .check import digits  # here: --version does not need it (start-up)

    number = digits(text)
    if minimum is not None and number < minimum:
        raise TrecgainError(f"option {option} must be at least {minimum}, not {number}")
    return number


def tie_rule(ties: str) -> str:
    """--ties' value, checked (a usage error: the library's own check is a TrecgainError)."""
    from .options import TIE_RULES  # here: not every path of the command needs it

    if ties not in TIE_RULES:
        raise UsageError(f"option --ties takes {', '.join(TIE_RULES[:-1])} or {TIE_RULES[-1]}, not '{ties}'")
    return ties


def parse_args(args: list[str], options: tuple,
               defaults: dict | None = None) -> tuple[dict, tuple[str, ...]]:
    """Options by key, and the file names, as GNU getopt_long reads them: bundled short
    flags (-qc), attached values (-l2, -mndcg, --compat=9), unique prefixes of long names,
    options after file names, and `--` before file names that start with a dash.  `options`
    is a table like trecgain.cli.OPTIONS (a subcommand has its own); `defaults`: the values of
    the options not given, by key (None when not there)."""
    defaults = {} if defaults is None else defaults
    short = {o[0]: o for o in options if o[0]}
    values: dict = {key: ([] if takes == "values" else False if takes == "flag" else defaults.get(key))
                    for _, _, key, takes in options}
    files: list[str] = []
    i = 0
    while i < len(args):
        arg, i = args[i], i + 1
        if arg == "--":
            files.extend(args[i:])
            break
        if arg.startswith("--"):
            name, eq, attached = arg[2:].partition("=")
            option = _long_option(name, options)
            i = _take(values, option, f"--{option[1]}", attached if eq else None, args, i)
        elif arg.startswith("-") and arg != "-":
            for k, letter in enumerate(arg[1:], 1):
                option = short.get(letter)
                if option is None:
                    raise UsageError(f"unknown option '-{letter}'")
                if option[3] != "flag":
                    i = _take(values, option, f"-{letter}", arg[k + 1:] or None, args, i)
                    break
                values[option[2]] = True
        else:
            files.append(arg)
    return values, tuple(files)


def _long_option(name: str, options: tuple) -> tuple:
    exact = [o for o in options if o[1] == name]
    matches = exact or [o for o in options if o[1].startswith(name)] if name else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"unknown option '--{name}'")
    raise UsageError(f"option '--{name}' is ambiguous: {', '.join('--' + o[1] for o in matches)}")


def _take(values: dict, option: tuple, spelled: str, attached: str | None, args: list[str], i: int) -> int:
    """Store one option's value (attached, or the next argument); the index after it."""
    _, _, key, takes = option
    if takes == "flag":
        if attached is not None:
            raise UsageError(f"option '{spelled}' takes no value")
        values[key] = True
        return i
    if attached is None:
        if i >= len(args):
            raise UsageError(f"option '{spelled}' needs a value")
        attached, i = args[i], i + 1
    if takes == "values":
        values[key].append(attached)
    else:
        values[key] = attached
    return i


def write_stdout(data: bytes) -> None:
    """Write to standard output; a full disk or a closed stdout is an error, a closed pipe is not."""
    if sys.stdout is None:
        raise TrecgainError("cannot write the results: standard output is closed")
    out = sys.stdout.buffer
    try:
        out.write(data)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        quiet_stdout()
        raise TrecgainError(f"cannot write the results: {err.strerror or err}") from None


def result_messages(result, source: str, per_query: bool, summary: bool, quiet: bool,
                    decided: int | None = None) -> list[str]:
    """The warnings and notes a run's evaluation has for standard error (with `quiet`, none:
    the evaluation did not check whether ties decided a value). `decided`: how many printed
    values ties decided, when the result cannot say (trecgain.distributed)."""
    if quiet:
        return []
    notes = list(result.notes)
    decided = result.ties_decided(per_query, summary) if decided is None else decided
    if decided:
        notes.append(f"ties between documents of different grades decided {decided} printed "
                     f"{'value' if decided == 1 else 'values'} of {source}: trec_eval orders "
                     "tied documents by docno, descending (--ties average or --ties rank for another rule)")
    return [f"warning: {w}" for w in result.warnings] + [f"note: {n}" for n in notes]


_ESCAPES = {c: repr(chr(c))[1:-1] for c in (*range(32), 127)}


def fail(message: str, status: int) -> int:
    """Say `message` on standard error; the exit status `status` (for `return fail(...)`)."""
    say(message)
    return status


def say(message: str) -> None:
    """One line on standard error, control characters escaped; a closed or full stderr is
    ignored: what goes to standard output never depends on it."""
    try:
        sys.stderr.write(f"trecgain: {message.translate(_ESCAPES)}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # closed (None, or a closed file), full, gone
        pass


def quiet_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so interpreter shutdown does not complain."""
    import os  # here: only after a closed pipe

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
