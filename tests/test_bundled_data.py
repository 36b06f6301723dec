"""A missing or broken resources/data/bundled_skills.json is said plainly (a workspace error on stderr, a
Problems row), never a registry where Claude Code's own skills silently vanished."""
from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Iterator

import pytest

from skillmanager.cli import main
from skillmanager.core.load.workspace import Workspace
from skillmanager.core.model import Severity, SourceKind
from skillmanager.core.rules.registry import load_registry
from skillmanager.core.versions import profiles

REAL_RESOURCE_PATH = profiles.resource_path


def _clear_profile_caches() -> None:
    profiles._load_bundled.cache_clear()
    profiles.profile_for.cache_clear()


@pytest.fixture
def bundled_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the profiles read bundled_skills.json from for this test (the real file is left alone)."""
    replacement = tmp_path / "bundled_skills.json"

    def resource_path(*parts: str) -> Path:
        return replacement if parts == profiles.BUNDLED_DATA else REAL_RESOURCE_PATH(*parts)

    monkeypatch.setattr(profiles, "resource_path", resource_path)
    _clear_profile_caches()
    yield replacement
    monkeypatch.undo()
    _clear_profile_caches()


def _registry(root: Path, profile: str):
    home, cwd = root / "home", root / "home" / "proj"
    cwd.mkdir(parents=True, exist_ok=True)
    return load_registry(Workspace.create(home=home, cwd=cwd, managed_root=False, profile=profile,
                                          env={"HOME": str(home)}))


@pytest.mark.parametrize("content", [None, "{not json", '{"other": {"entries": []}}', '{"current": {"entries": [{}]}}'],
                         ids=["missing", "not-json", "no-key", "malformed-entry"])
@pytest.mark.parametrize("profile", ["current", "legacy"])
def test_unusable_bundled_data_is_a_workspace_error(tmp_path, bundled_file, content, profile):
    if content is not None:
        bundled_file.write_text(content, encoding="utf-8")
    registry = _registry(tmp_path, profile)
    problems = [d for d in registry.diagnostics if d.code == "bundled-data-unreadable"]
    assert len(problems) == 1 and problems[0].severity is Severity.ERROR
    assert str(bundled_file) in problems[0].message and "left out" in problems[0].message
    assert not [s for s in registry.skills if s.source in (SourceKind.BUNDLED, SourceKind.BUILTIN_COMMAND)]


def test_the_cli_says_so_on_stderr_and_exits_1(tmp_path, bundled_file, monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    (tmp_path / "home" / "proj").mkdir(parents=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["list", "--home", str(tmp_path / "home"), "--cwd", str(tmp_path / "home" / "proj"),
                     "--no-managed"], out=out)
    assert code == 1
    assert "skillmanager: error:" in err.getvalue() and "bundled_skills.json" in err.getvalue()


def test_the_shipped_file_loads_without_a_problem(tmp_path):
    for profile in ("current", "legacy"):
        registry = _registry(tmp_path / profile, profile)
        assert not [d for d in registry.diagnostics if d.code == "bundled-data-unreadable"]
        assert any(s.source is SourceKind.BUNDLED for s in registry.skills)


def test_the_gui_lists_it_among_the_problems(tmp_path, bundled_file):
    from types import SimpleNamespace

    from skillmanager.gui import problems

    registry = _registry(tmp_path, "current")
    rows = problems.workspace_problems(SimpleNamespace(registry=registry))
    assert any(d.code == "bundled-data-unreadable" for d in rows)
