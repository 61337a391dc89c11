"""The measure registry: one record per measure, in trec_eval's output order, and the
parsing of measure arguments (`ndcg_cut.10`, `ndcg.1=2`, `official`, `nDCG@10`) into requests.

A record says what the user sees: the name, its parameters and their defaults, how its
lines are named and summarised, its help.  The computation is the core's kernel of the
same name (core/src/measures/, listed in `KERNELS`): adding a measure means one kernel
there and one record here.  docs/trec_eval_measures.md gives each measure's rule.
"""

from __future__ import annotations

import math

from . import names as names_module
from .check import digits
from .errors import TrecgainError
from .gains import GainSpec, parse_gain_spec
from .kernels import RECORDS
from .record import Record

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Callable

    from .discounts import Discount


# ---------------------------------------------------------------- parameters


MAX_CUTOFF = 2**31 - 1
#: relstring's characters are value slots: beyond this the rows of a block grow too large.
MAX_RELSTRING = 1000


class Params(Record):
    """A measure's parsed parameters: integer cutoffs, numbers (recall points, multipliers,
    coefficients, beta, p, length) and its own gains (a GainSpec or None)."""

    __slots__ = ("cutoffs", "numbers", "gains")
    DEFAULTS = {"cutoffs": (), "numbers": (), "gains": None}


def parse_cutoffs(text: str, compat: str) -> Params:
    """Comma-separated positive cutoffs; `2.5` is 2 as with trec_eval's atol; sorted, no duplicates."""
    values = []
    for item in text.split(","):
        head, dot, tail = item.partition(".")
        body = head[1:] if head[:1] in "+-" else head
        if not (body.isdigit() and body.isascii() and (not dot or tail.isdigit() or tail == "")):
            raise TrecgainError(f"cutoff '{item[:30]}' in '{text[:60]}' is not a whole number")
        if len(body.lstrip("0")) > 30:  # beyond MAX_CUTOFF in any case (int() refuses 4300 digits)
            raise TrecgainError(f"cutoff '{item[:30]}...' is too large (at most {MAX_CUTOFF})")
        values.append(digits(head))
    values.sort()
    if values[-1] > MAX_CUTOFF:
        raise TrecgainError(f"cutoff {values[-1]} in '{text}' is too large (at most {MAX_CUTOFF})")
    if values[0] <= 0:
        raise TrecgainError(f"cutoffs must be positive: '{text}'")
    if len(set(values)) != len(values):
        raise TrecgainError(f"duplicate cutoffs in '{text}'")
    return Params(cutoffs=tuple(values))


def _numbers(text: str) -> tuple[float, ...]:
    """Comma-separated numbers (trec_eval reads them with atof; trecgain refuses what is not one)."""
    out = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            value = float("nan")
        if value != value or value in (float("inf"), float("-inf")) or "_" in item or not item.isascii():
            raise TrecgainError(f"'{item}' in '{text}' is not a number")
        out.append(value)
    return tuple(out)


def parse_points(text: str, compat: str) -> Params:
    """Recall points or R multipliers: numbers, sorted, no duplicates (lines named by each)."""
    values = sorted(_numbers(text))
    if len(set(values)) != len(values):
        raise TrecgainError(f"duplicate values in '{text}'")
    return Params(numbers=tuple(values))


def parse_numbers(text: str, compat: str) -> Params:
    """Numbers in the order given (11pt_avg's recall points, set_F's beta)."""
    return Params(numbers=_numbers(text))


def parse_coefficients(text: str, compat: str) -> Params:
    """utility's four coefficients a,b,c,d."""
    values = _numbers(text)
    if len(values) != 4:
        raise TrecgainError(f"utility takes four coefficients a,b,c,d, not '{text}'")
    return Params(numbers=values)


def parse_length(text: str, compat: str) -> Params:
    """relstring's number of documents shown."""
    values = _numbers(text)
    if not 0 <= int(values[0]) <= MAX_RELSTRING:
        raise TrecgainError(f"relstring shows from 0 to {MAX_RELSTRING} documents, not '{text}'")
    return Params(numbers=values)


def parse_gains(text: str, compat: str) -> Params:
    return Params(gains=parse_gain_spec(text, compat))


def parse_persistence(text: str, compat: str, default_p: float = 0.9) -> Params:
    """rbp's `p=P` and level=gain pairs (trec_eval 10 reads them as one list of name=value
    pairs; names that are not integers, as p, name no level); `default_p`: the record's."""
    spec = parse_gain_spec(text, "10")
    p = None
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name == "p":
            p = float(value)  # the last p= wins, as in trec_eval
    gains = spec if any(pair.level is not None for pair in spec.pairs) else None
    return Params(numbers=(default_p if p is None else p,), gains=gains)  # given: never the plain default


def _no_params(text: str, compat: str) -> Params:
    raise TrecgainError("takes no parameters")


def _named_only(text: str, compat: str) -> Params:
    raise TrecgainError("takes its parameters in ir_measures' spelling, e.g. alpha_nDCG(alpha=0.5)@20")


# ---------------------------------------------------------------- registry


class Measure(Record):
    """One registry record, as the core's record (core/src/measures/mod.rs, `KERNELS`) declares
    it: name, help, how parameters are parsed (`parse(text, compat)` to Params) and their
    `default`, how its lines are named and summed:

    - naming: plain | params (name_TEXT when given) | cutoffs (name_K per cutoff) |
      points (name_%3.2f per number) | named (one line, named as ir_measures prints it: a
      measure with named parameters, `ParamKind::Named`, given by its ir_measures name only)
    - value: float | count | tag | chars
    - summary: mean | mean_of_defined (the mean over the queries with a value: a NaN is none,
      printed as no line, left out; Accuracy) | sum | sum_judged_relevant (sum; -c: qrels
      grades > 0) | count | tag | geometric_mean (per-query values are logs) | none (no `all` line)
    - per_query: printed per query with -q
    - in_trec_eval_9: False for measures new in trec_eval 10 (dcg, ideal_dcg, rbp, rbp_resid, unj)
    - in_trec_eval: False for trecgain's own measures
    - tie_average: True where `--ties average` is defined: sums of gains (the expected value
      over every ordering of a tie is the sum with each tied document given the group's mean
      gain) and the counts no ordering changes
    - gains: its gains come from the gain table (--global-gains, compare's schemes, --exact-ideal)
    - discounted: --discount changes it; rank_order: --ties average changes it
    - lower_is_better: compare's bold and markers follow the lower value
    - explain: how `trecgain explain` shows it (None: it does not)
    - relevance: the judgments it reads (-R): qrels | qrels_jg | prefs (prefs or qrels_prefs) |
      subtopics | any
    - ir_measures: its ir_measures spellings (names.py reads them)
    - kernel: the core's kernel that computes it, when not the one of its name (a registered
      measure's, see `register`)
    """

    __slots__ = ("name", "help", "parse", "default", "naming", "value", "summary", "per_query",
                 "in_trec_eval_9", "in_trec_eval", "tie_average", "gains", "discounted", "rank_order",
                 "lower_is_better", "explain", "relevance", "ir_measures", "kernel")
    DEFAULTS = {"parse": _no_params, "default": Params(), "naming": "plain", "value": "float",
                "summary": "mean", "per_query": True, "in_trec_eval_9": True, "in_trec_eval": True,
                "tie_average": False, "gains": False, "discounted": False, "rank_order": False,
                "lower_is_better": False, "explain": None, "relevance": "qrels", "ir_measures": (),
                "kernel": None}

    def line_names(self, params: Params, text: str | None) -> list[str]:
        if self.naming == "cutoffs":
            return [f"{self.name}_{k}" for k in params.cutoffs]
        if self.naming == "points":  # trec_eval's "%s_%3.2f" into a buffer of 9 more bytes
            return [f"{self.name}_{('%3.2f' % x)[:8]}" for x in params.numbers]
        if self.naming == "params" and text is not None:
            return [f"{self.name}_{text}"]
        return [self.name]

    def slots(self, params: Params) -> list[int]:
        """Value slots per line (relstring: one per character)."""
        if self.value == "chars":
            return [max(0, int(params.numbers[0]))]
        return [1] * len(self.line_names(params, None))


_GAINS_HELP = "Gains per level can be given as 'level=gain,...' (default: gain = grade)."
#: The parser of each parameter kind a core record declares.
PARSERS = {"none": _no_params, "cutoffs": parse_cutoffs, "points": parse_points, "numbers": parse_numbers,
           "coefficients": parse_coefficients, "length": parse_length, "gains": parse_gains,
           "persistence": parse_persistence, "named": _named_only}


def measure(record: dict) -> Measure:
    """A registry record from one of the core's (`_core.kernels()`): the facts as the core
    declares them, with the parser of its parameter kind."""
    default = Params(cutoffs=tuple(record["default_cutoffs"]), numbers=tuple(record["default_numbers"]))
    parse = PARSERS[record["params"]]
    if parse is parse_persistence:
        def parse(text: str, compat: str, p: float = default.numbers[0]) -> Params:
            return parse_persistence(text, compat, p)
    help = record["help"] + (" " + _GAINS_HELP if record["params"] == "gains" else "")
    facts = {k: record[k] for k in Measure.__slots__[4:-2] if k != "relevance"}
    facts["relevance"] = record.get("relevance", "qrels")
    return Measure(record["name"], help, parse, default, **facts, ir_measures=tuple(record["ir_measures"]),
                   kernel=record.get("kernel"))


def register(record: dict) -> Measure:
    """Add a measure to the registry (after the core's, unless its name is one of them): a
    record as `_core.kernels()` gives them, whose name the core knows as a kernel or whose
    `kernel` names one.  For tests and experiments; trecgain's own measures are the core's
    records.  Returns the Measure."""
    m = measure(record)
    if m.name in BY_NAME:
        raise TrecgainError(f"measure '{m.name}' is registered already")
    REGISTRY.append(m)
    BY_NAME[m.name] = m
    return m


def unregister(name: str) -> None:
    """Remove a measure `register` added (tests clean up after themselves)."""
    if any(r["name"] == name for r in RECORDS):
        raise TrecgainError(f"measure '{name}' is the core's, not a registered one")
    REGISTRY.remove(BY_NAME.pop(name))


#: The registry, in trec_eval's output order: the core's records (and any `register` added).
REGISTRY: list[Measure] = [measure(r) for r in RECORDS]
BY_NAME = {m.name: m for m in REGISTRY}

_COUNTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret")
_OFFICIAL = (*_COUNTS, "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = (*_OFFICIAL, "relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
               "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG",
               "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret")
_ALL_PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
              "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
#: trec_eval's nicknames (its measures.c), per version; `gain` is trecgain's.
NICKNAMES = {
    "10": {"official": _OFFICIAL, "all_trec": (*_ALL_TREC_9, "unj", "rbp", "rbp_resid"),
           "set": (*_COUNTS, "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"),
           "gain": (*_COUNTS, "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut"),
           "all_prefs": _ALL_PREFS,
           "prefs": ("runid", "num_q", *_ALL_PREFS[2:8]),
           "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")},
}
NICKNAMES["9"] = {**NICKNAMES["10"], "all_trec": _ALL_TREC_9}


class Request(Record):
    """One measure to compute, with its parsed Params and the text they came from (None: the
    defaults), its line names, and from ir_measures names: whether it alone drops unjudged
    documents, its own relevance level, and the line name the user wrote."""

    __slots__ = ("measure", "params", "text", "lines", "judged_only", "relevance_level", "label")
    DEFAULTS = {"text": None, "lines": [], "judged_only": False, "relevance_level": None, "label": None}

    @property
    def gains(self) -> GainSpec | None:
        return self.params.gains

    def slots(self) -> list[int]:
        return [1] if self.label else self.measure.slots(self.params)

    def to_core(self) -> tuple:
        """The tuple trecgain._core reads: kernel, cutoffs, numbers, gains, judged_only,
        relevance level, summary, line names."""
        p = self.params
        # A measure named with its default parameters sends none: the kernel knows them, and
        # trec_eval treats such a plainly named line differently (the -c stand-in resets).
        numbers = p.numbers if p is not self.measure.default or self.measure.naming == "points" else ()
        return (self.measure.kernel or self.measure.name, list(p.cutoffs), [float(x) for x in numbers],
                p.gains.to_core() if p.gains else None, self.judged_only,
                None if self.relevance_level is None else float(self.relevance_level), self.measure.summary,
                list(self.lines))


def rule_notes(requests: list[Request], global_gains: GainSpec | None = None, discount: Discount | None = None,
               exact_ideal: bool = False, ties: str = "docno", fractional: bool = False) -> list[str]:
    """A note for each option that changes what a line with trec_eval's name means, naming
    the lines (their values are not trec_eval's): --global-gains other than linear, a
    --discount other than log:2, --exact-ideal, --ties average, --fractional-grades.  trec_eval's
    own gain strings need none (the line's name shows them), nor --ties rank (it changes the
    ranking read, not the measure; JSON's convention field names it)."""
    from .discounts import TREC_EVAL  # not at import: only this path needs it

    notes = []
    if global_gains is not None and (global_gains.scheme != "linear"
                                     or any(p.level is not None for p in global_gains.pairs)):
        notes.append(_rule_note([r for r in requests if r.measure.gains and r.gains is None],
                                f"--global-gains {global_gains.text}", "gains"))
    if discount is not None and discount != TREC_EVAL:
        notes.append(_rule_note([r for r in requests if r.measure.discounted],
                                f"--discount {discount.text}", "discount"))
    if exact_ideal:
        notes.append(_rule_note([r for r in requests if r.measure.gains], "--exact-ideal",
                                "ideal ranking"))
    if ties == "average":
        notes.append(_rule_note([r for r in requests if r.measure.rank_order], "--ties average",
                                "order of tied documents"))
    if fractional:
        notes.append(_rule_note([r for r in requests if r.measure.value == "float"], "--fractional-grades",
                                "integer grades"))
    return [n for n in notes if n]


def _rule_note(requests: list[Request], option: str, what: str) -> str:
    """`LINES are computed with OPTION, not trec_eval's WHAT: do not report ...` ('' for no line)."""
    requests = [r for r in requests if r.measure.in_trec_eval]
    lines = [line for r in requests for line in r.lines]
    if not lines:
        return ""
    named = lines[0] if len(lines) == 1 else f"{', '.join(lines[:-1])} and {lines[-1]}"
    if len(lines) > 1:
        whose = "trec_eval's or ir_measures' values" if any(r.label for r in requests) else "trec_eval's values"
        return f"{named} are computed with {option}, not trec_eval's {what}: do not report them as {whose}"
    trec = trec_line_name(lines[0])
    if not requests[0].label:
        whose = f"trec_eval's {trec}"
    else:
        whose = f"trec_eval's {trec} or ir_measures' {lines[0]}" if trec != lines[0] else f"ir_measures' {lines[0]}"
    return f"{named} is computed with {option}, not trec_eval's {what}: do not report it as {whose}"


def parse_requests(specs: list[str] | tuple[str, ...], compat: str = "10",
                   notes: list[str] | None = None) -> list[Request]:
    """Measure arguments (`ndcg_cut.10`, `ndcg.1=2`, `official`, `nDCG@10`) to requests in
    registry order.  A measure named twice keeps the first parameter list given, as trec_eval
    does (said in `notes`, when given).  Nicknames are the version's own (`all_trec` of compat 9
    is 9.x's); a measure 9.x lacks (dcg, rbp, ...) named in compat 9 is trec_eval 10.0 on
    float32 scores, and changes no other measure's lines (the core applies each measure's rules).
    """
    said: list[str] = []
    requests = _requests(specs, compat, NICKNAMES["9" if compat == "9" else "10"], said)
    if notes is not None:
        notes.extend(said)
    return requests


def _requests(specs: list[str] | tuple[str, ...], compat: str, nicknames: dict,
              notes: list[str]) -> list[Request]:
    chosen: dict[str, Request] = {}
    for spec in specs:
        if not spec or not spec.isprintable():
            raise TrecgainError(f"measure {spec!r}: a measure name has no line breaks, tabs or control characters")
        if names_module.is_ir_measures_name(spec) and (spec not in BY_NAME or spec in names_module.NAMED):
            parsed = names_module.parse(spec)
            chosen.setdefault(spec, _ir_request(parsed, compat))
            continue
        name, dot, text = spec.partition(".")
        names = nicknames.get(name)
        if names is None:
            if name not in BY_NAME:
                raise TrecgainError(_unknown(spec))
            names = (name,)
        for n in names:
            measure = BY_NAME[n]
            if measure.naming == "named":
                example = measure.ir_measures[0].replace("@k", "@20")
                raise TrecgainError(f"measure '{spec}': name it as ir_measures does, e.g. {example}")
            if dot:
                try:
                    params = measure.parse(text, compat)
                except TrecgainError as err:
                    raise TrecgainError(f"measure '{spec}': {err.message}") from None
                if n not in chosen or chosen[n].text is None:
                    chosen[n] = Request(measure, params, text)
                elif chosen[n].text != text:
                    notes.append(named_twice(spec, n, chosen[n].text, text))
            elif n not in chosen:
                chosen[n] = Request(measure, measure.default, None)
    rank = {m.name: i for i, m in enumerate(REGISTRY)}
    ordered = sorted(chosen.values(), key=lambda r: rank[r.measure.name])  # stable: -m order within a measure
    for r in ordered:
        r.lines = [r.label] if r.label else r.measure.line_names(r.params, r.text)
    return ordered


def named_twice(spec: str, name: str, first: str, then: str) -> str:
    """Why `-m spec` (measure `name`'s parameters `then`) is ignored after `-m name.first`."""
    merged = one_list(name, first, then)
    hint = f": give both in one list, -m {merged}" if merged else ""
    return (f"-m {spec} is ignored: a measure named twice keeps its first parameters, as trec_eval does "
            f"({name}.{first}){hint}")


def one_list(name: str, first: str, then: str) -> str | None:
    """The one request `name.first,then` that prints the lines of both parameter lists, for a
    measure with a line per cutoff or point (None for the others: a gain string is one line)."""
    if BY_NAME[name].naming not in ("cutoffs", "points"):
        return None
    return f"{name}.{first},{then}"


def _ir_request(parsed: "names_module.IrMeasure", compat: str) -> Request:
    measure = BY_NAME[parsed.measure]
    params = Params(cutoffs=(parsed.cutoff,) if parsed.cutoff else (), numbers=parsed.numbers,
                    gains=parsed.gains)
    if measure.value == "chars" or (measure.naming == "points" and not params.numbers):
        raise TrecgainError(f"measure '{parsed.text}' has no ir_measures form")
    return Request(measure, params, None, judged_only=parsed.judged_only, relevance_level=parsed.rel,
                   label=parsed.text)


def _unknown(spec: str) -> str:
    """The error for a name that is no measure: refused, or with its likeliest spelling."""
    return f"unknown measure '{spec}'" + names_module.did_you_mean(suggestions(spec), "; trecgain -h lists the measures")


def request_for_line(line: str, compat: str = "10") -> str | None:
    """The `-m` argument that prints a line named `line` (`ndcg_cut_10` -> ndcg_cut.10,
    `iprec_at_recall_0.10` -> iprec_at_recall.0.10, `nDCG@10` as it is), or None."""
    is_ir = names_module.is_ir_measures_name(line) and line not in BY_NAME
    candidates = [line] if is_ir else []
    for m in sorted(REGISTRY, key=lambda m: -len(m.name)):
        if line == m.name:
            candidates.append(line)
        elif line.startswith(m.name + "_"):
            candidates.append(f"{m.name}.{line[len(m.name) + 1:]}")
    for candidate in candidates:
        try:
            requests = parse_requests([candidate], compat)
        except TrecgainError:
            continue
        if any(line in r.lines for r in requests):
            return candidate
    return None


def suggestions(spec: str) -> list[str]:
    """What an unknown `-m` argument most likely meant, spelled exactly: the request that
    prints a line of that name (`P_10` -> P.10), the name in its own case (`MAP` -> map), an
    alias (`mrr` -> recip_rank, `MRR@10` -> RR@10), `ndcg_10` -> ndcg_cut.10; else close
    names (up to three)."""
    if names_module.is_ir_measures_name(spec) and spec not in BY_NAME:
        return names_module.suggestions(spec)
    request = request_for_line(spec)
    if request is not None:
        return [request]
    name, dot, text = spec.partition(".")
    known = [*BY_NAME, *NICKNAMES["10"]]
    same = [k for k in known if k.lower() == name.lower()]
    if not same and not dot:
        same = [k for k in names_module.canonical() if k.lower() == name.lower()]
    if not same and name.lower() in names_module.ALIASES:
        with_cutoff, without, _ = names_module.MEASURES[names_module.ALIASES[name.lower()]]
        same = [without or with_cutoff]
    if len(same) == 1:
        return [_spelled(same[0], dot, text)]
    base, _, number = name.rpartition("_")
    if f"{base}_cut" in BY_NAME and not dot and _parses(f"{base}_cut.{number}"):  # ndcg_10: nDCG at 10
        return [f"{base}_cut.{number}"]
    return [_spelled(k, dot, text) for k in names_module.close_matches(name, known)]


def _spelled(name: str, dot: str, text: str) -> str:
    """`name.text` when that parses, else the name alone."""
    return f"{name}{dot}{text}" if dot and _parses(f"{name}{dot}{text}") else name


def _parses(spec: str) -> bool:
    try:
        parse_requests([spec])
    except TrecgainError:
        return False
    return True


def describe(name: str) -> str:
    """`trecgain -h -m NAME`: what the measure computes, its parameters and line names."""
    base = name.partition(".")[0]
    if base in NICKNAMES["10"]:
        return f"{base}: the measures {', '.join(NICKNAMES['10'][base])}\n"
    measure = BY_NAME.get(base)
    if measure is None:
        if names_module.is_ir_measures_name(name):
            parsed = names_module.parse(name)
            return f"{name}: trecgain's {parsed.measure}\n" + describe(parsed.measure)
        raise TrecgainError(_unknown(name))
    lines = [f"{measure.name}", f"    {measure.help}"]
    if measure.naming == "named":
        return "\n".join(lines + _named_help(names_module.NAMED[measure.name])) + "\n"
    default = measure.default
    if default.cutoffs or default.numbers:
        shown = default.cutoffs or default.numbers
        lines.append(f"    Default parameters: {','.join(_plain(x) for x in shown)}")
    names = measure.line_names(default, None)
    lines.append(f"    Lines: {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}"
                 f"{'' if measure.per_query else ' (summary only)'}"
                 f"{' (per query only)' if measure.summary == 'none' else ''}")
    if not measure.in_trec_eval:
        lines.append("    Not in trec_eval.")
    elif not measure.in_trec_eval_9:
        lines.append("    New in trec_eval 10.0 (with --compat 9: computed on float32 scores).")
    return "\n".join(lines) + "\n"


def _named_help(record: dict) -> list[str]:
    """`-h -m` of a measure with named parameters: its spellings, parameters and defaults."""
    limit = record["max_cutoff"] and "@k" in record["ir_measures"][0]
    lines = [f"    Named as ir_measures names it: {', '.join(record['ir_measures'])}"
             f"{' (k at most ' + str(record['max_cutoff']) + ')' if limit else ''}"]
    for p in record["named"]:
        span = ("True or False" if p["kind"] == "flag"
                else f"{_plain(p['range'][0])} to {_plain(p['range'][1])}")
        default = ("required" if math.isnan(p["default"]) else
                   f"default {bool(p['default']) if p['kind'] == 'flag' else _plain(p['default'])}")
        lines.append(f"    {p['name']}: {p['help']} ({default}, {span})")
    also = f"Also: {', '.join(f'{k}=' for k in record['ir_params'])}; " if record["ir_params"] else ""
    lines.append(f"    {also}reads -R {record['relevance']}.")
    lines.append("    Not in trec_eval.")
    return lines


def _plain(x: float | int) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def trec_line_name(text: str) -> str:
    """The trec_eval line an ir_measures name prints the same value as (`nDCG@10` ->
    ndcg_cut_10, `AP` -> map, `IPrec@0.5` -> iprec_at_recall_0.50); any other name, and an
    ir_measures name with no such line (its own gains, rel=, judged_only=, RR@10), as it is."""
    if text in BY_NAME or not names_module.is_ir_measures_name(text):
        return text
    try:
        parsed = names_module.parse(text)
    except TrecgainError:
        return text
    if parsed.gains is not None or parsed.judged_only or parsed.rel is not None:
        return text
    measure = BY_NAME[parsed.measure]
    if measure.naming == "cutoffs" and parsed.cutoff is not None:
        return measure.line_names(Params(cutoffs=(parsed.cutoff,)), None)[0]
    if measure.naming == "points" and parsed.numbers:
        return measure.line_names(Params(numbers=parsed.numbers), None)[0]
    if measure.naming in ("plain", "params") and parsed.cutoff is None and not parsed.numbers:
        return measure.name  # params: a gain measure without a gain string (nDCG is ndcg)
    return text
