"""Rules that several parts of the engine apply give one answer: `paths:` splitting (loader and checks) and
localeCompare order (user skills, plugin skills)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillmanager.core.checks.validate import lint_claude_code
from skillmanager.core.js.collation import locale_compare_key
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.rules.path_patterns import parse_paths
from skillmanager.core.rules.registry import load_registry


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# cli.js fn6 splits on commas outside braces: a `}` before any `{` leaves the comma inside (the
# recorded golden '}a,b{' stays one pattern); list items are comma-split too.
@pytest.mark.parametrize("value,expected", [
    ("a},b", ["a},b"]),
    (["a,b"], ["a", "b"]),
    ("./x, b", ["./x", "b"]),
    (["./{x,y}"], ["./x", "./y"]),
])
def test_paths_are_split_the_same_by_the_loader_and_the_checks(tmp_path, value, expected):
    assert parse_paths(value) == expected
    home, cwd = tmp_path / "home", tmp_path / "home" / "proj"
    skill_md = _write(cwd / ".claude" / "skills" / "s" / "SKILL.md",
                      f"---\ndescription: S.\npaths: {json.dumps(value)}\n---\nbody\n")
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=False, profile="current",
                                              env={"HOME": str(home)}))
    skill = next(s for s in registry.skills if s.name == "s")
    assert skill.paths == expected
    # the checks warn about each `./` pattern (paths are relative to the cwd): the same split
    checked = [d.message for d in lint_claude_code(skill_md, profile=registry.profile) if d.code == "paths-never-match"]
    warned = [p for p in expected if any(repr(p) in m for m in checked)]
    assert warned == [p for p in expected if p.startswith("./")] and len(checked) == len(warned)


NAMES = ["cafg", "café", "cafe", "a b", "ab", "a-b", "A", "a"]


def test_user_and_plugin_skills_share_one_locale_compare_order(tmp_path):
    home, cwd, plugin = tmp_path / "home", tmp_path / "home" / "proj", tmp_path / "plug"
    _write(plugin / ".claude-plugin" / "plugin.json", json.dumps({"name": "plug"}))
    for name in NAMES:
        _write(home / ".claude" / "skills" / name / "SKILL.md", f"---\ndescription: {name}.\n---\nbody\n")
        _write(plugin / "skills" / name / "SKILL.md", f"---\ndescription: {name}.\n---\nbody\n")
    cwd.mkdir(parents=True)
    registry = load_registry(Workspace.create(home=home, cwd=cwd, managed_root=False, plugin_dirs=[plugin],
                                              profile="current", env={"HOME": str(home)}))
    expected = sorted(NAMES, key=lambda n: (locale_compare_key(n), n))
    user = [s.name for s in registry.skills if s.source.value == "user"]
    # plugin skill names are made safe (`café` → `plug:caf-`): the folders are what is sorted
    plugin_names = [s.skill_dir.name for s in registry.skills if s.source.value == "plugin-skill" and s.skill_dir]
    assert user == expected
    assert plugin_names == expected
    assert expected.index("café") < expected.index("cafg")  # é sorts with e, not after z


def test_no_private_name_is_imported_from_another_module():
    """A helper another module needs is part of its module's interface: public, named for what it does."""
    import ast

    package = Path(__file__).resolve().parents[1] / "skillmanager"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("skillmanager")):
                found += [f"{path.relative_to(package)}:{node.lineno} {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == []
