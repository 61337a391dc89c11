"""Real-format benchmark inputs: seeded synthetic shapes, and files built from robust03.

gen.py writes one uniform format (single spaces, 6-decimal scores, 100
judgments per query).  Real runs and qrels look different, and the speed
goals in bench/real.py are about real ones, so this module writes:

* **Synthetic shapes** (``Shape``): a run made of one or more *parts*, each
  a block of queries in one format, and a qrels file for it.

  - separators: tab or space (per part, and for the qrels);
  - scores (per part): ``dense17`` -- 17 significant digits, like a dense
    retriever's float64 printed with ``repr`` (``49.191094291787230``);
    ``bm25`` -- 4 to 6 decimals (``12.3456``); ``neg`` -- negative, 4 to 6
    decimals, like a language model's log-likelihood (``-7.123456``);
    ``exp`` -- exponent notation with 17 significant digits, positive at
    the top of the ranking and negative further down
    (``3.1415926535897931e-05``, ``-2.7182818284590451e-07``);
  - qrels: ``pool`` -- a judged pool of about ``pool`` documents per query
    (0.6x to 1.4x), about half of them retrieved, grades 0-3, mostly 0;
    ``sparse`` -- MS MARCO-like, 1 to 3 relevant (grade 1) per query;
  - docnos: ``trec`` (``D`` + 8 digits) or ``msmarco`` (a bare number);
  - optionally one docno of the run replaced by a ``long_docno``-byte one
    (the middle line of the file); everything else is byte-identical to
    the same shape without it.

  The run is drawn from ``numpy.random.default_rng([seed, part, chunk, 0])``
  and the judgments from ``[..., 1]``, so shapes that differ only in their
  qrels share one run file; both are formatted with gen.py's vectorised
  byte blocks, in slices of at most SLICE_LINES lines, so a 5M-document
  query or a 20M-line run is written in bounded memory.  Files are cached
  in the data directory as ``shape_<hash>.run`` / ``.qrels``, the hash
  covering everything that determines the file (and SHAPES_VERSION), so a
  changed shape is never confused with an old file.

* **robust03 files**, when the TREC 2003 Robust track runs (17 runs and
  qrels, as in joaopalotti/trectools' ``examples/robust03``) are at hand:
  half of one run (50 queries, 50K lines), one whole run (100K lines), and
  the 17 runs x 3 copies, each of the 51 copies under its own qid prefix
  (``c0r05-303``) so that they are distinct queries (~4.5M run lines), with
  the qrels repeated under the same 51 prefixes (~6.6M lines) -- and a
  sparse variant of those qrels that keeps 1 to 3 relevant judgments per
  query.  The robust03 data are not part of the project: they are looked
  for at ``--robust03 DIR``, ``$TRECGAIN_ROBUST03`` or ``bench/cache/robust03``.

Usable as a module or as a script::

    python bench/shapes.py --list
    python bench/shapes.py onedoc100k onequery5m      # generate, print paths
    python bench/shapes.py --robust03 /tmp/robust03 r03_x3 r03_x3_sparse
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gen import DEFAULT_DATA_DIR, constant, digits

BENCH_DIR = Path(__file__).resolve().parent

#: Bump when the generated content changes for the same Shape.
SHAPES_VERSION = 2
#: Most lines formatted at once (bounds memory: ~100 bytes per line per block).
SLICE_LINES = 200_000
#: Probability that a score equals the next one (an exact tie).
TIE_RATE = 0.005
#: Judged retrieved documents favour top ranks: weight ~ rank ** -RANK_BIAS.
RANK_BIAS = 0.7
#: Collection sizes for the docno styles.
COLLECTION = {"trec": 10**8, "msmarco": 8_841_823}
#: Grade probabilities of judged documents in a pool: retrieved ones, others.
POOL_GRADES_RETRIEVED = (0.80, 0.12, 0.06, 0.02)
POOL_GRADES_UNRETRIEVED = (0.96, 0.03, 0.01, 0.0)

ROBUST03_ENV = "TRECGAIN_ROBUST03"
ROBUST03_DEFAULT = BENCH_DIR / "cache" / "robust03"
ROBUST03_QRELS = "qrel/robust03_qrels.txt"
#: The run cut in half and used whole (100 queries x 1000 documents).
ROBUST03_ONE_RUN = "input.InexpC2.gz"


@dataclass(frozen=True)
class Part:
    """A block of consecutive queries of a run, all in one format."""

    queries: int
    docs: int
    score: str = "dense17"      # dense17 | bm25 | neg | exp
    decimals: int = 4           # bm25 and neg only
    sep: str = "\t"
    tag: str = "dense"

    @property
    def lines(self) -> int:
        return self.queries * self.docs


@dataclass(frozen=True)
class Shape:
    """A synthetic run (one or more parts) and its qrels."""

    parts: tuple[Part, ...]
    qrels: str = "pool"         # pool | sparse
    pool: int = 500             # judgments per query for "pool" (0.6x-1.4x)
    qrels_sep: str = " "
    docno: str = "trec"         # trec | msmarco
    long_docno: int = 0         # >0: the middle run line gets a docno this long
    seed: int = 42

    @property
    def lines(self) -> int:
        return sum(p.lines for p in self.parts)

    @property
    def queries(self) -> int:
        return sum(p.queries for p in self.parts)

    def qrels_key(self) -> str:
        """Short hash of everything that determines the qrels' content."""
        text = f"{SHAPES_VERSION} {self.parts!r} {self.qrels} {self.pool} {self.qrels_sep!r} {self.docno} {self.seed}"
        return hashlib.sha1(text.encode()).hexdigest()[:10]

    def run_key(self) -> str:
        """Short hash of everything that determines the run's content (not the qrels)."""
        text = f"{SHAPES_VERSION} {self.parts!r} {self.docno} {self.long_docno} {self.seed}"
        return hashlib.sha1(text.encode()).hexdigest()[:10]

    def describe(self) -> str:
        """One line for reports."""
        parts = " + ".join(
            f"{p.queries:,}q x {p.docs:,}d {p.score}"
            + (f"/{p.decimals}dp" if p.score in ("bm25", "neg") else "")
            + (" tab" if p.sep == "\t" else " space")
            for p in self.parts)
        qrels = (f"pool ~{self.pool}/query" if self.qrels == "pool" else "sparse 1-3/query")
        extra = f", one {self.long_docno}-byte docno" if self.long_docno else ""
        return (f"{parts}; qrels {qrels} "
                f"({'tab' if self.qrels_sep == chr(9) else 'space'}), {self.docno} docnos{extra}, "
                f"seed {self.seed}")


def _mix(queries_per_part: int, docs: int = 1000) -> tuple[Part, ...]:
    """Five runs in five real formats, one after the other (distinct qids)."""
    return (
        Part(queries_per_part, docs, "dense17", sep="\t", tag="dense_ance"),
        Part(queries_per_part, docs, "bm25", 4, sep=" ", tag="Anserini"),
        Part(queries_per_part, docs, "bm25", 6, sep="\t", tag="pyserini_bm25"),
        Part(queries_per_part, docs, "neg", 5, sep=" ", tag="indri_ql"),
        Part(queries_per_part, docs, "exp", sep="\t", tag="monot5"),
    )


#: The synthetic shapes real.py uses (and `python bench/shapes.py NAME` writes).
SHAPES: dict[str, Shape] = {
    # stand-ins for robust03 when it is not at hand: robust-like runs
    "gen_half": Shape((Part(50, 1000, "dense17", sep="\t", tag="gen_robust"),), pool=1300),
    "gen_one": Shape((Part(100, 1000, "dense17", sep="\t", tag="gen_robust"),), pool=1300),
    # real-format 4.5M lines: five formats x 900 queries x 1000 docs
    "mix4500": Shape(_mix(900)),
    "mix4500_sparse": Shape(_mix(900), qrels="sparse", qrels_sep="\t", docno="trec"),
    # 5M and 20M lines in the same formats, for the linearity check
    "mix5m": Shape(_mix(1000)),
    "mix20m": Shape(_mix(4000)),
    # MS MARCO-like: one document per query, sparse qrels
    "onedoc100k": Shape((Part(100_000, 1, "bm25", 6, sep=" ", tag="msmarco_bm25"),),
                        qrels="sparse", qrels_sep="\t", docno="msmarco"),
    "onedoc1m": Shape((Part(1_000_000, 1, "bm25", 6, sep=" ", tag="msmarco_bm25"),),
                      qrels="sparse", qrels_sep="\t", docno="msmarco"),
    # 200K queries of 5 documents (per-query output in every format)
    "fivedoc200k": Shape((Part(200_000, 5, "bm25", 6, sep=" ", tag="msmarco_bm25"),),
                         qrels="sparse", qrels_sep="\t", docno="msmarco"),
    # one query, 5M documents
    "onequery5m": Shape((Part(1, 5_000_000, "dense17", sep="\t", tag="dense_deep"),), pool=1000),
    # 2M lines with and without one 1024-byte docno
    "longdocno2m": Shape((Part(2000, 1000, "bm25", 4, sep=" ", tag="Anserini"),), long_docno=1024),
    "plain2m": Shape((Part(2000, 1000, "bm25", 4, sep=" ", tag="Anserini"),)),
}


# --------------------------------------------------------------------------
# drawing the content


@dataclass
class Block:
    """Content of a chunk of consecutive queries of one part."""

    qids: np.ndarray            # (n,) int64
    run_docs: np.ndarray        # (n, docs) int64 docno numbers in rank order
    scores: "Scores"
    qrel_qids: np.ndarray       # (m,) int64
    qrel_docs: np.ndarray       # (m,) int64
    qrel_grades: np.ndarray     # (m,) int64


@dataclass
class Scores:
    """Scores of a (n, docs) block, in the part's text style."""

    style: str
    units: np.ndarray | None = None     # int64 fixed point (dense17, bm25, neg)
    decimals: int = 0
    log10: np.ndarray | None = None     # exp: log10 |score|
    negative: np.ndarray | None = None  # exp: sign


def _gaps(rng: np.random.Generator, shape: tuple[int, int], mean: float) -> np.ndarray:
    """Exponential int64 gaps (>= 1) with a few exact ties (0)."""
    gaps = np.maximum(1, rng.exponential(mean, shape).round().astype(np.int64))
    gaps[rng.random(shape) < TIE_RATE] = 0
    return gaps


def _suffix(gaps: np.ndarray) -> np.ndarray:
    """Decreasing non-negative values: suffix sums of the gaps after each rank."""
    return np.cumsum(gaps[:, ::-1], axis=1)[:, ::-1] - gaps


def draw_scores(part: Part, n: int, rng: np.random.Generator) -> Scores:
    """Non-increasing scores for n queries of ``part.docs`` documents."""
    docs = part.docs
    if part.score == "dense17":
        unit = 10**15                              # 2 integer digits + 15 decimals
        span = 30 * unit
        base = rng.integers(10 * unit, 50 * unit, (n, 1))
        return Scores("dense17", base + _suffix(_gaps(rng, (n, docs), span / docs)), 15)
    if part.score in ("bm25", "neg"):
        unit = 10**part.decimals
        span = max(25 * unit, 4 * docs)
        suffix = _suffix(_gaps(rng, (n, docs), span / docs))
        if part.score == "bm25":
            return Scores("bm25", rng.integers(1 * unit, 15 * unit, (n, 1)) + suffix, part.decimals)
        base = rng.integers(2 * unit, 8 * unit, (n, 1))
        return Scores("neg", -(base + (suffix[:, :1] - suffix)), part.decimals)
    if part.score == "exp":
        # log10 |score| falls over ~10 decades; the bottom 30% of the ranking
        # is negative, its magnitude rising again (so the scores keep falling)
        gaps = rng.exponential(10 / docs, (n, docs))
        gaps[rng.random((n, docs)) < TIE_RATE] = 0
        logs = rng.uniform(-1.5, -0.6, (n, 1)) - np.cumsum(gaps, axis=1) + gaps[:, :1]
        cut = max(1, (docs * 7) // 10)
        negative = np.zeros((n, docs), dtype=bool)
        negative[:, cut:] = True
        logs = np.concatenate([logs[:, :cut], logs[:, cut:][:, ::-1]], axis=1)
        return Scores("exp", log10=logs, negative=negative)
    raise ValueError(f"unknown score style {part.score!r}")


def draw_block(shape: Shape, part: Part, first_qid: int, n: int, rng_run: np.random.Generator,
               rng: np.random.Generator) -> Block:
    """Draw n queries: distinct docnos and scores (from ``rng_run``), judgments (``rng``).

    The run depends only on the run's own parameters (see Shape.run_key), so
    shapes that differ only in their qrels share one run file.
    """
    docs = part.docs
    if shape.qrels == "pool":
        jmax = max(1, int(shape.pool * 1.4))
        n_ret = min(jmax // 2, docs)
        n_unret = jmax - n_ret
        counts = rng.integers(int(shape.pool * 0.6), jmax + 1, n)
    else:
        n_ret = min(3, docs)
        n_unret = 3
        counts = rng.integers(1, 4, n)
    # distinct docnos: the run's are even numbers, one random document from each
    # of `docs` equal slices, shuffled; unretrieved judged ones are odd numbers
    # (so they never collide with the run's, and the run never depends on the qrels)
    half = COLLECTION[shape.docno] // 2
    if half // docs < 1 or half // n_unret < 1:
        raise ValueError("too many documents per query for the collection")
    stride = half // docs
    run_docs = 2 * rng_run.permuted(np.arange(docs, dtype=np.int64) * stride
                                    + rng_run.integers(0, stride, (n, docs)), axis=1)
    stride = half // n_unret
    unretrieved = 2 * (np.arange(n_unret, dtype=np.int64) * stride + rng.integers(0, stride, (n, n_unret))) + 1
    scores = draw_scores(part, n, rng_run)

    # judged candidates: n_ret retrieved (rank-biased, Gumbel top-k) + unretrieved
    keys = -RANK_BIAS * np.log(np.arange(1, docs + 1)) + rng.gumbel(size=(n, docs))
    picked = np.argpartition(-keys, n_ret - 1, axis=1)[:, :n_ret] if n_ret < docs else \
        np.broadcast_to(np.arange(docs), (n, docs))
    retrieved = np.take_along_axis(run_docs, picked, axis=1)
    if shape.qrels == "pool":
        g_ret = rng.choice(4, (n, n_ret), p=POOL_GRADES_RETRIEVED)
        g_unret = rng.choice(4, (n, n_unret), p=POOL_GRADES_UNRETRIEVED)
    else:
        g_ret = np.ones((n, n_ret), dtype=np.int64)
        g_unret = np.ones((n, n_unret), dtype=np.int64)
    cand = np.concatenate([retrieved, unretrieved], axis=1)
    grades = np.concatenate([g_ret, g_unret], axis=1)
    order = rng.permuted(np.broadcast_to(np.arange(cand.shape[1]), cand.shape), axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    grades = np.take_along_axis(grades, order, axis=1)
    keep = np.arange(cand.shape[1]) < np.minimum(counts, cand.shape[1])[:, None]
    # each query's judgments sorted by docno (kept ones first)
    sort = np.argsort(np.where(keep, cand, np.iinfo(np.int64).max), axis=1, kind="stable")
    cand = np.take_along_axis(cand, sort, axis=1)
    grades = np.take_along_axis(grades, sort, axis=1)
    keep = np.take_along_axis(keep, sort, axis=1)
    qids = np.arange(first_qid, first_qid + n, dtype=np.int64)
    return Block(qids, run_docs, scores,
                 np.broadcast_to(qids[:, None], keep.shape)[keep], cand[keep], grades[keep])


# --------------------------------------------------------------------------
# formatting (byte blocks as in gen.py: 0 = no byte)


def _join(fields: list[np.ndarray], sep: str) -> bytes:
    m = fields[0].shape[0]
    parts: list[np.ndarray] = []
    for i, block in enumerate(fields):
        if i:
            parts.append(constant(sep.encode(), m))
        parts.append(block)
    parts.append(constant(b"\n", m))
    table = np.hstack(parts)
    return table[table != 0].tobytes()


def _natural(values: np.ndarray) -> np.ndarray:
    """Non-negative ints in natural width."""
    width = len(str(int(values.max()))) if values.size else 1
    return digits(values, width)


def _docnos(numbers: np.ndarray, style: str) -> np.ndarray:
    if style == "msmarco":
        return _natural(numbers)
    return np.hstack([constant(b"D", len(numbers)), digits(numbers, 8, zero_pad=True)])


def _fixed(units: np.ndarray, decimals: int) -> np.ndarray:
    """Fixed-point text ``[-]int.frac`` of int64 units of 10**-decimals."""
    m = len(units)
    sign = np.where(units < 0, ord("-"), 0).astype(np.uint8)[:, None]
    mag = np.abs(units)
    return np.hstack([sign, _natural(mag // 10**decimals), constant(b".", m),
                      digits(mag % 10**decimals, decimals, zero_pad=True)])


def _exponent(log10: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """``[-]d.dddddddddddddddde-XX``: 17 significant digits, like Python's repr."""
    m = len(log10)
    exp = np.floor(log10).astype(np.int64)
    mant = np.round(10.0 ** (log10 - exp) * 1e16).astype(np.int64)
    mant = np.clip(mant, 10**16, 10**17 - 1)
    sign = np.where(negative, ord("-"), 0).astype(np.uint8)[:, None]
    esign = np.where(exp < 0, ord("-"), ord("+")).astype(np.uint8)[:, None]
    return np.hstack([sign, digits(mant // 10**16, 1), constant(b".", m),
                      digits(mant % 10**16, 16, zero_pad=True), constant(b"e", m), esign,
                      digits(np.abs(exp), 2, zero_pad=True)])


def _score_text(scores: Scores, flat: slice) -> np.ndarray:
    if scores.style == "exp":
        return _exponent(scores.log10.ravel()[flat], scores.negative.ravel()[flat])
    return _fixed(scores.units.ravel()[flat], scores.decimals)


def format_run_slice(shape: Shape, part: Part, block: Block, start: int, stop: int) -> bytes:
    """Run lines ``start:stop`` (flat indices into the block's n x docs lines)."""
    docs = part.docs
    flat = slice(start, stop)
    idx = np.arange(start, stop, dtype=np.int64)
    fields = [
        _natural(block.qids[idx // docs]),
        constant(b"Q0", stop - start),
        _docnos(block.run_docs.ravel()[flat], shape.docno),
        _natural(idx % docs + 1),
        _score_text(block.scores, flat),
        constant(part.tag.encode(), stop - start),
    ]
    return _join(fields, part.sep)


def format_qrels(shape: Shape, block: Block) -> bytes:
    if not len(block.qrel_qids):
        return b""
    fields = [_natural(block.qrel_qids), constant(b"0", len(block.qrel_qids)),
              _docnos(block.qrel_docs, shape.docno), _natural(block.qrel_grades)]
    return _join(fields, shape.qrels_sep)


def _lengthen_docno(text: bytes, line: int, sep: str, length: int) -> bytes:
    """Replace the docno (third field) of ``line`` (0-based) in ``text``."""
    ends = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == ord("\n"))
    start = int(ends[line - 1]) + 1 if line else 0
    end = int(ends[line])
    fields = text[start:end].split(sep.encode())
    fields[2] = (fields[2] + b"-").ljust(length, b"L")[:length]
    return text[:start] + sep.encode().join(fields) + text[end:]


# --------------------------------------------------------------------------
# files


@dataclass
class Files:
    """A qrels/run pair ready for benchmarking."""

    qrels: Path
    run: Path
    run_lines: int
    qrels_lines: int
    description: str
    seconds: float | None = None     # generation time, None if cached
    source: str = "generated"        # generated | robust03


def _meta_path(run: Path) -> Path:
    return run.with_name(run.name + ".lines")


def _atomic_paths(*paths: Path) -> list[Path]:
    return [p.with_name(p.name + ".tmp") for p in paths]


def generate_shape(shape: Shape, qrels_path: Path, run_path: Path | None) -> tuple[int, int]:
    """Write the qrels and (unless ``run_path`` is None) the run, atomically.

    Returns (run lines, qrels lines).  Without a run path the run is still
    drawn (the qrels depend on it) but not formatted.
    """
    paths = [qrels_path] + ([run_path] if run_path is not None else [])
    tmps = _atomic_paths(*paths)
    long_line = shape.lines // 2 if shape.long_docno else -1
    qrels_lines = 0
    try:
        with open(tmps[0], "wb") as qout, (open(tmps[1], "wb") if run_path else open(os.devnull, "wb")) as rout:
            first_qid, line_no = 1, 0
            for part_no, part in enumerate(shape.parts):
                per_chunk = max(1, SLICE_LINES // part.docs)
                for chunk_no, first in enumerate(range(0, part.queries, per_chunk)):
                    n = min(per_chunk, part.queries - first)
                    rng_run = np.random.default_rng([shape.seed, part_no, chunk_no, 0])
                    rng = np.random.default_rng([shape.seed, part_no, chunk_no, 1])
                    block = draw_block(shape, part, first_qid + first, n, rng_run, rng)
                    total = n * part.docs
                    for start in range(0, total, SLICE_LINES) if run_path else ():
                        stop = min(total, start + SLICE_LINES)
                        text = format_run_slice(shape, part, block, start, stop)
                        if line_no <= long_line < line_no + (stop - start):
                            text = _lengthen_docno(text, long_line - line_no, part.sep,
                                                   shape.long_docno)
                        rout.write(text)
                        line_no += stop - start
                    qout.write(format_qrels(shape, block))
                    qrels_lines += len(block.qrel_qids)
                first_qid += part.queries
        for tmp, path in zip(tmps, paths):
            os.replace(tmp, path)
    finally:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
    return shape.lines, qrels_lines


def shape_paths(shape: Shape, data_dir: Path) -> tuple[Path, Path]:
    """(qrels, run) of a shape.  Named by content hashes: shapes that differ
    only in their qrels share the run file, and a long docno does not change
    the qrels."""
    return data_dir / f"shape_{shape.qrels_key()}.qrels", data_dir / f"shape_{shape.run_key()}.run"


def _cached_lines(path: Path) -> int | None:
    meta = _meta_path(path)
    if path.exists() and meta.exists():
        return int(meta.read_text())
    return None


def ensure_shape(name: str, data_dir: Path = DEFAULT_DATA_DIR, shape: Shape | None = None) -> Files:
    """The files of a shape (by name in SHAPES), generating what is not cached."""
    shape = shape or SHAPES[name]
    data_dir.mkdir(parents=True, exist_ok=True)
    qrels, run = shape_paths(shape, data_dir)
    run_lines, qrels_lines = _cached_lines(run), _cached_lines(qrels)
    seconds = None
    if run_lines is None or qrels_lines is None:
        what = "qrels" if run_lines is not None else "run and qrels"
        print(f"generating {name} ({what}): {shape.describe()}", file=sys.stderr)
        start = time.perf_counter()
        run_lines, qrels_lines = generate_shape(shape, qrels, None if run_lines is not None else run)
        seconds = time.perf_counter() - start
        _meta_path(run).write_text(f"{run_lines}\n")
        _meta_path(qrels).write_text(f"{qrels_lines}\n")
    return Files(qrels, run, run_lines, qrels_lines, shape.describe(), seconds)


# --------------------------------------------------------------------------
# robust03


def find_robust03(explicit: Path | None = None) -> Path | None:
    """The robust03 directory (qrel/, runs/), or None if it is not at hand.

    Looked for at ``explicit``, else ``$TRECGAIN_ROBUST03``, else
    bench/cache/robust03.  An explicit directory that is not valid is an
    error; the others are silently skipped.
    """
    def valid(d: Path) -> bool:
        return (d / ROBUST03_QRELS).is_file() and (d / "runs" / ROBUST03_ONE_RUN).is_file()

    if explicit is not None:
        if not valid(explicit):
            raise FileNotFoundError(f"{explicit}: no {ROBUST03_QRELS} and runs/{ROBUST03_ONE_RUN}")
        return explicit.resolve()
    for candidate in (os.environ.get(ROBUST03_ENV), ROBUST03_DEFAULT):
        if candidate and valid(Path(candidate)):
            return Path(candidate).resolve()
    return None


def _robust03_runs(root: Path) -> list[Path]:
    return sorted((root / "runs").glob("input.*.gz"))


def _read(path: Path) -> bytes:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data if data.endswith(b"\n") else data + b"\n"


def _prefixed(data: bytes, prefix: bytes) -> bytes:
    """Every line of ``data`` (ending in a newline) with ``prefix`` in front."""
    return prefix + data[:-1].replace(b"\n", b"\n" + prefix) + b"\n"


def _write_atomic(path: Path, chunks) -> int:
    tmp = path.with_name(path.name + ".tmp")
    lines = 0
    try:
        with open(tmp, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
                lines += chunk.count(b"\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return lines


def _sparse_qrels(qrels: bytes, copy_seed: list[int]) -> bytes:
    """1-3 relevant judgments per query (fewer if it has fewer), original order."""
    rng = np.random.default_rng(copy_seed)
    by_query: dict[bytes, list[bytes]] = {}
    for line in qrels.splitlines(keepends=True):
        fields = line.split()
        if len(fields) >= 4 and int(fields[3]) > 0:
            by_query.setdefault(fields[0], []).append(line)
    out = []
    for lines in by_query.values():
        k = min(len(lines), int(rng.integers(1, 4)))
        chosen = np.sort(rng.choice(len(lines), k, replace=False))
        out += [lines[i] for i in chosen]
    return b"".join(out)


#: robust03-derived data sets: name -> description
ROBUST03_SETS = {
    "r03_half": "robust03: the first 50 queries of input.InexpC2 (half of one run), real qrels",
    "r03_one": "robust03: input.InexpC2 whole, real qrels",
    "r03_x3": "robust03: the 17 runs x 3, each copy under its own qid prefix; qrels x 51 alike",
    "r03_x3_sparse": "robust03: the 17 runs x 3 as r03_x3; qrels: 1-3 relevant per query of each copy",
}


def ensure_robust03(name: str, root: Path, data_dir: Path = DEFAULT_DATA_DIR, seed: int = 42) -> Files:
    """Build (or find cached) a robust03-derived data set; see ROBUST03_SETS."""
    out_dir = data_dir / "robust03"
    out_dir.mkdir(parents=True, exist_ok=True)
    qrels_src = root / ROBUST03_QRELS
    runs = _robust03_runs(root)
    start = time.perf_counter()
    built = False

    def build(path: Path, chunks) -> int:
        nonlocal built
        meta = _meta_path(path)
        if path.exists() and meta.exists():
            return int(meta.read_text())
        print(f"building {path.name} from {root}", file=sys.stderr)
        built = True
        lines = _write_atomic(path, chunks())
        meta.write_text(f"{lines}\n")
        return lines

    qrels_lines_src = None
    if name in ("r03_half", "r03_one"):
        data = _read(root / "runs" / ROBUST03_ONE_RUN)
        if name == "r03_half":
            lines = data.splitlines(keepends=True)
            qids = list(dict.fromkeys(l.split(None, 1)[0] for l in lines if l.strip()))
            half = set(qids[:len(qids) // 2])
            run_path = out_dir / "InexpC2_half.run"
            run_lines = build(run_path, lambda: [b"".join(l for l in lines
                                                          if l.strip() and l.split(None, 1)[0] in half)])
        else:
            run_path = out_dir / "InexpC2.run"
            run_lines = build(run_path, lambda: [data])
        qrels_path = qrels_src
        qrels_lines_src = _read(qrels_src).count(b"\n")
    elif name in ("r03_x3", "r03_x3_sparse"):
        if len(runs) != 17:
            print(f"warning: {len(runs)} robust03 runs in {root}/runs (expected 17)", file=sys.stderr)
        copies = [(c, i, run) for c in range(3) for i, run in enumerate(runs)]

        def prefix(c: int, i: int) -> bytes:
            return f"c{c}r{i:02d}-".encode()

        run_path = out_dir / "x3.run"
        run_lines = build(run_path, lambda: (_prefixed(_read(run), prefix(c, i)) for c, i, run in copies))
        qrels_data = _read(qrels_src)
        if name == "r03_x3":
            qrels_path = out_dir / "x3.qrels"
            qrels_lines_src = build(qrels_path, lambda: (_prefixed(qrels_data, prefix(c, i))
                                                         for c, i, _ in copies))
        else:
            qrels_path = out_dir / f"x3_sparse_s{seed}.qrels"
            qrels_lines_src = build(qrels_path, lambda: (
                _prefixed(_sparse_qrels(qrels_data, [seed, c, i]), prefix(c, i)) for c, i, _ in copies))
    else:
        raise KeyError(name)
    seconds = time.perf_counter() - start if built else None
    return Files(qrels_path, run_path, run_lines, qrels_lines_src,
                 ROBUST03_SETS[name],
                 seconds, source="robust03")


# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="shapes / robust03 sets to write")
    parser.add_argument("--list", action="store_true", help="list the names")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--robust03", type=Path, metavar="DIR",
                        help=f"robust03 directory (default ${ROBUST03_ENV} or bench/cache/robust03)")
    args = parser.parse_args(argv)
    if args.list or not args.names:
        for name, shape in SHAPES.items():
            print(f"{name:16} {shape.describe()}")
        for name, text in ROBUST03_SETS.items():
            print(f"{name:16} {text}")
        return 0
    root = find_robust03(args.robust03)
    for name in args.names:
        if name in ROBUST03_SETS:
            if root is None:
                print(f"{name}: robust03 not found (use --robust03 DIR)", file=sys.stderr)
                return 1
            files = ensure_robust03(name, root, args.data_dir)
        else:
            files = ensure_shape(name, args.data_dir)
        when = "cached" if files.seconds is None else f"written in {files.seconds:.1f} s"
        print(f"{name}: {files.qrels} {files.run} ({files.run_lines:,} run lines, "
              f"{files.qrels_lines:,} qrels lines, {when})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
