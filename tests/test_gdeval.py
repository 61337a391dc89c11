"""trecgain.gdeval against gdeval.pl, and trecgain.err's ERR@k against both.

The oracle is the gdeval.pl that ships inside the ir_measures package (version 1.2a, run
with perl).  That copy leaves out the original script's `runid,amean,...` line, so the
tests also run a copy patched back to the original 1.2 code (TOTALS_ON, AMEAN_BLOCK):
its output is the reference for the whole text, the unpatched copy for everything but
the last line.  A second patched copy prints every value with `%.17g` instead of `%.5f`,
so the differential test compares the doubles bit for bit, not just their 5 digits.
The oracle tests skip when perl or ir_measures is missing; the rest need neither.
"""

from __future__ import annotations

import importlib.util
import io
import math
import random
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecgain import Evaluator, TrecgainError
from trecgain.gdeval import _fixed, evaluate, gdeval, perl_number

# ---------------------------------------------------------------- the oracle

# The 1.2a copy comments out the totals and drops the amean line that gdeval.pl 1.2 (2010)
# prints after the topics; this restores that line: the mean of the printed values, and
# when no topic was printed a fixed line whose ERR has four decimals.
TOTALS_OFF = "    # $ndcgTotal += $ndcg;\n    # $errTotal += $err;\n"
TOTALS_ON = "    $ndcgTotal += $ndcg;\n    $errTotal += $err;\n"
AMEAN_BLOCK = """if ($topics > 0) { printf "$runid,amean,%.5f,%.5f\\n", $ndcgTotal/$topics, $errTotal/$topics; }
else { print "$runid,amean,0.00000,0.0000\\n"; }

exit 0;
"""


def _installed_script() -> Path | None:
    spec = importlib.util.find_spec("ir_measures")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "bin" / "gdeval.pl"
    return path if path.is_file() else None


@dataclass
class Oracle:
    perl: str
    folder: Path
    copy: Path  # ir_measures's gdeval.pl, unchanged

    def script(self, max_grade: int = 4, digits: str = "%.5f") -> Path:
        """The original 1.2 script (with its amean line), MAX_JUDGMENT set to max_grade,
        values printed with `digits`."""
        path = self.folder / f"gdeval-original-{max_grade}-{digits[1:]}.pl"
        if not path.exists():
            text = self.copy.read_text()
            assert TOTALS_OFF in text and "\nexit 0;\n" in text and "$MAX_JUDGMENT = 4;" in text, (
                f"{self.copy} is not the gdeval.pl 1.2a these tests know how to restore")
            text = text.replace(TOTALS_OFF, TOTALS_ON).replace("\nexit 0;\n", "\n" + AMEAN_BLOCK, 1)
            text = text.replace("$MAX_JUDGMENT = 4;", f"$MAX_JUDGMENT = {max_grade};")
            path.write_text(text.replace(",%.5f,%.5f\\n", f",{digits},{digits}\\n"))
        return path

    def run(self, qrels: Path, run: Path, k: int, max_grade: int = 4, original: bool = True,
            digits: str = "%.5f") -> subprocess.CompletedProcess:
        script = self.script(max_grade, digits) if original else self.copy
        return subprocess.run([self.perl, str(script), str(qrels), str(run), str(k)], capture_output=True)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    perl = shutil.which("perl")
    if perl is None:
        pytest.skip("perl is not installed: gdeval.pl cannot be run")
    script = _installed_script()
    if script is None:
        pytest.skip("gdeval.pl not found: it ships in the ir_measures package (pip install ir_measures)")
    return Oracle(perl, tmp_path_factory.mktemp("gdeval"), script)


def _files(folder: Path, qrels: bytes, run: bytes) -> tuple[Path, Path]:
    (folder / "qrels").write_bytes(qrels)
    (folder / "run").write_bytes(run)
    return folder / "qrels", folder / "run"


def _ours(qrels: Path, run: Path, k: int, max_grade: int = 4) -> bytes | TrecgainError:
    try:
        return evaluate(qrels, run, k, max_grade).to_bytes()
    except TrecgainError as error:
        return error


def assert_same_as_perl(oracle: Oracle, qrels: Path, run: Path, k: int, max_grade: int = 4) -> None:
    """Same bytes when gdeval.pl succeeds; a TrecgainError at the same line when it dies."""
    proc = oracle.run(qrels, run, k, max_grade)
    ours = _ours(qrels, run, k, max_grade)
    if proc.returncode == 0:
        assert ours == proc.stdout, proc.stderr.decode()
        assert_same_doubles_as_perl(oracle, qrels, run, k, max_grade)
        return
    assert isinstance(ours, TrecgainError), f"gdeval.pl failed ({proc.stderr.decode()}), trecgain did not"
    where = re.search(rb'format error on line (\d+) of "(.*)"', proc.stderr)
    if where:
        assert (ours.source, ours.line) == (where[2].decode(), int(where[1])), (str(ours), proc.stderr.decode())
    else:
        assert b"Illegal division by zero" in proc.stderr, proc.stderr.decode()
        assert "divides by zero" in ours.message


def assert_same_doubles_as_perl(oracle: Oracle, qrels: Path, run: Path, k: int, max_grade: int = 4) -> None:
    """Every per-topic and mean value the same double as gdeval.pl's (printed with %.17g)."""
    proc = oracle.run(qrels, run, k, max_grade, digits="%.17g")
    result = evaluate(qrels, run, k, max_grade)
    lines = [b"%s,%s,%.17g,%.17g" % (result.runid, t, n, e) for t, n, e in zip(result.topics, result.ndcg, result.err)]
    if result.topics:
        lines.append(b"%s,amean,%.17g,%.17g" % (result.runid, *result.mean()))
    assert proc.stdout.splitlines()[1:len(lines) + 1] == lines


# ---------------------------------------------------------------- (a) fixed examples

L2, L3 = math.log(2), math.log(3)

EXAMPLE_QRELS = b"""1 0 a 4
1 0 b 1
1 0 c 0
2 0 x 2
3 0 y 1
"""
# topic 1 ranks c (0), a (4), b (1); topic 2 ties at 5: docno descending puts z (0) before x (2);
# topic 3 is not in the run and topic 4 not in the qrels: neither is printed or averaged.
EXAMPLE_RUN = b"""1 Q0 c 1 3.0 demo
1 Q0 a 2 2.0 demo
1 Q0 b 3 1.0 demo
2 Q0 z 1 5 demo
2 Q0 x 2 5 demo
4 Q0 a 1 1 demo
"""


def test_example_by_hand() -> None:
    result = evaluate(io.BytesIO(EXAMPLE_QRELS), io.BytesIO(EXAMPLE_RUN), 2)
    # nDCG@2 = DCG / ideal DCG with gains 2^g - 1 and discount ln(rank + 1)
    ndcg_1 = (15 / L3) / (15 / L2 + 1 / L3)  # gains (0, 15) against (15, 1)
    ndcg_2 = (3 / L3) / (3 / L2)  # gains (0, 3) against (3)
    assert result.topics == [b"1", b"2"]
    assert result.ndcg == [pytest.approx(ndcg_1, abs=1e-15), pytest.approx(ndcg_2, abs=1e-15)]
    # ERR@2: r = (2^g - 1) / 16; only rank 2 has r > 0, and nothing stopped the user at rank 1
    assert result.err == [15 / 16 / 2, 3 / 16 / 2]
    assert result.to_text() == ("runid,topic,ndcg@2,err@2\n"
                                "demo,1,0.60546,0.46875\n"
                                "demo,2,0.63093,0.09375\n"
                                "demo,amean,0.61820,0.28125\n")
    assert f"{ndcg_1:.5f} {ndcg_2:.5f} {(ndcg_1 + ndcg_2) / 2:.5f}" == "0.60546 0.63093 0.61820"


@pytest.mark.parametrize("qrels, run, k, lines", [
    # two grade-4 documents: 15/16 + (1/16)(15/16)/2
    (b"7 0 a 4\n7 0 b 4\n", b"7 Q0 a 1 2 r\n7 Q0 b 2 1 r\n", 10, ["r,7,1.00000,0.96680"]),
    # a document retrieved twice counts twice: nDCG = (1/ln2 + 1/ln3) / (1/ln2) > 1
    (b"5 0 a 1\n", b"5 Q0 a 1 2 r\n5 Q0 a 2 1 r\n", 2, ["r,5,1.63093,0.09180"]),
    # judged twice: both count in the ideal (3, 1), the document keeps the lower grade: (1/ln2) / (7/ln2)
    (b"1 0 a 3\n1 0 a 1\n", b"1 Q0 a 1 1 r\n", 1, ["r,1,0.14286,0.06250"]),
    # topics are numbers: 10 after 9 (not in byte order); 'wt-9' is topic 9; 'abc' scores 0 and '12x' 12
    (b"9 0 a 1\n10 0 a 1\n", b"10 Q0 a 1 1 r\nwt-9 Q0 b 1 abc r\nwt-9 Q0 a 1 12x r\n", 1,
     ["r,9,1.00000,0.06250", "r,10,1.00000,0.06250"]),
    # only grade 0 and negative judgments: the topic is not evaluated
    (b"1 0 a 0\n1 0 b -1\n2 0 a 1\n", b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n", 5, ["r,2,0.00000,0.00000"]),
])
def test_rules(qrels: bytes, run: bytes, k: int, lines: list[str]) -> None:
    text = gdeval(io.BytesIO(qrels), io.BytesIO(run), k)
    assert text.splitlines()[0] == f"runid,topic,ndcg@{k},err@{k}"
    assert text.splitlines()[1:-1] == lines


def test_no_topic_evaluated_prints_the_originals_zero_line() -> None:
    empty_run = gdeval(io.BytesIO(b"1 0 a 1\n"), io.BytesIO(b""), 20)
    assert empty_run == "runid,topic,ndcg@20,err@20\n?????,amean,0.00000,0.0000\n"
    assert gdeval(io.BytesIO(b""), io.BytesIO(b"1 Q0 a 1 1 tag\n"), 5).endswith("\ntag,amean,0.00000,0.0000\n")


def test_max_grade_scales_err_and_admits_higher_grades() -> None:
    result = evaluate(io.BytesIO(b"1 0 a 6\n"), io.BytesIO(b"1 Q0 a 1 1 r\n"), 5, max_grade=6)
    assert result.err == [63 / 64]


def test_fixed_examples_agree_with_perl(oracle: Oracle, tmp_path: Path) -> None:
    qrels, run = _files(tmp_path, EXAMPLE_QRELS, EXAMPLE_RUN)
    for k in (1, 2, 3, 1000):
        assert_same_as_perl(oracle, qrels, run, k)
        copy = oracle.run(qrels, run, k, original=False)
        assert copy.returncode == 0 and copy.stdout == evaluate(qrels, run, k).to_bytes(amean=False)


# ---------------------------------------------------------------- (b) differential


def _spelled(topic: int) -> st.SearchStrategy[str]:
    """Mostly the plain number; sometimes a prefix or leading zeros (same number, other text)."""
    return st.sampled_from([str(topic)] * 8 + [f"wt-{topic}", f"a-b-{topic}", f"0{topic}"])


DOCNOS = ["d1", "d2", "d3", "d4", "d10", "D1", "a:b", "\u00e9", "d\r1"]  # Perl deletes the CR: 'd1'
ZEROS = ["0"] * 8 + ["00", "Q0", "x", "-0", "0.0"]
SCORES = ["1", "1.0", "2", "0.5", ".5", "-1", "3.25", "1e0", "0", "-0", "abc", "12x", "inf", "-inf",
          "0.50000000000000001", "1e-400"]
BAD_QRELS = ["", "# comment", "1 0 d1", "1 1 d1 2", "x 0 d1 1", "1 0 d1 9", "1 0 d1 2.5", "1 0 d1 +2",
             "1- 0 d1 1", "1 nan d1 1", "1 inf d1 1"]
BAD_RUN = ["", "   ", "1 Q0 d1 1 1", "1 q0 d1 1 1 r", "1 Q0 d1 -1 1 r", "1 Q0 d1 1 1 0", "1 Q0 d1 1.5 1 r",
           "x Q0 d1 1 1 r", "#1 Q0 d1 1 1 r"]


@st.composite
def collections(draw: st.DrawFn) -> tuple[bytes, bytes, int, int]:
    max_grade = draw(st.sampled_from([4, 4, 4, 1, 6]))
    topics = draw(st.lists(st.sampled_from([0, 1, 2, 3, 10, 11, 100]), min_size=1, max_size=4, unique=True))
    gap = draw(st.sampled_from([" ", " ", " ", "\t", "  \t"]))
    qrels, run = [], []
    for topic in topics:
        for _ in range(draw(st.integers(0, 6))):  # some topics only in the run
            grade = draw(st.integers(-1, max_grade))
            fields = [draw(_spelled(topic)), draw(st.sampled_from(ZEROS)), draw(st.sampled_from(DOCNOS)),
                      draw(st.sampled_from([str(grade)] * 6 + [f"0{grade}" if grade >= 0 else "-0"]))]
            qrels.append(gap.join(fields + draw(st.sampled_from([[]] * 6 + [["extra"]]))))
        for _ in range(draw(st.integers(0, 8))):  # some topics only in the qrels
            fields = [draw(_spelled(topic)), "Q0", draw(st.sampled_from(DOCNOS)),
                      draw(st.sampled_from(["1", "0", "17"])), draw(st.sampled_from(SCORES)),
                      draw(st.sampled_from(["run1"] * 6 + ["r-2", "00"]))]
            run.append(gap.join(fields + draw(st.sampled_from([[]] * 6 + [["x", "y"]]))))
    draw(st.randoms()).shuffle(run)  # topics need not be contiguous
    bad = draw(st.sampled_from([None] * 8 + ["qrels", "run"]))
    if bad is not None:
        lines = qrels if bad == "qrels" else run
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BAD_QRELS if bad == "qrels" else BAD_RUN)))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n"]))

    def text(lines: list[str]) -> bytes:
        final = draw(st.sampled_from([ending, ending, ""]))  # the last line may lack its newline
        return (ending.join(lines) + final).encode() if lines else b""

    k = draw(st.sampled_from([1, 2, 3, 5, 10, 20]))
    return text(qrels), text(run), k, max_grade


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections())
def test_differential_against_gdeval_pl(oracle: Oracle, case: tuple[bytes, bytes, int, int]) -> None:
    qrels_text, run_text, k, max_grade = case
    qrels, run = _files(oracle.folder, qrels_text, run_text)
    assert_same_as_perl(oracle, qrels, run, k, max_grade)


def test_differential_larger_seeded(oracle: Oracle, tmp_path: Path) -> None:
    """A few bigger collections: 20 topics, many ties, deep rankings, k up to past the end."""
    rng = random.Random(2010)
    for _ in range(6):
        qrels, run = [], []
        for topic in rng.sample(range(1, 60), 20):
            docs = [f"doc{j}" for j in range(rng.randint(1, 120))]
            for doc in rng.sample(docs, rng.randint(0, len(docs))):
                qrels.append(f"{topic} 0 {doc} {rng.choice([0, 0, 1, 2, 3, 4, -1])}")
            for doc in docs:
                run.append(f"wt12-{topic} Q0 {doc} 1 {rng.choice([rng.random(), rng.randint(0, 5)])} big")
        rng.shuffle(qrels)
        files = _files(tmp_path, "\n".join(qrels).encode() + b"\n", "\n".join(run).encode() + b"\n")
        for k in (1, 10, 20, 200):
            assert_same_as_perl(oracle, *files, k)


def test_perl_number_matches_perl(oracle: Oracle) -> None:
    corpus = ["0", "-0", "00", "007", "+5", "-5", "+-5", "--5", "5.", ".5", ".", "-", "+", "1e", "1e+", "1e5",
              "-.5e-3", "1E-2", "0x10", "0b1", "1_000", "12abc", "abc", "Q0", "inf", "-Inf", "INFINITY", "info",
              "in", "nan", "-nan", "nanq", "qnan", "snan", "1.#INF", "-1.#INF", "1.#IND", "1.#QNAN", "1.#Q",
              "2.#INF", "1e400", "-1e400", "1e-400", "0.1", "2.2250738585072011e-308", "4.9e-324",
              "1.00000000000000011102230246251565404236316680908203125", "9007199254740993.5",
              "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
              "123456789012345678901234567890", "3.14abc", "1,5", "1.5.5"]
    script = "no warnings; printf(\"%.17g\\n\", $_ + 0) for @ARGV;"
    out = subprocess.run([oracle.perl, "-e", script, *corpus], capture_output=True, check=True).stdout.split()
    for text, perl_text in zip(corpus, out):
        ours, theirs = float(perl_number(text.encode())), float(perl_text)
        assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), text


def test_fixed_point_formatting_matches_perl_printf(oracle: Oracle) -> None:
    """%.5f of the same double: halfway cases (exact binary ties), carries, Inf and NaN."""
    values = [0.015625, 0.000005, 5e-06 + 1e-21, 2.5e-06, 1.000005, 0.123455, 0.999995, 0.9999950000000001,
              1e-7, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 1.5 ** -20, 123456.789, 0.0, math.inf, -math.inf, math.nan]
    script = "printf(\"%.5f\\n\", $_) for @ARGV;"
    out = subprocess.run([oracle.perl, "-e", script, *map(repr, values)], capture_output=True, check=True).stdout
    assert out == b"".join(_fixed(v) + b"\n" for v in values)


# ---------------------------------------------------------------- (c) errors


BAD_LINES = [  # qrels, run, the file at fault, its line, what the message says
    (b"1 0 a 1\n\n", b"1 Q0 a 1 1 r\n", "qrels", 2, "blank line"),
    (b"# judgments\n1 0 a 1\n", b"1 Q0 a 1 1 r\n", "qrels", 1, "not a number"),
    (b"1 0 a 1\nT1 0 a 1\n", b"1 Q0 a 1 1 r\n", "qrels", 2, "topic 'T1' is not a number"),
    (b"1 0 a 1\n1 0 b 5\n", b"1 Q0 a 1 1 r\n", "qrels", 2, "grade 5 is above"),
    (b"1 0 a 2.5\n", b"1 Q0 a 1 1 r\n", "qrels", 1, "not an integer"),
    (b"1 0 a\n", b"1 Q0 a 1 1 r\n", "qrels", 1, "3 fields"),
    (b"1 1 a 1\n", b"1 Q0 a 1 1 r\n", "qrels", 1, "second field '1' is not 0"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n1 Q0 b 1 1\n", "run", 2, "run tag"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n1 Q0 b 1 1 0\n", "run", 2, "'0'"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n1 0 b 1 1 r\n", "run", 2, "'Q0'"),
    (b"1 0 a 1\n", b"1 Q0 a one 1 r\n", "run", 1, "rank"),
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n\n", "run", 2, "blank line"),
    (b"1 0 a 1\n", b"x-1a Q0 a 1 1 r\n", "run", 1, "not a number"),
]


@pytest.mark.parametrize("qrels, run, bad, line, fragment", BAD_LINES)
def test_bad_lines_name_file_and_line(tmp_path: Path, qrels: bytes, run: bytes, bad: str, line: int,
                                      fragment: str) -> None:
    files = _files(tmp_path, qrels, run)
    with pytest.raises(TrecgainError) as caught:
        gdeval(*files, 10)
    assert (caught.value.source, caught.value.line) == (str(tmp_path / bad), line)
    assert fragment in caught.value.message
    assert str(caught.value).startswith(f"{tmp_path / bad}:{line}: ")


def test_perl_rejects_the_same_lines(oracle: Oracle, tmp_path: Path) -> None:
    for qrels, run, *_ in BAD_LINES:
        assert_same_as_perl(oracle, *_files(tmp_path, qrels, run), 10)


@pytest.mark.parametrize("qrels, run, line, fragment", [
    # gdeval.pl ranks a NaN score wherever its merge sort happens to put it
    (b"1 0 a 1\n", b"1 Q0 a 1 nan r\n", 1, "NaN"),
    # gdeval.pl's printf would read '%b' as a conversion and print the nDCG in binary
    (b"1 0 a 1\n", b"1 Q0 a 1 1 r\n1 Q0 b 1 1 100%b\n", 2, "'%'"),
    # the judgments of topic 1 sort under '1', the run's topic 1 starts with '01': Perl divides by zero
    (b"1 0 a 2\n01 0 b 1\n", b"01 Q0 b 1 1 r\n1 Q0 a 2 0.5 r\n", 1, "divides by zero"),
    (b"1 0 a 1\n", b"1 Q0 a 1 9007199254740993 r\n1 Q0 b 1 0.5 r\n", 1, "2**53"),
    (b"18446744073709551616 0 a 1\n", b"1 Q0 a 1 1 r\n", 1, "2**64"),
])
def test_where_gdeval_pl_misbehaves_trecgain_refuses(tmp_path: Path, qrels: bytes, run: bytes, line: int,
                                                    fragment: str) -> None:
    with pytest.raises(TrecgainError) as caught:
        gdeval(*_files(tmp_path, qrels, run), 10)
    assert caught.value.line == line and fragment in caught.value.message


@pytest.mark.parametrize("k, max_grade", [(0, 4), (-1, 4), (2.5, 4), (True, 4), (10, -1), (10, 1024)])
def test_bad_parameters(k: object, max_grade: int) -> None:
    with pytest.raises(TrecgainError):
        gdeval(io.BytesIO(b"1 0 a 1\n"), io.BytesIO(b"1 Q0 a 1 1 r\n"), k, max_grade)  # type: ignore[arg-type]


# ---------------------------------------------------------------- (d) err_cut


def _err_cut_by_query(qrels: bytes, run: bytes, cutoffs: tuple[int, ...], max_grade: int = 4,
                      **options: object) -> dict[bytes, list[float]]:
    """err_cut per query through the library, as the command line runs it."""
    measure = "err_cut." + ",".join(str(k) for k in cutoffs)
    ev = Evaluator(io.BytesIO(qrels), measures=[measure], err_max_grade=max_grade, **options)  # type: ignore[arg-type]
    result = ev.evaluate(io.BytesIO(run))
    return {qid.encode(): [values[f"err_cut_{k}"] for k in cutoffs] for qid, values in result.per_query.items()}


@st.composite
def shared_collections(draw: st.DrawFn) -> tuple[bytes, bytes, int]:
    """Input both readers accept alike: plain topics, one judgment and one result per document."""
    max_grade = draw(st.sampled_from([4, 4, 2, 6]))
    qrels, run = [], []
    for topic in draw(st.lists(st.integers(1, 30), min_size=1, max_size=5, unique=True)):
        docs = [f"d{j}" for j in range(draw(st.integers(1, 25)))]
        for doc in docs:
            if draw(st.booleans()):
                qrels.append(f"{topic} 0 {doc} {draw(st.integers(-1, max_grade))}")
            if draw(st.integers(0, 3)):
                run.append(f"{topic} Q0 {doc} 1 {draw(st.sampled_from(['1', '2', '0.5', '0.25', '-3']))} t")
    qrels.append("999 0 judged 1")  # so the qrels are never empty
    run.append("998 Q0 unjudged 1 1 t")  # nor the run
    return "\n".join(qrels).encode() + b"\n", "\n".join(run).encode() + b"\n", max_grade


@settings(max_examples=100, deadline=None)
@given(shared_collections())
def test_err_cut_equals_gdeval_err(case: tuple[bytes, bytes, int]) -> None:
    qrels, run, max_grade = case
    cutoffs = (1, 2, 3, 5, 10, 20, 1000)
    try:
        ours = _err_cut_by_query(qrels, run, cutoffs, max_grade)
    except TrecgainError:  # no query in both files: nothing to compare
        return
    for j, k in enumerate(cutoffs):
        reference = evaluate(io.BytesIO(qrels), io.BytesIO(run), k, max_grade)
        assert {t: ours[t][j] for t in reference.topics} == dict(zip(reference.topics, reference.err))  # bit for bit
        # trecgain also evaluates topics whose judgments are all 0 or negative (gdeval.pl skips them): ERR 0
        assert all(ours[t][j] == 0.0 for t in set(ours) - set(reference.topics))


def test_err_cut_text_matches_perl(oracle: Oracle, tmp_path: Path) -> None:
    files = _files(tmp_path, EXAMPLE_QRELS, EXAMPLE_RUN.replace(b"4 Q0 a", b"2 Q0 a"))
    ours = _err_cut_by_query(*(f.read_bytes() for f in files), (2,))
    perl = oracle.run(*files, 2).stdout.decode().splitlines()[1:-1]
    assert [line.split(",")[3] for line in perl] == [f"{ours[t.encode()][0]:.5f}" for t in ("1", "2")]


def test_err_cut_caps_grades_and_ignores_negatives() -> None:
    run = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n"
    high = _err_cut_by_query(b"1 0 a 9\n1 0 b -3\n", run, (1, 3))[b"1"]
    capped = _err_cut_by_query(b"1 0 a 4\n1 0 b 0\n", run, (1, 3))[b"1"]
    assert high == capped == [15 / 16, 15 / 16]


def test_err_cut_empty_rankings_and_options() -> None:
    qrels = b"1 0 a 1\n1 0 b 4\n2 0 a 1\n"
    run = b"1 Q0 x 1 3 t\n1 Q0 b 2 2 t\n2 Q0 y 1 1 t\n"
    assert _err_cut_by_query(qrels, run, (1, 2))[b"1"] == [0.0, 15 / 16 / 2]
    # -J closes up the ranks: b moves to rank 1; query 2 keeps nothing and scores 0
    judged = _err_cut_by_query(qrels, run, (1, 2), judged_only=True)
    assert judged == {b"1": [15 / 16, 15 / 16], b"2": [0.0, 0.0]}
    assert _err_cut_by_query(qrels, run, (5,), max_docs=1)[b"1"] == [0.0]
    assert np.isfinite(_err_cut_by_query(qrels, run, (1,), max_grade=0)[b"1"]).all()
