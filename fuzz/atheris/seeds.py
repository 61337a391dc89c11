"""Write the seed inputs of every harness into fuzz/atheris/corpus/<harness>/ (git-ignored;
libFuzzer adds what it finds there).  Measure names come from trecgain's registry, so new
measures are seeded as they are added.  Run from the project root:

    .venv/bin/python fuzz/atheris/seeds.py
"""

from __future__ import annotations

import gzip
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from trecgain.measures import NICKNAMES, REFUSED, REFUSED_SETS, REGISTRY  # noqa: E402
from trecgain.names import MEASURES  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")


def write(harness: str, seeds: list[bytes]) -> None:
    folder = os.path.join(CORPUS, harness)
    os.makedirs(folder, exist_ok=True)
    for seed in dict.fromkeys(seeds):
        with open(os.path.join(folder, "seed-" + hashlib.sha1(seed).hexdigest()[:16]), "wb") as f:
            f.write(seed)
    print(f"{harness}: {len(set(seeds))} seeds in {folder}")


def measures() -> list[str]:
    out = [m.name for m in REGISTRY] + list(NICKNAMES["10"]) + list(REFUSED) + list(REFUSED_SETS)
    for m in REGISTRY:
        if m.naming == "cutoffs":
            out += [f"{m.name}.5", f"{m.name}.5,10", f"{m.name}.2.5", f"{m.name}.1000,5,-1"]
        elif m.naming == "points":
            out += [f"{m.name}.0.1,0.5", f"{m.name}.1", f"{m.name}.0.25,0.25"]
    out += ["ndcg_cut.5,10", "ndcg.1=1,2=3,3=7", "ndcg.1=0.5", "G.0=0,1=1,2=5", "Rndcg.1=2",
            "ndcg_rel.-1=0,1=2", "dcg.1=1e3", "rbp.p=0.8", "rbp.p=0.8,2=3", "rbp_resid.p=0.5",
            "rbp.p=0.95,1=1,2=2,3=4", "utility.1,-1,0,0", "utility.2,-1,-1,0.5", "relstring.20",
            "relstring.0", "set_F.0.5", "11pt_avg.0.25,0.5,0.75", "iprec_at_recall.0.1,0.5",
            "Rprec_mult.0.5,1,2", "success.1,5,10", "unj.5,10,20", "err_cut.10,20", "judged.10",
            "P.5,10,15", "recall.1000", "ndcg.x=2,1=3", "ndcg.+1=2", "ndcg.01=2",
            "nDCG@10", "nDCG", "ndcg@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:1,2:3})@10",
            "nDCG(judged_only=True)@10", "nDCG(cutoff=10)", "DCG@5", "DCG(dcg='exp-log2')",
            "ERR@20", "err@10", "AP", "AP@100", "AP(rel=2)", "P@10", "P(rel=2)@5", "R@1000", "RR",
            "RR@10", "RR(rel=2)", "Rprec", "Rprec(rel=2)", "Bpref", "Bpref(rel=2)", "infAP",
            "Success@1", "Success(rel=2)@5", "IPrec@0.5", "IPrec(recall=0.2)", "IPrec(rel=2)@0.1",
            "NumRet", "NumRet(rel=1)", "NumRel", "NumRelRet", "NumQ", "Judged@10", "SetP",
            "SetP(relative=True)", "SetR", "SetF", "SetF(beta=0.5)", "RBP", "RBP(p=0.8)",
            "RBP(p=0.8,rel=2)", "RBP(p=0.5)@10", "mAP", "Recall@1000", "nDCG(gains={0:0.5})@3",
            "nDCG(gains={-1:1,3:7.5})", "nDCG(unknown=1)@5"]
    out += [name for name in MEASURES]
    return out


def gains() -> list[str]:
    return ["1=2,3=0.5", "1=1,2=3,3=7", "1=0.5", "0=0,1=1,2=3,3=7,4=15", "-1=0", "+2=3", "01=2",
            "1=1e3", "1=-2", "1=.5", "1=5.", "p=0.8,2=3", "x=1", " 1=2", "1=2,", "1=2,,3=4", "=",
            "1==2", "1=2=3", "linear", "exp", "binary", "9223372036854775808=1", "1=1e308",
            "2=3,2=4", "1=0x10", "1=inf", "1=nan", "1=1_0"]


def discounts() -> list[str]:
    return ["log:2", "log:e", "log:10", "log:1.5", "jk:2", "jk:10", "jk:e", "log", "jk", "log:",
            "jk:1", "log:1", "log:0.5", "log:-2", "log:1e308", "log:1.0000001", "log:inf", "log:nan",
            "exp:2", "log:2:3", "log:E", "log: 2", "jk:1e-300", "log:2.0"]


def cli() -> list[list[str]]:
    q, r = "Q", "R"
    return [
        ["-q", "-m", "map", "-c", "-l2", "--compat=9", q, r],
        ["-m", "ndcg_cut.10", q, r], ["-c", "-M", "10", "-m", "recip_rank", q, r],
        ["-c", "-l", "2", "-m", "map", "-m", "ndcg_cut.10", "-m", "recall.1000", q, r],
        ["-m", "all_trec", q, r], ["-h", "-m", "bpref"], ["-h"], ["-v"], ["--version"],
        ["-q", "-m", "ndcg", "-m", "ndcg_cut.5,10", "-m", "G", "-m", "binG", q, r],
        ["-m", "ndcg.1=1,2=3,3=7", q, "-"], ["--compat", "9", "-m", "ndcg_cut.10", q, r],
        ["-j", "2", "-m", "ndcg_cut.10", q, r, "S"], ["-qcJn", "-mndcg", q, r], ["--measure=ndcg", q, r],
        ["--glob", "exp", "-m", "ndcg", q, r], ["--global-gains", "1=1,2=3", "-m", "ndcg_cut.3", q, r],
        ["--discount", "jk:2", "-m", "dcg", q, r], ["--discount=log:e", "-m", "ndcg", q, r],
        ["--exact-ideal", "-m", "ndcg.1=0.5", q, r], ["--fractional-grades", "-m", "ndcg", "F", r],
        ["-m", "ndcg", "F", r], ["--err-max-grade", "3", "-m", "err_cut.5", q, r], ["-N", "100", "-m", "utility.1,-1,0,1", q, r],
        ["-R", "qrels", "-T", "trec_results", "-o", q, r], ["-R", "prefs", q, r], ["-D", "1", q, r], ["-Z", "z", q, r],
        [q, r], [q], [], ["--", q, r], ["-m", "nDCG@10", "-m", "AP(rel=2)", q, r], [q, "G"], [q, "C"],
        [q, "E"], ["E", r], [q, "X"], [q, "missing"], [q, "-", "-"], ["-M0", q, r], ["-l", "-1", q, r],
        ["-j", "0", q, r], ["--compat", "8", q, r], ["--co", "9", q, r], ["--e", q, r], ["-x", q, r],
        ["-m"], ["--measure"], ["-m", "", q, r], ["-m", "yaap", q, r], ["-m", "ndcg\tx", q, r],
        ["gdeval", q, r, "10"], ["gdeval", q, r, "0"], ["gdeval", q, "G", "5"], ["gdeval", "E", r, "3"],
        ["gdeval", q, r], ["-m", "relstring.5", "-q", q, r], ["-m", "official", "-m", "set", q, r],
        ["--compat", "9", "-m", "rbp.p=0.8", "-m", "dcg", q, r],
    ]


def compare() -> list[list[str]]:
    """`trecgain compare` argv (after `compare`) over fuzz_compare.py's files."""
    q, r, s, t = "Q", "R", "S", "T"
    return [
        [q, r, s], [q, r, s, t], ["-m", "map", "-m", "ndcg_cut.3", q, r, s], ["--all-pairs", q, r, s, t],
        ["-m", "Rndcg.1=0", q, r, s], ["-m", "Rndcg.1=0", "-m", "map", "-f", "json", q, r, s],
        ["--global-gains", "linear,exp", "-m", "ndcg_cut.2", q, r, s, t],
        ["--global-gains", "1=1e300,2=-1e300", "--exact-ideal", "-m", "dcg", q, r, s],
        ["-f", "json", q, r, s], ["-f", "csv", q, r, s], ["-f", "markdown", q, r, s], ["-f", "latex", q, r, s],
        ["--plot", "P", q, r, s], ["--plot", "x.png", "-m", "map", "-m", "ndcg_cut.2", q, r, s],
        ["--plot", "R.png", q, "R.png", s], ["--plot", "x.svg", "--plot-measure", "map", q, r, s],
        ["--plot", "x.png", q, "D", r], ["-f", "latex", q, "D", r, t],
        ["--plot", "x.pdf", "--plot-depth", "3", q, r, s], ["--plot", "Q", q, r, s],
        ["--wilcoxon", "--test", "wilcoxon", q, r, s], ["--test", "t", "--correction", "none", q, r, s],
        ["--correction", "benjamini-hochberg", "--alpha", "0.5", "--confidence", "0.5", q, r, s],
        ["--permutations", "1", "--bootstrap", "0", "--seed", "0", "--top", "0", q, r, s],
        ["-c", "-l", "2", "-M", "1", "-J", q, r, s], ["--compat", "9", "-m", "P.1", q, r, "-"],
        ["--ties", "average", "-m", "ndcg", q, r, s], ["--fractional-grades", "-m", "ndcg", "F", r, s],
        [q, r, "X"], [q, "E", r], ["E", r, s], [q, r, "G"], [q, r], [q, r, "-", "-"], ["-h"], [],
        ["-m", "gm_map", q, r, s], ["-m", "official", q, r, s], ["-m", "num_q", q, r, s],
    ]


def gdeval() -> list[bytes]:
    qrels = b"1 0 d1 2\n1 0 d2 1\n1 0 d3 0\n2 0 e1 4\nwt10-51 0 x 3\n"
    run = b"1 Q0 d1 1 3.5 tag\n1 Q0 d3 2 3 tag\n1 Q0 d2 3 abc tag\n2 Q0 e1 1 12x tag\nwt10-51 Q0 x 1 1 tag\n"
    pairs = [(qrels, run), (qrels, b""), (b"", run), (qrels, b"1 Q0 d1 1 nan tag\n"),
             (qrels, b"1 Q0 d1 1 1e3 t%s\n"), (b"01 0 d1 2\n1 0 d2 1\n", b"1 Q0 d1 1 1 t\n01 Q0 d2 1 2 t\n"),
             (b"1 Q0 d1 5\n", run), (b"1 0 d1 -1\r\n1 0 d1 2\r\n1 0 d1 1\n", b"1 Q0 d1 1 2 t\r\n"),
             (gzip.compress(qrels, mtime=0), gzip.compress(run, mtime=0)),
             (qrels, b"1 Q0 d1 1 9007199254740993 t\n1 Q0 d2 2 0.5 t\n"),
             (b"18446744073709551616 0 d 1\n", b"18446744073709551616 Q0 d 1 1 t\n"),
             (b"# c\n", b"\n"), (b"1 0 d1 2 extra\n", b"1 Q0 d1 1 1 tag extra\n")]
    out = []
    for i, (q, r) in enumerate(pairs):
        out.append(bytes([(i * 37) % 256]) + q + b"=====\n" + r)
    out.append(bytes([9]) + qrels)
    return out


def _escape(token: str | bytes) -> str:
    raw = token if isinstance(token, bytes) else token.encode("utf-8", "surrogateescape")
    return '"' + "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else "\\x%02x" % b for b in raw) + '"'


def write_dict(harness: str, tokens: list) -> None:
    """fuzz/atheris/<harness>.dict, libFuzzer's format (tracked; regenerated here)."""
    with open(os.path.join(HERE, f"{harness}.dict"), "w") as f:
        f.write(f"# libFuzzer dictionary for fuzz_{harness}.py (written by seeds.py from trecgain's registry)\n")
        f.writelines(_escape(t) + "\n" for t in dict.fromkeys(tokens))


def dictionaries() -> None:
    from trecgain.cli import option_names

    numbers = ["0", "1", "-1", "+", "-", ".", ",", "=", "e", "E", "1e308", "1e-308", "inf", "nan", "_", "0x",
               "2147483647", "2147483648", "9223372036854775808", "18446744073709551616", "9007199254740993",
               " ", "\u00b2", "\u0663", "\u2028"]
    names = [m.name for m in REGISTRY] + list(NICKNAMES["10"])
    write_dict("measures", names + list(MEASURES) + [
        "@", "(", ")", "=", "'", "True", "False", "None", "dcg", "gains", "judged_only", "rel", "cutoff", "beta",
        "relative", "p", "recall", "'exp-log2'", "'log2'", "{", "}", ":", "[", "]", "lambda", "**", "1j", "b''",
        "...", "\\"] + numbers)
    write_dict("gains", ["linear", "exp", "binary", "p", "x"] + numbers)
    write_dict("discounts", ["log:", "jk:", "log", "jk", ":", "2", "e", "10", "1.0000000000000002"] + numbers)
    options = option_names()
    write_dict("cli", ["\0", "-", "--", "=", "Q", "R", "S", "G", "F", "C", "E", "X", "gdeval", "qrels",
                       "trec_results", "9", "10"] + options + names
               + ["nDCG@10", "ndcg.1=2", "log:e", "jk:2", "exp", "1=2,2=3"] + numbers)
    compare_options = option_names("compare")
    write_dict("compare", ["\0", "-", "--", "=", "Q", "R", "S", "T", "D", "G", "F", "E", "X", "P", ".png", ".svg",
                           ".pdf", "R.png", "text", "json", "csv", "markdown", "latex", "holm", "bonferroni",
                           "benjamini-hochberg", "none", "randomization", "t", "wilcoxon", "tukey", "linear,exp",
                           "1=1e300,2=-1e300", "Rndcg.1=0", "0.05", "0.95", "9", "10", "average", "rank", "docno"]
               + compare_options + names + ["ndcg_cut.2", "P.1", "ndcg.1=2"] + numbers)
    write_dict("gdeval", ["\n", "\r", " ", "\t", "Q0", "0", "=====\n", "#", "-", "wt10-", b"\x1f\x8b\x08\x00", "%",
                          "%s", "nan", "inf", "1.#INF", "qnan", "snan", "1e3", "12x", "abc", "4", "5", "-1",
                          "18446744073709551615", "18446744073709551616", "9223372036854775808",
                          "9007199254740993", "-9223372036854775809", "1e309", ".5", "0.", "1E+"])


if __name__ == "__main__":
    dictionaries()
    write("measures", [s.encode() for s in measures()]
          + ["\n".join(p).encode() for p in (("ndcg", "ndcg.1=2"), ("map", "nDCG@10", "P.5"),
                                             ("official", "all_trec", "rbp"), ("dcg", "ndcg_cut.5"))])
    write("gains", [s.encode() for s in gains()])
    write("discounts", [s.encode() for s in discounts()])
    write("cli", [b"\0".join(a.encode() for a in argv) for argv in cli()])
    write("gdeval", gdeval())
    write("compare", [b"\0".join(a.encode() for a in argv) for argv in compare()])
