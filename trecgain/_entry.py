"""The `trecgain` program: Ctrl-C is handled before anything else is imported."""

import sys


def run() -> None:
    from . import _core  # not at start-up: only this path of the command needs it

    _core.exit_on_interrupt(True)  # one line and status 130 at Ctrl-C, from here on
    _core.exit_on_out_of_memory(True)  # one line and status 1 when the core runs out of memory
    from . import cli  # not at start-up: only this path of the command needs it

    cli.CORE_HANDLES_INTERRUPT = True  # cli restores it after writing an -o file
    sys.exit(cli.main())
