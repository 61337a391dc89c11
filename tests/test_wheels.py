"""What `make wheel` built in dist/, as PyPI takes it and as users install it: the wheels' tags,
contents and metadata, the sdist's contents, and each wheel installed with plain pip into a fresh
virtual environment of every CPython 3.10-3.13 on this machine (tests/pythons.py), with no Rust
toolchain on the PATH, outside the source tree, and run there.

`make test` builds dist/ first (`make wheel`); run alone, these tests fail on a dist/ that is
missing or older than the sources rather than test a stale wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from pythons import WANTED, cpythons

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
PYTHONS = cpythons()
EXAMPLE = [str(ROOT / "testdata" / "example" / "qrels.txt"), str(ROOT / "testdata" / "example" / "run.txt")]
EXAMPLE_ARGS = ["-q", "-m", "ndcg_cut.5,10", "-m", "ndcg", *EXAMPLE]
# The inputs of `make wheel` (its Makefile rule lists the same).
SOURCES = [*ROOT.glob("src/**/*.rs"), *ROOT.glob("core/src/**/*.rs"), *ROOT.glob("trecgain/**/*.py"),
           *(ROOT / p for p in ("Cargo.toml", "core/Cargo.toml", "Cargo.lock", "pyproject.toml", "README.md",
                                "LICENSE", "trecgain/_core.pyi", "trecgain/py.typed"))]
# PEP 600 tags PyPI takes for Linux x86_64 (maturin names manylinux2014 manylinux_2_17).
MANYLINUX = re.compile(r"manylinux_2_\d+_x86_64(\.manylinux\w+)*|manylinux2014_x86_64")


def built() -> dict[str, Path]:
    """dist/'s files: "sdist", "cp310" and "abi3" (the wheel for 3.11 and later); fails if stale."""
    stamp = DIST / ".built"
    assert stamp.is_file(), "no dist/: run `make wheel` (make test does)"
    newer = [str(p.relative_to(ROOT)) for p in SOURCES if p.stat().st_mtime > stamp.stat().st_mtime]
    assert not newer, f"dist/ is older than {newer}: run `make wheel` (make test does)"
    kinds = {"sdist": f"trecgain-{VERSION}.tar.gz", "cp310": f"trecgain-{VERSION}-cp310-cp310-*.whl",
             "abi3": f"trecgain-{VERSION}-cp311-abi3-*.whl"}
    found = {kind: sorted(DIST.glob(pattern)) for kind, pattern in kinds.items()}
    return {kind: paths[0] for kind, paths in found.items() if len(paths) == 1}


def wheel_for(minor: str) -> Path:
    """The wheel a CPython `minor` installs: 3.10 its own, later ones the abi3 wheel."""
    kind = "cp310" if minor == "3.10" else "abi3"
    files = built()
    assert kind in files, f"dist/ has no {kind} wheel for CPython {minor}: {sorted(p.name for p in DIST.iterdir())}"
    return files[kind]


def test_cpythons_found(capsys):
    """Says in one line which CPythons the wheels are tried on, and which are missing."""
    found = ", ".join(f"{minor} ({path})" for minor, path in PYTHONS.items())
    missing = ", ".join(minor for minor in WANTED if minor not in PYTHONS) or "none"
    with capsys.disabled():
        print(f"\nwheels: installed and run on CPython {found or 'none'}; missing: {missing}")
    assert PYTHONS, "no CPython 3.10-3.13 found (pyenv versions or python3.X on the PATH)"


def test_dist_holds_the_sdist_and_both_wheels():
    files = built()
    expected = {"sdist", "abi3"} | ({"cp310"} if "3.10" in PYTHONS else set())
    assert expected <= set(files), sorted(p.name for p in DIST.iterdir())


@pytest.mark.parametrize("kind", ["abi3", "cp310"])
def test_wheel_tags_contents_and_metadata(kind):
    """A tag PyPI takes, every module, the stubs and py.typed, one extension, the licence."""
    files = built()
    if kind == "cp310" and "3.10" not in PYTHONS:
        assert "cp310" not in files  # built only with a 3.10 at hand
        return
    wheel = files[kind]
    assert MANYLINUX.fullmatch(wheel.name.removesuffix(".whl").split("-")[-1]), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"trecgain-{VERSION}.dist-info/METADATA").decode()
    extension = "trecgain/_core.abi3.so" if kind == "abi3" else "trecgain/_core.cpython-310-x86_64-linux-gnu.so"
    package = {str(p.relative_to(ROOT)) for p in (ROOT / "trecgain").rglob("*")
               if (p.suffix in (".py", ".pyi") or p.name == "py.typed") and "__pycache__" not in p.parts}
    assert {"trecgain/py.typed", "trecgain/_core.pyi", extension} <= names
    assert {n for n in names if n.startswith("trecgain/")} == package | {extension}
    assert f"trecgain-{VERSION}.dist-info/licenses/LICENSE" in names
    fields = metadata.split("\n\n", 1)[0].splitlines()
    assert "License: MIT" in fields and "License-File: LICENSE" in fields
    assert "Project-URL: Homepage, https://github.com/trecgain/trecgain" in fields
    assert "Classifier: Programming Language :: Python :: 3.13" in fields
    assert "Classifier: License :: OSI Approved :: MIT License" in fields
    summary = next(f for f in fields if f.startswith("Summary: "))
    assert "trec_eval" in summary and "gain-based measures" not in summary
    description = metadata.split("\n\n", 1)[1]
    assert "## Install" in description
    # PyPI shows the README without the repository: no image by a relative address
    assert not re.findall(r"!\[[^\]]*\]\((?!https://)[^)]*\)", description)


def test_sdist_holds_what_a_build_from_source_needs():
    files = built()
    with tarfile.open(files["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    needed = {"pyproject.toml", "Cargo.toml", "Cargo.lock", "LICENSE", "README.md", "core/Cargo.toml",
              "trecgain/_core.pyi", "trecgain/py.typed", "PKG-INFO"}
    needed |= {str(p.relative_to(ROOT)) for p in SOURCES if p.suffix in (".rs", ".py")}
    assert needed <= names, sorted(needed - names)
    assert not [n for n in names if n.endswith((".so", ".pyd", ".pyc"))]  # nothing built here


def without_rust(venv: Path) -> dict[str, str]:
    """The environment a user without Rust has: the venv first, no cargo or rustc on the PATH."""
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any(os.access(os.path.join(d, tool), os.X_OK) for tool in ("cargo", "rustc"))]
    path = os.pathsep.join([str(venv / "bin"), *kept])
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CARGO_TARGET_DIR", "PYO3_PYTHON")}
    return {**env, "PATH": path}


class Venv:
    """A fresh virtual environment of one interpreter, run from an empty folder."""

    def __init__(self, python: Path, folder: Path):
        self.root = folder / "venv"
        self.cwd = folder / "elsewhere"
        self.cwd.mkdir()
        subprocess.run([str(python), "-m", "venv", str(self.root)], check=True, capture_output=True)
        self.env = without_rust(self.root)

    def run(self, *argv: str) -> subprocess.CompletedProcess:
        """Run a command of the venv (its python, trecgain, pip...) and return what it did."""
        program = str(self.root / "bin" / argv[0])
        return subprocess.run([program, *argv[1:]], cwd=self.cwd, env=self.env, capture_output=True)

    def ok(self, *argv: str) -> str:
        """Run a command that must succeed; its standard output."""
        done = self.run(*argv)
        assert done.returncode == 0, (argv, done.stdout.decode()[-2000:], done.stderr.decode()[-2000:])
        return done.stdout.decode()


def trec_eval_lines_from_pytrec_eval() -> list[str]:
    """EXAMPLE_ARGS' lines as trec_eval prints them, from pytrec_eval (sorted: the order is not its)."""
    import pytrec_eval  # a test dependency, read only here
    with open(EXAMPLE[0]) as qrels_file, open(EXAMPLE[1]) as run_file:
        qrels, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10", "ndcg"}).evaluate(run)
    names = ("ndcg", "ndcg_cut_5", "ndcg_cut_10")
    lines = [f"{name:<22}\t{qid}\t{values[qid][name]:6.4f}" for qid in values for name in names]
    for name in names:  # trec_eval's mean: the queries' values added in query order, then divided
        total = 0.0
        for qid in sorted(values):
            total += values[qid][name]
        lines.append(f"{name:<22}\tall\t{total / len(values):6.4f}")
    return sorted(lines)


@pytest.fixture(scope="module")
def from_source_tree() -> subprocess.CompletedProcess:
    """The example through the development install (the conformance suite checks that one)."""
    return subprocess.run([sys.executable, "-m", "trecgain", *EXAMPLE_ARGS], cwd=ROOT, capture_output=True)


@pytest.mark.parametrize("minor", sorted(PYTHONS))
def test_wheel_installs_and_runs_without_rust(minor, tmp_path, from_source_tree):
    """pip install of the wheel alone (its dependencies from PyPI), then the package imported
    from the venv, its extension linked to no libpython, and the example's numbers right.
    One more check in each environment is one more `venv.ok(...)` line."""
    venv = Venv(PYTHONS[minor], tmp_path)
    venv.ok("python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--only-binary", ":all:",
            str(wheel_for(minor)))
    extension = Path(venv.ok("python", "-c", "import trecgain, trecgain._core; print(trecgain._core.__file__)").strip())
    assert extension.is_relative_to(venv.root), extension
    dynamic = subprocess.run(["readelf", "-d", str(extension)], capture_output=True, text=True)
    needed = [line for line in dynamic.stdout.splitlines() if "(NEEDED)" in line]
    assert dynamic.returncode == 0 and needed, dynamic.stderr
    assert not [line for line in needed if "libpython" in line], needed
    assert venv.ok("trecgain", "--version").startswith(f"trecgain {VERSION} ")
    example = venv.run("trecgain", *EXAMPLE_ARGS)
    assert example.returncode == 0, example.stderr.decode()
    assert sorted(example.stdout.decode().splitlines()) == trec_eval_lines_from_pytrec_eval()
    assert (example.stdout, example.stderr) == (from_source_tree.stdout, from_source_tree.stderr)
