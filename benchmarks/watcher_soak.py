"""Watcher soak: churn skill files under a watched workspace for a while, then compare the app's tree with a
fresh scan and say what happened to memory.

    python benchmarks/watcher_soak.py [--skills 300] [--seconds 60] [--rate 10000] [--corpus ../shared/corpus]

The workspace holds real SKILL.md files from the corpus (cycled). The churn rewrites descriptions, adds
skills and removes them at about `--rate` file events a minute while a real MainWindow watches and
refreshes. Printed: RSS and live `Skill` objects after the first scan (the anchor) and after the churn,
with the ratio, and whether the final tree equals a fresh scan of the same files. Not a test: figures only.
Runs offscreen unless QT_QPA_PLATFORM is set.
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def rss_mb() -> float:
    """Resident set size now (Linux /proc), else the peak from getrusage."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def live_skills() -> int:
    from skillmanager.core.model import Skill

    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, Skill))


def make_workspace(root: Path, corpus: Path, count: int):
    from skillmanager.core.load.workspace import Workspace

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("SKILL.md"))]
    if not texts:
        raise SystemExit(f"no SKILL.md under {corpus}")
    home, cwd = root / "home", root / "project"
    (cwd / ".git").mkdir(parents=True)
    for index in range(count):
        base = home if index % 2 else cwd
        folder = base / ".claude" / "skills" / f"soak-{index:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(texts[index % len(texts)], encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "SLASH_COMMAND_TOOL_CHAR_BUDGET")}
    env["HOME"] = str(home)
    return Workspace.create(home=home, cwd=cwd, managed_root=None, env=env), texts


def wait(app: QApplication, condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def settle(app: QApplication, context, quiet: float = 3.0, timeout: float = 120.0) -> None:
    """Until no scan has run for `quiet` seconds (the watcher's debounce and the last rescan are done)."""
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    generation = getattr(context.snapshot, "generation", None)
    while time.monotonic() < deadline:
        app.processEvents()
        current = getattr(context.snapshot, "generation", None)
        if context.scanning or current != generation:
            generation, quiet_since = current, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet:
            return
        time.sleep(0.02)


def tree_rows(model) -> set[tuple]:
    from PySide6.QtCore import QModelIndex

    from skillmanager.gui.engine import skill_identity
    from skillmanager.gui.models.registry_model import Role

    rows = set()
    for g in range(model.rowCount(QModelIndex())):
        group = model.index(g, 0, QModelIndex())
        for r in range(model.rowCount(group)):
            skill = model.index(r, 0, group).data(Role.Skill)
            if skill is not None:
                rows.add((skill_identity(skill), skill.description))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rate", type=int, default=10_000, help="file events a minute")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    options = parser.parse_args()

    from skillmanager.gui.context import AppContext
    from skillmanager.gui.engine import scan, skill_identity
    from skillmanager.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="skillmanager-soak-") as temp:
        workspace, texts = make_workspace(Path(temp), options.corpus, options.skills)
        context = AppContext(QSettings(str(Path(temp) / "settings.ini"), QSettings.Format.IniFormat))
        window = MainWindow(context, watch=True)
        window.show()
        context.set_workspace(workspace)
        wait(app, lambda: context.snapshot is not None, timeout=300)
        settle(app, context)
        rss_before, skills_before = rss_mb(), live_skills()
        print(f"workspace: {len(context.snapshot.skills):,} skills from {options.corpus}; watcher {window.watcher.mode}")
        print(f"anchor (after the first scan): RSS {rss_before:.0f} MB, live Skill objects {skills_before:,}")

        dirs = sorted(p.parent for p in Path(temp).rglob("SKILL.md"))
        extra: list[Path] = []
        interval = 60.0 / max(1, options.rate)
        events = 0
        start = time.monotonic()
        next_event = start
        while time.monotonic() - start < options.seconds:
            now = time.monotonic()
            while next_event <= now:
                roll = rng.random()
                if roll < 0.8:  # rewrite a description
                    folder = rng.choice(dirs)
                    (folder / "SKILL.md").write_text(
                        f"---\ndescription: soak edit {events} of {folder.name}\n---\nbody {events}\n", encoding="utf-8")
                elif roll < 0.9 or not extra:  # add a skill
                    folder = rng.choice(dirs).parent / f"soak-new-{events}"
                    folder.mkdir(exist_ok=True)
                    (folder / "SKILL.md").write_text(texts[events % len(texts)], encoding="utf-8")
                    extra.append(folder)
                else:  # remove an added one
                    shutil.rmtree(extra.pop(rng.randrange(len(extra))), ignore_errors=True)
                events += 1
                next_event += interval
            app.processEvents()
            time.sleep(0.002)
        elapsed = time.monotonic() - start
        settle(app, context)
        rss_after, skills_after = rss_mb(), live_skills()
        fresh = scan(workspace)
        fresh_rows = {(skill_identity(s), s.description) for s in fresh.skills}
        shown = tree_rows(window.registry_panel.model)
        equal = fresh_rows == shown
        print(f"churn: {events:,} file events in {elapsed:.0f} s ({events / elapsed * 60:,.0f} a minute)")
        print(f"after: RSS {rss_after:.0f} MB ({rss_after / rss_before:.2f}x the anchor), live Skill objects "
              f"{skills_after:,} ({skills_after / max(1, skills_before):.2f}x; snapshot has {len(fresh.skills):,})")
        print(f"final tree equals a fresh scan: {'yes' if equal else 'NO'}"
              + ("" if equal else f" ({len(fresh_rows - shown)} rows missing, {len(shown - fresh_rows)} stale)"))
        window.close()
        return 0 if equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
