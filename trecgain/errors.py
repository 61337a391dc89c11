"""The one exception type the library raises for bad input or bad options."""

from __future__ import annotations


class TrecgainError(Exception):
    """Bad input or a bad request: says which file and line, or which option, is at fault."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:{self.line}: " if self.line is not None else f"{self.source}: "
        return where + self.message
