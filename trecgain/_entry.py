"""The `trecgain` program: Ctrl-C is handled before anything else is imported."""

import gc
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
    from . import cli  # not at start-up: only this path of the command needs it
    from .cli import console  # not at start-up: only this path of the command needs it

    gc.freeze()  # what start-up made lives as long as the program: no collection walks it again
    gc.enable()

    console.CORE_HANDLES_INTERRUPT = True  # a command restores it after writing an -o file
    sys.exit(cli.main())
