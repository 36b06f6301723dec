"""GUI figures for a 5,000-skill workspace: tree population, filter keystroke latency, watcher latency,
time until every audit / lint badge is shown.

    python benchmarks/gui.py [--skills 5000] [--edits 15]

Targets (issue 5): population < 1 s, filter keystroke median < 50 ms, file write → row updated median ≤ 100 ms.
Runs offscreen unless QT_QPA_PLATFORM is set.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PySide6.QtCore import QPersistentModelIndex, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def make_workspace(root: Path, count: int):
    """Half the skills in ~/.claude/skills, half in the project's .claude/skills (a git repo)."""
    from skillmanager.core.load.workspace import Workspace

    home, cwd = root / "home", root / "project"
    (cwd / ".git").mkdir(parents=True)
    for index in range(count):
        base = home if index % 2 else cwd
        folder = base / ".claude" / "skills" / f"skill-{index:05d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\ndescription: Benchmark skill {index} that handles task {index % 97} in area {index % 13}.\n---\n"
            f"Body of skill {index}.\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "SLASH_COMMAND_TOOL_CHAR_BUDGET")}
    env["HOME"] = str(home)
    return Workspace.create(home=home, cwd=cwd, managed_root=False, env=env)


def wait(app: QApplication, condition, timeout: float = 30.0) -> float:
    start = time.perf_counter()
    while not condition():
        app.processEvents()
        if time.perf_counter() - start > timeout:
            raise TimeoutError("condition not met in time")
        time.sleep(0.0005)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=15)
    options = parser.parse_args()

    from skillmanager.gui.context import AppContext
    from skillmanager.gui.engine import scan, skill_identity
    from skillmanager.gui.main_window import MainWindow
    from skillmanager.gui.models.registry_model import Role
    from skillmanager.gui.widgets.registry_panel import RegistryPanel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory(prefix="skillmanager-bench-") as temp:
        workspace = make_workspace(Path(temp), options.skills)
        start = time.perf_counter()
        snapshot = scan(workspace)
        scan_seconds = time.perf_counter() - start
        print(f"workspace: {len(snapshot.skills):,} skills (incl. bundled); engine scan + listing + tokens "
              f"(off the UI thread): {scan_seconds:.2f} s")

        # population: the real registry panel (model, sort proxy, tree view) filled from the snapshot
        settings = QSettings(str(Path(temp) / "settings.ini"), QSettings.Format.IniFormat)
        panel = RegistryPanel(AppContext(settings))
        panel.resize(500, 800)
        panel.show()
        app.processEvents()
        start = time.perf_counter()
        panel.apply_snapshot(snapshot)  # groups are expanded as they appear
        app.processEvents()
        population = time.perf_counter() - start
        print(f"population (model + view, expanded): {population * 1000:.0f} ms  [target < 1000 ms] "
              f"{'OK' if population < 1 else 'MISSED'}")

        # filter: one keystroke at a time, typed into the panel's filter box, until the view has settled
        latencies = []
        for text in ("s", "sk", "ski", "skil", "skill", "skill-", "skill-0", "skill-04", "skill-042", "skill-0421",
                     "skill-042", "skill-04", "skill-0", "skill-", "", "area 7", "task 9"):
            start = time.perf_counter()
            panel.filter_edit.setText(text)
            app.processEvents()
            latencies.append(time.perf_counter() - start)
        cleared = latencies[14]
        print(f"filter keystroke: median {statistics.median(latencies) * 1000:.1f} ms, "
              f"max {max(latencies) * 1000:.1f} ms (clearing the filter, all rows back: {cleared * 1000:.0f} ms)  "
              f"[target < 50 ms] {'OK' if statistics.median(latencies) < 0.05 else 'MISSED'}")
        panel.close()

        # watcher: a real window, a real file write, until the row shows the new text
        context = AppContext(settings)
        window = MainWindow(context, watch=True)
        window.resize(1400, 850)
        window.show()
        badges_started = time.perf_counter()
        context.set_workspace(workspace)
        wait(app, lambda: context.snapshot is not None and window.watcher.mode in ("inotify",)
             or window.watcher.mode.startswith("polling"), timeout=120)
        wait(app, lambda: False if context.scanning else True)
        with_files = sum(1 for s in context.snapshot.skills if s.path is not None)
        wait(app, lambda: len(context.checks) >= with_files, timeout=300)
        print(f"audit + lint badges for {with_files:,} skill files (off the UI thread, throttled; scan included): "
              f"{time.perf_counter() - badges_started:.1f} s; a rescan re-reads only changed files")
        time.sleep(0.5)  # let the watch thread settle on its folders
        app.processEvents()
        print(f"watching {len(window.watcher.watched):,} folders ({window.watcher.mode})")
        panel_model = window.registry_panel.model
        if os.environ.get("BENCH_DEBUG"):
            window.watcher.changed.connect(lambda p: print("changed", time.perf_counter(), sorted(p)[:1]))
            context.snapshot_changed.connect(lambda s: print("snapshot", time.perf_counter(), s.generation))
            context.rows_changed.connect(lambda s, d: print("rows", time.perf_counter(), s.generation))
        targets = [s for s in context.snapshot.skills if s.path is not None][: options.edits * 7: 7]
        edit_latencies = []
        for round_index, skill in enumerate(targets[: options.edits]):
            index = QPersistentModelIndex(panel_model.index_for_identity(skill_identity(skill)))
            marker = f"edited {round_index}"
            text = skill.path.read_text(encoding="utf-8").replace("Benchmark skill", f"Benchmark skill {marker}", 1)
            start = time.perf_counter()
            skill.path.write_text(text, encoding="utf-8")
            if os.environ.get("BENCH_DEBUG"):
                print("write", start)
            wait(app, lambda: marker in (index.data(Role.Skill).description if index.isValid() else ""))
            edit_latencies.append(time.perf_counter() - start)
            wait(app, lambda: not context.scanning)  # the listing catches up before the next edit
        median = statistics.median(edit_latencies)
        print(f"watcher, file write → row updated: median {median * 1000:.0f} ms, "
              f"max {max(edit_latencies) * 1000:.0f} ms over {len(edit_latencies)} edits  [target median ≤ 100 ms] "
              f"{'OK' if median <= 0.1 else 'MISSED'}")
        window.close()
        context.wait_for_scans(10000)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
