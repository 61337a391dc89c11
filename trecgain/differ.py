"""`trecgain differ`: one measure computed every way the tools compute it, grouped where the
numbers agree, with the choices that make each group differ from trec_eval's and the queries
where the difference is largest.

`differ(qrels, run, measure)` returns a `Difference` (data; the library never prints).  The ways
are the tools' conventions (trecgain.conventions: `--as TOOL`, one record of named choices per
tool) and, for a measure with gains and a discount, the formula's own choices under trec_eval's
rules (gains linear or exponential; discount log2, ln, log10 or Jarvelin and Kekalainen's with
base 2), as the design notes tabulate them.  A group's causes are found by trying each of its
choices alone on trec_eval's rules: a choice that changes the numbers alone is a cause; one that
does not is listed as not changing them here."""

from __future__ import annotations

from . import check
from .conventions import CONVENTIONS, TREC_EVAL, Convention, variant_for
from .errors import TrecgainError
from .evaluate import Evaluator
from .formats import dumps
from .measures import parse_requests
from .read import read_qrels, read_run
from .record import Record

#: The formula's choices tried for a measure with gains and a discount: (gains, discount).
FORMULAS = [(gains, discount) for gains in ("linear", "exp") for discount in ("log:2", "log:e", "log:10", "jk:2")]
#: Values closer than this are the same number (every tool prints fewer digits).
SAME = 1e-12
#: The queries listed per group.
QUERIES_SHOWN = 3


class Way(Record):
    """One way of computing the measure: its name (a tool, or `gains=exp discount=jk:2`), its
    kind ("tool" or "formula"), the choices in which it departs from trec_eval 10's rules
    ({choice: (trec_eval's, its)}), the mean and the per-query values ({qid: value})."""

    __slots__ = ("name", "kind", "choices", "mean", "per_query")


class Group(Record):
    """Ways that agree: their names, the mean and per-query values they share, the choices that
    make it differ from trec_eval's group ({choice: True when it changes the numbers alone,
    False when it does not here}), and the queries that differ most ([(qid, trec_eval's value,
    this group's)], None where a side has no value)."""

    __slots__ = ("ways", "mean", "per_query", "causes", "queries")

    @property
    def is_reference(self) -> bool:
        return "trec_eval" in self.ways


class Difference(Record):
    """The measure under every way (see the module's help): `groups` (trec_eval's first, then by
    mean), `ways` (each Way), `skipped` ({tool: why it cannot compute the measure}) and,
    with differ(..., query=QID), `query_id` and `query`, that query's value per way ({way: value
    or None})."""

    __slots__ = ("measure", "line", "qrels", "run", "groups", "ways", "skipped", "query_id", "query")

    def to_dict(self) -> dict:
        """JSON-ready data."""
        return {
            "measure": self.measure, "line": self.line, "qrels": self.qrels, "run": self.run,
            "groups": [{"ways": g.ways, "mean": g.mean, "reference": g.is_reference,
                        "causes": [{"choice": c, "changes_alone": alone} for c, alone in g.causes.items()],
                        "queries": [{"query": q, "trec_eval": a, "value": b} for q, a, b in g.queries]}
                       for g in self.groups],
            "choices": {w.name: {c: {"trec_eval": a, "this": b} for c, (a, b) in w.choices.items()}
                        for w in self.ways},
            "skipped": self.skipped,
            **({"query": {"query": self.query_id, "values": self.query}} if self.query is not None else {}),
        }

    def to_json(self) -> str:
        return dumps(self.to_dict(), indent=1) + "\n"

    def to_text(self) -> str:
        """The groups as text: mean, ways, and per group that differs its causes and queries."""
        out = [f"{self.line} of {self.run} against {self.qrels}: {len(self.ways)} ways, "
               f"{len(self.groups)} {'group' if len(self.groups) == 1 else 'groups'} of equal numbers", ""]
        for g in self.groups:
            out.append(f"{g.mean:.6f}  {', '.join(g.ways)}" + ("  (trec_eval's rules)" if g.is_reference else ""))
            choices = self._choices(g)
            for choice, (reference, this) in choices.items():
                alone = "changes it alone" if g.causes.get(choice) else "no change alone here"
                out.append(f"          {choice}: {reference} -> {this} ({alone})")
            if g.queries:
                shown = "; ".join(f"{q} {_f(a)} -> {_f(b)}" for q, a, b in g.queries)
                out.append(f"          queries that differ most: {shown}")
        if self.query is not None:
            out += ["", f"query {self.query_id}:"]
            out += [f"{_f(v):>8}  {name}" for name, v in self.query.items()]
        if self.skipped:
            out += ["", "not computed:"] + [f"  {tool}: {why}" for tool, why in self.skipped.items()]
        return "\n".join(out) + "\n"

    def to_markdown(self) -> str:
        """The groups as a Markdown table."""
        out = [f"{self.line} of `{self.run}` against `{self.qrels}`", "",
               "| mean | ways | differs from trec_eval's by | queries that differ most |", "|---:|---|---|---|"]
        for g in self.groups:
            causes = "; ".join(f"{c}: {a} → {b}" + ("" if g.causes.get(c) else " (no change alone)")
                               for c, (a, b) in self._choices(g).items()) or "(trec_eval's rules)"
            queries = "; ".join(f"{q}: {_f(a)} → {_f(b)}" for q, a, b in g.queries)
            out.append(f"| {g.mean:.6f} | {', '.join(g.ways)} | {causes} | {queries} |")
        if self.skipped:
            out += ["", "Not computed: " + "; ".join(f"{t} ({why})" for t, why in self.skipped.items())]
        return "\n".join(out) + "\n"

    def _choices(self, group: Group) -> dict:
        """The choices of a group's first way."""
        return next(w.choices for w in self.ways if w.name == group.ways[0]) if not group.is_reference else {}


#: The choices of a convention record that differ from trec_eval's (field, how it reads).
_CHOICES = {
    "score": "score precision",
    "ties": "tie order",
    "level": "relevance level",
    "level_gains": "grades below the level",
    "ideal": "ideal from",
    "queries": "queries averaged",
    "drop_self": "document named as the query",
    "max_docs": "ranking cut at",
    "gains": "gains",
    "discount": "discount",
    "rounding": "means rounded to",
    "judged_runs": "a run query the qrels lack",
    "no_relevant": "a query with nothing relevant",
    "positive_scores": "a document with a score <= 0",
    "ap_divisor": "AP divided by",
}
#: How a choice's values read, where the raw value says little.
_WORDS = {
    ("score", "f64"): "float64", ("score", "f32"): "float32 (trec_eval 9)",
    ("ties", "docno"): "docno descending", ("ties", "reversed"): "docno ascending",
    ("ties", "average"): "tied documents averaged", ("ties", "rank"): "the run's rank column",
    ("ties", "input"): "the run's order (a stable sort by score)",
    ("queries", "run"): "every run query (missing from the qrels: 0)",
    ("judged_runs", False): "skipped", ("judged_runs", True): "an error",
    ("level", None): "-l", ("level_gains", False): "kept as gains", ("level_gains", True): "dropped",
    ("ideal", "judged"): "every judged document", ("ideal", "ranking"): "the ranked documents only",
    ("queries", "both"): "in the run and the qrels", ("queries", "qrels"): "every qrels query (missing: 0)",
    ("queries", "equal"): "the run's and the qrels' (must be the same)",
    ("drop_self", False): "kept", ("drop_self", True): "dropped",
    ("max_docs", None): "no cut", ("gains", None): "linear", ("rounding", None): "not rounded",
    ("no_relevant", "zero"): "scored 0", ("no_relevant", "one"): "scored 1",
    ("no_relevant", "skip"): "left out of the mean", ("no_relevant", "error"): "an error",
    ("positive_scores", False): "relevant by its grade", ("positive_scores", True): "never relevant",
    ("ap_divisor", "relevant"): "every relevant document", ("ap_divisor", "found"): "the relevant documents found",
}


def words(field: str, value: object) -> str:
    """A choice's value in words."""
    return _WORDS.get((field, value), str(value))


def choices_of(convention: Convention, gains: str | None = None, discount: str | None = None,
               level: int = 1) -> dict:
    """The choices of a convention (and a formula's gains and discount) that are not trec_eval
    10's with relevance level `level`: {choice name: (trec_eval's value in words, its value in
    words)}."""
    out = {}
    fields = {f: getattr(convention, f) for f in _CHOICES}
    if gains is not None:
        fields["gains"] = None if gains == "linear" else gains
    if discount is not None:
        fields["discount"] = discount
    for field, value in fields.items():
        reference = getattr(TREC_EVAL, field)
        if field == "level" and value == level:
            continue  # the tool's fixed level is the one given
        if value != reference:
            out[_CHOICES[field]] = (words(field, reference), words(field, value))
    return out


def differ(qrels, run, measure: str, relevance_level: int = 1, query=None) -> Difference:
    """`measure` (one line: `ndcg_cut.10`, `nDCG@10`, `recip_rank`) on `run` against `qrels`
    (paths, open files, dicts or frames, as Evaluator takes them), computed every way (see the
    module's help).  query: one query's values per way, too."""
    request = _one_line(measure)
    qid = None if query is None else check.key(query, "query", None)
    names = _source(qrels), _source(run)
    qrels, run = read_qrels(qrels), _read_run(run)  # once, for every way
    ways, skipped = [], {}
    for tool in CONVENTIONS.values():
        try:
            rules = variant_for(tool, [request])  # the rules the tool computes this measure by
            ways.append(_way(tool.name, "tool", qrels, run, measure, relevance_level, tool,
                              choices_of(rules, level=relevance_level)))
        except TrecgainError as err:
            skipped[tool.name] = str(err)
    if request.measure.gains and request.measure.discounted:
        for gains, discount in FORMULAS:
            if (gains, discount) == ("linear", "log:2"):
                continue  # trec_eval's own
            name = " ".join(part for part, default in ((f"gains={gains}", gains == "linear"),
                                                       (f"discount={discount}", discount == "log:2")) if not default)
            ways.append(_way(name, "formula", qrels, run, measure, relevance_level, TREC_EVAL,
                             choices_of(TREC_EVAL, gains, discount, relevance_level), gains, discount))
    groups = _groups(ways)
    for group in groups:
        if not group.is_reference:
            _explain_group(group, groups[0], ways, qrels, run, measure, relevance_level, request)
    on_query = None if qid is None else {w.name: w.per_query.get(_text(qid)) for w in ways}
    return Difference(measure, request.lines[0], *names, groups, ways, skipped,
                      None if qid is None else _text(qid), on_query)


def _one_line(measure: str):
    """The measure's request: one measure of one line (differ compares one number)."""
    if not isinstance(measure, str) or not measure:
        raise TrecgainError(f"differ's measure must be a measure name such as 'ndcg_cut.10', not {check.show(measure)}")
    requests = parse_requests([measure], "10")
    if len(requests) != 1 or len(requests[0].lines) != 1:
        raise TrecgainError(f"differ compares one number: give a measure of one line (e.g. ndcg_cut.10, "
                            f"P.5, recip_rank), not '{measure}'")
    if requests[0].measure.value != "float":
        raise TrecgainError(f"differ compares values that conventions change; '{measure}' is a "
                            f"{requests[0].measure.value}")
    return requests[0]


def _way(name: str, kind: str, qrels, run, measure: str, level: int, convention: Convention, choices: dict,
         gains: str | None = None, discount: str | None = None) -> Way:
    """The measure computed one way."""
    options = {"convention": convention}
    if gains is not None and gains != "linear":
        options["global_gains"] = gains
    if discount is not None and discount != "log:2":
        options["discount"] = discount
    if convention.level is None:
        options["relevance_level"] = level
    result = Evaluator(qrels, [measure], **options).evaluate(run)
    (mean,) = result.aggregate.values()
    per_query = {q: next(iter(values.values())) for q, values in result.per_query.items()}
    return Way(name, kind, choices, float(mean), per_query)


def _same(a: Way | Group, b: Way | Group) -> bool:
    """Whether two ways give the same numbers (every query's and the mean)."""
    if abs(a.mean - b.mean) > SAME or a.per_query.keys() != b.per_query.keys():
        return False
    return all(abs(v - b.per_query[q]) <= SAME for q, v in a.per_query.items())


def _groups(ways: list[Way]) -> list[Group]:
    """The ways grouped where they agree, trec_eval's group first, then by mean."""
    groups: list[Group] = []
    for way in ways:
        for group in groups:
            if _same(way, group):
                group.ways.append(way.name)
                break
        else:
            groups.append(Group([way.name], way.mean, way.per_query, {}, []))
    reference = next(g for g in groups if g.is_reference)
    return [reference] + sorted((g for g in groups if g is not reference), key=lambda g: -g.mean)


def _explain_group(group: Group, reference: Group, ways: list[Way], qrels, run, measure: str, level: int,
                   request) -> None:
    """A group's causes (each choice of its first way tried alone on trec_eval's rules: a tool's
    evaluated here, a formula's read from the formula way of that choice alone) and its queries
    that differ most from trec_eval's."""
    way = next(w for w in ways if w.name == group.ways[0])
    if way.kind == "tool":
        tool = variant_for(CONVENTIONS[way.name], [request])
        for field, label in _CHOICES.items():
            if label not in way.choices:
                continue
            alone = Convention(**{**{f: getattr(TREC_EVAL, f) for f in Convention.__slots__}, "name": f"{field}",
                                  field: getattr(tool, field)})
            try:
                tried = _way(label, "tool", qrels, run, measure, level, alone, {})
                group.causes[label] = not _same(tried, reference)
            except TrecgainError:
                group.causes[label] = True  # the choice alone refuses the input (queries must be equal)
    else:  # each choice alone is a formula way computed already: a cause when it left trec_eval's group
        alone_ways = {tuple(w.choices.items()): w.name for w in ways if w.kind == "formula"}
        group.causes = {label: alone_ways[((label, choice),)] not in reference.ways
                        for label, choice in way.choices.items()}
    qids = sorted(set(group.per_query) | set(reference.per_query), key=lambda q: (
        -abs(group.per_query.get(q, 0.0) - reference.per_query.get(q, 0.0)), q))
    group.queries = [(q, reference.per_query.get(q), group.per_query.get(q)) for q in qids[:QUERIES_SHOWN]
                     if group.per_query.get(q) != reference.per_query.get(q)]


def _read_run(run):
    """The run as the core holds it, with its rank column when it has one (a file: the MS MARCO
    script orders by it)."""
    try:
        return read_run(run, ranks=isinstance(run, str))
    except TrecgainError:
        if not isinstance(run, str):
            raise
        return read_run(run)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _source(value: object) -> str:
    """A path as given, else what it is."""
    return value if isinstance(value, str) else type(value).__name__


def _text(qid: object) -> str:
    return qid.decode("utf-8", "surrogateescape") if isinstance(qid, bytes) else str(qid)
