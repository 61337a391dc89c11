"""The library entry point: options and measure requests in, the core's evaluation out.

`Evaluator` parses and checks everything a user can get wrong before any file is read
past the qrels; `trecgain._core.evaluate` runs read -> rank -> label -> measures ->
summary; `Result` is a view of what it returned (no numpy needed)."""

from __future__ import annotations


from . import _core, check
from .conventions import TREC_EVAL, check_measures, described, line_name, rounded
from .errors import TrecgainError
from .measures import Request, parse_requests, rule_notes
from .options import EvaluationOptions, checked_rel_format, checked_ties
from .read import read_qrels, read_run
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    from .read import Source


class Line(Record):
    """One output line family: a name, its kind (float | count | tag), whether it is printed
    per query, the per-query values and the `all` value."""

    __slots__ = ("name", "kind", "per_query", "values", "summary")


class LineFormat(Record):
    """How one output line is made from an evaluation: its name, kind (float | count | tag |
    chars), whether it is printed per query, its summary rule ("none": no `all` line), the
    first value slot of the line in a query's row, and how many slots it takes."""

    __slots__ = ("name", "kind", "per_query", "rule", "slot", "slots")


class Result(Record):
    """What an evaluation produced, in trec_eval's order: the core's Evaluation, the requests,
    whether queries the run lacks get per-query lines (trec_eval 10 with -c), warnings and
    notes (skipped queries, scores that are ranks, ...) for the caller to show (the library
    never prints), and whether the per-query values were kept
    (`evaluate(run, keep_values=False)`: `per_query`, `lines` and `to_dataframe` raise
    ValueError), the run's file name when it was evaluated from one (`source`), the convention
    whose rules made the values (--as: a trecgain.conventions.Convention) and what JSON calls it
    (`convention_name`: None for trec_eval's own rules, see trecgain.conventions.described), and
    what its means are multiplied by (`share`: the evaluated queries' share of the run's, for a
    convention whose mean is over every run query)."""

    __slots__ = ("evaluation", "requests", "absent_queries", "warnings", "keep_values", "notes", "source",
                 "zscores", "convention", "convention_name", "share")
    DEFAULTS = {"warnings": [], "keep_values": True, "notes": [], "source": None, "zscores": False,
                "convention": TREC_EVAL, "convention_name": None, "share": 1.0}

    def ties_decided(self, per_query: bool = False, summary: bool = True) -> int:
        """How many printed values (4 decimals) of `to_trec(per_query, summary)` would read
        otherwise were tied documents of different grades ordered the other way round (0 unless
        evaluated with check_ties=True under trec_eval's tie rule)."""
        _, summary_slots = _slot_masks(self.requests)
        decided = self.evaluation.ties_decided(summary_slots, check.flag(per_query, "per_query"),
                                               check.flag(summary, "summary"))
        return decided or 0

    def _kept(self, what: str) -> None:
        if not self.keep_values:
            raise ValueError(f"{what} needs the per-query values, which evaluate(run, keep_values=False) does not "
                             "keep: evaluate with keep_values=True (aggregate and to_trec work either way)")

    @property
    def qid_bytes(self) -> list[bytes]:
        return self.evaluation.qids

    @property
    def qids(self) -> list[str]:
        return [_text(q) for q in self.qid_bytes]

    @property
    def runid(self) -> str:
        return _text(self.evaluation.tag)

    def line_formats(self) -> list[LineFormat]:
        """Each output line's format, in trec_eval's order."""
        out, slot = [], 0
        for r in self.requests:
            for name, slots in zip(r.lines, r.slots()):
                out.append(LineFormat(name, r.measure.value, r.measure.per_query, r.measure.summary, slot, slots))
                slot += slots
        return out

    @property
    def lines(self) -> list[Line]:
        """Every output line with its per-query values and summary (None: no `all` line)."""
        self._kept("Result.lines")
        out = []
        summaries = self.evaluation.summaries
        for f in self.line_formats():
            columns = [self.evaluation.column(f.slot + i) for i in range(f.slots)]
            values = [_value(list(row), f.kind, f.rule) for row in zip(*columns)] if columns else []
            out.append(Line(f.name, f.kind, f.per_query, values, self._summary(summaries, f.kind, f.rule, f.slot)))
        return out

    def _summary(self, summaries: list[float], kind: str, rule: str, slot: int) -> object:
        if rule == "none":
            return None
        if kind == "tag":
            return self.runid
        if kind != "float":
            return _py(summaries[slot], kind)
        value = summaries[slot]
        if rule == "mean" and self.share != 1.0:  # the run queries the qrels lack count 0 (or 1)
            value = value * self.share + (1.0 - self.share if self.convention.no_relevant == "one" else 0.0)
        return rounded(value, self.convention)

    @property
    def per_query(self) -> dict[str, dict[str, float | int | str]]:
        """{qid: {line name: value}} for every evaluated query (lines printed per query; a
        line where the query has no value, as Accuracy's without a relevant document, is left out)."""
        self._kept("Result.per_query")
        rows: dict = {}
        self._each_query(rows.__setitem__, printed=False)
        return rows

    def query_values(self) -> list[tuple[str, dict[str, float | int | str]]]:
        """[(qid, {line name: value})] of the queries `to_trec(per_query=True)` prints, in its
        order (with -c, the queries the run lacks only under trec_eval 10's rules)."""
        self._kept("Result.query_values")
        rows: list = []
        self._each_query(lambda qid, line_values: rows.append((qid, line_values)), printed=True)
        return rows

    def each_query_values(self, visit: Callable[[str, dict[str, float | int | str]], object]) -> None:
        """Call `visit(qid, {line name: value})` for each query `to_trec(per_query=True)` prints,
        in its order, a block of queries at a time: the values need not have been kept (they are
        measured again as they go), and none but the block's are held."""
        self._each_query(visit, printed=True)

    def _each_query(self, visit: Callable[[str, dict[str, float | int | str]], object], printed: bool) -> None:
        """`visit(qid, {line name: value})` a block of queries at a time: with `printed`, the
        queries and lines `to_trec(per_query=True)` prints (see _line_formats), else every
        evaluated query with every per-query line."""
        shown, absent = (_fast(formats) for formats in self._line_formats(printed))
        every_query = self.absent_queries or not printed
        width = self.evaluation.width

        def block(qids: list[bytes], in_run: list[bool], values: list[float]) -> None:
            for i, qid in enumerate(qids):
                if in_run[i] or every_query:
                    base, line_values = i * width, {}
                    for name, slot, slots, float_value, kind, rule, optional in (shown if in_run[i] else absent):
                        value = values[base + slot] if float_value else \
                            _value(values[base + slot:base + slot + slots], kind, rule)
                        if not (optional and value != value):  # NaN: the query has no value (Accuracy)
                            line_values[name] = value
                    visit(_text(qid), line_values)

        self.evaluation.for_each_block(block)

    def _line_formats(self, printed: bool) -> tuple[list, list]:
        """The per-query lines' formats for a query of the run, and for one it lacks: with
        `printed`, only the lines printed for it, those of measures under trec_eval 10's rules
        (9.x's never evaluate it; `per_query` shows their empty ranking's values)."""
        formats = [f for f in self.line_formats() if f.per_query]
        nine = self.evaluation.nine_slots
        return formats, [f for f in formats if not (printed and f.slot < len(nine) and nine[f.slot])]

    @property
    def aggregate(self) -> dict[str, float | int | str]:
        """{line name: value of the `all` line}."""
        summaries = self.evaluation.summaries
        return {f.name: self._summary(summaries, f.kind, f.rule, f.slot)
                for f in self.line_formats() if f.rule != "none"}

    def to_dataframe(self, form: str = "wide", summary: bool = False):
        """The values as a pandas DataFrame (pandas is optional: install it to use this).
        wide: one row per evaluated query (index qid), one column per line printed per query,
        and with summary=True a last row `all` of those lines' `all` values.  long: columns
        run, query, measure, value, one row per line of `to_trec(per_query=True, summary)`
        (run: the run's file, else its runid)."""
        self._kept("Result.to_dataframe")
        form = check.choice(form, "form", ("wide", "long"))
        summary = check.flag(summary, "summary")
        try:
            import pandas as pd  # optional dependency: imported only when used
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from None
        if form == "long":
            from . import formats  # not at import: only this path needs it

            rows = formats.rows(formats.run_values(self, self.source, True, summary))
            return pd.DataFrame(list(rows), columns=list(formats.ROW_FIELDS))
        per_query = self.per_query
        names = [f.name for f in self.line_formats() if f.per_query]
        columns = {n: [row.get(n, float("nan")) for row in per_query.values()] for n in names}  # NaN: no value
        index = self.qids
        if summary:
            aggregate = self.aggregate
            columns = {n: [*values, aggregate.get(n)] for n, values in columns.items()}
            index = [*index, "all"]
        frame = pd.DataFrame(columns, index=index)
        frame.index.name = "qid"
        return frame

    def to_json(self, per_query: bool = False, summary: bool = True) -> str:
        """This run's object of the command's `--format json` document: file (the run's file
        or null), runid, aggregate (unless summary=False) and per_query (with per_query=True)."""
        from . import formats  # not at import: only this path needs it

        per_query = check.flag(per_query, "per_query")
        summary = check.flag(summary, "summary")
        return formats.run_json(formats.run_values(self, self.source, per_query, summary))

    def write_trec(self, write, per_query: bool = False, summary: bool = True) -> None:
        """Hand the exact text the command line prints to `write(bytes)`, a megabyte at a time."""
        if not callable(write):
            raise TrecgainError(f"write_trec needs a function taking bytes (such as sys.stdout.buffer.write), "
                                f"not {check.show(write)}")
        per_query = check.flag(per_query, "per_query")
        summary = check.flag(summary, "summary")
        lines = [(f.name.encode(), f.kind, f.per_query, f.rule != "none", f.slots) for f in self.line_formats()]
        if self.zscores:  # trec_eval's "Z%-22s" and %6.4f for every number, counts too
            lines = [(b"Z" + name.ljust(22), "float", *rest) if kind not in ("tag", "chars") else
                     (name, kind, *rest) for name, kind, *rest in lines]
        if self.share == 1.0 and self.convention.rounding is None:
            self.evaluation.write_trec(lines, per_query, summary, self.absent_queries, write)
            return
        # a convention's means (over the run's queries, rounded) are the aggregate's: written here
        self.evaluation.write_trec(lines, per_query, False, self.absent_queries, write)
        if summary:
            write("".join(f"{name:<22}\tall\t{value:6.4f}\n" if isinstance(value, float) else
                          f"{name:<22}\tall\t{value}\n" for name, value in self.aggregate.items()).encode())

    def to_trec_bytes(self, per_query: bool = False, summary: bool = True) -> bytes:
        chunks: list[bytes] = []
        self.write_trec(chunks.append, per_query, summary)
        return b"".join(chunks)

    def to_trec(self, per_query: bool = False, summary: bool = True) -> str:
        """The exact text the command line prints (-q gives per_query, -n turns summary off)."""
        return self.to_trec_bytes(per_query, summary).decode("utf-8", "surrogateescape")


def _run_share(evaluation: Any, options: EvaluationOptions) -> float:
    """What a mean over the evaluated queries is multiplied by to be a mean over every run
    query, those the qrels lack scoring 0 (a convention's queries="run": trectools,
    torchmetrics; 1 for torchmetrics-pos, added by Result); else 1."""
    if options.convention.queries != "run":
        return 1.0
    evaluated = sum(evaluation.in_run)
    extra = evaluation.skipped_queries[1]
    return evaluated / (evaluated + extra) if evaluated + extra else 1.0


def _text(value: bytes) -> str:
    return bytes(value).decode("utf-8", "surrogateescape")


def _py(value: float, kind: str) -> float | int:
    return int(value) if kind == "count" else float(value)


def _fast(formats: list[LineFormat]) -> list[tuple[str, int, int, bool, str, str, bool]]:
    """Line formats as each_query_values reads them in its inner loop: (name, slot, slots,
    whether the value is the slot's double itself, kind, summary rule, whether a query may have
    no value: a NaN, left out)."""
    return [(f.name, f.slot, f.slots, f.kind == "float" and f.rule != "geometric_mean" and f.slots == 1, f.kind,
             f.rule, f.rule == "mean_of_defined") for f in formats]


def _value(slots: list[float], kind: str, rule: str) -> float | int | str:
    """One query's value of a line from its slots: relstring's characters as text; the
    geometric means' per-query logs as the floored value itself."""
    if kind == "chars":
        return "".join(chr(int(c)) for c in slots if c)
    if rule == "geometric_mean":
        import math  # not at import: only this path needs it

        return math.exp(slots[0])
    return _py(slots[0], kind)


class Evaluator:
    """Evaluate runs against one set of qrels, with trec_eval's options.

    qrels: a path, '-', an open file, {qid: {docno: grade}}, a pandas DataFrame with columns
    query_id, doc_id, relevance (ir_measures) or qid, docno, label (PyTerrier), or an
    iterable of (qid, docno, grade) tuples or ir_measures' Qrel (trecgain.rows).

    rel_format (trec_eval's -R): "qrels" (default), "qrels_jg" (judgment groups: the qrels'
    second column names the judge), "prefs" (preference files), "qrels_prefs" (a qrels read as
    preferences) or "subtopics" (diversity qrels, `qid subtopic docno judgment`); the qrels are then a path, '-' or an open file of that format, and the measures
    those of the format (map_avgjg, P_avgjg, ...; prefs_simp, ..., the nicknames qrels_jg,
    all_prefs, prefs). zscores (-Z): a file of `qid measure mean stddev` lines, or {qid: {line
    name: (mean, stddev)}}: every value becomes a z-score. only_query (-D 0.QID): evaluate that
    query only.

    Every bad argument raises TrecgainError with one line naming it (the rules: trecgain.check):
    flags are True or False, whole-number options are ints, strings are not numbers, and
    measures is one name or a non-empty list of names.

    >>> ev = Evaluator("qrels.txt", measures=["ndcg_cut.10", "ndcg"])   # doctest: +SKIP
    >>> ev.evaluate("run.txt").aggregate["ndcg_cut_10"]                # doctest: +SKIP
    """

    def __init__(self, qrels: Source | Any, measures: Iterable[str] = ("official",), relevance_level: int = 1,
                 judged_only: bool = False, complete: bool = False, max_docs: int | None = None,
                 compat: str = "10", global_gains: str | None = None, discount: str = "log:2",
                 exact_ideal: bool = False, fractional_grades: bool = False, err_max_grade: int = 4,
                 num_docs: int = 0, ties: str = "docno", rel_format: str = "qrels", zscores: Any = None,
                 only_query: str | None = None, convention: str = "trec_eval"):
        notes: list[str] = []  # for the caller to show: measures named twice, rules not trec_eval's
        parsed: list[Request] = []

        def requests(compat: str) -> list[Request]:
            parsed[:] = parse_requests(check.measures(measures), compat, notes)
            return parsed

        options = EvaluationOptions.checked(compat, relevance_level, judged_only, complete, max_docs, global_gains,
                                            discount, exact_ideal, fractional_grades, err_max_grade, num_docs,
                                            ties, requests, rel_format, zscores, only_query, convention)
        self._build(qrels, parsed, notes, options)

    @classmethod
    def from_options(cls, qrels: Source | Any, measures: Iterable[str], options: EvaluationOptions) -> Evaluator:
        """The Evaluator of `measures` with `options`, a value already checked (EvaluationOptions.checked):
        the command line, compare and explain check the options once and build their Evaluators
        from that one value (issue 18).  The measures are parsed in options.compat, and the tie
        rule checked against them (ties="average" is defined for some measures only)."""
        notes: list[str] = []
        requests = parse_requests(check.measures(measures), options.compat, notes)
        if options.ties == "average":  # defined for some measures only: these must be such
            checked_ties(options.ties, requests, options.max_docs)
        checked_rel_format(options.rel_format, requests)
        check_measures(options.convention, requests)
        evaluator = cls.__new__(cls)
        evaluator._build(qrels, requests, notes, options)
        return evaluator

    def _build(self, qrels: Source | Any, requests: list[Request], notes: list[str],
               options: EvaluationOptions) -> None:
        self.notes: list[str] = notes
        for r in requests:  # a line computed under another tool's rules never wears trec_eval's name
            r.lines = [line_name(line, options.convention) for line in r.lines]
        self.requests = requests
        #: The one options value every evaluation of this Evaluator passes to the core (-j workers,
        #: Dask, compare and explain too); empty_ok follows the measures (see _follows_10).
        self.options: EvaluationOptions = options.replace(empty_ok=options.complete and self._follows_10(options))
        if options.convention.is_trec_eval:  # under --as the lines are marked NAME~TOOL instead
            self.notes.extend(rule_notes(self.requests, options.global_gains, options.discount, options.exact_ideal,
                                         options.ties, options.fractional_grades))
        self.qrels = qrels if isinstance(qrels, _core.Qrels) else read_qrels(
            qrels, fractional=options.fractional_grades, rel_format=options.rel_format)

    # The options one by one, as the Evaluator has always shown them (read-only: self.options is one value).
    compat = property(lambda self: self.options.compat)
    relevance_level = property(lambda self: self.options.relevance_level)
    judged_only = property(lambda self: self.options.judged_only)
    complete = property(lambda self: self.options.complete)
    max_docs = property(lambda self: self.options.max_docs)
    global_gains = property(lambda self: self.options.global_gains)
    discount = property(lambda self: self.options.discount)
    exact_ideal = property(lambda self: self.options.exact_ideal)
    err_max_grade = property(lambda self: self.options.err_max_grade)
    num_docs = property(lambda self: self.options.num_docs)  # -N: the collection size (utility)
    ties = property(lambda self: self.options.ties)
    convention = property(lambda self: self.options.convention.name)  # --as: the tool whose rules apply

    def _follows_10(self, options: EvaluationOptions | None = None) -> bool:
        """Whether some measure follows trec_eval 10's rules for the queries the run lacks (with
        -c, 10 prints them with -q and evaluates them even when no query overlaps; 9.x does
        neither): compat 10, or in compat 9 a measure 9.x lacks (dcg, ideal_dcg, rbp, rbp_resid,
        unj: trec_eval 10 on float32 scores).  Each other measure keeps 9.x's rules beside them;
        the core decides per measure (its kernel table's in_trec_eval_9)."""
        compat = (options or self.options).compat
        return compat == "10" or not all(r.measure.in_trec_eval_9 for r in self.requests)

    def evaluate(self, run: Source | Any, keep_values: bool = True, check_ties: bool = False) -> Result:
        """Evaluate one run (a path, '-', an open file, a core Run, a dict, a DataFrame or rows).

        A dict is {qid: {docno: score}}; a DataFrame has columns query_id, doc_id, score
        (ir_measures) or qid, docno, score (PyTerrier); rows are an iterable of (qid, docno,
        score) tuples or ir_measures' ScoredDoc, read once.

        With keep_values=False only the `all` values are kept: `aggregate` and `to_trec` work
        (per-query lines are measured again as they are written), `per_query` does not; memory
        then stays at one block of queries however many queries there are.

        With check_ties=True the queries where documents of different grades tie are also
        measured with the ties ordered the other way round, for `Result.ties_decided`."""
        keep_values = check.flag(keep_values, "keep_values")
        check_ties = check.flag(check_ties, "check_ties")
        source = _source_name(run)
        run = self.read_run(run)
        tie_lines = _slot_masks(self.requests)[0] if check_ties else None
        evaluation = _core.evaluate(self.qrels, run, [r.to_core() for r in self.requests], self.options,
                                    keep_values, tie_lines)
        return self.result(evaluation, run, keep_values, source)

    def _check_queries(self, evaluation: Any, source: str) -> None:
        """The query sets a convention refuses: different ones (ranx), or run queries the
        qrels lack (BEIR's and MTEB's MRR raise KeyError)."""
        convention = self.options.convention
        missing, extra = evaluation.skipped_queries
        if convention.queries == "equal" and (missing or extra):
            raise TrecgainError(f"--as {self.convention}: the tool needs the run and the qrels to have the same "
                                f"queries ({missing} qrels {_queries(missing)} the run lacks, {extra} run "
                                f"{_queries(extra)} the qrels lack)", source)
        if convention.judged_runs and extra:
            raise TrecgainError(f"--as {self.convention}: {extra} run {_queries(extra)} the qrels lack: the tool "
                                "fails on such a query (KeyError)", source)

    def result(self, evaluation: Any, run: Any, keep_values: bool, source: str | None) -> Result:
        """The Result of the core's evaluation of `run` (a core Run, or what has its `source`
        and `score_is_rank`: trecgain.distributed puts an evaluation together from parts); the
        query sets the convention refuses raise TrecgainError here, on every path."""
        self._check_queries(evaluation, run.source)
        return Result(evaluation, self.requests, self._follows_10(), list(evaluation.warnings), keep_values,
                      self._notes(run, evaluation), source, self.options.zscores is not None,
                      self.options.convention, described(self.options), _run_share(evaluation, self.options))

    def read_run(self, run: Source | Any) -> _core.Run:
        """The run as the core holds it, with its rank column when ties="rank"."""
        if isinstance(run, _core.Run):
            if self.ties == "rank" and not run.has_ranks:
                raise TrecgainError("ties='rank' needs the run's rank column: give the run file, or read it with "
                                    "trecgain.read.read_run(path, ranks=True)", run.source)
            return run
        return read_run(run, ranks=self.ties == "rank")

    def _notes(self, run: _core.Run, evaluation: Any) -> list[str]:
        notes = list(self.notes)
        missing, unjudged = evaluation.skipped_queries
        name = run.source
        skipped = []
        if missing and not self.complete:
            skipped.append(f"{missing} qrels {_queries(missing)} {name} lacks")
        if unjudged:
            skipped.append(f"{unjudged} {_queries(unjudged)} of {name} the qrels lack")
        left_out = evaluation.left_out_queries
        if left_out:
            skipped.append(f"{left_out} {_queries(left_out)} with nothing relevant (--as {self.convention} leaves "
                           f"{'it' if left_out == 1 else 'them'} out)")
        if skipped:
            hint = " (-c averages over every qrels query, a missing one scoring 0)" if missing and not self.complete else ""
            notes.append(f"skipped {' and '.join(skipped)}{hint}")
        if run.score_is_rank and self.ties != "rank":
            notes.append(f"the scores of {name} are its ranks (1, 2, 3, ...): trec_eval ranks by score, highest "
                         "first, so each ranking is read upside down; --ties rank orders by the rank column")
        return notes

def printed_differences(result: Result, other: Any, per_query: bool, summary: bool) -> int:
    """How many printed values (4 decimals) of `result` differ in `other`, an evaluation of the
    same requests with tied documents ordered the other way round (trecgain.distributed, whose
    evaluations are put together from parts: Result.ties_decided for one evaluated here)."""
    summaries, queries = result.evaluation.printed_differences(other, *_slot_masks(result.requests))
    return (summaries if summary else 0) + ((queries or 0) if per_query else 0)


def _slot_masks(requests: list[Request]) -> tuple[list[int | None], list[bool]]:
    """Per value slot: its output line's number when the line is printed per query (else
    None), and whether the line has an `all` line."""
    lines: list[int | None] = []
    summaries: list[bool] = []
    number = 0
    for r in requests:
        for slots in r.slots():
            lines.extend([number if r.measure.per_query else None] * slots)
            summaries.extend([r.measure.summary != "none"] * slots)
            number += 1
    return lines, summaries


def _queries(count: int) -> str:
    return "query" if count == 1 else "queries"


def _source_name(run: object) -> str | None:
    """The run's file name, when it is given as a path (or '-')."""
    import os  # not at import: only this path needs it

    if isinstance(run, (str, os.PathLike)):
        name = os.fspath(run)
        return name if isinstance(name, str) else None
    return None
