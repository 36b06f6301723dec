"""Regular expressions compiled on first use.

The `regex` module (Unicode properties, grapheme clusters) costs ~10 ms to import and its property
classes more to compile; a command that never meets the text needing them (`skillmanager list` on
ASCII descriptions) should not pay for them at start-up.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterator


class LazyPattern:
    """Stands for `regex.compile(pattern, flags)` (or `re` with `module="re"`): the pattern is compiled the
    first time one of its methods is asked for, and each method is then kept on the object."""

    __slots__ = ("_pattern", "_flags", "_module", "_compiled", "__dict__")

    def __init__(self, pattern: str, flags: int = 0, *, module: str = "regex") -> None:
        self._pattern = pattern
        self._flags = flags
        self._module = module
        self._compiled = None

    def compiled(self) -> Any:
        if self._compiled is None:
            engine = __import__(self._module)
            self._compiled = engine.compile(self._pattern, self._flags)
        return self._compiled

    if TYPE_CHECKING:  # what __getattr__ hands out, as the checker should see it (`regex` matches alike)
        def search(self, string: str, pos: int = 0, endpos: int = ...) -> re.Match[str] | None: ...
        def match(self, string: str, pos: int = 0, endpos: int = ...) -> re.Match[str] | None: ...
        def fullmatch(self, string: str, pos: int = 0, endpos: int = ...) -> re.Match[str] | None: ...
        def finditer(self, string: str, pos: int = 0, endpos: int = ...) -> Iterator[re.Match[str]]: ...
        def findall(self, string: str, pos: int = 0, endpos: int = ...) -> list[Any]: ...
        def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str: ...
        def split(self, string: str, maxsplit: int = 0) -> list[str]: ...

    def __getattr__(self, name: str) -> Any:  # only for names not yet kept (match, search, sub, …)
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value
        return value


DOTALL = 0x10  # regex.DOTALL == re.DOTALL, without importing either


def lazy_re(pattern: str, flags: int = 0) -> LazyPattern:
    """`re.compile(pattern, flags)` on first use (large Unicode classes take a millisecond or more each)."""
    return LazyPattern(pattern, flags, module="re")
