"""The CPythons 3.10 to 3.13 on this machine: the interpreters the wheels are built for and
installed into (`make wheel`, tests/test_wheels.py).

Each minor version is looked for in pyenv's versions (`$PYENV_ROOT`, else `pyenv root`, else
~/.pyenv; the newest patch release first), then as `python3.X` on the PATH, and kept only if it
runs and says it is that CPython. `python tests/pythons.py 3.10` prints the one found for 3.10
(nothing, and status 1, when there is none); with no argument, every one found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

WANTED = ("3.10", "3.11", "3.12", "3.13")
IDENTIFY = "import platform, sys; print(platform.python_implementation(), '%d.%d' % sys.version_info[:2])"


def pyenv_root() -> Path:
    """Where pyenv keeps its versions."""
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    return Path.home() / ".pyenv"


def patch_level(folder: Path) -> tuple[int, ...]:
    """3.10.13 -> (3, 10, 13); a folder named otherwise sorts first."""
    parts = folder.name.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else ()


def candidates(minor: str) -> list[Path]:
    """Interpreters that may be CPython `minor`, the likeliest first."""
    versions = pyenv_root() / "versions"
    found = sorted(versions.glob(f"{minor}.*"), key=patch_level, reverse=True) if versions.is_dir() else []
    paths = [folder / "bin" / f"python{minor}" for folder in found]
    on_path = shutil.which(f"python{minor}")
    return paths + ([Path(on_path)] if on_path else [])


def is_cpython(path: Path, minor: str) -> bool:
    """Whether `path` runs and is CPython `minor` (a pyenv shim of a version not selected fails)."""
    try:
        done = subprocess.run([str(path), "-c", IDENTIFY], capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return done.returncode == 0 and done.stdout.split() == ["CPython", minor]


def cpythons() -> dict[str, Path]:
    """{"3.10": interpreter, ...} for each of WANTED found on this machine."""
    found = {}
    for minor in WANTED:
        path = next((p for p in candidates(minor) if p.is_file() and is_cpython(p, minor)), None)
        if path is not None:
            found[minor] = path
    return found


if __name__ == "__main__":
    pythons = cpythons()
    chosen = [pythons[v] for v in sys.argv[1:] if v in pythons] if sys.argv[1:] else list(pythons.values())
    print("\n".join(str(p) for p in chosen))
    sys.exit(0 if chosen else 1)
