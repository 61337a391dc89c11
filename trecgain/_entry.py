"""The `trecgain` program: Ctrl-C is handled before anything else is imported."""

import sys


def run() -> None:
    try:
        from . import _core  # not at start-up: only this path of the command needs it

        _core.exit_on_interrupt(True)  # one line and status 130 at Ctrl-C, from here on
    except KeyboardInterrupt:  # Ctrl-C before the core's handler is in place: the same line and status
        sys.stderr.write("trecgain: interrupted\n")
        raise SystemExit(130) from None
    _core.exit_on_out_of_memory(True)  # one line and status 1 when the core runs out of memory
    from . import cli  # not at start-up: only this path of the command needs it
    from .cli import console  # not at start-up: only this path of the command needs it

    console.CORE_HANDLES_INTERRUPT = True  # a command restores it after writing an -o file
    sys.exit(cli.main())
