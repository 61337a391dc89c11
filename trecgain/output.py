"""Writing results to a file (the command's -o) atomically: a temporary file beside it,
renamed onto it with os.replace only once everything was written, so that a failure never
leaves half a file, nor the temporary one; and the checks that keep -o off the input files
and off files the caller may not write.

A symbolic link is written through, as the shell's `>` does: the temporary file is made
beside the file the link finally names and renamed onto that file; the link stays a link.

While the file is written, a signal handler (`on_signal`, installed by the command) raises
only while the results are produced; a signal that arrives while the temporary file is
created, renamed or removed waits until that step is done, so the name of a temporary file
is always known to the code that removes it."""

from __future__ import annotations

import os

from .errors import TrecgainError

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import BinaryIO, Callable

    Produce = Callable[[Callable[[bytes], None]], None]

_ADVICE = "(trecgain's -o writes the results; trec_eval's obsolete -o is --Output_old_results_format)"


def check_target(target: str, inputs: tuple[str, ...] | list[str], option: str = "-o") -> None:
    """Refuse a target that is a directory, is in no directory, is one of the input files,
    looks like a qrels or run file (`trec_eval -o qrels run1 run2` would overwrite the qrels),
    or that the caller may not write (a rename would replace it all the same).  Through
    symbolic links: what is checked is the file the link names.  `option` (-o, --plot) names
    the caller in the messages."""
    advice = f" {_ADVICE}" if option == "-o" else ""
    if not target:
        raise TrecgainError(f"option {option} needs a file name ('-' for standard output)")
    final = final_path(target, option)
    if os.path.isdir(final):
        raise TrecgainError(f"{option} {target}: is a directory")
    directory = os.path.dirname(final) or "."
    if not os.path.isdir(directory):
        raise TrecgainError(f"{option} {target}: no such directory '{directory}'")
    if not os.path.exists(target):
        return
    for name in inputs:
        try:
            same = name != "-" and os.path.samefile(target, name)
        except (OSError, ValueError):  # a file that does not exist, a name with a NUL
            same = False
        if same:
            raise TrecgainError(f"{option} {target} is the input file '{name}': refusing to overwrite it{advice}")
    if looks_like_input(target):
        raise TrecgainError(f"{option} {target}: refusing to overwrite what looks like a qrels or run file{advice}")
    # as `> FILE` would fail, though a rename would not; through links as open() goes (the
    # final name of /dev/stdout may be no path at all: pipe:[...])
    if not os.access(target, os.W_OK):
        raise TrecgainError(f"{option} {target}: permission denied")


def final_path(target: str, option: str = "-o") -> str:
    """The file `target` names: the end of its chain of symbolic links (one that names no
    file yet is created, as `>` creates it), or `target` itself when it is no link."""
    if not os.path.islink(target):
        return target
    try:
        return os.path.realpath(target, strict=True)
    except FileNotFoundError:
        return os.path.realpath(target)
    except OSError as err:  # a loop of links
        raise TrecgainError(f"{option} {target}: {err.strerror or err}") from None


def looks_like_input(path: str) -> bool:
    """Whether a regular file's first line is a qrels line or a run line (input_kind; a
    gzipped file is not looked into)."""
    return input_kind(path, gzip=False) is not None


def input_kind(path: str, gzip: bool = True) -> str | None:
    """What a regular file's first line (past comments and blank lines; with `gzip`, a
    gzipped file's) looks like: "qrels" (qid iter docno grade), "run" (qid iter docno rank
    score tag ...), or None."""
    for line in _head(path, gzip).splitlines():
        fields = line.split()
        if fields and not line.startswith(b"#"):
            if len(fields) == 4 and _is(fields[3:4], float):
                return "qrels"
            if len(fields) >= 6 and _is(fields[3:4], int) and _is(fields[4:5], float):
                return "run"
            return None
    return None


def _head(path: str, gzip: bool, size: int = 65536) -> bytes:
    """The first bytes of a regular file (with `gzip`, decompressed if gzipped); nothing if it
    cannot be read."""
    try:
        if not os.path.isfile(path):
            return b""
        with open(path, "rb") as f:
            head = f.read(size)
        if gzip and head[:2] == b"\x1f\x8b":
            import zlib  # not at import: only this path needs it

            try:
                head = zlib.decompressobj(wbits=47).decompress(head, size)
            except zlib.error:
                return b""
    except OSError:
        return b""
    return head


def swapped_error(error: TrecgainError, qrels: str, run: str, usage: str) -> TrecgainError:
    """An error reading `qrels` or `run`, told as the two given the wrong way round when the
    qrels file looks like a run and the run file like qrels; else `error` itself."""
    if error.source not in (qrels, run) or "-" in (qrels, run):  # standard input: not looked into
        return error
    if input_kind(qrels) != "run" or input_kind(run) != "qrels":
        return error
    return TrecgainError(f"QRELS and RUN look swapped: '{qrels}' looks like a run and '{run}' like qrels "
                         f"(usage: {usage})")


def _is(fields: list[bytes], kind: type) -> bool:
    try:
        return len(fields) == 1 and kind(fields[0]) is not None
    except ValueError:
        return False


def write(target: str, produce: Produce) -> None:
    """Call `produce(write)`; what it writes lands in `target` only if it returns (a temporary
    file is renamed onto the target, with the target's permissions when it existed; through
    a symbolic link, onto the file it names).  A target that is not a regular file
    (/dev/null, a FIFO) is written in place."""
    if os.path.exists(target) and not os.path.isfile(target):
        handle = _opened(target)
        try:
            produce(_writer(handle, target))
            _checked(handle.flush, target)
        finally:
            _close(handle)
        return
    final = final_path(target)
    _SIGNALS.hold()
    temporary = None
    try:
        temporary, handle = _temporary_beside(final, target)
        try:
            with _SIGNALS.released():
                produce(_writer(handle, target))
            _checked(lambda: (handle.flush(), os.fsync(handle.fileno())), target)
        finally:
            _close(handle)
        _SIGNALS.deliver()  # a signal during the flush: the old file stays
        _checked(lambda: os.replace(temporary, final), target)
        temporary = None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        _SIGNALS.release()


class _SignalGate:
    """Whether `on_signal` raises at once (outside write(), and while the results are
    produced) or holds the signal (`pending`) until the step under way is done."""

    def __init__(self) -> None:
        self.holding = False
        self.pending: list[int] = []

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        """Raise at once from now on, and raise a signal that was held."""
        self.holding = False
        self.deliver()

    def deliver(self) -> None:
        """Raise for a signal that was held, if any."""
        if self.pending:
            signum = self.pending[0]
            self.pending.clear()
            _raise_for(signum)

    def released(self) -> _Released:
        return _Released(self)


class _Released:
    """A block during which signals raise at once (a held one first)."""

    def __init__(self, gate: _SignalGate) -> None:
        self.gate = gate

    def __enter__(self) -> None:
        self.gate.release()

    def __exit__(self, *exc: object) -> None:
        self.gate.hold()


_SIGNALS = _SignalGate()


def on_signal(signum: int, frame: object) -> None:
    """The handler of SIGINT, SIGTERM and SIGHUP while a file is written: KeyboardInterrupt for
    SIGINT, SystemExit(128 + signal) for the others, at once or, while the temporary file is
    created, renamed or removed, once that is done."""
    if _SIGNALS.holding:
        _SIGNALS.pending.append(signum)
    else:
        _raise_for(signum)


def _raise_for(signum: int) -> None:
    import signal  # not at import: only this path needs it

    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def _temporary_beside(final: str, target: str) -> tuple[str, BinaryIO]:
    """A new file (its name and open binary file) in the directory of `final`, the file
    `target` names."""
    import secrets  # not at import: only this path needs it

    directory, base = os.path.split(final)
    for _ in range(100):
        name = os.path.join(directory, f".{base[:80]}.{os.getpid()}.{secrets.token_hex(4)}.trecgain-tmp")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as err:
            raise TrecgainError(f"cannot write '{target}': {err.strerror or err}") from None
        try:
            os.chmod(fd, os.stat(final).st_mode & 0o7777)
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
