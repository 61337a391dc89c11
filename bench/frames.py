"""What reading a DataFrame as a run costs: time and the memory the read adds at its peak.

Each case runs in a fresh process: a frame of ROWS rows (1,000 documents a query) is built
from numpy arrays, the process's peak is reset to its present size (Linux's
/proc/self/clear_refs), the frame is read as a run (trecgain.read.read_run), and the peak's
growth over the size before is reported with the wall and CPU seconds of the read.  Cases:
pandas or polars, with int64 ids or string ids (`str(int)` of the same numbers).

    python bench/frames.py [--rows 10000000] [--libraries pandas,polars]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

PROBE = r"""
import gc, re, sys, time
import numpy as np
from trecgain.read import read_run

library, ids, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
qids = np.arange(rows, dtype=np.int64) // 1000 + 301
docnos = np.arange(rows, dtype=np.int64) * 7 + 1000
if ids == "str":
    qids, docnos = qids.astype(str).astype(object), docnos.astype(str).astype(object)
data = {"qid": qids, "docno": docnos, "score": np.random.default_rng(1).random(rows)}
if library == "pandas":
    import pandas
    frame = pandas.DataFrame(data)
else:
    import polars
    frame = polars.DataFrame({k: v.tolist() if v.dtype == object else v for k, v in data.items()})
del qids, docnos, data
gc.collect()


def kib(field):
    return int(re.search(field + r":\s+(\d+) kB", open("/proc/self/status").read()).group(1))


open("/proc/self/clear_refs", "w").write("5")
before, wall, cpu = kib("VmRSS"), time.perf_counter(), time.process_time()
read_run(frame)
print(time.perf_counter() - wall, time.process_time() - cpu, before / 1024, (kib("VmHWM") - before) / 1024)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--libraries", default="pandas,polars")
    args = parser.parse_args()
    print(f"Reading a run DataFrame of {args.rows:,} rows\n")
    print("| frame | ids | wall s | CPU s | RSS before MiB | peak growth MiB |")
    print("|---|---|---:|---:|---:|---:|")
    for library in args.libraries.split(","):
        for ids in ("int", "str"):
            out = subprocess.run([sys.executable, "-c", PROBE, library, ids, str(args.rows)], capture_output=True,
                                 text=True, check=True)
            wall, cpu, before, growth = map(float, out.stdout.split())
            print(f"| {library} | {ids} | {wall:.2f} | {cpu:.2f} | {before:.0f} | {growth:.0f} |")


if __name__ == "__main__":
    main()
