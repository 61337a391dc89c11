"""Where the runs of trecgain.distributed are: local paths, URLs (fsspec), standard input, and
how a run is cut into parts (`Source`: byte ranges that start where the qid changes, found by
the workers with the core's reader)."""

from __future__ import annotations

import os
import sys

from ..errors import TrecgainError
from .cluster import reason_of

TYPE_CHECKING = False  # typing costs start-up; annotations are never evaluated
if TYPE_CHECKING:
    from typing import Any

#: A run larger than this is read in parts (unless TRECGAIN_DASK_PARTITION_BYTES or
#: partition_bytes= says otherwise, or the workers' memory limits call for smaller parts).
DEFAULT_PARTITION_BYTES = 64 << 20
MIN_PARTITION_BYTES = 1 << 16
#: Bytes read at a time where workers scan a file.
BLOCK = 1 << 20
#: The magic bytes of gzip and of the compressed formats the reader names: such a run is read
#: whole by one worker (its reader decompresses gzip, and refuses the others with a message).
COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"PK\x03\x04")


def is_url(name: str) -> bool:
    scheme, sep, _ = name.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").isalnum() and not os.path.exists(name)


def filesystem_of(url: str) -> tuple[Any, str]:
    try:
        import fsspec  # optional dependency: imported only when used
    except ImportError:
        raise TrecgainError("reading a run from a URL needs fsspec (and the filesystem's package, such as s3fs): "
                            "pip install fsspec", url) from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as err:  # an unknown protocol, or its package missing
        raise TrecgainError(f"cannot read: {reason_of(err)}", url) from None


class Source:
    """A run to read: its name (in messages and outputs), where workers find it (kind "path":
    an absolute path; "url": an fsspec URL; "bytes": the data, standard input's), its size
    when known, and whether it can be read in parts (a plain regular file or object)."""

    def __init__(self, name: str, partition: int):
        from ..read import describe  # not at import: only this path needs it

        self.arg = name  # as given: Result.source
        self.name = name if is_utf8(name) else describe(name)
        self.size: int | None = None
        self.splittable = False
        self.data: bytes | None = None
        if name == "-":
            self.kind, self.location, self.name = "bytes", None, "(standard input)"
            if sys.stdin is None:
                raise TrecgainError("cannot read: standard input is closed", self.name)
            try:
                self.data = getattr(sys.stdin, "buffer", sys.stdin).read()
            except (OSError, ValueError) as err:
                raise TrecgainError(f"cannot read: {getattr(err, 'strerror', None) or err}", self.name) from None
            return
        if is_url(name):
            self.kind, self.location = "url", name
            fs, path = filesystem_of(name)
            try:
                self.size = int(fs.size(path))
                with fs.open(path, "rb") as f:
                    head = f.read(8)
            except (OSError, ValueError, TypeError):
                return  # read whole: the worker's reader says what is wrong
        else:
            self.kind, self.location = "path", os.path.abspath(name)
            try:
                if not os.path.isfile(self.location):
                    return
                self.size = os.path.getsize(self.location)
                with open(self.location, "rb") as f:
                    head = f.read(8)
            except OSError:
                return
        self.splittable = self.size is not None and self.size > partition and not head.startswith(COMPRESSED)


def is_utf8(name: str) -> bool:
    """Whether a name is text the core takes as it is (not bytes smuggled in by surrogateescape)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
