"""Read the set of paths tracked in a git index (``.git/index``), without git.

Why: Claude Code runs ``git check-ignore <dir>`` *without* ``--no-index``, and git never reports a
pathspec as ignored when it matches an index entry (builtin/check-ignore.c:
``find_pathspecs_matching_against_index(..., PS_HEED_SKIP_WORKTREE)``). A directory "matches" when
any entry lies below it, so an ignored dir holding one ``git add -f`` file is *not* ignored.

Only entry paths are parsed (format: git's Documentation/technical/index-format.txt):

* versions 2, 3 (extended flags: skip-worktree / intent-to-add — both still count as tracked,
  git heeds skip-worktree here) and 4 (path prefix compression);
* SHA-1 and SHA-256 repositories (entry size depends on the hash width);
* extensions are skipped by header, except ``link`` (split index: the shared index's entries minus
  its delete bitmap, plus ours) and unknown *lowercase* (mandatory) ones, on which git dies;
* sparse-index directory entries (``dir/``, mode 040000) are kept as :attr:`TrackedPaths.sparse_dirs`:
  git expands them from tree objects, which we do not read.

The trailing checksum is **not** verified: git itself skips that check on every read except in
``git fsck`` (read-cache.c ``verify_index_checksum`` defaults to 0), so an index with a bad checksum
works for ``git check-ignore`` and must work here too.

Where git dies (``fatal:`` → exit 128, which Claude Code treats as "not ignored") the result carries
``fatal`` with git's message. A truncated entry table is not fatal for git (it reads the entries it
can; verified with git 2.39): we keep the complete entries and add a diagnostic. Nothing here raises.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["TrackedPaths", "parse_index", "read_index", "IndexCache", "object_hash_size"]

_S_IFMT = 0o170000
_S_IFDIR = 0o040000
_S_IFGITLINK = 0o160000
_CE_EXTENDED = 0x4000
_CE_NAMEMASK = 0x0FFF


@dataclass
class TrackedPaths:
    """Paths in one index. ``dirs`` (every leading directory of an entry) is built on first use."""

    version: int | None = None
    files: frozenset[str] = frozenset()  # entry paths (files, symlinks, gitlinks; any stage)
    gitlinks: frozenset[str] = frozenset()  # submodule paths (mode 160000)
    sparse_dirs: tuple[str, ...] = ()  # sparse-index directory entries, without the trailing "/"
    diagnostics: tuple[str, ...] = ()
    fatal: str | None = None  # git's message when git would die reading this index
    ordered: tuple[str, ...] = field(default=(), repr=False)  # entry order, for split-index bitmaps
    _dirs: frozenset[str] | None = field(default=None, repr=False)

    @property
    def dirs(self) -> frozenset[str]:
        if self._dirs is None:
            out: set[str] = set()
            for path in (*self.files, *self.sparse_dirs):
                cut = path.rfind("/")
                while cut > 0:
                    d = path[:cut]
                    if d in out:
                        break  # its ancestors are already in
                    out.add(d)
                    cut = path.rfind("/", 0, cut)
            out.update(self.sparse_dirs)
            self._dirs = frozenset(out)
        return self._dirs

    def matches(self, rel: str) -> bool:
        """Does the pathspec ``rel`` (repo-relative, no trailing slash) match an entry? Literal only."""
        if rel in self.files or rel in self.dirs:
            return True
        if not self.sparse_dirs:
            return False
        # inside a sparse dir: git would expand the tree there; we cannot, so assume tracked
        sparse = set(self.sparse_dirs)
        cut = rel.find("/")
        while cut > 0:
            if rel[:cut] in sparse:
                return True
            cut = rel.find("/", cut + 1)
        return False

    def submodule_containing(self, rel: str) -> str | None:
        """The gitlink that ``rel`` is strictly inside (git dies: "Pathspec ... is in submodule")."""
        if not self.gitlinks:
            return None
        cut = rel.find("/")
        while cut > 0:
            if rel[:cut] in self.gitlinks:
                return rel[:cut]
            cut = rel.find("/", cut + 1)
        return None


def _decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    """git varint.c decode_varint (offset encoding): returns (value, new position)."""
    c = data[pos]
    pos += 1
    val = c & 127
    while c & 128:
        val += 1
        c = data[pos]
        pos += 1
        val = (val << 7) + (c & 127)
    return val, pos


def _ewah_bits(data: bytes, pos: int) -> tuple[set[int], int]:
    """Decode one EWAH bitmap (ewah/ewah_io.c): the set bit positions and the bytes consumed."""
    _bit_size, words = struct.unpack_from(">II", data, pos)
    pos += 8
    buf = struct.unpack_from(f">{words}Q", data, pos)
    pos += 8 * words + 4  # words + rlw position
    bits: set[int] = set()
    i = base = 0
    while i < words:
        rlw = buf[i]
        run_len = (rlw >> 1) & 0xFFFFFFFF
        literals = rlw >> 33
        if rlw & 1:
            bits.update(range(base, base + run_len * 64))
        base += run_len * 64
        for w in buf[i + 1 : i + 1 + literals]:
            while w:
                low = w & -w
                bits.add(base + low.bit_length() - 1)
                w ^= low
            base += 64
        i += 1 + literals
    return bits, pos


def parse_index(data: bytes, *, hash_size: int = 20, git_dir: str | os.PathLike[str] | None = None,
                _depth: int = 0) -> TrackedPaths:
    """Parse index bytes. ``git_dir`` is where a split index's ``sharedindex.*`` lives."""
    if len(data) < 12 + hash_size:
        return TrackedPaths(fatal="index file smaller than expected")
    sig, version, count = struct.unpack_from(">4sII", data, 0)
    if sig != b"DIRC":
        return TrackedPaths(fatal=f"bad signature 0x{int.from_bytes(sig, 'little'):08x}: index file corrupt")
    if version not in (2, 3, 4):
        return TrackedPaths(fatal=f"bad index version {version}: index file corrupt")
    diags: list[str] = []
    names: list[str] = []
    order: list[str] = []  # every named entry in index order (split-index delete bitmap positions)
    gitlinks: set[str] = set()
    sparse: list[str] = []
    end = len(data) - hash_size  # entries and extensions stop before the trailing hash
    flags_at = 40 + hash_size  # ctime, mtime, dev, ino, mode, uid, gid, size (40 bytes) + object id
    pos = 12
    prev = b""
    try:
        for n in range(count):
            if pos + flags_at + 2 > end:
                diags.append(f"index truncated: {n} of {count} entries readable")
                break
            mode = struct.unpack_from(">I", data, pos + 24)[0]
            flags = struct.unpack_from(">H", data, pos + flags_at)[0]
            name_at = pos + flags_at + 2
            if flags & _CE_EXTENDED:
                name_at += 2
            if version == 4:
                strip, name_at = _decode_varint(data, name_at)
                stop = data.find(b"\0", name_at, end)
                if stop < 0:
                    diags.append(f"index truncated: {n} of {count} entries readable")
                    break
                if strip > len(prev):
                    return TrackedPaths(version, fatal="malformed name field in the index, near path "
                                        f"'{prev.decode('utf-8', 'replace')}'")
                name = prev[: len(prev) - strip] + data[name_at:stop]
                prev = name
                pos = stop + 1
            else:
                length = flags & _CE_NAMEMASK
                stop = data.find(b"\0", name_at, end) if length == _CE_NAMEMASK else name_at + length
                if stop < 0 or stop > end:
                    diags.append(f"index truncated: {n} of {count} entries readable")
                    break
                name = data[name_at:stop]
                pos += ((name_at - pos) + (stop - name_at) + 8) & ~7  # NUL padding to 8 bytes
            if not name:
                continue  # split index: a replaced entry keeps the shared entry's name
            path = name.decode("utf-8", "surrogateescape")
            order.append(path)
            kind = mode & _S_IFMT
            if kind == _S_IFDIR:
                sparse.append(path.rstrip("/"))
                continue
            if kind == _S_IFGITLINK:
                gitlinks.add(path)
            names.append(path)
        else:
            shared = _read_extensions(data, pos, end, hash_size, git_dir, _depth, diags)
            if isinstance(shared, str):
                return TrackedPaths(version, fatal=shared, diagnostics=tuple(diags))
            if shared is not None:
                base, deleted = shared
                kept = [p for i, p in enumerate(base.ordered) if i not in deleted and p[-1:] != "/"]
                names.extend(kept)
                gitlinks.update(base.gitlinks.intersection(kept))
                sparse.extend(base.sparse_dirs)
                diags.extend(base.diagnostics)
    except (struct.error, IndexError) as exc:  # defensive: bytes ran out mid-field
        diags.append(f"index truncated ({exc}): {len(names)} of {count} entries readable")
    return TrackedPaths(version, frozenset(names), frozenset(gitlinks), tuple(sparse), tuple(diags),
                        ordered=tuple(order) if _depth else ())


# a split index's shared part: (its entries, the positions the delete bitmap removes)
_Shared = tuple["TrackedPaths", set[int]]


def _read_extensions(data: bytes, pos: int, end: int, hash_size: int, git_dir: str | os.PathLike[str] | None,
                     depth: int, diags: list[str]) -> str | _Shared | None:
    """Skip extensions; returns a fatal message, (shared TrackedPaths, deleted positions) or None."""
    shared: _Shared | None = None
    while pos + 8 <= end:
        sig, size = struct.unpack_from(">4sI", data, pos)
        body = pos + 8
        if body + size > end:
            diags.append(f"index extension {sig!r} truncated; ignored")
            break
        if sig == b"link":
            link = _read_link(data, body, size, hash_size, git_dir, depth, diags)
            if isinstance(link, str):
                return link
            shared = link
        elif sig == b"sdir" or b"A"[0] <= sig[0] <= b"Z"[0]:
            pass  # sparse-dir marker / optional extensions (TREE, REUC, UNTR, FSMN, EOIE, IEOT)
        else:
            return f"index uses {sig.decode('latin-1')} extension, which we do not understand"
        pos = body + size
    return shared


def _read_link(data: bytes, body: int, size: int, hash_size: int, git_dir: str | os.PathLike[str] | None,
               depth: int, diags: list[str]) -> str | _Shared | None:
    """Split index (``link``): load ``sharedindex.<hex>`` and its delete bitmap."""
    oid = data[body : body + hash_size].hex()
    if set(oid) == {"0"}:
        return None
    deleted: set[int] = set()
    if size > hash_size:
        deleted, _ = _ewah_bits(data, body + hash_size)
    if git_dir is None or depth > 0:
        diags.append("split index: shared index not read; its entries are not counted")
        return None
    shared_path = Path(git_dir) / f"sharedindex.{oid}"
    try:
        shared_bytes = shared_path.read_bytes()
    except OSError as exc:
        return f"{shared_path}: index file open failed: {exc.strerror or exc}"
    base = parse_index(shared_bytes, hash_size=hash_size, git_dir=git_dir, _depth=depth + 1)
    if base.fatal:
        return f"{shared_path}: {base.fatal}"
    return base, deleted


def object_hash_size(common_dir: str | os.PathLike[str] | None) -> int:
    """20 (SHA-1) unless the repo config says ``[extensions] objectFormat = sha256``."""
    if common_dir is None:
        return 20
    try:
        text = (Path(common_dir) / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 20
    return 32 if re.search(r"(?im)^\s*objectformat\s*=\s*\"?sha256\"?\s*$", text) else 20


def read_index(index_file: str | os.PathLike[str], *, hash_size: int = 20) -> TrackedPaths:
    """Read and parse an index file. A missing file is an empty index (a fresh repository)."""
    try:
        data = Path(index_file).read_bytes()
    except FileNotFoundError:
        return TrackedPaths()
    except OSError as exc:  # git: "fatal: .git/index: index file open failed: ..."
        return TrackedPaths(fatal=f"{index_file}: index file open failed: {exc.strerror or exc}")
    return parse_index(data, hash_size=hash_size, git_dir=Path(index_file).parent)


class IndexCache:
    """The tracked paths of one index file, re-read only when its (mtime, size, inode) changes."""

    def __init__(self, index_file: str | os.PathLike[str], *, hash_size: int = 20) -> None:
        self.index_file = os.fspath(index_file)
        self.hash_size = hash_size
        self._stamp: tuple[int, int, int] | None = None
        self._value = TrackedPaths()
        self.reads = 0  # how many times the file was parsed (tests/benchmarks)

    def get(self) -> TrackedPaths:
        try:
            st = os.stat(self.index_file)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if stamp is None:
            self._stamp, self._value = None, TrackedPaths()
        elif stamp != self._stamp:
            self._value = read_index(self.index_file, hash_size=self.hash_size)
            self._stamp = stamp
            self.reads += 1
        return self._value
