"""trecgain: trec_eval's gain-based measures, byte for byte, as a library and a command."""

__version__ = "0.1.0"

from .errors import TrecgainError  # noqa: E402
from .evaluate import Evaluator, Result  # noqa: E402

__all__ = ["Evaluator", "Result", "TrecgainError", "__version__"]
