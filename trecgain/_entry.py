"""The `trecgain` program: Ctrl-C is handled before anything heavy is imported."""

import os
import signal
import sys


def _interrupted(signum: int, frame: object) -> None:
    """One line and status 130, whatever was running (nothing has been printed yet, or ever half)."""
    try:
        os.write(2, b"trecgain: interrupted\n")
    finally:
        os._exit(130)


def run() -> None:
    signal.signal(signal.SIGINT, _interrupted)
    from . import _core
    from .cli import main

    _core.exit_on_interrupt(True)  # the core runs without giving Python's handler a chance
    sys.exit(main())
