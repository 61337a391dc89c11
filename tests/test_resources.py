"""Running out of memory is one line too: the core's allocations (through the extension's
allocator), Python's MemoryError, and a -j worker's (the command then says a worker ended)."""

from __future__ import annotations

import gzip

import pytest

from test_robustness import QRELS, assert_process_clean_error, measured, write_pair

LIMIT_MIB = 400  # the interpreter and the extension fit well; 100M run lines do not


def many_lines(folder, name: str = "run.gz", copies: int = 200) -> str:
    """A 4 MB gzip of 100M distinct-enough run lines (each member compresses one block)."""
    block = b"".join(b"1 Q0 d%d 1 1.0 t\n" % i for i in range(500_000))
    member = gzip.compress(block, compresslevel=9)
    path = folder / name
    path.write_bytes(member * copies)
    return str(path)


def test_the_core_out_of_memory_is_one_line(tmp_path):
    q, _ = write_pair(tmp_path, QRELS, b"")
    result = measured(tmp_path, ["-m", "ndcg", q, many_lines(tmp_path)], limit_mib=LIMIT_MIB)
    assert_process_clean_error(result, "out of memory")
    assert result["stderr"] == "trecgain: out of memory\n"
    assert result["status"] == 1


def test_a_worker_out_of_memory_is_one_line(tmp_path):
    q, r = write_pair(tmp_path, QRELS, b"1 Q0 a 1 1 t\n")
    result = measured(tmp_path, ["-j", "2", "-m", "ndcg", q, many_lines(tmp_path), r], limit_mib=LIMIT_MIB)
    assert_process_clean_error(result, "a worker process ended")
    assert result["status"] == 1


@pytest.mark.parametrize("where", ["qrels", "run"])
def test_out_of_memory_leaves_stdout_empty(tmp_path, where):
    """Whichever file is too large, nothing is printed but the one line."""
    q, r = write_pair(tmp_path, QRELS, b"1 Q0 a 1 1 t\n")
    big = many_lines(tmp_path, f"{where}.gz")
    if where == "qrels":  # the same lines read as qrels: 4 fields each would be malformed, so 4-field lines
        block = b"".join(b"1 0 d%d 1\n" % i for i in range(500_000))
        (tmp_path / "qrels.gz").write_bytes(gzip.compress(block, compresslevel=9) * 200)
        args = [str(tmp_path / "qrels.gz"), r]
    else:
        args = [q, big]
    result = measured(tmp_path, ["-m", "ndcg", *args], limit_mib=LIMIT_MIB)
    assert_process_clean_error(result, "out of memory")
    assert result["stdout"] == b""
