"""Writing results to a file (the command's -o) atomically: a temporary file beside it,
renamed onto it with os.replace only once everything was written, so that a failure never
leaves half a file, nor the temporary one; and the checks that keep -o off the input files."""

from __future__ import annotations

import os

from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import BinaryIO, Callable

    Produce = Callable[[Callable[[bytes], None]], None]

_ADVICE = "(trecgain's -o writes the results; trec_eval's obsolete -o is --Output_old_results_format)"


def check_target(target: str, inputs: tuple[str, ...] | list[str]) -> None:
    """Refuse a target that is a directory, is in no directory, is one of the input files,
    or looks like a qrels or run file (`trec_eval -o qrels run1 run2` would overwrite the qrels)."""
    if not target:
        raise TrecgainError("option -o needs a file name ('-' for standard output)")
    if os.path.isdir(target):
        raise TrecgainError(f"-o {target}: is a directory")
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        raise TrecgainError(f"-o {target}: no such directory '{directory}'")
    if not os.path.exists(target):
        return
    for name in inputs:
        try:
            same = name != "-" and os.path.samefile(target, name)
        except OSError:
            same = False
        if same:
            raise TrecgainError(f"-o {target} is the input file '{name}': refusing to overwrite it {_ADVICE}")
    if looks_like_input(target):
        raise TrecgainError(f"-o {target}: refusing to overwrite what looks like a qrels or run file {_ADVICE}")


def looks_like_input(path: str) -> bool:
    """Whether a regular file's first line is a qrels line (qid iter docno grade) or a run
    line (qid iter docno rank score tag ...)."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    for line in head.splitlines():
        fields = line.split()
        if fields and not line.startswith(b"#"):
            return _is(fields[3:4], int) and (len(fields) == 4 or len(fields) >= 6 and _is(fields[4:5], float))
    return False


def _is(fields: list[bytes], kind: type) -> bool:
    try:
        return len(fields) == 1 and kind(fields[0]) is not None
    except ValueError:
        return False


def write(target: str, produce: Produce) -> None:
    """Call `produce(write)`; what it writes lands in `target` only if it returns (a temporary
    file is renamed onto the target, with the target's permissions when it existed).  A target
    that is not a regular file (/dev/null, a FIFO) is written in place."""
    if os.path.exists(target) and not os.path.isfile(target):
        handle = _opened(target)
        try:
            produce(_writer(handle, target))
            _checked(handle.flush, target)
        finally:
            _close(handle)
        return
    temporary = None
    try:
        temporary, handle = _temporary_beside(target)
        try:
            produce(_writer(handle, target))
            _checked(lambda: (handle.flush(), os.fsync(handle.fileno())), target)
        finally:
            _close(handle)
        _checked(lambda: os.replace(temporary, target), target)
        temporary = None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _temporary_beside(target: str) -> tuple[str, BinaryIO]:
    """A new file (its name and open binary file) in the target's directory."""
    import secrets

    directory, base = os.path.split(target)
    for _ in range(100):
        name = os.path.join(directory, f".{base[:80]}.{os.getpid()}.{secrets.token_hex(4)}.trecgain-tmp")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as err:
            raise TrecgainError(f"cannot write '{target}': {err.strerror or err}") from None
        try:
            os.chmod(fd, os.stat(target).st_mode & 0o7777)
        except OSError:
            pass  # a new target: the umask's permissions
        return name, os.fdopen(fd, "wb")
    raise TrecgainError(f"cannot write '{target}': no free temporary name beside it")


def _opened(path: str) -> BinaryIO:
    """A file that is not a regular one, opened to write in place."""
    try:
        return os.fdopen(os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)), "wb")
    except OSError as err:
        raise TrecgainError(f"cannot write '{path}': {err.strerror or err}") from None


def _writer(handle: BinaryIO, target: str) -> Callable[[bytes], None]:
    """write(bytes) into an open file; a full disk is one TrecgainError naming the target."""

    def write(data: bytes) -> None:  # a Python function: a signal's handler runs between chunks
        _checked(lambda: handle.write(data), target)

    return write


def _checked(action: Callable[[], object], target: str) -> None:
    try:
        action()
    except OSError as err:
        raise TrecgainError(f"cannot write '{target}': {err.strerror or err}") from None


def _close(handle: BinaryIO) -> None:
    """Close a file whose data was flushed (or is abandoned: a failed flush is not news)."""
    try:
        handle.close()
    except OSError:
        pass
