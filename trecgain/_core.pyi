"""Types of trecgain._core, the Rust extension built from src/lib.rs (PyO3).

Kept in step with src/lib.rs by tests/test_core_stub.py: every public name of the extension is
here and every public name here is in the extension, with the same parameter names.  Private
names (a leading underscore) are the stub's own: aliases and TypedDicts for the plain tuples
and dicts the extension takes and gives.  The options argument is read by field name
(`trecgain.options.EvaluationOptions`, see core_options in src/lib.rs)."""

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeAlias, TypedDict, final

from typing_extensions import Buffer

from trecgain.options import EvaluationOptions

__all__ = [
    "exit_on_interrupt",
    "die_with_parent",
    "exit_on_out_of_memory",
    "prefetch",
    "Prefetch",
    "Qrels",
    "Run",
    "Evaluation",
    "evaluate",
    "explain",
    "part_start",
    "failing_query",
    "assemble",
    "kernels",
    "cwl_records",
    "CwlInputs",
    "CwlMeasured",
    "cwl_read",
    "cwl_evaluate",
    "cwl_bibtex",
]

class _BinaryReader(Protocol):
    """A binary file object: `read(n)` returns at most n bytes, b"" at the end."""

    def read(self, n: int, /) -> bytes: ...

#: A path (read without the interpreter when it is a str) or a binary file object.
_Source: TypeAlias = str | os.PathLike[str] | _BinaryReader

#: An id column (`IdColumn` in src/lib.rs): a list of str or bytes; a one-dimensional buffer of
#: int64 or uint64 (each id its decimal spelling); or (ids joined into one str, a buffer of
#: uint64: where each id ends in the str's UTF-8).
_IdColumn: TypeAlias = list[object] | Buffer | tuple[str, Buffer]
#: What a row reader hands back an id it does not read natively to: (value, field, row) -> bytes.
_IdRule: TypeAlias = Callable[[object, int, int], bytes]

#: A gain spec (trecgain.gains.GainSpec.to_core): text, (level or None, gain) pairs, scheme,
#: exact_ideal.
_SpecTuple: TypeAlias = tuple[str, Sequence[tuple[int | None, float]], Literal["linear", "exp", "binary"], bool]

#: A measure request (trecgain.measures.Request.to_core): kernel, cutoffs, numbers, gains,
#: judged_only, relevance level, summary.
_RequestTuple: TypeAlias = tuple[
    str,
    Sequence[int],
    Sequence[float],
    _SpecTuple | None,
    bool,
    float | None,
    Literal["mean", "sum", "sum_judged_relevant", "count", "tag", "geometric_mean", "none"],
]

#: A part's first failing query (trecgain.distributed): qid, message, source, line.
_Failure: TypeAlias = tuple[bytes, str, str | None, int | None]

#: An output line for `Evaluation.write_trec`: name, value kind, per_query, summary, slots.
_LineFormat: TypeAlias = tuple[bytes, Literal["float", "count", "tag", "chars"], bool, bool, int]

class _NamedParam(TypedDict):
    """A parameter of a measure named in ir_measures' spelling (trecgain_core::measures::NamedParam)."""

    name: str
    kind: Literal["number", "whole"]
    default: float
    range: tuple[float, float]
    help: str

class _KernelRecord(TypedDict):
    """One of the core's measure records (trecgain_core::measures::KERNELS)."""

    name: str
    help: str
    params: Literal["none", "cutoffs", "points", "numbers", "coefficients", "length", "gains", "persistence",
                    "named"]
    naming: Literal["plain", "params", "cutoffs", "points", "named"]
    value: Literal["float", "count", "tag", "chars"]
    summary: Literal["mean", "sum", "sum_judged_relevant", "count", "tag", "geometric_mean", "none"]
    per_query: bool
    in_trec_eval_9: bool
    in_trec_eval: bool
    tie_average: bool
    gains: bool
    discounted: bool
    rank_order: bool
    lower_is_better: bool
    explain: str | None  # the shape (trecgain_core::measures::Explain::name), None: not shown
    unexplained: str | None  # why explain does not show it (one line), None: it does
    ir_measures: list[str]
    ir_params: list[str]
    default_cutoffs: list[int]
    default_numbers: list[float]
    relevance: Literal["any", "qrels", "qrels_jg", "prefs", "subtopics"]
    named: list[_NamedParam]
    max_cutoff: int

class _ExplainedRow(TypedDict):
    """One rank of `explain`'s rows (docno, score, sort_score and line None past the run's end)."""

    rank: int
    docno: bytes | None
    score: float | None
    sort_score: float | None
    line: int | None
    relevance: float | None
    gain: float | None
    discount: float
    discounted_gain: float | None
    dcg: float
    ideal_grade: float | None
    ideal_gain: float | None
    ideal_discounted_gain: float | None
    ideal_dcg: float
    value: float

class _Missed(TypedDict):
    """A relevant document the ranking did not reach."""

    docno: bytes
    grade: float
    gain: float
    ranked_at: int | None

class _Tied(TypedDict):
    docno: bytes
    score: float
    rank: int
    evaluated_rank: int | None

class _TieGroup(TypedDict):
    sort_score: float
    docs: list[_Tied]

class _Step(TypedDict):
    """One rank of a measure outside the DCG family (trecgain_core::steps::Step)."""

    rank: int
    docno: bytes | None
    score: float | None
    sort_score: float | None
    line: int | None
    relevance: float
    counted: bool
    count: int
    gain: float | None
    weight: float | None
    continuation: float | None
    term: float | None
    sum: float
    value: float | None

class _Explanation(TypedDict):
    """`explain`'s answer (trecgain_core::explain::Explanation as a dict)."""

    rows: list[_ExplainedRow]
    steps: list[_Step]
    parts: list[tuple[str, float]]
    formula: str
    columns: list[tuple[str, str]]
    values: list[float]
    own: list[float]
    missed: list[_Missed]
    ties: list[_TieGroup]
    ranked: int
    ideal: int
    judged: int
    docno_ascending: bool
    run_order: bool
    tag: bytes | None
    warnings: list[str]

@final
class Qrels:
    """Judgments, read once (no constructor: `read`, `from_dict`, `from_rows`, `from_tuples`,
    `subtopics_from_tuples`)."""

    @staticmethod
    def read(source: _Source, name: str, fractional: bool, format: str = "qrels") -> Qrels: ...
    @staticmethod
    def from_dict(name: str, source: Mapping[Any, Any], fractional: bool, rules: Any) -> Qrels: ...
    @staticmethod
    def from_rows(
        name: str, qids: _IdColumn, docnos: _IdColumn, grades: Buffer, fractional: bool, rule: _IdRule,
        stop: int | None,
    ) -> Qrels | None: ...
    @staticmethod
    def from_tuples(name: str, rows: Iterable[tuple[Any, ...]], fractional: bool, rules: Any) -> Qrels: ...
    @staticmethod
    def subtopics_from_tuples(name: str, rows: Iterable[tuple[Any, ...]], rules: Any) -> Qrels: ...
    @property
    def source(self) -> str: ...
    @property
    def fractional(self) -> bool: ...
    def __len__(self) -> int: ...
    def to_bytes(self) -> bytes: ...

@final
class Run:
    """A run's results, read once (no constructor: `read`, `from_dict`, `from_rows`, `from_tuples`)."""

    @staticmethod
    def read(
        source: _Source,
        name: str,
        ranks: bool,
        range: tuple[int, int | None] | None = None,
        first_line: int = 1,
        file_start: bool = True,
        allow_empty: bool = False,
        lines: Buffer | None = None,
    ) -> Run: ...
    @staticmethod
    def from_dict(name: str, source: Mapping[Any, Any], rules: Any) -> Run: ...
    @staticmethod
    def from_rows(
        name: str, qids: _IdColumn, docnos: _IdColumn, scores: Buffer, rule: _IdRule, stop: int | None
    ) -> Run | None: ...
    @staticmethod
    def from_tuples(name: str, rows: Iterable[tuple[Any, ...]], rules: Any) -> Run: ...
    @property
    def qids(self) -> list[bytes]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def source(self) -> str: ...
    @property
    def tag(self) -> bytes: ...
    @property
    def has_ranks(self) -> bool: ...
    @property
    def score_is_rank(self) -> bool: ...
    def __len__(self) -> int: ...

@final
class Evaluation:
    """A run's evaluation (no constructor: `evaluate`, `assemble`)."""

    @property
    def qids(self) -> list[bytes]: ...
    @property
    def in_run(self) -> list[bool]: ...
    @property
    def nine_slots(self) -> list[bool]: ...
    @property
    def width(self) -> int: ...
    @property
    def summaries(self) -> list[float]: ...
    @property
    def tag(self) -> bytes: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def mixed_tie_queries(self) -> int: ...
    @property
    def skipped_queries(self) -> tuple[int, int]: ...
    @property
    def left_out_queries(self) -> int: ...
    def column(self, line: int) -> list[float]: ...
    def row(self, query: int) -> list[float]: ...
    def values_bytes(self) -> bytes: ...
    def ties_decided(self, summary_slots: Sequence[bool], per_query: bool, summary: bool) -> int | None: ...
    def printed_differences(
        self, other: Evaluation, lines: Sequence[int | None], summary_slots: Sequence[bool]
    ) -> tuple[int, int | None]: ...
    def for_each_block(self, visit: Callable[[list[bytes], list[bool], list[float]], object]) -> None: ...
    def write_trec(
        self,
        lines: Sequence[_LineFormat],
        per_query: bool,
        summary: bool,
        absent_queries: bool,
        write: Callable[[bytes], object],
    ) -> None: ...

def evaluate(
    qrels: Qrels,
    run: Run,
    requests: Sequence[_RequestTuple],
    options: EvaluationOptions,
    keep_values: bool,
    tie_lines: Sequence[int | None] | None = None,
) -> Evaluation: ...
def explain(
    qrels: Qrels, run: Run, request_tuple: _RequestTuple, options: EvaluationOptions, qid: bytes, min_rows: int
) -> _Explanation: ...
def failing_query(qrels: Qrels, run: Run, requests: Sequence[_RequestTuple], options: EvaluationOptions) -> bytes | None: ...
def assemble(
    qrels: Qrels,
    requests: Sequence[_RequestTuple],
    options: EvaluationOptions,
    source: str,
    tag: bytes,
    qids: Sequence[bytes],
    values: bytes,
    warnings: Sequence[str],
    counts: tuple[int, int, int],
    keep_values: bool,
    failure: _Failure | None = None,
) -> Evaluation: ...
class Prefetch:
    """The program's first reading of a qrels file and a run file, on a second thread (`prefetch`)."""

    def wait(self) -> None: ...
    def take(self, qrels_path: str, run_path: str, qrels_wanted: bool,
             run_wanted: bool) -> tuple[Qrels | None, Run | None]: ...

def prefetch(qrels_path: str, run_path: str) -> Prefetch: ...
def part_start(file: object, position: int) -> tuple[int, int]: ...
def kernels() -> list[_KernelRecord]: ...
def exit_on_interrupt(announce: bool) -> None: ...
def die_with_parent(parent: int) -> None: ...
def exit_on_out_of_memory(announce: bool) -> None: ...

# C/W/L (trecgain.cwl): cwl_eval's metric classes; its gain, cost and result files read; every
# metric measured on every ranking; the BibTeX file of its -b.
def cwl_records() -> list[tuple[str, list[tuple[str, str | None]], str]]: ...

class CwlInputs: ...

def cwl_read(
    gain_file: str, cost_file: str | None, result_file: str, min_gain: float, max_gain: float, depth: int
) -> CwlInputs: ...

class CwlMeasured:
    def topics(self) -> list[str]: ...
    def values(self) -> list[float]: ...
    def text(self, colnames: bool) -> bytes: ...

def cwl_evaluate(
    inputs: CwlInputs,
    metrics: list[tuple[int, list[float], str]],
    bounds: tuple[int, float, float, float],
    residuals: bool,
) -> tuple[CwlMeasured | None, tuple[str | None, int, str] | None]: ...
def cwl_bibtex(records: list[int]) -> str: ...
