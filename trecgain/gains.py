"""Gain strings and schemes, parsed into the `GainSpec` the core's gain kernels read.

A gain string `1=3.5,2=9` gives gains per relevance level; levels not named keep their
level as gain (or the scheme's gain: linear, exp, binary).  The tables and the ideal
ranking trec_eval builds from them are computed in the core (core/src/measures/gains.rs).
"""

from __future__ import annotations

import math
from .check import digits
from .errors import TrecgainError
from .record import Record


class GainPair(Record):
    """One `level=gain`; level None: a name that is not an integer (ignored in compat 10)."""

    __slots__ = ("level", "gain")


class GainSpec(Record):
    """Gains per relevance level: `level=gain,...` pairs (a tuple of GainPair) over a scheme for
    levels not named.  Schemes: linear (gain = grade, trec_eval's), exp (2^grade - 1), binary
    (1 if grade >= -l).  exact_ideal: sort the table by true gain, not trec_eval's truncated
    comparison."""

    __slots__ = ("text", "pairs", "scheme", "exact_ideal")
    DEFAULTS = {"scheme": "linear", "exact_ideal": False}

    def to_core(self) -> tuple:
        """The tuple trecgain._core reads."""
        text = self.text.encode("utf-8", "backslashreplace").decode("utf-8")  # only for messages
        return (text, [(_clamp(p.level), p.gain) for p in self.pairs], self.scheme, self.exact_ideal)


def _clamp(level: int | None) -> int | None:
    """A level beyond 64 bits names no grade (grades are at most 2^53): saturate, as strtol does."""
    return None if level is None else max(-(2**63), min(level, 2**63 - 1))


SCHEMES = ("linear", "exp", "binary")
MAX_EXP_GRADE = 996  # 2^grade - 1 within MAX_GAIN


def parse_global_gains(text: str, compat: str = "10") -> GainSpec:
    """--global-gains: a scheme name (linear, exp, binary) or a level=gain list."""
    if text in SCHEMES:
        return GainSpec(text, (), text)
    return parse_gain_spec(text, compat)


def parse_gain_spec(text: str, compat: str) -> GainSpec:
    """`level=gain` pairs separated by commas; trec_eval's alternation rules, numbers checked."""
    last = ","
    for ch in text:
        if ch in ",=":
            if ch == last:
                last = ","
                break
            last = ch
    if last != "=":
        raise TrecgainError(f"malformed gain parameters '{text}': expected level=gain,level=gain,...")
    pairs = []
    for item in text.split(","):
        name, _, value = item.partition("=")
        pairs.append(GainPair(_level(name, compat), _gain_value(value, text)))
    return GainSpec(text, tuple(pairs))


def _level(name: str, compat: str) -> int | None:
    """trec_eval 10 ignores a name that is not an integer; 9.x reads it with atol."""
    body = name[1:] if name[:1] in "+-" else name
    if body.isdigit() and body.isascii():
        return digits(name)
    return atol(name) if compat == "9" else None


def atol(text: str) -> int:
    """C's atol: leading spaces, a sign, digits; anything else ends the number (empty is 0)."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    s = s[1:] if s[:1] in "+-" else s
    run = ""
    for ch in s:
        if not ("0" <= ch <= "9"):
            break
        run += ch
    return digits(("-" if sign < 0 else "") + run) if run else 0


def _gain_value(value: str, text: str) -> float:
    try:
        gain = float(value)
    except ValueError:
        gain = math.nan
    if not math.isfinite(gain) or "_" in value or not value.isascii():
        raise TrecgainError(f"gain '{value}' in '{text}' is not a number")
    return check_gain(gain, f"gain '{value}' in '{text}'")


#: The largest gain in magnitude (the core's MAX_GAIN): a sum of fewer than 10^8 stays finite.
MAX_GAIN = 1e300


def check_gain(gain: float, what: str) -> float:
    if not abs(gain) <= MAX_GAIN:
        raise TrecgainError(f"{what} is too large: gains are at most 1e300 in magnitude (sums of larger "
                            "ones overflow)")
    return gain
