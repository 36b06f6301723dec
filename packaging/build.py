"""Build the double-clickable app: `python packaging/build.py`.

Runs PyInstaller on packaging/skillmanager.spec (onedir) and packs the result for the host platform:
- Linux:   dist/skillmanager/ (+ .desktop file, icon, install-desktop-entry.sh) -> dist/skillmanager-<v>-linux-<arch>.tar.gz
- macOS:   dist/skillmanager.app                                              -> dist/skillmanager-<v>-macos-<arch>.zip
- Windows: dist/skillmanager/ (skillmanager.exe GUI + skillmanager-cli.exe)   -> dist/skillmanager-<v>-windows-<arch>.zip
Prints the build time and sizes, and with --summary-json writes them as JSON (used by tests/test_packaging.py).
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

PACKAGING = Path(__file__).resolve().parent
REPO = PACKAGING.parent
SPEC = PACKAGING / "skillmanager.spec"
LINUX_EXTRAS = PACKAGING / "linux"
APP_ICON_PNG = REPO / "resources" / "icons" / "app" / "skillmanager-256.png"


def project_version() -> str:
    text = (REPO / "skillmanager" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


def platform_tag() -> str:
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64"}.get(machine, machine)
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"{system}-{arch}"


def frozen_executable(dist: Path) -> Path:
    """The binary to run from a terminal (CLI and --smoke-test): on Windows the console twin of the GUI exe."""
    if sys.platform == "win32":
        return dist / "skillmanager" / "skillmanager-cli.exe"
    if sys.platform == "darwin":
        return dist / "skillmanager.app" / "Contents" / "MacOS" / "skillmanager"
    return dist / "skillmanager" / "skillmanager"


def tree_size(path: Path) -> int:
    """Bytes of all regular files under path (symlinks not followed, counted once)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def run_pyinstaller(dist: Path, work: Path, clean: bool) -> None:
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work), str(SPEC)]
    if clean:
        command.insert(3, "--clean")
    subprocess.run(command, check=True, cwd=REPO)


def add_linux_desktop_files(app_dir: Path) -> None:
    """Ship the .desktop template, its icon and the script that registers them for the current user."""
    shutil.copy2(LINUX_EXTRAS / "skillmanager.desktop", app_dir / "skillmanager.desktop")
    shutil.copy2(LINUX_EXTRAS / "install-desktop-entry.sh", app_dir / "install-desktop-entry.sh")
    (app_dir / "install-desktop-entry.sh").chmod(0o755)
    shutil.copy2(APP_ICON_PNG, app_dir / "skillmanager.png")


def _normalised(info: tarfile.TarInfo) -> tarfile.TarInfo:
    # Archive members carry no build-host user names.
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def make_tar_gz(source_dir: Path, archive: Path) -> None:
    # gzip level 6: level 9 takes 3.5x as long here for 0.4% less size.
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(source_dir, arcname=source_dir.name, filter=_normalised)


def make_zip(source: Path, archive: Path) -> None:
    if sys.platform == "darwin":
        # ditto keeps the .app's framework symlinks and extended attributes; zipfile would not.
        subprocess.run(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(source), str(archive)], check=True)
        return
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path in sorted(source.rglob("*")):
            zf.write(path, path.relative_to(source.parent).as_posix())


def build(dist: Path, work: Path, *, archive: bool = True, clean: bool = False) -> dict:
    version = project_version()
    started = time.perf_counter()
    run_pyinstaller(dist, work, clean)
    build_seconds = time.perf_counter() - started

    app_dir = dist / "skillmanager"
    bundle = dist / "skillmanager.app" if sys.platform == "darwin" else app_dir
    if sys.platform.startswith("linux"):
        add_linux_desktop_files(app_dir)
    summary = {
        "version": version,
        "platform": platform_tag(),
        "app_dir": str(bundle),
        "executable": str(frozen_executable(dist)),
        "build_seconds": round(build_seconds, 1),
        "onedir_bytes": tree_size(bundle),
    }
    if sys.platform.startswith("linux"):
        from glibc_floor import glibc_floor  # sibling module: this script's folder is on sys.path

        floor = glibc_floor(bundle)
        summary["glibc_floor"] = floor[0] if floor else None
        summary["glibc_floor_set_by"] = floor[1] if floor else None
    if archive:
        stem = f"skillmanager-{version}-{platform_tag()}"
        path = dist / (stem + (".tar.gz" if sys.platform.startswith("linux") else ".zip"))
        path.unlink(missing_ok=True)
        (make_tar_gz if path.name.endswith(".tar.gz") else make_zip)(bundle, path)
        summary["archive"] = str(path)
        summary["archive_bytes"] = path.stat().st_size
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=REPO / "dist", help="output folder (default: <repo>/dist)")
    parser.add_argument("--work", type=Path, default=REPO / "build", help="PyInstaller work folder (default: <repo>/build)")
    parser.add_argument("--no-archive", action="store_true", help="stop after the onedir build")
    parser.add_argument("--clean", action="store_true", help="empty PyInstaller's cache first")
    parser.add_argument("--summary-json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    summary = build(args.dist.resolve(), args.work.resolve(), archive=not args.no_archive, clean=args.clean)
    mib = 1024 * 1024
    print(f"built {summary['app_dir']} in {summary['build_seconds']} s: onedir {summary['onedir_bytes'] / mib:.1f} MiB")
    if "archive" in summary:
        print(f"archive {summary['archive']}: {summary['archive_bytes'] / mib:.1f} MiB")
    if summary.get("glibc_floor"):
        print(f"needs glibc >= {summary['glibc_floor']} (highest requirement: {summary['glibc_floor_set_by']})")
    if args.summary_json:
        args.summary_json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
