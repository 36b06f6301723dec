"""The oldest glibc a Linux build runs on: the highest GLIBC_x.y symbol version any bundled ELF file requires.

`python packaging/glibc_floor.py dist/skillmanager` prints e.g. `GLIBC_2.34 (first needed by …/libQt6Core.so.6)`.
Reads the version-needs section with `readelf -V` (binutils); glibc itself is never bundled, so the user's
glibc must provide every version listed there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

_GLIBC = re.compile(r"Name: GLIBC_(\d+(?:\.\d+)+)\b")
_ELF_MAGIC = b"\x7fELF"


def _is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == _ELF_MAGIC
    except OSError:
        return False


def required_glibc_versions(path: Path) -> set[tuple[int, ...]]:
    """GLIBC_ versions named in one ELF file's version-needs section."""
    output = subprocess.run(["readelf", "-V", "--wide", str(path)], capture_output=True, text=True, check=False).stdout
    return {tuple(int(part) for part in match.split(".")) for match in _GLIBC.findall(output)}


def glibc_floor(root: Path) -> tuple[str, str] | None:
    """(\"2.34\", file needing it) for the highest requirement under root, or None without readelf/ELF files."""
    if shutil.which("readelf") is None:
        return None
    best: tuple[tuple[int, ...], str] | None = None
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file() or not _is_elf(path):
            continue
        versions = required_glibc_versions(path)
        if versions and (best is None or max(versions) > best[0]):
            best = (max(versions), str(path.relative_to(root)))
    if best is None:
        return None
    return ".".join(map(str, best[0])), best[1]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: glibc_floor.py APP_DIR", file=sys.stderr)
        return 2
    result = glibc_floor(Path(argv[0]))
    if result is None:
        print("no ELF files found (or readelf missing)", file=sys.stderr)
        return 1
    print(f"GLIBC_{result[0]} (first needed by {result[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
