"""What the command line's pieces share (its commands, trecgain.distributed): one line on
standard error, the exit status of a failure, standard output's writes, whole-number options,
and a result's warnings and notes.

Imported at the command's start-up (--version): nothing here imports more than trecgain.errors
at module level.  The library never prints: only the command line uses this module."""

from __future__ import annotations

import sys

from ..errors import TrecgainError


class UsageError(Exception):
    """A command line that does not parse (status 2, with the command's usage line)."""


#: Set by the `trecgain` program (trecgain._entry): the core's Ctrl-C handler is installed, and a
#: command that lets Ctrl-C raise for a while (writing an -o file) installs it again after.
CORE_HANDLES_INTERRUPT = False


def integer_option(value: str | None, option: str, minimum: int | None = None) -> int | None:
    """An option's whole number (None when not given): digits with an optional sign, at least
    `minimum`; anything else is a TrecgainError naming the option."""
    if value is None:
        return None
    text = value.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not (body.isdigit() and body.isascii()):
        raise TrecgainError(f"option {option} takes a whole number, not '{value}'")
    from ..check import digits  # here: --version does not need it (start-up)

    number = digits(text)
    if minimum is not None and number < minimum:
        raise TrecgainError(f"option {option} must be at least {minimum}, not {number}")
    return number


def tie_rule(ties: str) -> str:
    """--ties' value, checked (a usage error: the library's own check is a TrecgainError)."""
    from ..options import TIE_RULES  # here: not every path of the command needs it

    if ties not in TIE_RULES:
        raise UsageError(f"option --ties takes {', '.join(TIE_RULES[:-1])} or {TIE_RULES[-1]}, not '{ties}'")
    return ties


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
