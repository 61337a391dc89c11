"""`trecgain explain`: one query's computation of a measure, rank by rank.

`explain(qrels, run, measure, query, **options)` returns an `Explanation` (data; the library
never prints).  For the DCG family, per rank the ranked document, its grade, gain, discount (the
divisor), what it adds and the DCG so far, the ideal ranking's grade, what it adds and the ideal
DCG so far, and the measure there.  For the other measures (core/src/steps.rs), per rank the
columns the measure's formula has (whether the document counts, how many have so far, the term it
adds, the running sum, the measure there), the counts that enter it (R, retrieved, ...) and the
formula; for the C/W/L measures (core/src/cwl_steps.rs) per rank the gain, C(i), W(i) and the
expected utility so far; runid and num_q rank nothing (their counts and formula alone).  Then the value of each of the measure's lines, named as the evaluation names them (the
kernel's, and the explanation's own from its rows: both the evaluation's, bit for bit); the judged
documents the ranking misses; and the runs of tied scores that trec_eval's docno rule ordered
(for a cutoff measure, those that reach its largest cutoff).  trecgain.cli.explain is the command.
"""

from __future__ import annotations

from . import _core, check, kernels
from .discounts import TREC_EVAL
from .errors import TrecgainError
from .evaluate import Evaluator
from .options import EvaluationOptions, compat_mode
from .formats import aligned, dumps
from .measures import BY_NAME, REGISTRY, parse_requests
from .record import Record

#: The measures explain shows (their records say how: `Measure.explain`), and the ir_measures
#: names that reach them.
SUPPORTED = tuple(m.name for m in REGISTRY if m.explain)
#: Why explain does not show each of the others (the core's one line per record).
REFUSALS = {r["name"]: r["unexplained"] for r in kernels.RECORDS if r.get("unexplained")}
SUPPORTED_TEXT = "every measure (their ir_measures names too)" + (f" but {', '.join(REFUSALS)}" if REFUSALS else "")
#: What each DCG-family shape's value column is (the other shapes' columns come from the core).
_VALUE = {"Ndcg": "nDCG", "NdcgCut": "nDCG", "Dcg": "DCG", "Ideal": "IDCG", "Cg": "CG"}


class Side(Record):
    """One way of computing the measure: a name (`given`: with the options given; `default`: the
    same without --global-gains and --discount, linear gains and log2 as trec_eval has them),
    the gains and discount it used, the value of each line ({line name: value}), the core's
    rows, and each line's value as the explanation computes it from its rows and counts (`own`;
    `own_slots`: every value slot, relstring's characters), and the counts that entered it
    (`parts`: [(name, value)], the measures outside the DCG family)."""

    __slots__ = ("name", "gains", "discount", "values", "rows", "own", "own_slots", "parts")


class Explanation(Record):
    """One query's computation of one measure (see the module's help).  `sides` has one Side,
    or two (`default` first) when global gains or a discount other than log:2 were
    given; `rows`, `missed` and `ties` are the core's, per side for the rows.  `docno_ascending`:
    the measure ranks ties by docno ascending (Compat, the diversity measures: ir_measures' and
    ndeval's rule), and the rows and tie groups are that ranking's; `run_order`: in the run's
    own order (Accuracy, the C/W/L measures), likewise."""

    __slots__ = ("measure", "kernel", "query", "qrels", "run", "options", "lines", "cutoffs", "sides",
                 "missed", "ties", "counts", "warnings", "formula", "parts", "columns", "docno_ascending", "run_order")

    @property
    def dcg(self) -> bool:
        """Whether it is a DCG-family explanation (rows with the ideal ranking beside)."""
        return BY_NAME[self.kernel].explain in _VALUE

    @property
    def per_rank(self) -> bool:
        """Whether it lays the computation out rank by rank (runid and num_q do not)."""
        return self.dcg or bool(self.columns)

    def to_dict(self) -> dict:
        """The explanation as plain JSON-ready data (docnos as text, grades as numbers or
        'unjudged' / '-')."""
        rows = []
        first = self.sides[0].rows
        for i, row in enumerate(first):
            cells = _cells if self.dcg else self._step_cells
            rows.append({"rank": row["rank"], "docno": _docno(row["docno"]), "score": row["score"],
                         "sort_score": row["sort_score"], "grade": _grade(row),
                         "sides": [cells(side.rows[i]) for side in self.sides]})
        return {
            "measure": self.measure, "kernel": self.kernel, "query": self.query, "qrels": self.qrels,
            "run": self.run, "options": dict(self.options),
            "sides": [{"name": s.name, "gains": s.gains, "discount": s.discount,
                       "parts": [{"name": n, "value": v} for n, v in s.parts],
                       "values": [{"line": line, "cutoff": k, "value": s.values[line], "explained": s.own[line]}
                                  for line, k in zip(self.lines, self.cutoffs)]} for s in self.sides],
            "formula": self.formula, "parts": [{"name": n, "value": v} for n, v in self.parts],
            "columns": [key for key, _ in self.columns],
            "rows": rows,
            "missed": [{"docno": _docno(m["docno"]), "grade": _number(m["grade"]), "gain": m["gain"],
                        "ranked_at": m["ranked_at"]} for m in self.missed],
            "ties": [{"score": t["sort_score"],
                      "documents": [{"docno": _docno(d["docno"]), "score": d["score"], "rank": d["rank"],
                                     "evaluated_rank": d["evaluated_rank"]} for d in t["docs"]]}
                     for t in self.ties],
            "tie_order": ("run order" if self.run_order else
                          "docno ascending" if self.docno_ascending else "docno descending"),
            "counts": dict(self.counts),
            "warnings": list(self.warnings),
        }

    def _step_cells(self, step: dict) -> dict:
        return {key: step[key] for key, _ in self.columns}

    def to_json(self) -> str:
        """to_dict() as JSON (NaN and the infinities null, as in --format json)."""
        return dumps(self.to_dict(), indent=1) + "\n"

    def to_text(self) -> str:
        return _text(self)


def _docno(value: bytes | None) -> str | None:
    return None if value is None else bytes(value).decode("utf-8", "surrogateescape")


def _number(x: float | None) -> float | int | None:
    """A grade as written in qrels: an int when it is a whole number."""
    if x is None:
        return None
    return int(x) if float(x).is_integer() and abs(x) <= 2**53 else x


def _grade(row: dict) -> float | int | str | None:
    v = row["relevance"]
    if v is None:
        return None
    if v == -2.0:
        return "unjudged"
    if v == -1.0:
        return "-"
    return _number(v)


_CELLS = ("gain", "discount", "discounted_gain", "dcg", "ideal_grade", "ideal_gain", "ideal_discounted_gain",
          "ideal_dcg", "value")


def _cells(row: dict) -> dict:
    out = {key: row[key] for key in _CELLS}
    out["ideal_grade"] = _number(row["ideal_grade"])
    return out


def _options_of(options) -> dict:
    """The options an explanation reports: those of an EvaluationOptions that bear on one query."""
    gains = options.global_gains
    return {"relevance_level": options.relevance_level, "judged_only": options.judged_only,
            "max_docs": options.max_docs, "compat": options.compat,
            "global_gains": None if gains is None else gains.text, "discount": options.discount.text,
            "exact_ideal": options.exact_ideal, "fractional_grades": options.fractional_grades, "ties": options.ties,
            "rel_format": options.rel_format}


def parse_measure(measure: object, compat: str = "10"):
    """One supported measure (`ndcg_cut.10`, `ndcg.1=1,2=3`, `nDCG@10`) as its Request; anything
    else is refused, naming what explain supports."""
    if not isinstance(measure, str) or not measure:
        raise TrecgainError(f"explain's measure must be a measure name such as 'ndcg_cut.10', not "
                            f"{check.show(measure)}")
    requests = parse_requests([measure], compat)
    if len(requests) == 1 and not requests[0].measure.explain and requests[0].measure.name in REFUSALS:
        raise TrecgainError(REFUSALS[requests[0].measure.name])
    if len(requests) != 1 or not requests[0].measure.explain:
        raise TrecgainError(f"explain shows {SUPPORTED_TEXT}, not '{measure}'")
    return requests[0]


#: explain's keyword options (Evaluator's, but those that do not bear on one query).
KEYWORDS = ("relevance_level", "judged_only", "max_docs", "compat", "global_gains", "discount", "exact_ideal",
            "fractional_grades", "ties", "rel_format")


def explain(qrels, run, measure: str, query, relevance_level: int = 1, judged_only: bool = False,
            max_docs: int | None = None, compat: str = "10", global_gains: str | None = None,
            discount: str = "log:2", exact_ideal: bool = False, fractional_grades: bool = False,
            ties: str = "docno", rel_format: str = "qrels", **unknown: object) -> Explanation:
    """Explain `measure` (one of SUPPORTED, or its ir_measures name) on query `query` of `run`
    against `qrels` (paths, open files, dicts, or the core's Qrels and Run), with the
    Evaluator's options (`ties="average"`: each tied document shows its group's mean gain;
    `rel_format="subtopics"`: diversity qrels, for the diversity measures).
    With `global_gains`, or a `discount` other than log:2, the
    explanation has two sides: trec_eval's default (linear gains, log2) and the given one.
    Another keyword (complete, num_docs, ...) is a TrecgainError naming those it takes."""
    check.keywords(unknown, KEYWORDS, "explain", "its options")
    parse_measure(measure, compat_mode(compat))  # refused before any file is read
    options = EvaluationOptions.checked(compat, relevance_level, judged_only, False, max_docs, global_gains, discount,
                                        exact_ideal, fractional_grades, ties=ties,
                                        requests=lambda mode: parse_requests(check.measures([measure]), mode),
                                        rel_format=rel_format)
    return explain_options(qrels, run, measure, query, options)


def explain_options(qrels, run, measure: str, query, options: EvaluationOptions) -> Explanation:
    """`explain` with its options as one checked value (EvaluationOptions.checked; those that do
    not bear on one query, such as complete and num_docs, are not read): `trecgain explain`
    checks its options once and explains each measure with that value (issue 18)."""
    parse_measure(measure, options.compat)  # refused before any file is read
    evaluator = Evaluator.from_options(qrels, [measure], options)
    request = evaluator.requests[0]
    qid = check.key(query, "query", None)
    core_run = evaluator.read_run(run)
    options = evaluator.options
    sides = [("given", options)]
    changes = request.measure.gains or request.measure.discounted
    if changes and (options.global_gains is not None or options.discount != TREC_EVAL):
        # the same measure as trec_eval computes it: linear gains, log2
        sides.insert(0, ("default", options.replace(global_gains=None, discount=TREC_EVAL)))
    to_core = request.to_core()

    def run_core(side_options, rows: int) -> dict:
        return _core.explain(evaluator.qrels, core_run, to_core, side_options, qid, rows)

    results = [run_core(ev, 0) for _, ev in sides]
    longest = max(len(r["rows"]) for r in results)
    results = [r if len(r["rows"]) == longest else run_core(ev, longest) for r, (_, ev) in zip(results, sides)]
    for r in results:
        if not r["rows"]:  # the other measures' rows
            r["rows"] = r["steps"]
        if r["tag"] is not None:  # runid: its line prints the run's tag
            r["values"] = r["own"] = [_docno(r["tag"])]
    lines = list(request.lines)
    cutoffs = list(request.params.cutoffs) if request.params.cutoffs else [None] * len(lines)
    out_sides = [Side(name, _gains_text(ev, request), _discount_text(ev, request), dict(zip(lines, r["values"])),
                      r["rows"], dict(zip(lines, r["own"])), list(r["own"]), list(r["parts"]))
                 for (name, ev), r in zip(sides, results)]
    last = results[-1]
    warnings = list(dict.fromkeys(w for r in results for w in r["warnings"]))
    return Explanation(measure, request.measure.name, _docno(qid), evaluator.qrels.source, core_run.source,
                       _options_of(options), lines, cutoffs, out_sides, last["missed"],
                       last["ties"], {"ranked": last["ranked"], "judged": last["judged"],
                                      "ideal": [r["ideal"] for r in results]}, warnings, last["formula"],
                       list(last["parts"]), list(last["columns"]), last["docno_ascending"], last["run_order"])


def _gains_text(options, request) -> str:
    """The gains a side's kernel used, as the user would write them."""
    if request.measure.name == "ndcg_p":
        return "exp"
    spec = request.params.gains or options.global_gains
    if spec is None:
        return "linear"
    return spec.text


def _discount_text(options, request) -> str:
    return "none" if request.measure.name == "cg_cut" else options.discount.text


def _describe_gains(text: str) -> str:
    return {"linear": "linear (gain = grade)", "exp": "exp (2^grade - 1)",
            "binary": "binary (1 if grade >= -l, else 0)"}.get(text, f"'{text}' (other levels: their grade)")


def _describe_discount(text: str) -> str:
    if text == "none":
        return "none (cumulative gain)"
    kind, _, base = text.partition(":")
    log = {"2": "log2", "e": "ln", "10": "log10"}.get(base, f"log_{base}")
    if kind == "jk":
        return f"{text} (1 before rank {base}, then {log}(rank))"
    return f"{text} ({log}(rank + 1))"


# ---------------------------------------------------------------- text


def _f4(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def _plain(x: float | int | None) -> str:
    """A grade or a gain: a whole number without decimals, anything else in full."""
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else repr(float(x))


def _gain(x: float | None) -> str:
    """A gain: a whole number without decimals, anything else to 4 decimals, trailing zeros dropped."""
    if x is None:
        return ""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return f"{x:.4f}".rstrip("0").rstrip(".") if abs(x) < 1e16 else f"{x:.4g}"


def _score(x: float | None) -> str:
    return "" if x is None else repr(float(x))


_SIDE = {"default": "trec_eval's default", "given": "given"}


def _text(e: Explanation) -> str:
    d = e.to_dict()
    o = d["options"]
    out = [f"explain {e.measure} for query {e.query}: qrels {e.qrels}, run {e.run}"]
    opts = [f"-l {o['relevance_level']}"] + (["-J"] if o["judged_only"] else [])
    opts += [f"-M {o['max_docs']}"] if o["max_docs"] is not None else []
    opts += [f"--compat {o['compat']}"] + (["--exact-ideal"] if o["exact_ideal"] else [])
    opts += ["--fractional-grades"] if o["fractional_grades"] else []
    out.append("options: " + " ".join(opts))
    out.extend(_dcg_table(e, d) if e.dcg else _steps_table(e, d))
    out.extend(_values(d))
    if not e.per_rank:  # runid and num_q: no ranking, so nothing missed and no ties
        return "\n".join(out[:-1]) + "\n"
    level = o["relevance_level"]
    user_model = BY_NAME[e.kernel].explain == "UserModel"
    by_gain = e.dcg or BY_NAME[e.kernel].gains or user_model
    counted = f"grade >= {level}, or a positive gain" if by_gain else f"grade >= {level}"
    if user_model:
        counted = f"a positive gain under {e.kernel}'s rule"
    if d["missed"]:
        out.append(f"judged documents the ranking misses ({counted}): {len(d['missed'])}")
        rows = []
        for m in d["missed"]:
            note = ""
            if m["ranked_at"] is not None:
                note = f"the run ranks it {m['ranked_at']}, past -M {o['max_docs']}"
            rows.append([m["docno"], _plain(m["grade"])] + ([_gain(m["gain"])] if by_gain else []) + [note])
        header = ["docno", "grade"] + (["gain"] if by_gain else []) + [""]
        out.extend("  " + line for line in aligned(header, rows, left={0, len(header) - 1}))
    else:
        out.append(f"judged documents the ranking misses ({counted}): none")
    out.append("")
    if d["ties"]:
        rule = " (equal as float32: --compat 9)" if o["compat"] == "9" else ""
        how = {"docno": "ordered by docno descending as trec_eval does",
               "average": "each document given its group's mean gain (--ties average)",
               "rank": "ordered by the rank column (--ties rank), not by score"}[o["ties"]]
        if e.docno_ascending:
            how = f"ordered by docno ascending as {e.kernel} ranks them (ir_measures' and ndeval's rule)"
        if e.run_order:
            how = f"kept in the run's order as {e.kernel} ranks them (ir_measures' rule)"
        out.append(f"tied scores{rule}, {how}: {len(d['ties'])} group{'s' if len(d['ties']) > 1 else ''}")
        dropped = "dropped by -J" if o["judged_only"] else "dropped (judged_only)"
        for t in d["ties"]:
            differ = len({doc["score"] for doc in t["documents"]}) > 1
            members = []
            for doc in t["documents"]:
                if doc["evaluated_rank"] is None:
                    past = o["max_docs"] is not None and doc["rank"] > o["max_docs"]
                    where = f"rank {doc['rank']}, {'past -M' if past else dropped}"
                elif doc["evaluated_rank"] != doc["rank"]:
                    where = f"rank {doc['evaluated_rank']}, {doc['rank']} before -J"
                else:
                    where = f"rank {doc['rank']}"
                if differ:
                    where += f", score {doc['score']!r}"
                members.append(f"{doc['docno']} ({where})")
            out.append(f"  score {t['score']!r}: " + ", ".join(members))
    else:
        out.append("tied scores: none")
    return "\n".join(out) + "\n"


def _value_text(value: float | str) -> str:
    """A line's value: runid's tag as it is, a number to 4 decimals and in full."""
    return value if isinstance(value, str) else f"{value:.4f} ({value!r})"


def _values(d: dict) -> list[str]:
    """Each line's value, per side, named as the evaluation names it."""
    out = []
    names = [v["line"] for v in d["sides"][0]["values"]]
    width = max(len(n) for n in names)
    for i, name in enumerate(names):
        cells = [_value_text(s["values"][i]["value"]) for s in d["sides"]]
        if len(d["sides"]) > 1:
            cells = [f"{s['name']} {c}" for s, c in zip(d["sides"], cells)]
        out.append(f"{name.ljust(width)}  " + "   ".join(cells))
    out.append("")
    return out


def _dcg_table(e: Explanation, d: dict) -> list[str]:
    """The DCG family's header and rows: each side's gains and discount beside the ideal ranking."""
    out = []
    counts = d["counts"]
    ideal = " / ".join(str(n) for n in dict.fromkeys(counts["ideal"]))
    out.append(f"{counts['ranked']} documents ranked, {counts['judged']} judged; the ideal ranking: {ideal} of them "
               "(the judged documents by gain, down to the last positive gain)")
    for s in d["sides"]:
        who = f"{_SIDE[s['name']]}: " if len(d["sides"]) > 1 else ""
        out.append(f"{who}gains {_describe_gains(s['gains'])}, discount {_describe_discount(s['discount'])}")
    shape = BY_NAME[e.kernel].explain
    value = _VALUE[shape]
    running, ideal_running = ("CG", "ICG") if shape == "Cg" else ("DCG", "IDCG")
    out.append(f"columns: discount = the divisor; gain/disc = what the document adds to {running}; ideal = the "
               f"ideal ranking's grade there; value = {value} at that rank")
    out.append("")
    side_header = ["gain", "discount", "gain/disc", running, "ideal", "ideal g/d", ideal_running, "value"]
    header = ["rank", "docno", "score", "grade"]
    rows = []
    for r in d["rows"]:
        cells = [str(r["rank"]), r["docno"] or "", _score(r["score"]), _plain(r["grade"])]
        for c in r["sides"]:
            cells += [_gain(c["gain"]), _f4(c["discount"]), _f4(c["discounted_gain"]), _f4(c["dcg"]),
                      _plain(c["ideal_grade"]), _f4(c["ideal_discounted_gain"]), _f4(c["ideal_dcg"]),
                      _f4(c["value"])]
        rows.append(cells)
    two = len(d["sides"]) > 1
    out.extend(aligned(header + side_header * len(d["sides"]), rows, left={1},
                      groups=[len(header)] + [len(side_header)] * len(d["sides"]) if two else None,
                      titles=[""] + [f"{_SIDE[s['name']]}: gains {s['gains']}, discount {s['discount']}"
                                     for s in d["sides"]] if two else None))
    out.append("")
    if not d["rows"]:
        out.append("(no rows: nothing ranked, and no ideal ranking)")
        out.append("")
    return out


#: The text cell of each of the other measures' step columns.
_STEP_TEXT = {"counted": lambda x: "*" if x else "", "count": str, "gain": _gain, "weight": _f4,
              "continuation": _f4, "term": _f4,
              "sum": _f4, "value": _f4, "detail": str, "ideal_detail": str, "ideal_gain": _gain, "ideal_sum": _f4,
              "bound": _f4}


def _step_text(key: str, title: str, x) -> str:
    if x is None:
        return ""
    if title == "character":  # relstring's: the character code
        return chr(int(x))
    return _STEP_TEXT[key](x)


def _steps_table(e: Explanation, d: dict) -> list[str]:
    """The other measures' header (formula, the counts that enter it) and rows."""
    counts = d["counts"]
    out = [f"{counts['ranked']} documents ranked, {counts['judged']} judged", f"formula: {e.formula}"]
    if not e.per_rank:
        out = [f"formula: {e.formula}"]
    if len(d["sides"]) == 1:
        out.extend(f"  {part['name']}: {_plain(part['value'])}" for part in d["parts"])
    else:
        for s in d["sides"]:
            out.append(f"{_SIDE[s['name']]}: gains {_describe_gains(s['gains'])}")
            out.extend(f"  {part['name']}: {_plain(part['value'])}" for part in s["parts"])
    out.append("")
    if not e.per_rank:
        return out
    header = ["rank", "docno", "score", "grade"]
    side_header = [title for _, title in e.columns]
    rows = []
    for r in d["rows"]:
        cells = [str(r["rank"]), r["docno"] or "", _score(r["score"]), _plain(r["grade"])]
        for c in r["sides"]:
            cells += [_step_text(key, title, c[key]) for key, title in e.columns]
        rows.append(cells)
    two = len(d["sides"]) > 1
    out.extend(aligned(header + side_header * len(d["sides"]), rows, left={1},
                       groups=[len(header)] + [len(side_header)] * len(d["sides"]) if two else None,
                       titles=[""] + [f"{_SIDE[s['name']]}: gains {s['gains']}" for s in d["sides"]] if two else None))
    out.append("")
    if not d["rows"]:
        out.append("(no rows: nothing ranked)")
        out.append("")
    return out
