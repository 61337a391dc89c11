"""`trecgain compare`'s output formats: text (aligned tables with markers), json, csv, markdown
and latex (booktabs, best value bold, superscript letters as in ranx's reports).

A run's letters say which runs it is significantly better than, by the chosen test's adjusted
p-value at alpha; `*` marks a significant comparison.  Means print with 4 decimals, as the
main command prints them.

Numbers that are not finite, one spelling per format: in JSON every one is null (nan and the
infinities alike); in CSV nan is an empty cell and the infinities `inf` and `-inf` (Python's
float() reads them back); in text, markdown and latex a statistic that is not computed (nan)
is `-`, the infinities `+inf` and `-inf` (the t statistic and the effect size of a difference
that is the same on every query), and a mean that is nan prints `nan`, as the main command's."""

from __future__ import annotations

import math

from .significance import TESTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Comparison, MeasureResult, Pair



# ---------------------------------------------------------------- numbers


def _mean(v: float) -> str:
    return f"{v:.4f}"


def _signed(v: float) -> str:
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:+.4f}"


def _effect(v: float) -> str:
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return f"{v:+.2f}"


def p_text(v: float, alpha: float | None = None) -> str:
    """4 decimals (tiny values in e-notation); more where 4 would read as alpha itself while the
    value is on the other side of it (0.049995 is 0.04999 against alpha 0.05, not 0.0500)."""
    if math.isnan(v):
        return "-"
    if v < 0.0001 and v != 0.0:
        return f"{v:.1e}"
    text = f"{v:.4f}"
    digits = 4
    while alpha is not None and v != alpha and float(text) == alpha and digits < 12:
        digits += 1
        text = f"{math.floor(v * 10**digits) / 10**digits:.{digits}f}" if v < alpha else f"{v:.{digits}f}"
    return text


def _interval(ci: tuple[float, float]) -> str:
    if any(math.isnan(x) for x in ci):
        return "-"
    return f"[{_signed(ci[0])}, {_signed(ci[1])}]"


def _json_number(v: object) -> object:
    """Every number that is not finite (nan, inf, -inf) is null in JSON."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _left_out(c: Comparison, m: MeasureResult) -> str:
    """The text section's word on queries its statistics leave out."""
    if not m.left_out:
        return ""
    return f"  ({len(m.left_out)} of the {_queries(len(c.qids))} left out: a value is not a finite number)"


def _tests(c: Comparison) -> list[str]:
    """The tests whose p-values the comparisons carry, in a fixed order."""
    present = set()
    for m in c.measures:
        for pair in m.pairs:
            present.update(pair.p)
    return [t for t in TESTS if t in present]


def _pair_name(c: Comparison, pair: Pair) -> str:
    return f"{c.runs[pair.b].label} - {c.runs[pair.a].label}"


def _letters(m: MeasureResult, run: int, c: Comparison) -> str:
    return "".join(c.runs[k].label for k in m.beats(run))


def _how(c: Comparison) -> str:
    """The sentence saying what decides the markers."""
    s = c.settings
    test = s["test"]
    corrected = "" if not TESTS[test].adjusted or s["correction"] == "none" else f"{s['correction']}-adjusted "
    return f"{corrected}{TESTS[test].title} p < {s['alpha']:g}"


def _setup(c: Comparison) -> list[str]:
    s = c.settings
    runs = len(c.runs)
    what = "every pair" if s["all_pairs"] else f"each run against {s['baseline']} ({c.runs[_index(c, s['baseline'])].name})"
    lines = [f"{runs} runs, {_queries(s['queries'])}{' (-c: every qrels query)' if s['complete'] else ''}; "
             f"{what}"]
    parts = [f"seed {s['seed']}", f"{s['permutations']} permutations", f"{s['bootstrap']} bootstrap resamples",
             f"correction {s['correction']}", f"alpha {s['alpha']:g}",
             f"{s['confidence'] * 100:g}% intervals (t, bootstrap percentile)"]
    if s["global_gains"]:
        parts.append(f"gains {', '.join(s['global_gains'])}")
    if s.get("convention"):  # --as TOOL, or options that change what trec_eval's names mean
        parts.append(f"computed as {s['convention']}")
    lines.append("; ".join(parts))
    return lines


def _queries(n: int) -> str:
    return f"{n} {'query' if n == 1 else 'queries'}"


def _index(c: Comparison, label: str) -> int:
    return next(i for i, r in enumerate(c.runs) if r.label == label)


# ---------------------------------------------------------------- records


def rows(c: Comparison) -> list[dict]:
    """One flat record per (measure, pair): the CSV's and the DataFrame's rows."""
    s = c.settings
    tests = _tests(c)
    out = []
    for m in c.measures:
        for pair in m.pairs:
            a, b = c.runs[pair.a], c.runs[pair.b]
            row = {"measure": m.key, "line": m.line, "scheme": m.scheme, "run_a": a.name, "run_b": b.name,
                   "label_a": a.label, "label_b": b.label, "queries": pair.n, "mean_a": m.means[pair.a],
                   "mean_b": m.means[pair.b], "diff": pair.diff, "ci_t_low": pair.ci_t[0], "ci_t_high": pair.ci_t[1],
                   "ci_bootstrap_low": pair.ci_bootstrap[0], "ci_bootstrap_high": pair.ci_bootstrap[1],
                   "effect_size": pair.effect, "wins": pair.wins, "ties": pair.ties, "losses": pair.losses,
                   "t": pair.t}
            for t in tests:
                row[f"p_{t}"] = pair.p[t]
                if t == "randomization":
                    row["se_randomization"] = pair.se_randomization
            for t in tests:
                row[f"p_{t}_adjusted"] = pair.adjusted[t]
            row.update({"test": s["test"], "correction": s["correction"], "significant": pair.significant,
                        "better": None if pair.winner is None else c.runs[pair.winner].name, "seed": s["seed"]})
            out.append(row)
    return out


def to_dict(c: Comparison) -> dict:
    """Everything, as JSON-ready values (nan: None)."""

    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return _json_number(v)

    measures = []
    for m in c.measures:
        comparisons = []
        for pair in m.pairs:
            comparisons.append({
                "a": c.runs[pair.a].label, "b": c.runs[pair.b].label, "queries": pair.n, "diff": pair.diff,
                "ci_t": list(pair.ci_t), "ci_bootstrap": list(pair.ci_bootstrap), "effect_size": pair.effect,
                "wins": pair.wins, "ties": pair.ties, "losses": pair.losses, "t": pair.t, "p": dict(pair.p),
                "se_randomization": pair.se_randomization, "p_adjusted": dict(pair.adjusted),
                "significant": pair.significant,
                "better": None if pair.winner is None else c.runs[pair.winner].label,
                "largest_differences": [{"qid": q, "a": va, "b": vb, "diff": d} for q, va, vb, d in pair.largest]})
        measures.append({
            "measure": m.key, "line": m.line, "scheme": m.scheme, "lower_is_better": m.lower_is_better,
            "means": {r.label: v for r, v in zip(c.runs, m.means)},
            "common_means": {r.label: v for r, v in zip(c.runs, m.common_means)},
            "best": None if m.best is None else c.runs[m.best].label,
            "better_than": ({r.label: [c.runs[k].label for k in m.beats(i)] for i, r in enumerate(c.runs)}
                            if m.tested else None),
            "left_out": list(m.left_out),
            "comparisons": comparisons})
    reversals = [{"measure": r.line, "schemes": list(r.schemes), "a": c.runs[r.a].label, "b": c.runs[r.b].label,
                  "means": {scheme: {c.runs[r.a].label: ma, c.runs[r.b].label: mb}
                            for scheme, (ma, mb) in zip(r.schemes, r.means)},
                  "means_reversed": r.reversed,
                  "queries": [{"qid": q, "diff": {r.schemes[0]: d1, r.schemes[1]: d2}} for q, d1, d2 in r.queries]}
                 for r in c.reversals]
    return clean({
        "tool": "trecgain compare", "settings": dict(c.settings),
        "runs": [{"label": r.label, "name": r.name, "source": r.source, "lacks": r.lacks, "queries": r.queries}
                 for r in c.runs],
        "queries": list(c.qids), "measures": measures, "reversals": reversals,
        "notes": list(c.notes), "warnings": list(c.warnings)})


def to_json(c: Comparison) -> str:
    import json  # not at import: only this path needs it

    return json.dumps(to_dict(c), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_csv(c: Comparison) -> str:
    import csv  # not at import: only this path needs it
    import io  # not at import: only this path needs it

    records = rows(c)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if records:
        writer.writerow(list(records[0]))
    for r in records:
        writer.writerow(["" if v is None else _csv_value(v) for v in r.values()])
    return buffer.getvalue()


def _csv_value(v: object) -> object:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return repr(v)
    return v


# ---------------------------------------------------------------- text


def _table(header: list[str], body: list[list[str]], right: set[int]) -> list[str]:
    """Aligned columns, those in `right` to the right, the others to the left."""
    from ..formats import aligned  # not at import: only this path needs it

    return aligned(header, body, left=set(range(len(header))) - right)


def _comparison_rows(c: Comparison, m: MeasureResult, tests: list[str]) -> tuple[list, list]:
    s = c.settings
    header = ["", "diff", f"{s['confidence'] * 100:g}% CI (t)", f"{s['confidence'] * 100:g}% CI (bootstrap)", "effect",
              "W/T/L"]
    for t in tests:
        header.append(f"p {TESTS[t].short}" + (" (se)" if t == "randomization" else ""))
    adjusted = TESTS[s["test"]].adjusted  # the Tukey HSD's p needs no adjustment: its column decides
    header += [f"p {TESTS[s['test']].short} {s['correction']}"] if adjusted else []
    header.append("")
    body = []
    for pair in m.pairs:
        row = [_pair_name(c, pair), _signed(pair.diff), _interval(pair.ci_t), _interval(pair.ci_bootstrap),
               _effect(pair.effect), f"{pair.wins}/{pair.ties}/{pair.losses}"]
        for t in tests:
            cell = p_text(pair.p[t], s["alpha"] if t == s["test"] and not adjusted else None)
            if t == "randomization" and not math.isnan(pair.se_randomization):
                cell += f" ({pair.se_randomization:.4f})"
            row.append(cell)
        row += [p_text(pair.adjusted[s["test"]], s["alpha"])] if adjusted else []
        row.append("*" if pair.significant else "")
        body.append(row)
    return header, body


def to_text(c: Comparison) -> str:
    out = ["trecgain compare: " + _setup(c)[0], _setup(c)[1], ""]
    tests = _tests(c)
    # the runs x measures table
    header = ["", "run"] + [m.key for m in c.measures]
    body = []
    for i, r in enumerate(c.runs):
        row = [r.label, r.name]
        for m in c.measures:
            letters = _letters(m, i, c)
            row.append(_mean(m.means[i]) + (" " + letters if letters else ""))
        body.append(row)
    widths = {k: max(len(b[k]) for b in body) for k in range(2, len(header))}
    for row in body:  # means aligned on the decimal point, letters after
        for k in range(2, len(row)):
            row[k] = row[k].ljust(widths[k])
    out += _table(header, body, set())
    out.append(f"letters: significantly better than the runs so labelled ({_how(c)})")
    for m in c.measures:
        out += ["", m.key + ("  (lower is better)" if m.lower_is_better else "") + _left_out(c, m)]
        h, b = _comparison_rows(c, m, tests)
        out += ["  " + line for line in _table(h, b, set(range(1, len(h) - 1)))]
        for pair in m.pairs:
            if pair.largest:
                shown = ", ".join(f"{q} {_signed(d)}" for q, _, _, d in pair.largest)
                out.append(f"  largest |{_pair_name(c, pair)}|: {shown}")
    if c.reversals:
        out += ["", "Orders the gain schemes reverse (means, then queries, of the later run minus the earlier):"]
        for r in c.reversals:
            (a1, b1), (a2, b2) = r.means
            name = f"{c.runs[r.b].label} - {c.runs[r.a].label}"
            head = (f"  {r.line}  {name}: {r.schemes[0]} {_signed(b1 - a1)}, {r.schemes[1]} {_signed(b2 - a2)}"
                    f"{' (the means reverse)' if r.reversed else ''}; {len(r.queries)} of {_queries(len(c.qids))} "
                    f"{'reverses' if len(r.queries) == 1 else 'reverse'}")
            if r.queries:
                top = max(c.settings["top"], 1)
                shown = ", ".join(f"{q} ({_signed(d1)} / {_signed(d2)})" for q, d1, d2 in r.queries[:top])
                more = f", ... ({len(r.queries) - top} more)" if len(r.queries) > top else ""
                head += f": {shown}{more}"
            out.append(head)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- markdown


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def to_markdown(c: Comparison) -> str:
    setup = _setup(c)
    out = [f"**trecgain compare**: {_md_escape(setup[0])}; {_md_escape(setup[1])}", ""]
    header = ["", "run"] + [_md_escape(m.key) for m in c.measures]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "|".join(["---", "---"] + ["---:"] * len(c.measures)) + "|")
    for i, r in enumerate(c.runs):
        cells = [r.label, _md_escape(r.name)]
        for m in c.measures:
            value = _mean(m.means[i])
            if i == m.best:
                value = f"**{value}**"
            letters = _letters(m, i, c)
            cells.append(value + (f"<sup>{letters}</sup>" if letters else ""))
        out.append("| " + " | ".join(cells) + " |")
    out += ["", f"Best value in bold; superscripts: significantly better than the runs so labelled ({_md_escape(_how(c))}).",
            ""]
    tests = _tests(c)
    for m in c.measures:
        h, b = _comparison_rows(c, m, tests)
        h[0] = _md_escape(m.key)
        out.append("| " + " | ".join(h[:-1]) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(h) - 2)) + "|")
        for row in b:
            row[-2] = row[-2] + (" \\*" if row[-1] else "")
            out.append("| " + " | ".join(row[:-1]) + " |")
        out.append("")
    if c.reversals:
        out += ["Orders the gain schemes reverse:", ""]
        out.append("| measure | pair | " + " | ".join(["mean diff"] * 2) + " | means reverse | queries reversed |")
        out.append("|---|---|---:|---:|---|---:|")
        for r in c.reversals:
            (a1, b1), (a2, b2) = r.means
            out.append(f"| {_md_escape(r.line)} | {c.runs[r.b].label} - {c.runs[r.a].label} | "
                       f"{r.schemes[0]} {_signed(b1 - a1)} | {r.schemes[1]} {_signed(b2 - a2)} | "
                       f"{'yes' if r.reversed else 'no'} | {len(r.queries)} of {len(c.qids)} |")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- latex

_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
          "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def to_latex(c: Comparison) -> str:
    """A booktabs table, runs by measures: best value bold, superscript letters of the runs a
    value is significantly better than."""
    s = c.settings
    columns = "ll" + "r" * len(c.measures)
    out = [f"% trecgain compare: {_setup(c)[0]}", f"% {_setup(c)[1]}",
           "% needs \\usepackage{booktabs}", r"\begin{table}[t]", r"\centering",
           r"\begin{tabular}{" + columns + "}", r"\toprule",
           " & Run & " + " & ".join(_tex(m.key) for m in c.measures) + r" \\", r"\midrule"]
    for i, r in enumerate(c.runs):
        cells = [r.label, _tex(r.name)]
        for m in c.measures:
            value = _mean(m.means[i])
            if i == m.best:
                value = r"\textbf{" + value + "}"
            letters = _letters(m, i, c)
            cells.append(value + (r"$^{" + letters + "}$" if letters else ""))
        out.append(" & ".join(cells) + r" \\")
    test = s["test"]
    corrected = "" if not TESTS[test].adjusted or s["correction"] == "none" else f"{s['correction']}-adjusted "
    how = f"{corrected}{TESTS[test].title}, $p < {s['alpha']:g}$"
    what = "every pair of runs" if s["all_pairs"] else f"each run against run {s['baseline']}"
    out += [r"\bottomrule", r"\end{tabular}",
            r"\caption{" + f"{_queries(len(c.qids))}. Best value in bold. Superscripts: significantly better than the "
            f"runs so labelled ({how}; {what}; {s['permutations']} permutations, seed {s['seed']})." + "}",
            r"\end{table}"]
    return "\n".join(out) + "\n"


FORMATS = {"text": to_text, "json": to_json, "csv": to_csv, "markdown": to_markdown, "latex": to_latex}
