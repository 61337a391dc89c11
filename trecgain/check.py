"""The rules for the Python values the API takes: options, and the ids, grades and scores of
pytrec_eval-style dicts.  Every check raises `TrecgainError` with one line naming the problem.

- A flag is True or False (numpy's bool too), nothing else: `complete="False"` or
  `judged_only=1` would silently mean something else.
- A bool is not a number, and a string is never read as a number (files are text; the API
  takes Python values: `" 2 "` is refused, not parsed).
- A whole number is an int (numpy integers too); 2.0 is a float, not a whole number.
- A number is an int or a real number (float, numpy floats, Decimal, Fraction), finite; an
  int that becomes a double must be exact (integers beyond 2**53 are not all doubles).
- A grade is an int of at most 2**53 in magnitude, the qrels reader's limit; with fractional
  grades also any finite real number (the reader then reads any decimal).  2.0 is a
  fractional grade, as '2.0' is in a file -- except in a DataFrame, where pandas makes a
  column of ints floats once it has held a NaN: there a float holding a whole number is one.
- An id is a str, bytes or an int (written as str(int)); a str is encoded as UTF-8 with
  surrogateescape, so "\\udc80".."\\udcff" stand for the bytes 0x80..0xff (as os.fsencode
  reads them, and as `Result.qids` decodes them back); other lone surrogates are refused.

Nothing here is imported that the command line's start-up would pay for.
"""

from __future__ import annotations

import math

from .errors import TrecgainError

#: Every integer up to 2**53 in magnitude is exactly a double, and the qrels reader reads
#: integer grades up to there (core/src/read/number.rs, MAX_INTEGER_GRADE).
MAX_EXACT = 2**53
#: The file readers' limit on a qid or docno (core/src/read/mod.rs, MAX_ID_BYTES).
MAX_ID_BYTES = 1024
#: An int of more bits than this has more than MAX_ID_BYTES digits (2**3500 > 10**1053).
ID_BITS = 3500


def show(value: object, limit: int = 40) -> str:
    """A value as the message names it: its repr, cut short; `<Type>` for a repr of several
    lines (a DataFrame, an array) or one that fails, so the message stays one line."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real problem
        text = ""
    if not text or not text.isprintable():
        return f"<{type(value).__name__}>"
    if len(text) > limit:
        digits = f" ({len(text)} digits)" if isinstance(value, int) else ""
        text = text[:limit - 3] + "..." + digits
    return text


def a(value: object) -> str:
    """What a value is, for messages: `None`, `a list`, `an int`."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _is_bool(value: object) -> bool:
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")  # numpy.bool_ too


def digits(text: str) -> int:
    """An optionally signed run of ASCII digits (the caller has checked it) as an int; past 30
    digits only the sign matters (10^30 is beyond every count, cutoff and level trecgain uses),
    since int() refuses 4300 digits, leading zeros included."""
    body = (text[1:] if text[:1] in "+-" else text).lstrip("0") or "0"
    value = int(body) if len(body) <= 30 else 10**30
    return -value if text[:1] == "-" else value


def integer(value: object) -> int | None:
    """The value as an int if it is a whole number (int, numpy integer; not bool), else None."""
    if type(value) is int:
        return value  # type: ignore[return-value]
    if _is_bool(value) or isinstance(value, (str, bytes, bytearray, float)):
        return None
    index = getattr(type(value), "__index__", None)
    if index is None:
        return None
    try:
        return int(index(value))
    except Exception:
        return None


def real(value: object) -> float | None:
    """The value as a float if it is a real number other than a whole number (float, numpy
    floats, Decimal, Fraction), else None.  The float may be inf or nan."""
    if type(value) is float:
        return value  # type: ignore[return-value]
    if _is_bool(value) or isinstance(value, (str, bytes, bytearray, int)):
        return None
    if getattr(type(value), "__index__", None) is not None:
        return None  # a whole number: see integer()
    to_float = getattr(type(value), "__float__", None)
    if to_float is None:
        return None
    try:
        return float(to_float(value))
    except Exception:  # complex, or a __float__ that fails
        return None


def flag(value: object, name: str) -> bool:
    """An option that is True or False."""
    if _is_bool(value):
        return bool(value)
    raise TrecgainError(f"{name} must be True or False, not {show(value)}")


def whole(value: object, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """An option that is a whole number, from `minimum` to `maximum`."""
    number = integer(value)
    if number is None:
        raise TrecgainError(f"{name} must be a whole number, not {show(value)}")
    if minimum is not None and number < minimum:
        if maximum is not None:
            raise TrecgainError(f"{name} must be from {minimum} to {maximum}, not {show(number)}")
        raise TrecgainError(f"{name} must be at least {minimum}, not {show(number)}")
    if maximum is not None and number > maximum:
        raise TrecgainError(f"{name} must be from {minimum} to {maximum}, not {show(number)}")
    return number


def text(value: object, name: str, example: str) -> str:
    """An option that is a non-empty string (a gain spec, a discount)."""
    if not isinstance(value, str) or not value:
        raise TrecgainError(f"{name} must be a string such as {example}, not {show(value)}")
    return value


def choice(value: object, name: str, allowed: tuple[str, ...]) -> str:
    """An option that is one of a few strings."""
    if not isinstance(value, str) or value not in allowed:
        raise TrecgainError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}, not {show(value)}")
    return value


def keywords(given: dict, allowed: tuple[str, ...], function: str, described: str) -> None:
    """Keyword arguments taken through **options: an unknown one is refused, naming those
    `function` takes (`described`: what they are, e.g. "Evaluator's options")."""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise TrecgainError(f"{function} has no option {unknown[0]!r} ({described}: {', '.join(allowed)})")


def measures(value: object) -> list[str]:
    """`measures=`: one name or an iterable of names, at least one; an ir_measures Measure
    object (`nDCG@10`, `AP(rel=2)`) counts as its name, `str(measure)`."""
    if isinstance(value, str) or ir_measures_name(value) is not None:
        value = [value]
    if isinstance(value, (bytes, bytearray)) or not hasattr(value, "__iter__"):
        raise TrecgainError(f"measures must be a measure name or a list of them, not {show(value)}")
    out = [ir_measures_name(m) or m for m in value]  # type: ignore[attr-defined]
    if not out:
        raise TrecgainError("no measures: give at least one, e.g. measures=['official']")
    for m in out:
        if not isinstance(m, str) or not m:
            raise TrecgainError(f"measures: {show(m)} is not a measure name (a string such as 'ndcg_cut.10')")
    return out


def ir_measures_name(value: object) -> str | None:
    """An ir_measures Measure object's name (`str(nDCG@10)` is 'nDCG@10'), None for anything
    else; ir_measures is never imported (a Measure is known by its class's module and its
    NAME and params)."""
    module = getattr(type(value), "__module__", None)
    if not isinstance(module, str) or not module.startswith("ir_measures.") or not hasattr(value, "NAME") \
            or not hasattr(value, "params"):
        return None
    return str(value)


def key(value: object, what: str, source: str) -> bytes:
    """A query or document id as bytes (see the module's rules)."""
    if isinstance(value, str):
        try:
            out = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise TrecgainError(f"{what} {show(value)} has a lone surrogate that stands for no byte "
                                "(only '\\udc80' to '\\udcff' do, as surrogateescape writes them)", source) from None
    elif isinstance(value, (bytes, bytearray)):
        out = bytes(value)
    else:
        number = integer(value)
        if number is None:
            raise TrecgainError(f"{what} {show(value)} is not a string (ids are str, bytes or int)", source)
        if number.bit_length() > ID_BITS:  # str() refuses past 4300 digits: never an id's length
            raise TrecgainError(f"{what} {show(value)} is more than {MAX_ID_BYTES} digits: ids are at most "
                                f"{MAX_ID_BYTES} bytes, as in files", source)
        out = str(number).encode()
    if out.split() != [out] or b"\0" in out or len(out) > MAX_ID_BYTES:  # split(): at ASCII whitespace
        if len(out) > MAX_ID_BYTES:
            problem = f"is {len(out)} bytes: ids are at most {MAX_ID_BYTES} bytes, as in files"
        else:
            problem = "is empty" if not out else "contains whitespace or a NUL byte"
        raise TrecgainError(f"{what} {show(value)} {problem}", source)
    return out


def grade(value: object, fractional: bool, where: str, source: str, whole_floats: bool = False) -> float:
    """A grade: a whole number of at most 2**53 in magnitude (the qrels reader's limit: every
    integer up to there is a double), or with fractional grades also any finite real number,
    as the reader reads any decimal then.  `where`: "document 'd' of query 'q'"; with
    `whole_floats` (a DataFrame's grades) a float holding a whole number counts as one."""
    number = integer(value)
    if number is None and whole_floats:
        f = real(value)
        if f is not None and math.isfinite(f) and f.is_integer():
            number = int(f)
    if number is not None:
        if not -MAX_EXACT <= number <= MAX_EXACT:
            raise TrecgainError(f"grade {show(value)} of {where} is out of range (integer grades are at most "
                                f"2**53 = {MAX_EXACT} in magnitude, as in qrels files)", source)
        return float(number)
    f = real(value)
    if f is None:
        kind = " (strings are not read as numbers)" if isinstance(value, (str, bytes)) else ""
        raise TrecgainError(f"grade {show(value)} of {where} is not a number{kind}", source)
    if not math.isfinite(f):
        raise TrecgainError(f"grade {show(value)} of {where} is not a finite number", source)
    if not fractional:
        raise TrecgainError(f"grade {show(value)} of {where} is not an integer (fractional_grades=True "
                            "accepts it)", source)
    return f


def score(value: object, where: str, source: str) -> float:
    """A score: a finite real number, or an int that is exactly a double."""
    number = integer(value)
    if number is not None:
        try:
            f = float(number)
        except OverflowError:
            f = math.inf
        if f != number:
            raise TrecgainError(f"score {show(value)} of {where} is not exactly a double "
                                "(pass a float to have it rounded)", source)
        return f
    f = real(value)
    if f is None:
        kind = " (strings are not read as numbers)" if isinstance(value, (str, bytes)) else ""
        raise TrecgainError(f"score {show(value)} of {where} is not a number{kind}", source)
    if not math.isfinite(f):
        raise TrecgainError(f"score {show(value)} of {where} is not a finite number", source)
    return f
