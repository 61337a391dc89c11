"""`Record`: the small value classes of the registry and the parsers.  dataclasses would do,
but importing them costs the command line ~10 ms of start-up (through `inspect`)."""

from __future__ import annotations


class Record:
    """Fields named in `__slots__`, set from positional or keyword arguments (`DEFAULTS` for
    those left out); equal, hashed and shown by value."""

    __slots__ = ()
    DEFAULTS: dict = {}

    def __init__(self, *args: object, **kwargs: object) -> None:
        names = self.__slots__
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} arguments")
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        for name, value in zip(names, args):
            if name in kwargs:
                raise TypeError(f"{type(self).__name__} got {name!r} twice")
            object.__setattr__(self, name, value)
        for name in names[len(args):]:
            if name in kwargs:
                value = kwargs[name]
            elif name in self.DEFAULTS:
                value = self.DEFAULTS[name]
                value = list(value) if isinstance(value, list) else value  # each record its own list
            else:
                raise TypeError(f"{type(self).__name__} needs {name!r}")
            object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values() == self._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"
