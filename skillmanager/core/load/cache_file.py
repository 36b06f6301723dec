"""The file format of skillmanager's own caches (the parse cache, the stored answers of commands): plain Python
values in marshal's format, behind a header that names the format and the Python that wrote it, the length and
a CRC-32 of the rest.

marshal writes and reads these values faster than json (a 5,000-skill first run's parse cache: ~8 ms against ~20
to write, ~11 against ~24 to read) and gives each one back exactly as it was (a tuple stays a tuple, a
key stays an int). It runs no code on load (pickle would), but it is not meant for bytes it did not write, so
marshal sees a file only once the header, length and checksum say it is one this Python wrote whole: a file cut
short, changed, written by another Python (whose marshal may differ) or by an older skillmanager is refused
(ValueError), and the cache is rebuilt.

The checks find damage, not forgery. These files are the app's own state, in the user's own cache folder
(written 0600): whoever can write them already decides what they say, JSON or not. A forged parse or audit
cache could show a skill's front matter or verdict other than its file's. A forged file can also make marshal
allocate and walk huge lists, for a long time. That takes the user's own rights, which also reach the user's
shell start-up, so the format does not defend against it (docs/limits.md).
"""
from __future__ import annotations

import marshal
import struct
import sys
import zlib
from typing import Any, BinaryIO

MAGIC = b"skillmgr"
# marshal's format 2: no back-references (from 3 on, every object another one also holds goes into a table as it is
# written: ~60 % more time for a parse cache whose strings the loaded skills share)
MARSHAL_FORMAT = 2
_WRITER = (MARSHAL_FORMAT << 16) | (sys.version_info[0] << 8) | sys.version_info[1]
_HEADER = struct.Struct("<8sIIQ")  # magic, writer (marshal format and Python version), CRC-32, length


def dumps(value: Any) -> bytes:
    """The file's bytes; ValueError when `value` holds something marshal cannot write (a date, an object)."""
    return b"".join(_parts(value))


def write(handle: BinaryIO, value: Any) -> None:
    """Write the file's bytes to `handle` (without joining them: a big cache is not copied once more);
    ValueError as dumps, before anything is written."""
    for part in _parts(value):
        handle.write(part)


def _parts(value: Any) -> tuple[bytes, bytes]:
    body = marshal.dumps(value, MARSHAL_FORMAT)
    return _HEADER.pack(MAGIC, _WRITER, zlib.crc32(body), len(body)), body


def can_hold(value: Any) -> bool:
    """Whether `dumps` can write `value` (and so give it back exactly)."""
    try:
        marshal.dumps(value, MARSHAL_FORMAT)
    except ValueError:
        return False
    return True


def loads(data: bytes) -> Any:
    """The value `dumps` wrote; ValueError saying why when `data` is not such a file whole (see the module's
    docstring)."""
    if len(data) < _HEADER.size:
        raise ValueError("not a skillmanager cache file")
    magic, writer, crc, length = _HEADER.unpack_from(data)
    view = memoryview(data)[_HEADER.size:]
    if magic != MAGIC:
        raise ValueError("not a skillmanager cache file")
    if writer != _WRITER:
        raise ValueError("written by another Python")
    if length != len(view) or zlib.crc32(view) != crc:
        raise ValueError("cut short or changed since it was written")
    try:
        return marshal.loads(view)
    except (EOFError, TypeError, MemoryError, RecursionError) as error:  # (a checked file never gets here)
        raise ValueError(f"unreadable ({type(error).__name__})") from None
