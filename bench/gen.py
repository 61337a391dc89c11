"""Deterministic synthetic TREC data for the trecgain benchmark.

Writes a run file (``qid Q0 docno rank score tag``) and a qrels file
(``qid 0 docno grade``) using vectorised numpy code only: every field is
rendered as a fixed-width block of ASCII bytes in which unused positions
hold NUL, the blocks are stacked side by side, and the NUL bytes are
dropped in a single masked copy.  This writes 5M run lines in seconds.

The data depend only on the size parameters and the seed.  The
``whitespace`` variant contains exactly the same records, but separates the
fields with random runs of spaces and tabs (drawn from an independent
random stream), so both variants give the same evaluation results.

Usable as a module (``ensure_data``) or as a script::

    python bench/gen.py --queries 5000 --docs 1000 [--whitespace]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Bump when the generated content changes, so stale cached files are not reused.
GEN_VERSION = 1
#: Docnos are ``D`` + 7 digits, i.e. a collection of 10M documents.
DOCNO_DIGITS = 7
COLLECTION_SIZE = 10**DOCNO_DIGITS
#: Share (percent) of judged documents per grade.
GRADE_PERCENT = {0: 60, 1: 20, 2: 12, 3: 8}
#: Probability that a score equals the score of the next document.
TIE_RATE = 0.005
#: Mean score gap between consecutive ranks, in micro-units (0.015).
MEAN_GAP_MICRO = 15_000
#: Judged retrieved documents favour top ranks: weight ~ rank ** -RANK_BIAS.
RANK_BIAS = 0.5
#: Queries per generation chunk (fixed so content never depends on memory tuning).
CHUNK_QUERIES = 250
RUN_TAG = b"trecgain_bench"

DEFAULT_DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class DataSpec:
    """Size and seed of one synthetic data set."""

    queries: int = 5000
    docs: int = 1000
    judged: int = 100
    seed: int = 42
    whitespace: bool = False

    @property
    def judged_retrieved(self) -> int:
        """Judged documents per query that are also retrieved (half of them)."""
        return min(self.judged // 2, self.docs)

    @property
    def judged_unretrieved(self) -> int:
        """Judged documents per query that are not retrieved."""
        return self.judged - self.judged_retrieved

    def stem(self) -> str:
        """File name stem that identifies this data set in the cache."""
        ws = "_ws" if self.whitespace else ""
        return (f"v{GEN_VERSION}_q{self.queries}_d{self.docs}"
                f"_j{self.judged}_s{self.seed}{ws}")

    def validate(self) -> None:
        """Raise ValueError for sizes the generator cannot produce."""
        if self.queries < 1 or self.docs < 1 or self.judged < 1:
            raise ValueError("queries, docs and judged must be positive")
        if self.docs + self.judged_unretrieved > COLLECTION_SIZE:
            raise ValueError("too many documents per query for the collection")


@dataclass
class Chunk:
    """Content of a block of consecutive queries, before formatting."""

    qids: np.ndarray          # (n,) int64, 1-based query ids
    run_docs: np.ndarray      # (n, docs) int64 docno numbers, in rank order
    run_scores: np.ndarray    # (n, docs) int64 scores in micro-units, non-increasing
    qrel_docs: np.ndarray     # (n, judged) int64 docno numbers, sorted
    qrel_grades: np.ndarray   # (n, judged) int64 grades 0..3


def grade_template(judged: int) -> np.ndarray:
    """Grades of one query's judged documents in the GRADE_PERCENT proportions."""
    counts = {g: judged * p // 100 for g, p in GRADE_PERCENT.items()}
    counts[0] += judged - sum(counts.values())  # rounding remainder -> non-relevant
    return np.repeat(np.array(list(counts)), list(counts.values()))


def make_chunk(spec: DataSpec, first_qid: int, n: int, rng: np.random.Generator) -> Chunk:
    """Draw the content of ``n`` queries starting at ``first_qid``."""
    docs, n_ret, n_unret = spec.docs, spec.judged_retrieved, spec.judged_unretrieved

    # Distinct docnos per query: one random document from each of K equal
    # slices of the collection, then shuffled.  The first `docs` are
    # retrieved, the rest are judged but not retrieved.
    k = docs + n_unret
    stride = COLLECTION_SIZE // k
    pool = np.arange(k, dtype=np.int64) * stride + rng.integers(0, stride, (n, k))
    pool = rng.permuted(pool, axis=1)
    run_docs, unretrieved = pool[:, :docs], pool[:, docs:]

    # Scores: a random floor plus the suffix sums of exponential gaps, so they
    # decrease with rank; a few zero gaps produce exact ties.
    gaps = np.maximum(1, rng.exponential(MEAN_GAP_MICRO, (n, docs)).round().astype(np.int64))
    gaps[rng.random((n, docs)) < TIE_RATE] = 0
    suffix = np.cumsum(gaps[:, ::-1], axis=1)[:, ::-1] - gaps
    run_scores = suffix + rng.integers(0, 5_000_000, (n, 1))

    # Judged retrieved documents: n_ret ranks drawn without replacement with
    # weight rank**-RANK_BIAS (Gumbel top-k trick).
    ranks = np.arange(1, docs + 1)
    keys = -RANK_BIAS * np.log(ranks) + rng.gumbel(size=(n, docs))
    picked = np.argpartition(-keys, n_ret - 1, axis=1)[:, :n_ret]
    judged = np.concatenate([np.take_along_axis(run_docs, picked, axis=1), unretrieved], axis=1)

    grades = rng.permuted(np.tile(grade_template(spec.judged), (n, 1)), axis=1)
    order = np.argsort(judged, axis=1)
    return Chunk(
        qids=np.arange(first_qid, first_qid + n, dtype=np.int64),
        run_docs=run_docs,
        run_scores=run_scores,
        qrel_docs=np.take_along_axis(judged, order, axis=1),
        qrel_grades=np.take_along_axis(grades, order, axis=1),
    )


# --------------------------------------------------------------------------
# Formatting: fields are (m, width) uint8 blocks where 0 marks "no byte".


def digits(values: np.ndarray, width: int, zero_pad: bool = False) -> np.ndarray:
    """Decimal digits of non-negative ints as a (m, width) byte block.

    Without ``zero_pad`` leading zeros become NUL (dropped on output), so the
    number is written with its natural width.
    """
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    block = ((values[:, None] // powers) % 10 + ord("0")).astype(np.uint8)
    if not zero_pad:
        leading = values[:, None] < powers
        leading[:, -1] = False  # always keep the units digit
        block[leading] = 0
    return block


def constant(text: bytes, m: int) -> np.ndarray:
    """The same bytes on every one of ``m`` lines."""
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (m, len(text)))


def docnos(numbers: np.ndarray) -> np.ndarray:
    """Docnos ``D`` + DOCNO_DIGITS zero-padded digits."""
    return np.hstack([constant(b"D", len(numbers)), digits(numbers, DOCNO_DIGITS, zero_pad=True)])


def separator(m: int, rng: np.random.Generator | None) -> np.ndarray:
    """A single space, or (given ``rng``) 1-3 random spaces/tabs per line."""
    if rng is None:
        return constant(b" ", m)
    lengths = rng.integers(1, 4, (m, 1))
    block = rng.choice(np.array([ord(" "), ord("\t")], dtype=np.uint8), (m, 3))
    block[np.arange(3) >= lengths] = 0
    return block


def join_fields(fields: list[np.ndarray], ws_rng: np.random.Generator | None) -> bytes:
    """Join byte blocks into lines: separators between fields, newline at the end."""
    m = fields[0].shape[0]
    parts: list[np.ndarray] = []
    for i, block in enumerate(fields):
        if i:
            parts.append(separator(m, ws_rng))
        parts.append(block)
    parts.append(constant(b"\n", m))
    table = np.hstack(parts)
    return table[table != 0].tobytes()


def format_run(spec: DataSpec, chunk: Chunk, ws_rng: np.random.Generator | None) -> bytes:
    """Run lines ``qid Q0 docno rank score tag`` for one chunk."""
    n, docs = chunk.run_docs.shape
    m = n * docs
    scores = chunk.run_scores.ravel()
    int_width = len(str(int(scores.max()) // 10**6))
    fields = [
        digits(np.repeat(chunk.qids, docs), len(str(spec.queries))),
        constant(b"Q0", m),
        docnos(chunk.run_docs.ravel()),
        digits(np.tile(np.arange(1, docs + 1, dtype=np.int64), n), len(str(docs))),
        np.hstack([digits(scores // 10**6, int_width), constant(b".", m),
                   digits(scores % 10**6, 6, zero_pad=True)]),
        constant(RUN_TAG, m),
    ]
    return join_fields(fields, ws_rng)


def format_qrels(spec: DataSpec, chunk: Chunk, ws_rng: np.random.Generator | None) -> bytes:
    """Qrels lines ``qid 0 docno grade`` for one chunk."""
    n, judged = chunk.qrel_docs.shape
    m = n * judged
    fields = [
        digits(np.repeat(chunk.qids, judged), len(str(spec.queries))),
        constant(b"0", m),
        docnos(chunk.qrel_docs.ravel()),
        digits(chunk.qrel_grades.ravel(), 1),
    ]
    return join_fields(fields, ws_rng)


# --------------------------------------------------------------------------


def data_paths(spec: DataSpec, data_dir: Path) -> tuple[Path, Path]:
    """(qrels, run) paths of a data set inside ``data_dir``."""
    stem = spec.stem()
    return data_dir / f"qrels_{stem}.txt", data_dir / f"run_{stem}.txt"


def generate(spec: DataSpec, qrels_path: Path, run_path: Path) -> None:
    """Write both files; each appears atomically (temp file + rename)."""
    spec.validate()
    qrels_tmp = qrels_path.with_suffix(".tmp")
    run_tmp = run_path.with_suffix(".tmp")
    try:
        with open(qrels_tmp, "wb") as qrels_out, open(run_tmp, "wb") as run_out:
            for index, first in enumerate(range(1, spec.queries + 1, CHUNK_QUERIES)):
                n = min(CHUNK_QUERIES, spec.queries + 1 - first)
                chunk = make_chunk(spec, first, n, np.random.default_rng([spec.seed, index]))
                ws_rng = (np.random.default_rng([spec.seed, index, 1])
                          if spec.whitespace else None)
                qrels_out.write(format_qrels(spec, chunk, ws_rng))
                run_out.write(format_run(spec, chunk, ws_rng))
        os.replace(qrels_tmp, qrels_path)
        os.replace(run_tmp, run_path)
    finally:
        for tmp in (qrels_tmp, run_tmp):
            tmp.unlink(missing_ok=True)


def ensure_data(spec: DataSpec, data_dir: Path = DEFAULT_DATA_DIR,
                force: bool = False) -> tuple[Path, Path, float | None]:
    """Return (qrels, run, seconds spent generating or None if cached)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = data_paths(spec, data_dir)
    if not force and qrels_path.exists() and run_path.exists():
        return qrels_path, run_path, None
    start = time.perf_counter()
    generate(spec, qrels_path, run_path)
    return qrels_path, run_path, time.perf_counter() - start


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by gen.py and bench.py that select the data set."""
    defaults = DataSpec()
    parser.add_argument("--queries", type=int, default=defaults.queries,
                        help="number of queries (default %(default)s)")
    parser.add_argument("--docs", type=int, default=defaults.docs,
                        help="retrieved documents per query (default %(default)s)")
    parser.add_argument("--judged", type=int, default=defaults.judged,
                        help="judged documents per query, half of them retrieved "
                             "(default %(default)s)")
    parser.add_argument("--seed", type=int, default=defaults.seed,
                        help="random seed (default %(default)s)")
    parser.add_argument("--whitespace", action="store_true",
                        help="separate fields with random runs of spaces and tabs")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="cache directory for generated files (default bench/data)")


def spec_from_args(args: argparse.Namespace) -> DataSpec:
    """Build a DataSpec from parsed add_data_arguments options."""
    return DataSpec(queries=args.queries, docs=args.docs, judged=args.judged,
                    seed=args.seed, whitespace=args.whitespace)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point: generate (or find cached) data and print paths."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_arguments(parser)
    parser.add_argument("--force", action="store_true", help="regenerate even if cached")
    args = parser.parse_args(argv)
    qrels, run, seconds = ensure_data(spec_from_args(args), args.data_dir, args.force)
    status = "cached" if seconds is None else f"generated in {seconds:.2f} s"
    print(f"qrels: {qrels}\nrun:   {run}\n({status})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
