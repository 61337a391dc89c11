"""trecgain: trec_eval's gain-based measures, byte for byte, as a library and a command."""

from __future__ import annotations

__version__ = "0.2.0"
__all__ = ["Comparison", "Evaluator", "Result", "TrecgainError", "__version__", "compare"]


def __getattr__(name: str):
    """Import the engine on first use, so `trecgain --version` and errors in options stay quick."""
    if name in ("Evaluator", "Result"):
        from . import evaluate  # not at start-up: only this path of the command needs it

        return getattr(evaluate, name)
    if name in ("compare", "Comparison"):
        from . import comparison  # not at start-up: only this path of the command needs it

        return getattr(comparison, name)
    if name == "TrecgainError":
        from .errors import TrecgainError  # not at start-up: only this path of the command needs it

        return TrecgainError
    raise AttributeError(f"module 'trecgain' has no attribute {name!r}")
