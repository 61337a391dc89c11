#!/usr/bin/env python3
"""Live conformance: trecgain against a real trec_eval binary on seeded random collections.

    make conformance                                   # pyserini's trec_eval 9.0.4
    TREC_EVAL=/path/to/trec_eval make conformance      # your own build (9.x or 10.x)
    python tests/live_conformance.py --count 500 --seed 7 --keep /tmp/repro --minimize

The binary is taken from --trec-eval PATH, else from $TREC_EVAL, else pyserini's trec_eval
9.0.4, fetched by bench/bench.py's ensure_trec_eval into bench/cache.  Its version comes from
`trec_eval -v` ("trec_eval version 9.0.4", "10.0-rc3" for the v10.0 tag); a 9.x binary is
compared with `trecgain --compat 9`, a 10.x one with trecgain's default (--compat overrides).

Each collection is generated from (--seed, its index) alone, so a collection is the same
whatever --jobs, --count or the binary: 1 to 6 queries (in both files, in the qrels only, in
the run only) with graded, binary, all-zero, large and negative judgments; scores with exact
ties, float32 near-ties (a double and its neighbours, halfway cases, 2^24 + 1, beyond float32
range), in fixed, exponent and 17-digit notation; qids and docnos that are numbers (leading
zeros, numeric order not byte order), letters, dashes, dots, '#' inside, non-ASCII bytes and
long ones; tabs, runs of spaces, leading and trailing blanks, CRLF, no final newline,
comment and blank lines; extra run columns; the run on standard input; flags drawn from
-q -c -n -J -l L -M M in trec_eval's spellings (-l2, --level_for_rel=2, options after the
files); measures with gain strings (ndcg.0=0,1=1,2=3: fractional, negative, names 9.x reads
with atol) and cutoffs; and, now and then, a duplicate judgment or retrieval or a malformed
line, which both programs must refuse.

The measures are not listed here: they are the records of trecgain.measures.REGISTRY that say
they are trec_eval's (in_trec_eval, and in_trec_eval_9 for a 9.x binary), kept when the binary
accepts them too (`trec_eval -m NAME` on a two-line collection exits 0), with the cutoffs,
points or gain strings their records parse.  A registry measure that trecgain itself refuses
is reported and makes the exit status 1.  trec_eval's nicknames (all_trec, official, and
the others trecgain's registry names) are exercised when both programs accept them; one that
trecgain refuses (as it did before it had trec_eval's other measures) is reported and skipped.

Both programs run on each collection (from its own directory, --jobs at a time); stdout must
be equal byte for byte when trec_eval succeeds; when trec_eval fails (non-zero status, a
crash), trecgain must fail too and print nothing on stdout; a Python traceback from trecgain
is always a difference.  The first differing line is reported, and the collection is kept
under --keep DIR (default: a new temporary directory, named in the message) with both
command lines in repro.sh; --minimize also shrinks it (measures, options, queries, lines,
formatting) while it keeps differing the same way.  The exit status is 1 if any collection
differs.

Where trecgain departs from trec_eval on purpose (README, "Where trecgain departs from
trec_eval" and "Bad input"), the generator avoids the input, or hands trec_eval the input
the corpus expectations were recorded on (testdata/conformance/README.md):

* trec_eval 10.0 exits 4 when a qrels query has no ranking and -c is not given; trecgain
  skips the query (as 9.x and 10.0's own help do).  A 10.x binary is therefore given the
  qrels restricted to the run's queries (without -c); trecgain always gets the full qrels.
* Comment lines ('#' in column 0): 9.x rejects them, 10.0 fails on two in a row in the
  qrels; trecgain accepts them.  trec_eval is given the files with comment lines removed.
* A query whose judgments are all negative, when trec_eval evaluates it (in both files, or
  any qrels query with -c): trec_eval fails or reads a stale buffer.  Not generated (such
  queries appear only in the qrels, without -c).
* A document judged or retrieved twice: trec_eval notices only in queries it evaluates (with
  -D 0.QID, that one), only when a measure looks at the ranking (not with runid and num_q
  alone) and, for the run, only within the first -M documents; trecgain always refuses.  Duplicates are generated only in
  queries of both files, with such a measure, and duplicate retrievals only without -M.
* Scores and grades that are not numbers (high, 1e, inf, nan, hex), a lone CR, NUL bytes,
  identifiers over 1024 bytes, grades in the millions, -M 0 or negative -l: trec_eval reads
  them silently wrong (or for hours); never generated.
* Two of dcg, ideal_dcg and ndcg in one command, one of them with a gain string: trec_eval
  10.0 keeps the three measures' gains in one shared record (m_ndcg.c), so every one of them
  is computed with the last gain string given, under the names the user gave, and then it
  aborts freeing the record twice (SIGABRT, "double free"; stdout, buffered, is lost);
  trecgain gives each measure its own gains.  Not generated (trecgain's README does not list
  this departure yet).
* rbp (trec_eval 10.0): it scales the gains by a minimum and maximum it never initialises,
  so its value depends on the build and on the measures before it; trecgain uses the gain
  table's real ones.  Never generated (DEPARTING below; rbp_resid is), and where a nickname
  (10.0's all_trec) asks for it, its lines are left out of both outputs before comparing.
* trecgain-only measures (ndcg_p, err_cut, cg_cut, ir_measures names, the 'gain'
  nickname, --global-gains, --discount) have no trec_eval output to match; not generated.
  dcg and ideal_dcg exist only in 10.x and are dropped for a 9.x binary by the probe.
* The sign of a NaN (G with gains that make its log2 argument negative): pyserini's 9.0.4
  binary, compiled to x87 code, prints 'nan' where trec_eval 9.0.8 and 10.0 built from source
  print '-nan' (as trecgain does).  With that binary (recognised by its sha256) an output
  that differs only there is counted apart, not as differing; --nan-sign strict counts it.
* trecgain prints warnings (gains closer than 1) on stderr; stderr is not compared.

Besides qrels, each of trec_eval's other relevance formats (`--formats`, each --count
collections): `-R qrels_jg` (the qrels' second column a judgment group: one to three groups per
query, each judging some of its documents), `-R prefs` (judgment groups of one to three
subgroups, levels 0, whole or fractional, written in several notations and scaled per subgroup,
so a group's preferences are consistent), and `-R qrels_prefs` (a qrels read as preferences,
fractional levels); with their measures and nicknames (qrels_jg, all_prefs, prefs).  Now and then
a document judged twice in one group, or (prefs) a document at two levels in one subgroup, at
level 0 and above 0 in one group, or preferred both ways in one group, which both programs must
refuse (trec_eval aborts on the last).  Not generated: negative levels in preference files
(trec_eval's prefs_avgjg_Rnonrel then reads past the end of an array).

This is a script, not a pytest module (pytest collects test_*.py only).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import json
import math
import os
import random
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = TESTS_DIR.parent
BENCH_DIR = PROJECT_ROOT / "bench"
TIMEOUT = 120  # seconds per process; a hang counts as a failure

QRELS, RUN = "qrels.txt", "run.txt"
TE_QRELS, TE_RUN = "qrels.trec_eval.txt", "run.trec_eval.txt"


# ------------------------------------------------------------------ the programs


def default_trecgain() -> list[str]:
    """The installed `trecgain` next to this interpreter, else on PATH, else `python -m trecgain`."""
    beside = Path(sys.executable).parent / "trecgain"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("trecgain")
    return [found] if found else [sys.executable, "-m", "trecgain"]


def bench_module():
    """bench/bench.py (not a package), for ensure_trec_eval and the pyserini binary's digest."""
    sys.path.insert(0, str(BENCH_DIR))
    try:
        import bench
    except ImportError:
        # bench.py imports its data generator, which needs numpy (a test extra); the
        # download does not: stand in for the generator's names.
        import types

        stub = types.ModuleType("gen")
        stub.DataSpec = stub.add_data_arguments = stub.ensure_data = stub.spec_from_args = None
        sys.modules["gen"] = stub
        sys.modules.pop("bench", None)
        import bench
    return bench


def find_trec_eval(arg: str | None, cache_dir: Path) -> Path:
    """--trec-eval, else $TREC_EVAL, else pyserini's 9.0.4 via bench/bench.py."""
    chosen = arg or os.environ.get("TREC_EVAL")
    if chosen:
        path = Path(chosen).expanduser()
        if not path.exists():
            found = shutil.which(chosen)
            if not found:
                sys.exit(f"live conformance: trec_eval '{chosen}' not found")
            path = Path(found)
        return path.resolve()
    return bench_module().ensure_trec_eval(cache_dir).resolve()


def is_pyserini_binary(binary: Path) -> bool:
    import hashlib

    try:
        digest = hashlib.sha256(binary.read_bytes()).hexdigest()
    except OSError:
        return False
    return digest == getattr(bench_module(), "TREC_EVAL_SHA256", None)


def trec_eval_version(binary: Path) -> str | None:
    """What `trec_eval -v` says ("9.0.4", "10.0-rc3"), on stdout or stderr, or None."""
    try:
        done = subprocess.run([str(binary), "-v"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout + done.stderr).decode("utf-8", "replace")
    match = re.search(r"trec_eval\s+version\s+(\S+)", text)
    return match.group(1) if match else None


@dataclass
class Outcome:
    rc: int
    stdout: bytes
    stderr: bytes


def execute(argv: list[str], cwd: Path, stdin: bytes | None = None) -> Outcome:
    try:
        done = subprocess.run(argv, cwd=cwd, input=stdin if stdin is not None else b"",
                              capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        return Outcome(-999, exc.stdout or b"", (exc.stderr or b"") + b"\n(timed out)")
    return Outcome(done.returncode, done.stdout, done.stderr)


# ------------------------------------------------------------------ measures


@dataclass(frozen=True)
class MeasureSpec:
    name: str
    kind: str  # "none" | "cutoffs" | "gains" | "nickname"


PROBE_QRELS = "1 0 a 1\n1 0 b 0\n"
PROBE_RUN = "1 Q0 a 1 1.5 probe\n1 Q0 b 2 0.5 probe\n"


def parameter_kind(record) -> str:
    """How a registry record takes parameters: "cutoffs" (ndcg_cut.5,10), "points" (numbers
    such as recall points), "gains" (level=gain pairs: its parser takes "1=2,0=0.5"), else "none"."""
    naming = getattr(record, "naming", "plain")
    if naming in ("cutoffs", "points"):
        return naming
    parse = getattr(record, "parse", None)
    if naming == "params" and parse is not None:
        try:
            parse("1=2,0=0.5", "10")
        except Exception:  # noqa: BLE001 (any refusal: not a gain string)
            return "none"
        return "gains"
    return "none"


#: trec_eval measures whose output trecgain deliberately does not reproduce (README, "Where
#: trecgain departs from trec_eval"): never generated.
DEPARTING = {"rbp": "trec_eval 10.0 scales its gains by a minimum and maximum it never initialises"}


#: The relevance formats (-R) generated, and each one's two-line probe file; "zscores": qrels
#: collections with a -Z file.
FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs", "zscores")
PROBE_FILES = {"qrels": PROBE_QRELS, "qrels_jg": "1 u1 a 1\n1 u2 b 0\n", "prefs": "1 g s a 2\n1 g s b 1\n",
               "qrels_prefs": PROBE_QRELS, "zscores": PROBE_QRELS}
#: trec_eval's nicknames of each format's measures.
FORMAT_NICKNAMES = {"qrels_jg": ["qrels_jg"], "prefs": ["all_prefs", "prefs"], "qrels_prefs": ["all_prefs", "prefs"]}


def reads(record, rel_format: str) -> bool:
    """Whether a registry record's measure reads relevance files of this format."""
    needs = getattr(record, "relevance", "qrels")
    if rel_format == "zscores":
        rel_format = "qrels"
    return needs == "any" or needs == rel_format or (needs == "prefs" and rel_format == "qrels_prefs")


def registry_measures(major: int, rel_format: str = "qrels") -> list[MeasureSpec]:
    """trecgain's registry records that are trec_eval measures (in this trec_eval's version)
    reading this relevance format."""
    from trecgain import measures as registry

    out = []
    for record in registry.REGISTRY:
        if not getattr(record, "in_trec_eval", True) or record.name in DEPARTING:
            continue
        if major < 10 and not getattr(record, "in_trec_eval_9", True):
            continue
        if reads(record, rel_format):
            out.append(MeasureSpec(record.name, parameter_kind(record)))
    return out


def nickname_candidates(rel_format: str = "qrels") -> list[str]:
    from trecgain import measures as registry

    if rel_format not in ("qrels", "zscores"):
        return FORMAT_NICKNAMES[rel_format]
    names = ["all_trec", "official"]
    names += [n for n in getattr(registry, "TREC_EVAL_SETS", ()) if n not in names]
    return names


@dataclass
class Probe:
    measures: list[MeasureSpec]  # both programs accept them
    nicknames: list[str]  # both programs accept them
    not_in_binary: list[str]  # registry measures this trec_eval refuses
    nicknames_refused: list[str]  # trec_eval nicknames trecgain refuses
    broken: dict[str, str]  # registry measures trecgain itself refuses: name -> its message


def probe(binary: Path, trecgain: list[str], compat: list[str], major: int, jobs: int,
          rel_format: str = "qrels") -> Probe:
    """Run each program once per name on a two-line collection of the format: a name is
    accepted when the program exits 0 (relstring prints nothing without -q, an unknown name
    exits 1)."""
    candidates = registry_measures(major, rel_format)
    nicks = nickname_candidates(rel_format)
    format_args = [] if rel_format in ("qrels", "zscores") else ["-R", rel_format]
    with tempfile.TemporaryDirectory(prefix="trecgain-live-probe-") as tmp:
        d = Path(tmp)
        (d / QRELS).write_text(PROBE_FILES[rel_format])
        (d / RUN).write_text(PROBE_RUN)

        def te_ok(name: str) -> bool:
            return execute([str(binary), *format_args, "-m", name, QRELS, RUN], d).rc == 0

        def tg_run(name: str) -> Outcome:
            return execute([*trecgain, *compat, *format_args, "-m", name, QRELS, RUN], d)

        names = [m.name for m in candidates] + nicks
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            te = dict(zip(names, pool.map(te_ok, names)))
            tg = dict(zip(names, pool.map(tg_run, names)))
    return Probe(
        measures=[m for m in candidates if te[m.name] and tg[m.name].rc == 0],
        nicknames=[n for n in nicks if te[n] and tg[n].rc == 0],
        not_in_binary=[m.name for m in candidates if not te[m.name]],
        nicknames_refused=[n for n in nicks if te[n] and tg[n].rc != 0],
        broken={m.name: first_line(tg[m.name].stderr) for m in candidates
                if te[m.name] and tg[m.name].rc != 0})


# ------------------------------------------------------------------ collections


@dataclass
class Line:
    kind: str  # data | comment | blank | malformed
    text: str
    qid: str = ""
    docno: str = ""
    grade: int | None = None  # qrels data lines


@dataclass
class Collection:
    index: int
    qrels: list[Line]
    run: list[Line]
    options: list[list[str]]  # token groups, e.g. ["-l", "2"]
    measures: list[list[str]]  # token groups, e.g. ["-m", "ndcg"]
    qrels_eol: str = "\n"
    run_eol: str = "\n"
    qrels_final_newline: bool = True
    run_final_newline: bool = True
    stdin: bool = False  # trecgain reads the run from standard input
    files_first: bool = False  # QRELS RUN before the options
    rel_format: str = "qrels"  # -R ("zscores": a qrels collection with a -Z file)
    zscores: list[str] | None = None  # the -Z file's lines

    def flags(self) -> set[str]:
        out = set()
        for group in self.options:
            tok = group[0]
            if tok in ("-c", "--complete_rel_info_wanted"):
                out.add("c")
            if tok.startswith("-M") or tok.startswith("--Max_retrieved_per_topic"):
                out.add("M")
        return out

    def only_query(self) -> str | None:
        """The QID of -D 0.QID, if given."""
        for group in self.options:
            text = group[-1] if group[0] == "-D" else group[0][2:] if group[0].startswith("-D") else ""
            if "." in text:
                return text.partition(".")[2]
        return None

    def run_qids(self) -> set[str]:
        return {line.qid for line in self.run if line.kind in ("data", "malformed")}

    def qrels_qids(self) -> set[str]:
        return {line.qid for line in self.qrels if line.kind in ("data", "malformed")}


def float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def float32_up(x: float) -> float:
    """The next float32 above float32(x) (x finite, within float32 range)."""
    f = float32(x)
    bits = struct.unpack("<I", struct.pack("<f", f))[0]
    if f > 0 or (f == 0 and bits == 0):
        bits += 1
    elif f == 0:  # -0.0
        bits = 1
    else:
        bits -= 1
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def next_double(x: float) -> float:
    return math.nextafter(x, float("inf"))


QID_STYLES = {
    "numeric": lambda r: str(r.choice([r.randint(1, 12), r.randint(300, 320), r.randint(100000, 100012),
                                        r.randint(1037500, 1037510), 1000, 99, 10, 2])),
    "zeros": lambda r: r.choice(["0", "00", "01", "007", "099", "0100"]) + r.choice(["", "1", "2"]),
    "dotted": lambda r: f"{r.randint(1, 12)}.{r.randint(1, 12)}",
    "letters": lambda r: r.choice(["q", "Q", "topic", "t"]) + r.choice("abcdefghij"),
    "dashes": lambda r: f"{r.choice(['q', 'topic', 'T'])}-{r.randint(0, 30)}",
    "long": lambda r: "query_" + "x" * r.randint(20, 60) + str(r.randint(0, 9)),
    "odd": lambda r: r.choice(["é", "q_é", "a.b-c", "Z", "z", "-1", "1e3", "+5", "_"]),
}


def docno_pool(r: random.Random, size: int) -> list[str]:
    """Distinct docnos of one or two shapes (numeric ones sort by bytes, not value)."""
    styles = r.sample(["small", "big", "zeros", "trec", "msmarco", "letters", "dotted", "long", "odd"],
                      r.choice([1, 1, 2]))
    pool: list[str] = []
    seen: set[str] = set()
    attempts = 0
    while len(pool) < size and attempts < size * 50:
        attempts += 1
        style = r.choice(styles)
        if style == "small":
            d = str(r.randint(0, 40 if size < 30 else 200))
        elif style == "big":
            d = str(r.randint(1_000_000, 9_999_999))
        elif style == "zeros":
            d = "0" * r.randint(1, 3) + str(r.randint(0, 99))
        elif style == "trec":
            d = r.choice([f"FR94{r.randint(100, 999)}-{r.randint(0, 9)}-{r.randint(10000, 99999)}",
                          f"LA0101{r.randint(89, 99)}-{r.randint(1, 300):04d}"])
        elif style == "msmarco":
            d = f"msmarco_passage_{r.randint(0, 99)}_{r.randint(0, 999999)}#{r.randint(0, 30)}"
        elif style == "letters":
            d = "".join(r.choice("abAB") for _ in range(r.randint(1, 3)))
        elif style == "dotted":
            d = r.choice([f"{r.randint(0, 20)}.{r.randint(0, 20)}", f"-{r.randint(0, 9)}",
                          f"d.{r.randint(0, 9)}-{r.randint(0, 9)}", f"{r.randint(0, 9)}a"])
        elif style == "long":
            d = "doc-" + "".join(r.choice("abc0123456789-.") for _ in range(r.randint(60, 300)))
        else:
            d = r.choice(["é", "doc-é", "ß", "Ω", "_", "a_b", "A.1", "Z", "z9", "doc#1"]) + \
                r.choice(["", str(r.randint(0, 9))])
        if d not in seen:
            seen.add(d)
            pool.append(d)
    return pool


def grade_list(r: random.Random, n: int, kind: str) -> list[int]:
    if kind == "graded":
        return [r.randint(0, 4) for _ in range(n)]
    if kind == "binary":
        return [r.randint(0, 1) for _ in range(n)]
    if kind == "all_zero":
        return [0] * n
    if kind == "negatives":
        return [r.randint(-2, 3) for _ in range(n)]
    if kind == "large":
        return [r.choice([0, 1, 2, 7, 12]) for _ in range(n)]
    return [r.randint(-2, -1) for _ in range(n)]  # all_negative


def score_values(r: random.Random, n: int) -> list[tuple[float, str]]:
    """n scores with their text: ties, float32 near-ties, several notations."""
    style = r.choice(["bm25", "bm25", "ints", "exp", "near", "near", "neg", "big", "tiny", "mixed"])
    out: list[tuple[float, str]] = []
    if style == "near":
        base = r.choice([0.1, 1.0, 0.432, 3.0, 6.505673, 123456.789, 16777216.0, r.uniform(-50, 50)])
        cands = [base, next_double(base), base * (1 + 1e-9), float32_up(base),
                 (float32(base) + float32_up(base)) / 2, float32(base), -base]
        for _ in range(n):
            x = r.choice(cands) if r.random() < 0.8 else r.uniform(-10, 10)
            out.append((x, repr(x)))
        return out
    for _ in range(n):
        if style == "bm25" or (style == "mixed" and r.random() < 0.3):
            x = r.choice([r.uniform(0, 30), r.uniform(5, 7)])
            fmt = r.choice(["%.3f", "%.4f", "%.6f", "%.2f", "%.17g"])
        elif style == "ints" or (style == "mixed" and r.random() < 0.4):
            x = float(r.randint(-3, 5))
            fmt = r.choice(["%d", "%.1f", "%.4e"])
        elif style == "exp":
            x = r.uniform(1, 4)
            fmt = r.choice(["%.4e", "%.1e", "%.0e"])
        elif style == "neg":
            x = -r.uniform(0, 16)
            fmt = r.choice(["%.3f", "%.6f", "%.17g"])
        elif style == "big":
            x = r.choice([16777216.0, 16777217.0, 16777218.0, 1e7, 1e7 + 1, 3.4e38, 3.5e38, 1e39, -1e39,
                          r.uniform(1e8, 1e9)])
            fmt = r.choice(["%.17g", "%.1f", "%.6e"])
        elif style == "tiny":
            x = r.choice([5e-324, 1e-45, 1.4e-45, 1e-40, 0.0, -0.0, 1e-30, r.uniform(0, 1e-6)])
            fmt = r.choice(["%.17g", "%.3e"])
        else:
            x = r.uniform(-100, 100)
            fmt = "%.17g"
        text = fmt % x if fmt != "%d" else str(int(x))
        out.append((float(text), text))
    return out


SEPS = {"space": [" "], "tab": ["\t"], "multi": ["  "], "mixed": [" ", "\t", "  ", " \t ", "\t\t"]}


def join_fields(r: random.Random, fields: list[str], sep_style: str, lead: bool, trail: bool) -> str:
    seps = SEPS[sep_style]
    text = fields[0]
    for f in fields[1:]:
        text += r.choice(seps) + f
    if lead:
        text = r.choice([" ", "\t", "  "]) + text
    if trail:
        text += r.choice([" ", "\t", "  "])
    return text


def gain_string(r: random.Random) -> str:
    levels = r.sample(range(0, 7), r.randint(1, 4))
    names = [str(lv) for lv in levels]
    if r.random() < 0.06:  # names trec_eval 9 reads with atol and 10.0 ignores
        names[r.randrange(len(names))] = r.choice(["x", "a", "+2", "1a", "02", "-0"])
    gains = ["-1", "0", "0.5", "1", "1.25", "2", "2.5", "3", "3.5", "7", "10", "15"]
    return ",".join(f"{n}={r.choice(gains)}" for n in names)


def cutoff_string(r: random.Random) -> str:
    values = r.sample([1, 2, 3, 5, 10, 15, 20, 30, 100, 1000, r.randint(1, 50)], r.randint(1, 3))
    values = list(dict.fromkeys(values))
    return ",".join(str(v) for v in values)


def points_string(r: random.Random) -> str:
    values = r.sample([0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 0.8, 1.0], r.randint(1, 3))
    return ",".join(str(v) for v in values)


def parameters(r: random.Random, kind: str) -> str:
    return {"gains": gain_string, "cutoffs": cutoff_string, "points": points_string}[kind](r)


def measure_tokens(r: random.Random, spec: str) -> list[str]:
    return r.choice([["-m", spec]] * 8 + [["-m" + spec], ["--measure=" + spec], ["--measure", spec]])


def choose_measures(r: random.Random, measures: list[MeasureSpec], nicknames: list[str]) -> list[list[str]]:
    if nicknames and r.random() < 0.05:
        return [measure_tokens(r, r.choice(nicknames))]
    chosen = r.sample(measures, min(len(measures), r.choice([1, 1, 2, 2, 3, 3, 4, 5, 6])))
    groups = []
    for m in chosen:
        spec = m.name
        if m.kind != "none" and r.random() < (0.4 if m.kind == "gains" else 0.6):
            spec += "." + parameters(r, m.kind)
        groups.append(measure_tokens(r, spec))
    if r.random() < 0.05:  # a measure named twice: the first parameter list given wins
        m = r.choice(chosen)
        groups.append(measure_tokens(r, m.name if m.kind == "none" else m.name + "." + parameters(r, m.kind)))
    r.shuffle(groups)
    return groups


def choose_options(r: random.Random) -> list[list[str]]:
    groups = []
    if r.random() < 0.5:
        groups.append(r.choice([["-q"]] * 5 + [["--query_eval_wanted"]]))
    if r.random() < 0.15:
        groups.append(r.choice([["-c"]] * 5 + [["--complete_rel_info_wanted"]]))
    if r.random() < 0.08:
        groups.append(r.choice([["-n"]] * 5 + [["--nosummary"]]))
    if r.random() < 0.12:
        groups.append(r.choice([["-J"]] * 5 + [["--Judged_docs_only"]]))
    if r.random() < 0.2:
        lv = str(r.choice([0, 0, 2, 2, 3, 1, 4]))
        groups.append(r.choice([["-l", lv]] * 4 + [["-l" + lv], ["--level_for_rel=" + lv],
                                                     ["--level_for_rel", lv]]))
    if r.random() < 0.15:
        mx = str(r.choice([1, 2, 3, 5, 10, 20, 100]))
        groups.append(r.choice([["-M", mx]] * 4 + [["-M" + mx], ["--Max_retrieved_per_topic=" + mx]]))
    r.shuffle(groups)
    return groups


def generate(seed: int, index: int, measures: list[MeasureSpec], nicknames: list[str],
             rel_format: str = "qrels") -> Collection:
    """Collection `index` of `seed` in a relevance format (regenerated until it meets
    `constraints`); a qrels collection is the same as before the other formats were added."""
    key = f"live-conformance:{seed}:{index}" if rel_format == "qrels" else \
        f"live-conformance:{rel_format}:{seed}:{index}"
    r = random.Random(key)
    while True:
        col = _generate(r, index, measures, nicknames)
        if rel_format == "zscores":
            col = with_zscores(r, col)
        elif rel_format != "qrels":
            col = in_format(r, col, rel_format)
        if not constraint_violation(col):
            return col


#: A qid after every generated one (byte order): the -Z file's last query, so that trec_eval's
#: searches, which look one entry past the end, never read beyond its table.
LAST_QID = "\U0010ffff"
ZSCORES = "zscores.txt"


def with_zscores(r: random.Random, col: Collection) -> Collection:
    """The collection with a -Z file: means and deviations for most of its queries' lines (some
    lines and queries left out, some deviations 0 with the mean a likely value)."""
    from trecgain.measures import parse_requests

    col = copy.copy(col)
    try:
        names = [line for req in parse_requests([_spec(g) for g in col.measures], "10") for line in req.lines]
    except Exception:  # noqa: BLE001 (a measure both refuse: no names, the file still made)
        names = ["map", "P_5"]
    names = list(dict.fromkeys(names + ["map", "num_ret", "P_10"]))
    qids = sorted(col.qrels_qids() | col.run_qids())
    out = []
    for q in [*qids, LAST_QID]:
        if q != LAST_QID and r.random() < 0.15:
            continue  # a query the file lacks: every line MISSING
        for name in names:
            if r.random() < 0.1:
                continue  # a line the file lacks
            if r.random() < 0.1:
                mean, sd = r.choice([0.0, 1.0, 0.5]), 0.0
            else:
                mean, sd = r.uniform(-1, 20), r.choice([r.uniform(0.01, 5), 1.0, 0.1])
            fmt = r.choice(["%.4f", "%.17g", "%g"])
            out.append(join_fields(r, [q, name, fmt % mean, fmt % sd], r.choice(["space", "tab"]), False, False))
    r.shuffle(out)
    col.zscores = out
    col.rel_format = "zscores"
    col.options = [*col.options, r.choice([["-Z", ZSCORES], ["-Z" + ZSCORES], ["--Zscore=" + ZSCORES]])]
    col.options += debug_option(r, col)
    r.shuffle(col.options)
    return col


def debug_option(r: random.Random, col: Collection) -> list[list[str]]:
    """Now and then -D 0, or -D 0.QID (that query only: one of the run's, or with -c of the
    qrels')."""
    if r.random() < 0.85:
        return []
    pool = sorted(col.qrels_qids() if "c" in col.flags() else col.qrels_qids() & col.run_qids())
    if not pool or r.random() < 0.3:
        return [r.choice([["-D", "0"], ["-D0"], ["--Debug_level=0"]])]
    return [r.choice([["-D", f"0.{r.choice(pool)}"], [f"-D0.{r.choice(pool)}"]])]


#: The docno key of a line made to be refused (a duplicate, an inconsistent preference).
BAD = "\0bad\0"
JUDGE_NAMES = ["0", "1", "u1", "u2", "A", "b", "jg-1", "judge.7", "é", "00"]


def level_text(r: random.Random, value: float) -> str:
    """A level in one of the notations atof reads (0 stays a zero)."""
    if value == 0:
        return r.choice(["0", "0", "0.0", "0.00", "-0"])
    style = r.random()
    if value == int(value) and style < 0.5:
        return str(int(value))
    if style < 0.8:
        return f"{value:.2f}" if r.random() < 0.5 else repr(value)
    return f"{value:.3e}"


def _judged_docs(col: Collection) -> dict[str, list[tuple[str, int]]]:
    """Per query of the qrels, its judged documents and grades, and a few of its run's."""
    judged: dict[str, list[tuple[str, int]]] = {}
    for ln in col.qrels:
        if ln.kind == "data":
            docs = judged.setdefault(ln.qid, [])
            if all(d != ln.docno for d, _ in docs):
                docs.append((ln.docno, ln.grade))
    return judged


def in_format(r: random.Random, col: Collection, rel_format: str) -> Collection:
    """The collection with its qrels rewritten in another -R format (its run, options and
    layout kept), -R among its options, its measures drawn again from the format's."""
    col = copy.copy(col)
    judged = _judged_docs(col)
    both = col.qrels_qids() & col.run_qids()
    qsep = r.choice(["space", "space", "tab", "multi", "mixed"])
    lines: list[Line] = []
    for q, docs in judged.items():
        if rel_format == "prefs":
            lines += _prefs_lines(r, q, docs, qsep, q in both)
        else:
            lines += _group_lines(r, q, docs, qsep, rel_format, q in both)
    lines += [ln for ln in col.qrels if ln.kind == "comment"]
    for ln in col.qrels:
        if ln.kind == "malformed":  # short lines only: 5 fields is a prefs line
            lines.append(Line("malformed", f"{ln.qid} 0 doc", ln.qid))
    if r.random() < 0.7:
        r.shuffle(lines)
    col.qrels = lines
    col.rel_format = rel_format
    form = r.choice([["-R", rel_format]] * 4 + [["-R" + rel_format], ["--Rel_info_format=" + rel_format]])
    col.options = [*col.options, form, *debug_option(r, col)]
    r.shuffle(col.options)
    return col


def _group_lines(r: random.Random, q: str, docs: list, sep: str, rel_format: str, both: bool) -> list[Line]:
    """qrels_jg or qrels_prefs lines of one query: one to three judgment groups."""
    out = []
    groups = r.sample(JUDGE_NAMES, r.choice([1, 1, 2, 3]))
    for g in groups:
        chosen = r.sample(docs, r.randint(1, len(docs)))
        for d, grade in chosen:
            if rel_format == "qrels_jg":
                value = grade if r.random() < 0.6 else r.choice([0, 1, 2, 3, -1])
                text = str(value)
            else:
                value = max(grade, 0) if r.random() < 0.6 else r.choice([0, 0.5, 1, 1.5, 2, 3])
                text = level_text(r, value)
            out.append(Line("data", join_fields(r, [q, g, d, text], sep, False, False), q, f"{g}\0{d}",
                            int(value) if rel_format == "qrels_jg" else 0))
    if both and r.random() < 0.03:  # a document judged twice in one group
        dup = r.choice(out)
        d = dup.docno.split("\0", 1)[1]
        g = dup.docno.split("\0", 1)[0]
        out.append(Line("data", f"{q} {g} {d} {r.choice(['0', '1', '2'])}", q, BAD + dup.docno, 0))
    return out


def _prefs_lines(r: random.Random, q: str, docs: list, sep: str, both: bool) -> list[Line]:
    """prefs lines of one query: judgment groups of one to three subgroups, each subgroup's
    levels a positive scaling of the group's own levels (consistent), and now and then one of
    the inconsistencies trec_eval refuses."""
    out = []
    for g in r.sample(JUDGE_NAMES, r.choice([1, 1, 2, 3])):
        level_set = r.choice([[0, 1], [0, 1, 2, 3], [1, 2], [0, 0.5, 1, 2.5], [0, 1, 2], [1, 2, 3, 4], [0]])
        truth = {d: r.choice(level_set) for d, _ in docs}
        for s in r.sample(["s1", "s2", "0", "a", "jsg.9"], r.choice([1, 1, 2, 3])):
            scale = r.choice([1, 1, 2, 0.5, 10])
            for d in r.sample(list(truth), r.randint(1, len(truth))):
                text = level_text(r, truth[d] * scale)
                out.append(Line("data", join_fields(r, [q, g, s, d, text], sep, False, False), q,
                                f"{g}\0{s}\0{d}", 0))
    if both and len(docs) >= 2 and r.random() < 0.04:
        a, b = r.sample([d for d, _ in docs], 2)
        g = r.choice(JUDGE_NAMES)
        bad = r.choice([
            [f"{q} {g} x {a} 2", f"{q} {g} x {a} 1"],  # two levels in one subgroup
            [f"{q} {g} x {a} 2", f"{q} {g} x {b} 1", f"{q} {g} y {a} 0", f"{q} {g} y {b} 3"],  # 0 and > 0
            [f"{q} {g} x {a} 2", f"{q} {g} x {b} 1", f"{q} {g} y {b} 2", f"{q} {g} y {a} 1"],  # both ways
        ])
        out += [Line("data", text, q, f"{BAD}{i}\0{text}", 0) for i, text in enumerate(bad)]
    return out


def _generate(r: random.Random, index: int, measures: list[MeasureSpec], nicknames: list[str]) -> Collection:
    options = choose_options(r)
    measure_groups = choose_measures(r, measures, nicknames)
    complete = any(g[0] in ("-c", "--complete_rel_info_wanted") for g in options)
    has_max = any(g[0].startswith(("-M", "--Max")) for g in options)

    qid_styles = r.sample(list(QID_STYLES), r.choice([1, 1, 2]))
    qids: list[str] = []
    for _ in range(r.randint(1, 6)):
        for _attempt in range(20):
            q = QID_STYLES[r.choice(qid_styles)](r)
            if q not in qids:
                qids.append(q)
                break

    qsep = r.choice(["space", "space", "tab", "multi", "mixed"])
    rsep = r.choice(["space", "space", "tab", "multi", "mixed"])
    tag_base = r.choice(["my-run", "run1", "bm25.k1_0.9", "R", "tag_with-dash.1"])
    iter_q = r.choice(["0", "Q0", "1", None])
    iter_r = r.choice(["Q0", "0", "q0"])
    odd_tags = r.random() < 0.05
    extra_cols = r.random() < 0.05
    lead_q = r.random() < 0.05
    trail_q = r.random() < 0.05
    lead_r = r.random() < 0.05
    trail_r = r.random() < 0.05
    rank_style = r.choice(["seq", "random", "zero"])

    qrels: list[Line] = []
    run: list[Line] = []
    where = {q: r.choice(["both", "both", "both", "both", "qrels", "run"]) for q in qids}
    if all(w != "both" for w in where.values()) and r.random() < 0.8:
        where[qids[0]] = "both"
    for q in qids:
        size = r.choice([r.randint(1, 12), r.randint(1, 40), r.randint(1, 40), r.randint(60, 150)])
        pool = docno_pool(r, size)
        if where[q] in ("both", "qrels"):
            kinds = ["graded", "graded", "binary", "all_zero", "negatives", "large"]
            if where[q] == "qrels" and not complete:
                kinds.append("all_negative")
            judged = r.sample(pool, r.randint(1, len(pool)))
            grades = grade_list(r, len(judged), r.choice(kinds))
            for d, g in zip(judged, grades):
                gtext = str(g) if r.random() > 0.02 or g < 0 else "0" + str(g)
                fields = [q, iter_q if iter_q is not None else r.choice(["0", "Q0", "1"]), d, gtext]
                qrels.append(Line("data", join_fields(r, fields, qsep, lead_q and r.random() < 0.5,
                                                      trail_q and r.random() < 0.5), q, d, g))
        if where[q] in ("both", "run"):
            retrieved = r.sample(pool, r.randint(1, len(pool)))
            scores = score_values(r, len(retrieved))
            for i, (d, (_, stext)) in enumerate(zip(retrieved, scores)):
                rank = {"seq": str(i + 1), "random": str(r.randint(0, 999)), "zero": "0"}[rank_style]
                tag = tag_base if not odd_tags or r.random() < 0.7 else f"tag{r.randint(0, 9)}"
                fields = [q, iter_r, d, rank, stext, tag]
                if extra_cols and r.random() < 0.5:
                    fields.append(r.choice(["extra", "x y z", "0.5"]))
                run.append(Line("data", join_fields(r, fields, rsep, lead_r and r.random() < 0.5,
                                                    trail_r and r.random() < 0.5), q, d))

    both = [q for q in qids if where[q] == "both"]
    # Now and then something both programs must refuse, where trec_eval notices it.
    if both and r.random() < 0.02:
        q = r.choice(both)
        judged = [ln for ln in qrels if ln.qid == q]
        dup = r.choice(judged)
        qrels.append(Line("data", f"{q} 0 {dup.docno} {r.randint(0, 2)}", q, dup.docno, 1))
    if both and not has_max and r.random() < 0.02:
        q = r.choice(both)
        ranked = [ln for ln in run if ln.qid == q]
        dup = r.choice(ranked)
        run.append(Line("data", f"{q} Q0 {dup.docno} 1 0.25 {tag_base}", q, dup.docno))
    if both and r.random() < 0.01:
        q = r.choice(both)
        if r.random() < 0.5:
            qrels.append(Line("malformed", r.choice([f"{q} 0 doc", f"{q} 0 doc 1 extra"]), q))
        else:
            run.append(Line("malformed", r.choice([f"{q} Q0 doc 1 0.5", f"{q} Q0 doc"]), q))

    if r.random() < 0.7:
        r.shuffle(qrels)
    if r.random() < 0.5:
        r.shuffle(run)
    if r.random() < 0.1:
        for lines in (qrels, run):
            for _ in range(r.randint(1, 3)):
                lines.insert(r.randint(0, len(lines)), Line("comment", r.choice(
                    ["# comment", "#", "# 1 0 doc 1", "#qid iter docno rel"])))
    if r.random() < 0.05:
        for _ in range(r.randint(1, 3)):
            run.insert(r.randint(0, len(run)), Line("blank", r.choice(["", " ", "\t", "  \t"])))

    crlf = r.random() < 0.08
    return Collection(
        index=index, qrels=qrels, run=run, options=options, measures=measure_groups,
        qrels_eol="\r\n" if crlf and r.random() < 0.8 else "\n",
        run_eol="\r\n" if crlf and r.random() < 0.8 else "\n",
        qrels_final_newline=r.random() > 0.08, run_final_newline=r.random() > 0.08,
        stdin=r.random() < 0.1, files_first=r.random() < 0.05)


#: trec_eval measures that never look at a ranking (no te_form_res_rels call): with only these
#: it notices no duplicate judgment or retrieval.
RANKING_FREE = {"runid", "num_q"}


#: trec_eval 10.0's dcg, ideal_dcg and ndcg share one parameter record (m_ndcg.c).
SHARED_GAINS = {"dcg", "ideal_dcg", "ndcg"}


def constraint_violation(col: Collection) -> str | None:
    """Why trec_eval would read this collection in a way trecgain deliberately does not, or None."""
    flags = col.flags()
    run_qids = col.run_qids()
    if not any(ln.kind == "data" for ln in col.qrels) or not any(ln.kind == "data" for ln in col.run):
        return "a file without data lines"
    evaluated = col.qrels_qids() if "c" in flags else col.qrels_qids() & run_qids
    best: dict[str, int] = {}
    for ln in col.qrels:
        if ln.kind == "data":
            best[ln.qid] = max(best.get(ln.qid, -99), ln.grade)
    for q in evaluated:
        if q in best and best[q] < 0:
            return f"query {q} evaluated with only negative judgments"
    named = [_spec(g).partition(".") for g in col.measures]
    shared = [(name, dot) for name, dot, _ in named if name in SHARED_GAINS]
    if len({name for name, _ in shared}) > 1 and any(dot for _, dot in shared):
        return "two of dcg, ideal_dcg, ndcg with a gain string (trec_eval 10.0 shares them, then aborts)"
    both = col.qrels_qids() & run_qids
    selected = col.only_query()
    if selected is not None:  # -D 0.QID: trec_eval joins that query only
        both &= {selected}
    if not ({_spec(g).split(".")[0] for g in col.measures} - RANKING_FREE):
        both = set()  # trec_eval never joins the files: it notices no duplicate
    seen: set[tuple[str, str]] = set()
    for ln in col.qrels:
        if ln.kind == "data":
            if (ln.qid, ln.docno) in seen and ln.qid not in both:
                return "a duplicate judgment in a query trec_eval does not evaluate"
            seen.add((ln.qid, ln.docno))
        if ln.kind == "malformed" and ln.qid not in run_qids and "c" not in flags:
            return "a malformed qrels line trec_eval 10 would not see"
    seen = set()
    for ln in col.run:
        if ln.kind == "data":
            if (ln.qid, ln.docno) in seen and ("M" in flags or ln.qid not in both):
                return "a duplicate retrieval trec_eval does not notice"
            seen.add((ln.qid, ln.docno))
    return None


# ------------------------------------------------------------------ running one collection


def render(lines: list[Line], eol: str, final_newline: bool, keep=lambda ln: True) -> bytes:
    kept = [ln.text for ln in lines if keep(ln)]
    text = eol.join(kept)
    if kept and final_newline:
        text += eol
    return text.encode("utf-8")


@dataclass
class Setup:
    trec_eval: Path
    version: str
    major: int
    trecgain: list[str]
    compat: list[str]  # ["--compat", "9"] or []


def command_lines(col: Collection, setup: Setup, te_qrels: str, te_run: str) -> tuple[list[str], list[str]]:
    args = [tok for g in col.options + col.measures for tok in g]
    tg_files = [QRELS, "-" if col.stdin else RUN]
    te_files = [te_qrels, te_run]
    if col.files_first:
        return ([str(setup.trec_eval), *te_files, *args], [*setup.trecgain, *setup.compat, *tg_files, *args])
    return ([str(setup.trec_eval), *args, *te_files], [*setup.trecgain, *setup.compat, *args, *tg_files])


def write_inputs(col: Collection, setup: Setup, d: Path) -> tuple[str, str]:
    """Write trecgain's files and, where they differ, trec_eval's; return trec_eval's names."""
    qrels = render(col.qrels, col.qrels_eol, col.qrels_final_newline)
    run = render(col.run, col.run_eol, col.run_final_newline)
    run_qids = col.run_qids()
    restrict = setup.major >= 10 and "c" not in col.flags()
    te_qrels_bytes = render(col.qrels, col.qrels_eol, col.qrels_final_newline,
                            lambda ln: ln.kind != "comment" and (not restrict or ln.qid in run_qids))
    te_run_bytes = render(col.run, col.run_eol, col.run_final_newline, lambda ln: ln.kind != "comment")
    (d / QRELS).write_bytes(qrels)
    (d / RUN).write_bytes(run)
    if col.zscores is not None:
        (d / ZSCORES).write_text("".join(line + "\n" for line in col.zscores))
    te_qrels, te_run = QRELS, RUN
    if te_qrels_bytes != qrels:
        (d / TE_QRELS).write_bytes(te_qrels_bytes)
        te_qrels = TE_QRELS
    if te_run_bytes != run:
        (d / TE_RUN).write_bytes(te_run_bytes)
        te_run = TE_RUN
    return te_qrels, te_run


@dataclass
class Difference:
    kind: str  # stdout | nan-sign (stdout, but for the sign of NaNs) | status | stdout-on-error | traceback
    message: str


def show(line: bytes | None) -> str:
    if line is None:
        return "(no such line)"
    return repr(line.decode("utf-8", "surrogateescape"))


def first_line(data: bytes) -> str:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(nothing on stderr)"


NAN_VALUE = re.compile(rb"\t *-?nan$")


def nan_blind(line: bytes) -> bytes:
    return NAN_VALUE.sub(b"\tnan", line)


def without_departing(stdout: bytes) -> bytes:
    """stdout without the lines of DEPARTING measures (a nickname such as all_trec asks for them)."""
    if not any(name.encode() in stdout for name in DEPARTING):
        return stdout
    names = {name.encode() for name in DEPARTING}
    return b"".join(line for line in stdout.splitlines(keepends=True)
                    if line.split(b"\t", 1)[0].rstrip(b" ") not in names)


def compare(te: Outcome, tg: Outcome) -> Difference | None:
    if b"Traceback (most recent call last)" in tg.stderr:
        return Difference("traceback", f"trecgain raised a Python traceback: {first_line(tg.stderr.splitlines()[-1])}")
    if te.rc == 0:
        if tg.rc != 0:
            return Difference("status", f"trec_eval succeeded, trecgain failed (status {tg.rc}): "
                                        f"{first_line(tg.stderr)}")
        te_out, tg_out = without_departing(te.stdout), without_departing(tg.stdout)
        if te_out != tg_out:
            a, b = te_out.split(b"\n"), tg_out.split(b"\n")
            aside = " (rbp lines left out)" if te_out != te.stdout or tg_out != tg.stdout else ""
            i = next(i for i in range(max(len(a), len(b)))
                     if i >= len(a) or i >= len(b) or a[i] != b[i])
            kind = "stdout"
            if len(a) == len(b) and all(nan_blind(x) == nan_blind(y) for x, y in zip(a, b)):
                kind = "nan-sign"
            return Difference(kind, f"stdout line {i + 1}{aside} differs:\n"
                                        f"    trec_eval: {show(a[i] if i < len(a) else None)}\n"
                                        f"    trecgain:  {show(b[i] if i < len(b) else None)}")
        return None
    how = f"crashed (signal {-te.rc})" if te.rc < 0 and te.rc != -999 else f"failed (status {te.rc})"
    if tg.rc == 0:
        return Difference("status", f"trec_eval {how}: {first_line(te.stderr)}; trecgain succeeded")
    if tg.stdout:
        return Difference("stdout-on-error", f"trec_eval {how}: {first_line(te.stderr)}; trecgain failed "
                                             f"(status {tg.rc}) but printed {len(tg.stdout)} bytes on stdout")
    return None


def evaluate(col: Collection, setup: Setup, d: Path) -> tuple[Difference | None, Outcome, Outcome, list, list]:
    te_qrels, te_run = write_inputs(col, setup, d)
    te_argv, tg_argv = command_lines(col, setup, te_qrels, te_run)
    te = execute(te_argv, d)
    tg = execute(tg_argv, d, (d / RUN).read_bytes() if col.stdin else None)
    return compare(te, tg), te, tg, te_argv, tg_argv


def write_repro(col: Collection, setup: Setup, d: Path, title: str) -> None:
    """repro.sh (both command lines, then a diff), the recorded outputs and the collection."""
    diff, te, tg, te_argv, tg_argv = evaluate(col, setup, d)
    for name, data in (("trec_eval.stdout", te.stdout), ("trec_eval.stderr", te.stderr),
                       ("trecgain.stdout", tg.stdout), ("trecgain.stderr", tg.stderr)):
        (d / name).write_bytes(data)
    te_cmd = '"$TREC_EVAL" ' + shlex.join(te_argv[1:])
    n = len(setup.trecgain)
    tg_cmd = "$TRECGAIN " + shlex.join(tg_argv[n:]) + (f" < {RUN}" if col.stdin else "")
    script = f"""#!/bin/sh
# {title}
# trec_eval {setup.version} ({setup.trec_eval}) against trecgain{' ' + ' '.join(setup.compat) if setup.compat else ''}
# {diff.kind + ': ' + diff.message.splitlines()[0] if diff else 'no longer differs'}
# trec_eval's files differ from trecgain's only as tests/live_conformance.py explains
# (comment lines removed; for a 10.x binary without -c, qrels restricted to the run's queries);
# lines of {', '.join(sorted(DEPARTING))} (asked for by a nickname) are not compared.
cd "$(dirname "$0")" || exit 2
TREC_EVAL=${{TREC_EVAL:-{shlex.quote(str(setup.trec_eval))}}}
TRECGAIN=${{TRECGAIN:-{shlex.quote(shlex.join(setup.trecgain))}}}
{te_cmd} > trec_eval.out; echo "trec_eval: status $?"
{tg_cmd} > trecgain.out; echo "trecgain: status $?"
diff trec_eval.out trecgain.out && echo "stdout: same"
"""
    (d / "repro.sh").write_text(script)
    (d / "repro.sh").chmod(0o755)
    (d / "collection.json").write_text(json.dumps({
        "index": col.index, "trec_eval": te_argv, "trecgain": tg_argv, "stdin": RUN if col.stdin else None,
        "difference": diff.kind if diff else None, "message": diff.message if diff else None,
        "trec_eval_status": te.rc, "trecgain_status": tg.rc}, indent=2) + "\n")


# ------------------------------------------------------------------ minimizing


def ddmin(items: list, still_fails) -> list:
    """Zeller's delta debugging, complements only: a 1-minimal sublist that still fails."""
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            candidate = items[:start] + items[start + chunk:]
            if still_fails(candidate):
                items, n, reduced = candidate, max(n - 1, 2), True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    if len(items) == 1 and still_fails([]):
        return []
    return items


def minimize(col: Collection, setup: Setup, kind: str, work: Path) -> tuple[Collection, int]:
    """The smallest collection found that is valid and differs with the same kind of difference."""
    tries = 0

    def fails(candidate: Collection) -> bool:
        nonlocal tries
        if constraint_violation(candidate) or not candidate.measures:
            return False
        tries += 1
        with tempfile.TemporaryDirectory(dir=work) as tmp:
            diff = evaluate(candidate, setup, Path(tmp))[0]
        return diff is not None and diff.kind == kind

    def with_(**changes) -> Collection:
        c = copy.copy(col)
        for k, v in changes.items():
            setattr(c, k, v)
        return c

    for _round in range(3):
        before = (len(col.qrels), len(col.run), len(col.options), len(col.measures))
        col = with_(measures=ddmin(col.measures, lambda ms: bool(ms) and fails(with_(measures=ms))))
        col = with_(options=ddmin(col.options, lambda os_: fails(with_(options=os_))))
        qids = sorted(col.qrels_qids() | col.run_qids())
        kept = set(ddmin(qids, lambda qs: fails(with_(
            qrels=[ln for ln in col.qrels if ln.kind == "comment" or ln.qid in qs],
            run=[ln for ln in col.run if ln.kind in ("comment", "blank") or ln.qid in qs]))))
        col = with_(qrels=[ln for ln in col.qrels if ln.kind == "comment" or ln.qid in kept],
                    run=[ln for ln in col.run if ln.kind in ("comment", "blank") or ln.qid in kept])
        col = with_(qrels=ddmin(col.qrels, lambda ls: fails(with_(qrels=ls))))
        col = with_(run=ddmin(col.run, lambda ls: fails(with_(run=ls))))
        for change in (dict(stdin=False), dict(files_first=False), dict(qrels_eol="\n"), dict(run_eol="\n"),
                       dict(qrels_final_newline=True), dict(run_final_newline=True),
                       dict(measures=[["-m", _spec(g)] for g in col.measures]),
                       dict(qrels=[_plain(ln) for ln in col.qrels]), dict(run=[_plain(ln) for ln in col.run])):
            candidate = with_(**change)
            if fails(candidate):
                col = candidate
        if before == (len(col.qrels), len(col.run), len(col.options), len(col.measures)):
            break
    return col, tries


def _spec(group: list[str]) -> str:
    """The measure a token group names: ["-m", S], ["--measure", S], ["-mS"], ["--measure=S"]."""
    if len(group) == 2:
        return group[1]
    return group[0][len("--measure="):] if group[0].startswith("--measure=") else group[0][2:]


def _plain(line: Line) -> Line:
    if line.kind not in ("data", "malformed"):
        return line
    return Line(line.kind, " ".join(line.text.split()), line.qid, line.docno, line.grade)


# ------------------------------------------------------------------ main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="The environment variable TREC_EVAL=PATH is read when --trec-eval "
                                       "is not given.")
    p.add_argument("--trec-eval", metavar="PATH", help="trec_eval binary (default: $TREC_EVAL, else "
                   "pyserini's 9.0.4, downloaded into --cache-dir)")
    p.add_argument("--cache-dir", type=Path, default=BENCH_DIR / "cache",
                   help="where pyserini's trec_eval is cached (default bench/cache)")
    p.add_argument("--trecgain", metavar="CMD", help="command that runs trecgain (default: the "
                   "trecgain installed beside this interpreter)")
    p.add_argument("--compat", choices=["9", "10"], help="trecgain's mode (default: from trec_eval -v)")
    p.add_argument("--seed", type=int, default=1, help="seed of the collections (default 1)")
    p.add_argument("--count", type=int, default=2000, help="collections to generate (default 2000)")
    p.add_argument("--start", type=int, default=0, help="index of the first collection (default 0)")
    p.add_argument("--only", type=int, action="append", metavar="INDEX",
                   help="check only collection INDEX (repeatable)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2,
                   help="collections checked at once (default: the number of CPUs)")
    p.add_argument("--keep", type=Path, metavar="DIR", help="where differing collections are kept "
                   "(default: a new temporary directory, named in the report)")
    p.add_argument("--show", type=int, default=10, help="differences described in full (default 10)")
    p.add_argument("--max-keep", type=int, default=100, help="differing collections kept (default 100)")
    p.add_argument("--minimize", type=int, nargs="?", const=5, default=0, metavar="N",
                   help="also shrink the first N differing collections (default N 5) into DIR/cINDEX/minimal")
    p.add_argument("--nan-sign", choices=["auto", "strict", "loose"], default="auto",
                   help="loose: outputs that differ only in the sign of a NaN ('nan' against '-nan') "
                        "are counted apart, not as differing; auto (default): loose for pyserini's "
                        "9.0.4 binary, strict for any other")
    p.add_argument("--list-measures", action="store_true", help="print the measures exercised and exit")
    p.add_argument("--formats", default=",".join(FORMATS), help="the relevance formats (-R) generated, "
                   f"--count collections each (default {','.join(FORMATS)})")
    p.add_argument("--record", type=Path, metavar="DIR", help="record the first --record-count collections "
                   "of each format that agree as cases (testdata/conformance/relations)")
    p.add_argument("--record-count", type=int, default=25, help="collections recorded per format (default 25)")
    args = p.parse_args(argv)
    if args.count < 0 or args.jobs < 1:
        p.error("--count must be >= 0 and --jobs >= 1")
    args.formats = [f for f in args.formats.split(",") if f]
    if not args.formats or any(f not in FORMATS for f in args.formats):
        p.error(f"--formats takes some of {', '.join(FORMATS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    binary = find_trec_eval(args.trec_eval, args.cache_dir)
    version = trec_eval_version(binary)
    if args.compat:
        major = int(args.compat)
    elif version and re.match(r"\d+", version):
        major = int(re.match(r"\d+", version).group())
    else:
        sys.exit(f"live conformance: cannot tell the version of {binary} (`-v` printed no "
                 "'trec_eval version X'); pass --compat 9 or --compat 10")
    if major < 9:
        sys.exit(f"live conformance: trec_eval {version} is older than 9.x; trecgain matches 9.x and 10.x")
    compat = ["--compat", "9"] if major < 10 else []
    trecgain = shlex.split(args.trecgain) if args.trecgain else default_trecgain()
    setup = Setup(binary, version or f"{major}.x", major, trecgain, compat)

    loose_nan = args.nan_sign == "loose" or (args.nan_sign == "auto" and is_pyserini_binary(binary))
    mode = f"compat {9 if major < 10 else 10}"
    print(f"trec_eval {setup.version}: {binary}", file=sys.stderr)
    print(f"trecgain: {shlex.join(trecgain + compat) or 'trecgain'} ({mode})", file=sys.stderr)
    if loose_nan:
        print("nan-sign loose: this binary's x87 code prints 'nan' where builds from source print '-nan' "
              "(--nan-sign strict to count those)", file=sys.stderr)
    print("departing on purpose (skipped): " + "; ".join(f"{k}: {v}" for k, v in DEPARTING.items()),
          file=sys.stderr)
    probes: dict[str, Probe] = {}
    for rel_format in args.formats:
        found = probes[rel_format] = probe(binary, trecgain, compat, major, args.jobs, rel_format)
        print(f"{rel_format} measures: " + ", ".join(
            f"{m.name}{'' if m.kind == 'none' else '[.' + m.kind + ']'}" for m in found.measures), file=sys.stderr)
        if found.not_in_binary:
            print(f"not in this trec_eval (skipped): {', '.join(found.not_in_binary)}", file=sys.stderr)
        if found.nicknames:
            print(f"{rel_format} nicknames: {', '.join(found.nicknames)}", file=sys.stderr)
        if found.nicknames_refused:
            print(f"nicknames trecgain refuses (skipped): {', '.join(found.nicknames_refused)}", file=sys.stderr)
        for name, message in found.broken.items():
            print(f"DIFFERS: trecgain refuses '{name}', a trec_eval measure its registry lists: {message}",
                  file=sys.stderr)
    if args.list_measures:
        return 0
    for rel_format, found in probes.items():
        if not found.measures:
            sys.exit(f"live conformance: no {rel_format} measure is accepted by both programs")
    broken = [name for found in probes.values() for name in found.broken]

    indices = args.only or list(range(args.start, args.start + args.count))
    tasks = [(rel_format, index) for rel_format in args.formats for index in indices]
    keep_dir = args.keep
    keep_lock = threading.Lock()
    differing: list[tuple[str, int, Difference]] = []
    work = Path(tempfile.mkdtemp(prefix="trecgain-live-work-"))

    def keep_path() -> Path:
        nonlocal keep_dir
        with keep_lock:
            if keep_dir is None:
                keep_dir = Path(tempfile.mkdtemp(prefix="trecgain-live-"))
            keep_dir.mkdir(parents=True, exist_ok=True)
            return keep_dir

    refused = 0  # collections trec_eval refused (and trecgain too, unless they differ)

    def check(task: tuple[str, int]) -> tuple[str, int, Difference | None, Collection]:
        nonlocal refused
        rel_format, index = task
        found = probes[rel_format]
        col = generate(args.seed, index, found.measures, found.nicknames, rel_format)
        with tempfile.TemporaryDirectory(dir=work) as tmp:
            diff, te, _, te_argv, _ = evaluate(col, setup, Path(tmp))
            if diff is None and args.record is not None and index - args.start < args.record_count:
                record_case(col, setup, te, te_argv, Path(tmp), args.record, args.seed)
        if te.rc != 0:
            with keep_lock:
                refused += 1
        return rel_format, index, diff, col

    print(f"checking {len(tasks)} collections ({', '.join(args.formats)}: {len(indices)} each; seed {args.seed}, "
          f"{args.jobs} at a time)", file=sys.stderr)
    step = max(1, len(tasks) // 10)
    done = 0
    kept: list[tuple[str, int, Difference, Collection, Path]] = []
    nan_only: list[int] = []
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for rel_format, index, diff, col in pool.map(check, tasks):
                done += 1
                label = index if rel_format == "qrels" else f"{rel_format} {index}"
                if diff is not None and diff.kind == "nan-sign" and loose_nan:
                    nan_only.append(index)
                    if len(nan_only) == 1:
                        print(f"collection {label} (seed {args.seed}) differs only in the sign of a NaN "
                              f"(not counted): {diff.message}", file=sys.stderr, flush=True)
                    diff = None
                if diff is not None:
                    differing.append((rel_format, index, diff))
                    where = ""
                    if len(kept) < args.max_keep:
                        prefix = "c" if rel_format == "qrels" else f"{rel_format}-c"
                        d = keep_path() / f"{prefix}{index:05d}"
                        shutil.rmtree(d, ignore_errors=True)
                        d.mkdir(parents=True)
                        write_repro(col, setup, d, f"live conformance collection {label} (seed {args.seed})")
                        kept.append((rel_format, index, diff, col, d))
                        where = f"\n    kept in {d} (sh {d / 'repro.sh'})"
                    if len(differing) <= args.show:
                        print(f"collection {label} (seed {args.seed}) differs: {diff.message}{where}",
                              file=sys.stderr, flush=True)
                if done % step == 0 and done < len(tasks):
                    print(f"... {done}/{len(tasks)} collections, {len(differing)} differ "
                          f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        for rel_format, index, diff, col, d in kept[:args.minimize]:
            small, tries = minimize(col, setup, diff.kind, work)
            m = d / "minimal"
            shutil.rmtree(m, ignore_errors=True)
            m.mkdir()
            write_repro(small, setup, m, f"collection {index} (seed {args.seed}) minimized in {tries} tries")
            print(f"collection {index}: minimized ({len(small.qrels)} qrels lines, {len(small.run)} run lines, "
                  f"{sum(map(len, small.options + small.measures))} arguments) in {m}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if len(differing) > args.show:
        print(f"({len(differing) - args.show} more differences not shown: "
              f"{', '.join(f'{f} {i}' for f, i, _ in differing[args.show:args.show + 30])}"
              f"{' ...' if len(differing) > args.show + 30 else ''})", file=sys.stderr)
    if differing and keep_dir is not None:
        print(f"differing collections kept in {keep_dir}", file=sys.stderr)
    print(f"trec_eval refused {refused} of the collections (bad input on purpose, or no query to "
          f"evaluate); time {time.monotonic() - started:.1f} s", file=sys.stderr)
    if nan_only:
        print(f"{len(nan_only)} collections differ only in the sign of a NaN (not counted): "
              f"{', '.join(map(str, nan_only[:20]))}{' ...' if len(nan_only) > 20 else ''}", file=sys.stderr)
    for rel_format in args.formats:
        count = sum(1 for f, _, _ in differing if f == rel_format)
        print(f"live conformance: {len(indices)} {rel_format} collections, {count} differ "
              f"(trec_eval {setup.version}, {mode})")
    if broken:
        print(f"live conformance: trecgain refuses {len(broken)} measures of its own registry "
              f"({', '.join(broken)})")
    return 1 if differing or broken else 0


def record_case(col: Collection, setup: Setup, te: Outcome, te_argv: list[str], d: Path, root: Path,
                seed: int) -> None:
    """Record a collection both programs agree on as a case of the project's own tests
    (testdata/conformance/relations): trecgain's inputs, its command line, and trec_eval's
    outcome as this mode's expectation (a case recorded by a 10.x and a 9.x binary has both)."""
    mode = "9" if setup.major < 10 else "10"
    prefix = {"qrels": "q", "qrels_jg": "j", "prefs": "p", "qrels_prefs": "qp", "zscores": "z"}[col.rel_format]
    args = [tok.replace(ZSCORES, "ZSCORES") for g in col.options + col.measures for tok in g]
    args = [*["QRELS", "RUN"], *args] if col.files_first else [*args, "QRELS", "RUN"]
    names = [QRELS, RUN] + ([ZSCORES] if col.zscores is not None else [])
    inputs = {name: (d / name).read_bytes() for name in names}
    case = root / f"{prefix}{col.index:04d}"
    meta_path = case / "case.json"
    if meta_path.exists():  # recorded by the other version's binary: the same collection?
        meta = json.loads(meta_path.read_text())
        same = meta["args"] == args and all((case / n).exists() and (case / n).read_bytes() == b
                                            for n, b in inputs.items())
        if not same:  # another collection (the versions' measure lists differ): a case of its own
            case = root / f"{prefix}{col.index:04d}-{mode}"
            meta_path = case / "case.json"
    case.mkdir(parents=True, exist_ok=True)
    for name, data in inputs.items():
        (case / name).write_bytes(data)
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    meta.update({"args": args, "stdin": "RUN" if col.stdin else None, "rel_format": col.rel_format,
                 "note": f"live conformance seed {seed}, {col.rel_format} collection {col.index}"})
    expect = meta.setdefault("expect", {})
    expect[mode] = {"rc": 0, "stdout": te.stdout.decode("utf-8", "surrogateescape")} if te.rc == 0 \
        else {"error": True}
    meta.setdefault("reference", {})[mode] = {"trec_eval": setup.version, "rc": te.rc,
                                              "stderr": te.stderr[:200].decode("utf-8", "replace")}
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.exit(main())
