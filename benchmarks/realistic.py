"""One builder for every benchmark: a workspace made of real SKILL.md files in a realistic layout.

Layout of N skills (shares from the measured field distribution):
  10 % personal (~/.claude/skills), 10 % project (<repo>/.claude/skills at the cwd),
  75 % spread over `packages` package folders (<repo>/packages/pkgNNN/.claude/skills, passed as --add-dir),
   5 % in one --plugin-dir plugin.
Files are the real corpus (`../shared/corpus`, ~5 KB average, cycled), so package folders share skill
names (the same corpus skill appears in many packages); ~6 % carry a `name:` that differs from the folder
(a display name) and ~10 % a `when_to_use:` line. Without the corpus a generated equivalent of the same
shape is used (quoted descriptions, small nested maps, 5 KB bodies) and `corpus_note()` says so.
Also the anchors: `floor_scan` (read + CSafeLoader per file), `skills_ref_scan`.
"""
from __future__ import annotations

import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CORPUS = Path(os.environ.get("SKILLMANAGER_CORPUS", ROOT.parent / "shared" / "corpus"))
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
_NAME_LINE = re.compile(r"^name:[^\n]*\n", re.M)


def corpus_files() -> list[tuple[str, str]]:
    """(folder name, text) of every corpus SKILL.md, in a stable order; a generated set when absent."""
    found = sorted(CORPUS.rglob("SKILL.md")) if CORPUS.is_dir() else []
    if found:
        return [(p.parent.name, p.read_text(encoding="utf-8", errors="replace")) for p in found]
    return _generated()


def corpus_note() -> str:
    if CORPUS.is_dir() and any(CORPUS.rglob("SKILL.md")):
        return f"real corpus: {CORPUS} ({len(list(CORPUS.rglob('SKILL.md')))} SKILL.md)"
    return f"corpus absent at {CORPUS}: generated files of the same shape (5 KB, quoted scalars, nested maps)"


def _generated() -> list[tuple[str, str]]:
    rng = random.Random(7)
    words = ("data pipeline report chart tests review deploy schema migrate parse audit tokens docs api "
             "model cache index query invoice email slack github notion sheet").split()
    out = []
    for i in range(1000):
        name = f"{rng.choice(words)}-{rng.choice(words)}-{i}"
        desc = " ".join(rng.choice(words) for _ in range(rng.randint(12, 40))).capitalize() + "."
        style = i % 4
        if style == 0:
            fm = f'name: {name}\ndescription: "{desc} Use it (v2): always."\nrequires:\n  mcp: [rube]\n'
        elif style == 1:
            fm = f"name: {name}\ndescription: {desc}\nlicense: MIT\nmetadata:\n    skill-author: Someone\n"
        elif style == 2:
            fm = f"name: {name}\ndescription: '{desc}'\nallowed-tools: Read, Grep\n"
        else:
            fm = f"name: {name}\ndescription: {desc}\n"
        body = "\n".join(f"## Step {k}\n\n" + " ".join(rng.choice(words) for _ in range(60)) for k in range(8))
        out.append((name, f"---\n{fm}---\n\n# {name}\n\n{body}\n"))
    return out


@dataclass
class RealisticWorkspace:
    root: Path
    home: Path
    repo: Path
    cwd: Path
    add_dirs: list[Path]
    plugin: Path
    files: list[Path] = field(default_factory=list)  # every SKILL.md written

    def workspace(self, profile: str = "current"):
        from skillmanager.core.load.workspace import Workspace
        return Workspace.create(home=self.home, cwd=self.cwd, add_dirs=self.add_dirs, plugin_dirs=[self.plugin],
                                env={}, profile=profile)

    def cli_args(self) -> list[str]:
        """Workspace options for `skillmanager <command>` on this tree."""
        args = ["--home", str(self.home), "--cwd", str(self.cwd), "--plugin-dir", str(self.plugin)]
        for d in self.add_dirs:
            args += ["--add-dir", str(d)]
        return args


def build(root: Path, skills: int = 5000, packages: int = 200, seed: int = 1,
          display_share: float = 0.06) -> RealisticWorkspace:
    """Write the tree under `root` (which must be empty or absent); `display_share` of the skills get a
    `name:` that differs from their folder."""
    rng = random.Random(seed)
    source = corpus_files()
    home = root / "home"
    repo = home / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "toolkit"}', encoding="utf-8")
    pkg_dirs = [repo / "packages" / f"pkg{p:03d}" for p in range(packages)]
    for d in pkg_dirs:
        d.mkdir(parents=True, exist_ok=True)
    n_personal, n_project, n_plugin = skills // 10, skills // 10, skills // 20
    n_packages = skills - n_personal - n_project - n_plugin
    targets: list[Path] = []
    targets += [home / ".claude" / "skills"] * n_personal
    targets += [repo / ".claude" / "skills"] * n_project
    targets += [pkg_dirs[i % packages] / ".claude" / "skills" for i in range(n_packages)]
    targets += [plugin / "skills"] * n_plugin
    ws = RealisticWorkspace(root, home, repo, repo, pkg_dirs, plugin)
    used: set[Path] = set()
    for i, base in enumerate(targets):
        folder, text = source[(i * 7919 + seed) % len(source)]  # stride: neighbours differ, names recur
        folder = re.sub(r"[^a-z0-9-]", "-", folder.lower()).strip("-") or f"skill-{i}"
        skill_dir = base / folder
        if skill_dir in used:  # the same corpus file twice in one folder: a numbered sibling
            skill_dir = base / f"{folder}-{i}"
        used.add(skill_dir)
        roll = rng.random()
        text = _with_name(text, skill_dir.name if roll >= display_share else skill_dir.name.replace("-", " ").title())
        if rng.random() < 0.10:
            text = text.replace("\n---", f"\nwhen_to_use: When the user works on {skill_dir.name}.\n---", 1) \
                if text.startswith("---") else text
        skill_dir.mkdir(parents=True, exist_ok=True)
        path = skill_dir / "SKILL.md"
        path.write_text(text, encoding="utf-8")
        ws.files.append(path)
    return ws


def _with_name(text: str, name: str) -> str:
    if not text.startswith("---"):
        return text
    if _NAME_LINE.search(text, 0, text.find("\n---", 3) + 1):
        return _NAME_LINE.sub(lambda _m: f"name: {name}\n", text, count=1)
    return text.replace("---\n", f"---\nname: {name}\n", 1)


def floor_scan(files: list[Path]) -> int:
    """The floor: read every SKILL.md and parse its front matter with PyYAML's C loader, nothing else."""
    import yaml
    loader = yaml.CSafeLoader
    count = 0
    for path in files:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8")
        end = text.find("\n---", 4)
        try:
            if yaml.load(text[4:end], Loader=loader):
                count += 1
        except yaml.YAMLError:
            pass
    return count


def skills_ref_scan(files: list[Path]) -> int | None:
    """skills-ref's `read_properties` on every skill directory; None when skills-ref is not installed."""
    try:
        from skills_ref import read_properties
    except ImportError:
        return None
    count = 0
    for path in files:
        try:
            read_properties(path.parent)
            count += 1
        except Exception:  # noqa: BLE001 - the reference rejects some real names; the attempt is timed
            pass
    return count


def drop_page_cache(files: list[Path]) -> bool:
    """Evict the files from the page cache (posix_fadvise DONTNEED); False where that is unavailable."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def interleaved(named: dict[str, callable], repeat: int, before=None,
                cpu: dict[str, list[float]] | None = None) -> dict[str, list[float]]:
    """Run each callable once per round, in rotating order, `repeat` rounds; seconds per run (wall; the
    process's CPU seconds go to `cpu` when given: on a loaded machine wall time also counts the wait)."""
    names = list(named)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            if before is not None:
                before(n)
            t0, c0 = time.perf_counter(), time.process_time()
            named[n]()
            times[n].append(time.perf_counter() - t0)
            if cpu is not None:
                cpu.setdefault(n, []).append(time.process_time() - c0)
    return times


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def slope(points: list[tuple[int, float]]) -> str:
    """Growth exponent between the smallest and largest size (1.0 = linear)."""
    import math
    (n0, t0), (n1, t1) = points[0], points[-1]
    if t0 <= 0 or t1 <= 0 or n0 == n1:
        return "n/a"
    return f"{math.log(t1 / t0) / math.log(n1 / n0):.2f} (t{n1}/t{n0} = {t1 / t0:.2f} for {n1 / n0:.0f}x skills)"


def load_note() -> str:
    """How busy the machine was when the benchmark started (it may be shared): the 1-minute load average."""
    try:
        return f"load average {os.getloadavg()[0]:.2f} at the start (1 min); interleaved runs, medians"
    except (AttributeError, OSError):
        return "load average unknown; interleaved runs, medians"


MACHINE_NOTE = load_note()  # read when a benchmark starts (it imports this module first)


def machine() -> str:
    import platform
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores {cpu}, Python {platform.python_version()}"


def build_monorepo(root: Path, packages: int = 2000, per_package: int = 3, names: int = 3, seed: int = 1) -> Path:
    """A git monorepo for the simulator: `packages/pkg-NNNN/.claude/skills/<name>` with real corpus files whose
    names recur across packages (a pool of `names` names: with 3, every package has the same three, as
    lint/test/docs skills do; nested copies clash and get scoped), a root
    `.gitignore` that ignores every tenth package, nested ignores, 200 root `paths:` skills and 10 % of the
    corpus at project level (so some nested names also clash with start-up skills). Returns the repo."""
    source = corpus_files()
    pool = source[:: max(1, len(source) // names)][:names]
    home, repo = root / "home", root / "home" / "repo"
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("vendor/\n*.log\n", encoding="utf-8")
    (repo / ".gitignore").write_text("node_modules/\ndist/\n" + "".join(
        f"packages/pkg-{p:04d}/\n" for p in range(0, packages, 10)) + "!packages/pkg-0000/\n", encoding="utf-8")
    rng = random.Random(seed)
    for p in range(packages):
        pkg = repo / "packages" / f"pkg-{p:04d}"
        for k in range(per_package):
            folder, text = pool[(p * per_package + k) % len(pool)]
            d = pkg / ".claude" / "skills" / re.sub(r"[^a-z0-9-]", "-", folder.lower())
            d.mkdir(parents=True, exist_ok=True)
            (d / "SKILL.md").write_text(_with_name(text, d.name if rng.random() >= 0.06 else d.name.title()),
                                        encoding="utf-8")
        (pkg / "src" / "lib").mkdir(parents=True, exist_ok=True)
        (pkg / "src" / "lib" / "index.ts").write_text("export {};\n", encoding="utf-8")
        if p % 7 == 0:
            (pkg / ".gitignore").write_text("generated/\n", encoding="utf-8")
    for c in range(200):
        d = repo / ".claude" / "skills" / f"cond-{c:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(f'---\ndescription: "conditional {c}."\npaths: "packages/pkg-{c * 10 + 5:04d}/**, '
                                    f'**/*.{{c{c},h{c}}}"\n---\nBody {c}.\n', encoding="utf-8")
    for folder, text in pool[:max(1, len(pool) // 3)]:  # start-up skills whose names nested copies also use
        d = repo / ".claude" / "skills" / re.sub(r"[^a-z0-9-]", "-", folder.lower())
        d.mkdir(parents=True, exist_ok=True)
        (d / "SKILL.md").write_text(text, encoding="utf-8")
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    return repo


def build_or_reuse(root: Path, skills: int, packages: int = 200, display_share: float = 0.06) -> RealisticWorkspace:
    """build() unless `root` already holds a finished tree of this shape (kept with --keep)."""
    marker = root / "built.txt"
    shape = f"{skills} {packages}" + (f" {display_share}" if display_share != 0.06 else "")
    if marker.is_file() and marker.read_text() == shape:
        pkg_dirs = sorted((root / "home" / "repo" / "packages").iterdir())
        ws = RealisticWorkspace(root, root / "home", root / "home" / "repo", root / "home" / "repo", pkg_dirs,
                                root / "plugin")
        ws.files = sorted(p for base in [root / "home" / ".claude", root / "home" / "repo", root / "plugin"]
                          for p in base.rglob("SKILL.md"))
        return ws
    import shutil
    shutil.rmtree(root, ignore_errors=True)
    ws = build(root, skills, packages, display_share=display_share)
    marker.write_text(shape)
    return ws


def age_cache(cache_dir: Path, seconds: float = 5.0) -> None:
    """Date the parse cache file after the skill files, as it is when they were written well before the
    last run (a tree built seconds ago would otherwise count as racily clean and be re-read)."""
    for f in Path(cache_dir).glob("parse-*.bin"):
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + int(seconds * 1e9)))
