"""The `trecgain` program: Ctrl-C is handled before anything else is imported."""

import gc
import os
import stat
import sys


def run() -> None:
    gc.disable()  # start-up allocates thousands of objects and frees almost none: click's import
    # alone set off some 20 collections of nothing, several ms of the command's start-up
    try:
        from . import _core  # not at start-up: only this path of the command needs it

        _core.exit_on_interrupt(True)  # one line and status 130 at Ctrl-C, from here on
    except KeyboardInterrupt:  # Ctrl-C before the core's handler is in place: the same line and status
        sys.stderr.write("trecgain: interrupted\n")
        raise SystemExit(130) from None
    _core.exit_on_out_of_memory(True)  # one line and status 1 when the core runs out of memory
    prefetched = _prefetch(sys.argv[1:], _core)
    from . import cli  # not at start-up: only this path of the command needs it
    from .cli import console  # not at start-up: only this path of the command needs it

    gc.freeze()  # what start-up made lives as long as the program: no collection walks it again
    gc.enable()

    console.CORE_HANDLES_INTERRUPT = True  # a command restores it after writing an -o file
    sys.exit(cli.main(prefetched=prefetched))


#: The most the prefetch reads (both files' bytes): enough for any run whose start-up matters,
#: little enough that a guess the command does not take costs no memory worth counting.
PREFETCH_BYTES = 64 << 20


def _prefetch(args: list[str], core: object) -> object | None:
    """Start reading the last two arguments as qrels and run on a second thread, while click
    is imported (most of a short evaluation's time): when they are regular files, the argument
    before them is not one (several runs), and the first argument is an option or a file (not a
    subcommand).  Nothing here decides what the command does: it takes the reading only if its
    options read these files this way (cli.evaluate)."""
    if len(args) < 2 or any(a.startswith("-") for a in args[-2:]):
        return None
    try:
        first = args[0].startswith("-") or _size(args[0]) is not None
        sizes = [_size(path) for path in args[-2:]]
        if not first or None in sizes or sum(sizes) > PREFETCH_BYTES:  # type: ignore[arg-type]
            return None
        if len(args) > 2 and _size(args[-3]) is not None:  # several runs, likely (-j): each read once
            return None
        return core.prefetch(*args[-2:])  # type: ignore[attr-defined]
    except (OSError, ValueError, UnicodeError):  # a name the core cannot take: the command says why
        return None


def _size(path: str) -> int | None:
    """A regular file's size (None: not a regular file: a pipe is read once, by the command)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None
